package main

import (
	"math/bits"
	"os"
	"path/filepath"

	"github.com/ncruces/go-sqlite3"
	"github.com/tetratelabs/wazero"
)

// useSQLiteCompileCache keeps the compiled SQLite engine on disk. SQLite
// runs as WebAssembly (ncruces/go-sqlite3), which wazero compiles to
// machine code when the first database opens: about a second on every
// start. With a compilation cache, later starts load it in ~25 ms (measured
// on the 105K-chunk man-page knowledge base: core.Open 1.0 s -> 25 ms). It
// must run before the first database is opened; failing, it changes
// nothing.
func useSQLiteCompileCache() {
	dir := ""
	if h := os.Getenv("CAIRN_HOME"); h != "" {
		dir = filepath.Join(h, "cache", "wazero")
	} else if c, err := os.UserCacheDir(); err == nil {
		dir = filepath.Join(c, "cairn", "wazero")
	} else {
		return
	}
	cache, err := wazero.NewCompilationCacheWithDir(dir)
	if err != nil {
		return
	}
	// The same memory limit go-sqlite3 sets when left to its defaults.
	pages := uint32(512) // 32 MB
	if bits.UintSize >= 64 {
		pages = 4096 // 256 MB
	}
	sqlite3.RuntimeConfig = wazero.NewRuntimeConfig().WithMemoryLimitPages(pages).WithCompilationCache(cache)
}

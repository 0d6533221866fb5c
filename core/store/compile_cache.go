package store

import (
	"math/bits"

	"github.com/ncruces/go-sqlite3"
	"github.com/tetratelabs/wazero"
)

// UseCompileCache keeps the compiled SQLite engine in dir. SQLite runs as
// WebAssembly (ncruces/go-sqlite3), which wazero compiles to machine code
// when the first database opens: about a second at every start. With the
// cache, later starts load it in ~25 ms (measured on a 105K-chunk knowledge
// base: opening went from 1.0 s to 25 ms). It configures the process-wide
// runtime, so call it once, before the first Open; on error nothing changes.
func UseCompileCache(dir string) error {
	cache, err := wazero.NewCompilationCacheWithDir(dir)
	if err != nil {
		return err
	}
	// The memory limit go-sqlite3 sets when left to its defaults.
	pages := uint32(512) // 32 MB
	if bits.UintSize >= 64 {
		pages = 4096 // 256 MB
	}
	sqlite3.RuntimeConfig = wazero.NewRuntimeConfig().WithMemoryLimitPages(pages).WithCompilationCache(cache)
	return nil
}

package store

import (
	"context"
	"fmt"
	"math/bits"
	"os"
	"path/filepath"
	"sync"

	"github.com/ncruces/go-sqlite3"
	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/api"
	"github.com/tetratelabs/wazero/experimental"
)

// UseCompileCache keeps the compiled SQLite engine in dir. SQLite runs as
// WebAssembly (ncruces/go-sqlite3), which wazero compiles to machine code
// when the first database opens: about a second at every start. With the
// cache, later starts load it in ~25 ms (measured on a 105K-chunk knowledge
// base: opening went from 1.0 s to 25 ms), plus ~20 ms of CPU for the check
// below (`cairn status`: 57 → 76 ms of CPU per start).
//
// The cache is optional. go-sqlite3 compiles once per process and keeps
// the error, so a cache that cannot be read or written (a full disk, a
// damaged entry) would fail every open. So the first open compiles SQLite
// through the cache itself first (go-sqlite3 then finds the module in the
// cache's memory and only decodes the binary again: the ~20 ms); when that
// fails, SQLite is compiled without the cache (in memory, a second per
// start), warn is called with the error, and the open goes on.
//
// It configures the process-wide runtime: call it before the first open;
// later calls change nothing.
func UseCompileCache(dir string, warn func(error)) {
	compileCache.mu.Lock()
	defer compileCache.mu.Unlock()
	if compileCache.dir == "" {
		compileCache.dir, compileCache.warn = dir, warn
	}
}

var compileCache struct {
	mu   sync.Mutex
	dir  string
	warn func(error)
	once sync.Once
}

// openFlags is sqlite3.OpenFlags after the compile cache is set up.
func openFlags(name string, flags sqlite3.OpenFlag) (*sqlite3.Conn, error) {
	compileCache.once.Do(setUpCompileCache)
	return sqlite3.OpenFlags(name, flags)
}

func setUpCompileCache() {
	compileCache.mu.Lock()
	dir, warn := compileCache.dir, compileCache.warn
	compileCache.mu.Unlock()
	if dir == "" {
		return
	}
	cache, err := compileThrough(dir)
	if fi, serr := os.Stat(dir); err != nil && serr == nil && fi.IsDir() {
		// A damaged entry would fail every start until deleted by hand:
		// the folder is Cairn's and only a cache, so empty it and build
		// it again once. A full disk fails again, and warns.
		if rerr := emptyFolder(dir); rerr == nil {
			cache, err = compileThrough(dir)
		}
	}
	if err != nil {
		sqlite3.RuntimeConfig = runtimeConfig()
		if warn != nil {
			warn(fmt.Errorf("SQLite compile cache %s: %w", dir, err))
		}
		return
	}
	sqlite3.RuntimeConfig = runtimeConfig().WithCompilationCache(cache)
}

// compileThrough compiles SQLite through a compile cache in dir.
func compileThrough(dir string) (wazero.CompilationCache, error) {
	cache, err := wazero.NewCompilationCacheWithDir(dir)
	if err != nil {
		return nil, err
	}
	if err := precompile(runtimeConfig().WithCompilationCache(cache)); err != nil {
		cache.Close(context.Background())
		return nil, err
	}
	return cache, nil
}

// emptyFolder removes what dir holds, leaving dir.
func emptyFolder(dir string) error {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return err
	}
	for _, e := range entries {
		if err := os.RemoveAll(filepath.Join(dir, e.Name())); err != nil {
			return err
		}
	}
	return nil
}

// runtimeConfig is the configuration go-sqlite3 uses when left to its
// defaults: the same memory limit.
func runtimeConfig() wazero.RuntimeConfig {
	pages := uint32(512) // 32 MB
	if bits.UintSize >= 64 {
		pages = 4096 // 256 MB
	}
	return wazero.NewRuntimeConfig().WithMemoryLimitPages(pages)
}

// precompile compiles SQLite's WebAssembly through cfg's cache, which reads
// the cached machine code or writes it. The cache's engine is shared by
// every runtime that uses it, so go-sqlite3's own compile, with the same
// binary and features, then finds the module in memory.
func precompile(cfg wazero.RuntimeConfig) error {
	if sqlite3.Binary == nil {
		return nil // go-sqlite3 reports the missing build itself
	}
	ctx := context.Background()
	// The features go-sqlite3 sets (sqlite.go, compileSQLite).
	r := wazero.NewRuntimeWithConfig(ctx, cfg.WithCoreFeatures(api.CoreFeaturesV2|experimental.CoreFeaturesThreads))
	// Not closed: closing the module would drop it from the shared engine.
	_, err := r.CompileModule(ctx, sqlite3.Binary)
	return err
}

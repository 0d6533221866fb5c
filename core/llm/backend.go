package llm

/*
typedef void (*cairn_log_callback)(int level, const char *text, void *user_data);
// Declared here rather than through llama.h, whose include path lives in
// the ollama module; the symbol is linked from github.com/ollama/ollama/llama.
void llama_log_set(cairn_log_callback cb, void *user_data);
extern void cairnLlamaLog(int level, char *text, void *user_data);
*/
import "C"

import (
	"context"
	"log/slog"
	"os"
	"strings"
	"sync"
	"unsafe"

	"github.com/ollama/ollama/llama"
)

// ggml_log_level values.
const (
	ggmlLogWarn  = 3
	ggmlLogError = 4
)

// backend is llama.cpp's process-wide state: the ggml backends and the log
// callback are global in C, so they are initialised once here.
var backend struct {
	once sync.Once

	// lastErr keeps llama.cpp's most recent error lines, because its C API
	// reports a failed load as NULL and writes the reason only to the log.
	mu      sync.Mutex
	lastErr []string
}

// initBackend loads the ggml CPU backend, routes llama.cpp's log into
// slog (informational lines at Debug: ollama's default callback prints them
// all to stderr, hundreds per model load; warnings and errors at their own
// level). The Vulkan backend loads later, when a device other than the CPU
// is asked for (initGPU).
func initBackend() {
	backend.once.Do(func() {
		// ollama's loader (ggml.OnceLoad, run by BackendInit) would load
		// every ggml backend library in $OLLAMA_LIBRARY_PATH, or else in
		// ../lib/ollama beside the executable: an installed ollama's
		// (/usr/local/lib/ollama beside /usr/local/bin/cairn). An empty
		// list loads none; loadGPU loads Cairn's own.
		os.Setenv("OLLAMA_LIBRARY_PATH", "")
		C.llama_log_set(C.cairn_log_callback(C.cairnLlamaLog), nil)
		llama.BackendInit()
		C.llama_log_set(C.cairn_log_callback(C.cairnLlamaLog), nil)
	})
}

//export cairnLlamaLog
func cairnLlamaLog(level C.int, text *C.char, _ unsafe.Pointer) {
	lvl := slog.LevelDebug
	switch int(level) {
	case ggmlLogWarn:
		lvl = slog.LevelWarn
	case ggmlLogError:
		lvl = slog.LevelError
	}
	logger := slog.Default()
	if lvl != slog.LevelError && !logger.Enabled(context.Background(), lvl) {
		return // the common case: skip the copy of every informational line
	}
	msg := strings.TrimSpace(C.GoString(text))
	if msg == "" {
		return
	}
	if lvl == slog.LevelError {
		backend.mu.Lock()
		backend.lastErr = append(backend.lastErr, msg)
		if len(backend.lastErr) > 4 {
			backend.lastErr = backend.lastErr[len(backend.lastErr)-4:]
		}
		backend.mu.Unlock()
	}
	logger.Log(context.Background(), lvl, msg, "source", "llama.cpp")
}

// takeLlamaErrors returns and forgets the error lines llama.cpp logged since
// the last call, joined for an error message.
func takeLlamaErrors() string {
	backend.mu.Lock()
	defer backend.mu.Unlock()
	s := strings.Join(backend.lastErr, "; ")
	backend.lastErr = nil
	return s
}

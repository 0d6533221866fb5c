package llm

/*
// llama_free is declared here because github.com/ollama/ollama/llama wraps
// llama_init_from_model but not its counterpart.
void llama_free(void *ctx);
*/
import "C"

import (
	"unsafe"

	"github.com/ollama/ollama/llama"
)

// contextLayout mirrors llama.Context in ollama v0.17.4: the C pointer
// first, then the thread count. freeContext reads the pointer through it.
type contextLayout struct {
	c          unsafe.Pointer
	numThreads int
}

// freeContext releases a llama context's KV cache and compute buffers,
// which would otherwise leak on every model unload. If ollama ever changes
// the struct's size the context is leaked rather than misread.
func freeContext(lc *llama.Context) {
	if unsafe.Sizeof(*lc) != unsafe.Sizeof(contextLayout{}) {
		return
	}
	p := (*contextLayout)(unsafe.Pointer(lc)).c
	if p != nil {
		C.llama_free(p)
	}
}

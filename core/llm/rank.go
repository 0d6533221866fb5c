package llm

/*
// Declared here rather than through llama.h (see free.go). Under rank
// pooling it returns float[n_cls_out] for the sequence, not n_embd floats,
// which is why ollama's GetEmbeddingsSeq (it copies n_embd) cannot read it.
float *llama_get_embeddings_seq(void *ctx, int seq_id);
*/
import "C"

import (
	"unsafe"

	"github.com/ollama/ollama/llama"
)

// rankScore is the first output of the classification head for sequence
// seq after a decode under rank pooling: the relevance score (for Qwen3's
// yes/no head, P(yes)). ok is false when llama.cpp has none, or when
// ollama's Context no longer has the layout contextLayout mirrors.
func rankScore(lc *llama.Context, seq int) (float32, bool) {
	if unsafe.Sizeof(*lc) != unsafe.Sizeof(contextLayout{}) {
		return 0, false
	}
	p := (*contextLayout)(unsafe.Pointer(lc)).c
	if p == nil {
		return 0, false
	}
	v := C.llama_get_embeddings_seq(p, C.int(seq))
	if v == nil {
		return 0, false
	}
	return float32(*v), true
}

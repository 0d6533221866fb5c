package llm

/*
#include <stdbool.h>
#include <stdint.h>

// From llama.h; linked from github.com/ollama/ollama/llama. The vocabulary
// is passed as an opaque pointer obtained from llama.Model.Vocab.
int32_t llama_token_to_piece(const void *vocab, int32_t token, char *buf, int32_t length,
	int32_t lstrip, bool special);
*/
import "C"

import (
	"unsafe"

	"github.com/ollama/ollama/llama"
)

// tokenText is the text a generated token stands for. Unlike
// llama.Model.TokenToPiece it renders control tokens (<|im_start|>, a
// stray BOS) as nothing, because they are markup, not answer text.
func tokenText(m *llama.Model, token int) string {
	vocab := unsafe.Pointer(m.Vocab())
	var small [32]byte
	n := C.llama_token_to_piece(vocab, C.int32_t(token), (*C.char)(unsafe.Pointer(&small[0])), C.int32_t(len(small)), 0, false)
	if n >= 0 {
		return string(small[:n])
	}
	buf := make([]byte, -n)
	n = C.llama_token_to_piece(vocab, C.int32_t(token), (*C.char)(unsafe.Pointer(&buf[0])), C.int32_t(len(buf)), 0, false)
	if n < 0 {
		return ""
	}
	return string(buf[:n])
}

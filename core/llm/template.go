package llm

/*
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

// From llama.h (whose include path lives in the ollama module); the symbol
// is linked from github.com/ollama/ollama/llama.
struct llama_chat_message {
	const char *role;
	const char *content;
};
int32_t llama_chat_apply_template(const char *tmpl, const struct llama_chat_message *chat,
	size_t n_msg, bool add_ass, char *buf, int32_t length);
*/
import "C"

import (
	"fmt"
	"unsafe"
)

// Message is one turn of a conversation.
type Message struct {
	Role    string // "system", "user" or "assistant"
	Content string
}

// FallbackTemplate is the template used when a model has none or llama.cpp
// does not recognise its own: ChatML, which most small instruct models
// (Qwen, SmolLM, many fine-tunes) were trained on.
const FallbackTemplate = "chatml"

// FormatChat renders msgs with a chat template and opens the assistant's
// turn. tmpl is a model's tokenizer.chat_template (a Jinja text that
// llama.cpp matches heuristically against the templates it knows) or a
// llama.cpp template name such as "chatml" or "llama3". When tmpl is empty
// or unrecognised, ChatML is used and fellBack is true.
func FormatChat(tmpl string, msgs []Message) (prompt string, fellBack bool, err error) {
	if tmpl != "" {
		prompt, ok, err := applyTemplate(tmpl, msgs)
		if err != nil || ok {
			return prompt, false, err
		}
	}
	prompt, ok, err := applyTemplate(FallbackTemplate, msgs)
	if err == nil && !ok {
		err = fmt.Errorf("llama.cpp does not know the %s template", FallbackTemplate)
	}
	return prompt, true, err
}

// applyTemplate calls llama_chat_apply_template; ok is false when llama.cpp
// does not recognise tmpl.
func applyTemplate(tmpl string, msgs []Message) (string, bool, error) {
	if len(msgs) == 0 {
		return "", false, fmt.Errorf("no messages to format")
	}
	ctmpl := C.CString(tmpl)
	defer C.free(unsafe.Pointer(ctmpl))

	// The message array lives in C memory: it holds C pointers, and cgo
	// forbids passing Go memory that contains pointers to Go memory.
	cmsgs := unsafe.Slice((*C.struct_llama_chat_message)(C.malloc(C.size_t(len(msgs))*C.size_t(unsafe.Sizeof(C.struct_llama_chat_message{})))), len(msgs))
	defer C.free(unsafe.Pointer(&cmsgs[0]))
	size := 256
	for i, m := range msgs {
		cmsgs[i].role = C.CString(m.Role)
		cmsgs[i].content = C.CString(m.Content)
		size += 2 * (len(m.Role) + len(m.Content))
	}
	defer func() {
		for i := range cmsgs {
			C.free(unsafe.Pointer(cmsgs[i].role))
			C.free(unsafe.Pointer(cmsgs[i].content))
		}
	}()

	for {
		buf := (*C.char)(C.malloc(C.size_t(size)))
		n := int(C.llama_chat_apply_template(ctmpl, &cmsgs[0], C.size_t(len(msgs)), true, buf, C.int32_t(size)))
		if n < 0 {
			C.free(unsafe.Pointer(buf))
			return "", false, nil
		}
		if n <= size {
			out := C.GoStringN(buf, C.int(n))
			C.free(unsafe.Pointer(buf))
			return out, true, nil
		}
		C.free(unsafe.Pointer(buf))
		size = n
	}
}

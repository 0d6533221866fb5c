package llm

import (
	"testing"

	"cairn/core/llm/testmodel"
)

func TestFormatChat(t *testing.T) {
	msgs := []Message{
		{Role: "system", Content: "Answer from the sources."},
		{Role: "user", Content: "What is the port?"},
	}
	const chatml = "<|im_start|>system\nAnswer from the sources.<|im_end|>\n" +
		"<|im_start|>user\nWhat is the port?<|im_end|>\n<|im_start|>assistant\n"
	const llama3 = "<|start_header_id|>system<|end_header_id|>\n\nAnswer from the sources.<|eot_id|>" +
		"<|start_header_id|>user<|end_header_id|>\n\nWhat is the port?<|eot_id|>" +
		"<|start_header_id|>assistant<|end_header_id|>\n\n"
	// An excerpt of Llama 3's Jinja template: llama.cpp recognises it by
	// its header markers.
	const llama3Jinja = "{% set loop_messages = messages %}{% for message in loop_messages %}" +
		"{% set content = '<|start_header_id|>' + message['role'] + '<|end_header_id|>\n\n'+ message['content'] | trim + '<|eot_id|>' %}" +
		"{{ content }}{% endfor %}{% if add_generation_prompt %}{{ '<|start_header_id|>assistant<|end_header_id|>\n\n' }}{% endif %}"

	tests := []struct {
		name, tmpl, want string
		fellBack         bool
	}{
		{"chatml jinja", testmodel.ChatML, chatml, false},
		{"llama3 jinja", llama3Jinja, llama3, false},
		{"llama3 by name", "llama3", llama3, false},
		{"no template", "", chatml, true},
		{"unrecognised", "{{ messages | tojson }} something nobody knows", chatml, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, fellBack, err := FormatChat(tc.tmpl, msgs)
			if err != nil {
				t.Fatal(err)
			}
			if got != tc.want {
				t.Errorf("got  %q\nwant %q", got, tc.want)
			}
			if fellBack != tc.fellBack {
				t.Errorf("fellBack = %v, want %v", fellBack, tc.fellBack)
			}
		})
	}
	if _, _, err := FormatChat("chatml", nil); err == nil {
		t.Error("no messages: want an error")
	}
}

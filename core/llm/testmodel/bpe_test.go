package testmodel

import (
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/ollama/ollama/fs/ggml"
)

func TestByteLevelAlphabet(t *testing.T) {
	a := ByteLevelAlphabet()
	// GPT-2's table: printable bytes stay, space is U+0120 (Ġ), newline
	// U+010A (Ċ), 0x00 U+0100, 0xAD U+0143.
	for c, want := range map[int]string{'A': "A", '!': "!", ' ': "Ġ", '\n': "Ċ", 0: "\u0100", 0xAD: "\u0143", 0xFF: "ÿ"} {
		if a[c] != want {
			t.Errorf("byte 0x%02X = %q, want %q", c, a[c], want)
		}
	}
	if len(slices.Compact(slices.Sorted(slices.Values(a)))) != 256 {
		t.Error("alphabet has duplicates")
	}
}

func TestParseHFTokenizer(t *testing.T) {
	b, err := ParseHFTokenizer(TinyTokenizerJSON(), "qwen2")
	if err != nil {
		t.Fatal(err)
	}
	if len(b.Tokens) != 270 || len(b.Types) != 270 {
		t.Fatalf("%d tokens, %d types, want 270", len(b.Tokens), len(b.Types))
	}
	for id, want := range map[int]struct {
		tok string
		typ int32
	}{
		32: {"Ġ", tokenNormal}, 259: {"Hello", tokenNormal}, 264: {"Ġworld", tokenNormal},
		265: {"<|endoftext|>", tokenControl}, 266: {"<|im_start|>", tokenControl}, 267: {"<|im_end|>", tokenControl},
		268: {"[PAD268]", tokenUnused}, 269: {"<tool_call>", tokenUserDefined},
	} {
		if b.Tokens[id] != want.tok || b.Types[id] != want.typ {
			t.Errorf("id %d = %q type %d, want %q type %d", id, b.Tokens[id], b.Types[id], want.tok, want.typ)
		}
	}
	if want := []string{"H e", "l l", "He ll", "Hell o", "Ġ w", "o r", "Ġw or", "l d", "Ġwor ld"}; !slices.Equal(b.Merges, want) {
		t.Errorf("merges %q, want %q", b.Merges, want)
	}
	if b.BOS != 265 || b.PAD != 265 || b.EOS != 267 || b.Pre != "qwen2" {
		t.Errorf("bos %d pad %d eos %d pre %q", b.BOS, b.PAD, b.EOS, b.Pre)
	}
}

func TestParseHFTokenizerRejects(t *testing.T) {
	good := string(TinyTokenizerJSON())
	for name, c := range map[string]struct{ json, pre, err string }{
		"unknown pre":   {good, "llama3", "not one the writer knows"},
		"not BPE":       {strings.Replace(good, `"type":"BPE"`, `"type":"WordPiece"`, 1), "qwen2", "not BPE"},
		"other regex":   {strings.Replace(good, `\\p{N}|`, `\\p{N}{1,3}|`, 1), "qwen2", "split text differently"},
		"no byte level": {strings.Replace(good, `"type":"ByteLevel"`, `"type":"Metaspace"`, 1), "qwen2", "not byte-level"},
		"missing byte":  {strings.Replace(good, `"Ċ":10,`, ``, 1), "qwen2", "lacks the byte token"},
		"taken id":      {strings.Replace(good, `"id":269`, `"id":259`, 1), "qwen2", "taken by"},
	} {
		if c.json == good && c.pre == "qwen2" {
			t.Errorf("%s: the replacement did not apply", name)
			continue
		}
		if _, err := ParseHFTokenizer([]byte(c.json), c.pre); err == nil || !strings.Contains(err.Error(), c.err) {
			t.Errorf("%s: err = %v, want %q", name, err, c.err)
		}
	}
}

func TestWriteWithTokenizer(t *testing.T) {
	b, err := ParseHFTokenizer(TinyTokenizerJSON(), "qwen2")
	if err != nil {
		t.Fatal(err)
	}
	s := TinyLastToken()
	s.Pooling, s.Tokenizer, s.Vocab, s.ChatTemplate = PoolingNone, b, 300, ChatML
	f, err := os.Open(write(t, s))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	g, err := ggml.Decode(f, -1)
	if err != nil {
		t.Fatal(err)
	}
	kv := g.KV()
	toks := kv.Strings("tokenizer.ggml.tokens")
	if kv.String("tokenizer.ggml.model") != "gpt2" || kv.String("tokenizer.ggml.pre") != "qwen2" || len(toks) != 300 ||
		toks[259] != "Hello" || toks[299] != "[PAD299]" || len(kv.Strings("tokenizer.ggml.merges")) != 9 {
		t.Errorf("model %q pre %q, %d tokens (259 %q, 299 %q), %d merges", kv.String("tokenizer.ggml.model"), kv.String("tokenizer.ggml.pre"),
			len(toks), toks[259], toks[299], len(kv.Strings("tokenizer.ggml.merges")))
	}
	if kv.Uint("tokenizer.ggml.bos_token_id") != 265 || kv.Uint("tokenizer.ggml.eos_token_id") != 267 || kv.Uint("tokenizer.ggml.padding_token_id") != 265 ||
		kv.Bool("tokenizer.ggml.add_bos_token") {
		t.Errorf("bos %d eos %d pad %d add_bos %v", kv.Uint("tokenizer.ggml.bos_token_id"), kv.Uint("tokenizer.ggml.eos_token_id"),
			kv.Uint("tokenizer.ggml.padding_token_id"), kv.Bool("tokenizer.ggml.add_bos_token"))
	}
	for _, tt := range g.Tensors().Items() {
		if tt.Name == "token_embd.weight" && (tt.Shape[0] != uint64(s.Hidden) || tt.Shape[1] != 300) {
			t.Errorf("token_embd shape %v, want [%d 300]", tt.Shape, s.Hidden)
		}
	}
	// Last-token pooling (Qwen3-Embedding) appends <|endoftext|> and pools there.
	s.Pooling = PoolingLast
	f2, err := os.Open(write(t, s))
	if err != nil {
		t.Fatal(err)
	}
	defer f2.Close()
	g2, err := ggml.Decode(f2, -1)
	if err != nil {
		t.Fatal(err)
	}
	if kv := g2.KV(); kv.Uint("tokenizer.ggml.eos_token_id") != 265 || !kv.Bool("tokenizer.ggml.add_eos_token") || kv.Uint("pooling_type") != uint32(PoolingLast) {
		t.Errorf("last-token pooling: eos %d add_eos %v pooling %d", kv.Uint("tokenizer.ggml.eos_token_id"), kv.Bool("tokenizer.ggml.add_eos_token"), kv.Uint("pooling_type"))
	}
	s.Pooling = PoolingNone

	s.Vocab = 100
	if err := Write(t.TempDir()+"/x.gguf", s); err == nil || !strings.Contains(err.Error(), "smaller than the tokenizer") {
		t.Errorf("vocab below the tokenizer's: err = %v", err)
	}
}

package testmodel

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/ollama/ollama/fs/ggml"
)

func TestReadWordPiece(t *testing.T) {
	dir := t.TempDir()
	txt := filepath.Join(dir, "vocab.txt")
	os.WriteFile(txt, []byte("[PAD]\n[unused0]\n[UNK]\n[CLS]\n[SEP]\n[MASK]\nhello\nworld\n##s\n!\n"), 0o644)
	js := filepath.Join(dir, "vocab.json")
	os.WriteFile(js, []byte(`["[PAD]","▁","[UNK]","[CLS]","[SEP]","[MASK]","▁hello","▁world","s","▁!"]`), 0o644)
	want := []string{"[PAD]", "[unused0]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", "▁hello", "▁world", "s", "▁!"}
	for _, p := range []string{txt, js} {
		w, err := ReadWordPiece(p)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(w.Tokens, want) {
			t.Errorf("%s: tokens %q, want %q", filepath.Base(p), w.Tokens, want)
		}
		if w.PAD != 0 || w.UNK != 2 || w.CLS != 3 || w.SEP != 4 || w.MASK != 5 {
			t.Errorf("%s: specials %+v", filepath.Base(p), w)
		}
		if w.Types[3] != tokenControl || w.Types[1] != tokenNormal || w.Types[6] != tokenNormal {
			t.Errorf("%s: types %v", filepath.Base(p), w.Types)
		}
	}

	w, _ := ReadWordPiece(txt)
	s := Tiny()
	s.WordPiece, s.Vocab = w, 0
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
	if toks := kv.Strings("tokenizer.ggml.tokens"); !slices.Equal(toks, want) || kv.Uint("tokenizer.ggml.cls_token_id") != 3 ||
		kv.Uint("tokenizer.ggml.seperator_token_id") != 4 || kv.Uint("tokenizer.ggml.unknown_token_id") != 2 {
		t.Errorf("tokens %q cls %d sep %d unk %d", toks, kv.Uint("tokenizer.ggml.cls_token_id"), kv.Uint("tokenizer.ggml.seperator_token_id"), kv.Uint("tokenizer.ggml.unknown_token_id"))
	}
	for _, tt := range g.Tensors().Items() {
		if tt.Name == "token_embd.weight" && tt.Shape[1] != uint64(len(want)) {
			t.Errorf("token_embd shape %v, want %d rows", tt.Shape, len(want))
		}
	}

	os.WriteFile(txt, []byte("[PAD]\n[UNK]\nhello\n"), 0o644)
	if _, err := ReadWordPiece(txt); err == nil || !strings.Contains(err.Error(), "lacks [CLS]") {
		t.Errorf("no [CLS]: err = %v", err)
	}
	s = TinyChat()
	s.WordPiece = w
	if err := Write(filepath.Join(dir, "x.gguf"), s); err == nil || !strings.Contains(err.Error(), "BERT models only") {
		t.Errorf("WordPiece in a decoder: err = %v", err)
	}
}

package testmodel

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/ollama/ollama/fs/ggml"
)

func write(t *testing.T, s Spec) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "m.gguf")
	if err := Write(p, s); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestWriteIsDeterministic(t *testing.T) {
	a, _ := os.ReadFile(write(t, Tiny()))
	b, _ := os.ReadFile(write(t, Tiny()))
	if !bytes.Equal(a, b) {
		t.Error("same spec wrote different bytes")
	}
	s := Tiny()
	s.Seed++
	c, _ := os.ReadFile(write(t, s))
	if bytes.Equal(a, c) {
		t.Error("different seeds wrote the same bytes")
	}
}

func TestWriteLayout(t *testing.T) {
	for _, s := range []Spec{Tiny(), TinyChat(), TinyLastToken(), TinyReranker(), TinyQwen3Reranker(), func() Spec { s := TinyChat(); s.Weights = Q8_0; return s }()} {
		t.Run(s.Name+"-"+s.Weights.String(), func(t *testing.T) {
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
			a := string(s.Arch)
			// ggml.KV prefixes keys without a namespace with the architecture.
			if kv.Architecture() != a || kv.Uint("embedding_length") != uint32(s.Hidden) ||
				kv.Uint("context_length") != uint32(s.Context) || kv.String("general.name") != s.Name {
				t.Errorf("metadata: arch %q, width %d, context %d, name %q", kv.Architecture(),
					kv.Uint("embedding_length"), kv.Uint("context_length"), kv.String("general.name"))
			}
			toks := kv.Strings("tokenizer.ggml.tokens")
			if len(toks) != s.Vocab {
				t.Errorf("vocabulary has %d tokens, want %d", len(toks), s.Vocab)
			}
			seen := map[string]bool{}
			for _, tok := range toks {
				if seen[tok] {
					t.Fatalf("duplicate token %q", tok)
				}
				seen[tok] = true
			}
			if s.Arch == BERT {
				for _, want := range []string{"[UNK]", "[CLS]", "[SEP]", "[PAD]", "[MASK]", "\u2581the", "\u2581file", "a", "\u2581a"} {
					if !seen[want] {
						t.Errorf("vocabulary lacks %q", want)
					}
				}
			} else {
				for _, want := range []string{"<unk>", "<s>", "</s>", "<0x00>", "<0x0A>", "<0xFF>", "\u2581the", "\u2581th", "<|im_end|>"} {
					if !seen[want] {
						t.Errorf("vocabulary lacks %q", want)
					}
				}
			}
			ts := g.Tensors().Items()
			names := make([]string, len(ts))
			for i, tt := range ts {
				names[i] = tt.Name
			}
			if !slices.Contains(names, "token_embd.weight") || !slices.Contains(names, "blk.1.ffn_down.weight") {
				t.Errorf("tensors: %v", names)
			}
			if s.Arch != BERT && s.TiedOutput == slices.Contains(names, "output.weight") {
				t.Errorf("tied output %v but output.weight present = %v", s.TiedOutput, !s.TiedOutput)
			}
		})
	}
}

func TestNamedSpecShapes(t *testing.T) {
	m := MiniLML6()
	if m.Layers != 6 || m.Hidden != 384 || m.Heads != 12 || m.FFN != 1536 || m.Vocab != 30522 || m.Context != 512 || m.Pooling != PoolingMean {
		t.Errorf("MiniLML6 = %+v", m)
	}
	q := Qwen25_05B()
	if q.Layers != 24 || q.Hidden != 896 || q.Heads != 14 || q.KVHeads != 2 || q.FFN != 4864 || q.Vocab != 151936 || !q.TiedOutput {
		t.Errorf("Qwen25_05B = %+v", q)
	}
	b := BGESmall()
	if b.Layers != 12 || b.Hidden != 384 || b.Heads != 12 || b.FFN != 1536 || b.Pooling != PoolingCLS {
		t.Errorf("BGESmall = %+v", b)
	}
	if bb := BERTBase(); bb.Layers != 12 || bb.Hidden != 768 || bb.Heads != 12 || bb.FFN != 3072 {
		t.Errorf("BERTBase = %+v", bb)
	}
	for _, s := range []Spec{Tiny(), MiniLML6(), BGESmall(), BERTBase(), TinyChat(), TinyLastToken(), Qwen25_05B()} {
		if err := s.validate(); err != nil {
			t.Errorf("%s: %v", s.Name, err)
		}
	}
}

func TestWriteRejectsBadSpecs(t *testing.T) {
	s := Tiny()
	s.Heads = 5 // 32 is not a multiple of 5
	if err := Write(filepath.Join(t.TempDir(), "x.gguf"), s); err == nil || !strings.Contains(err.Error(), "heads") {
		t.Errorf("err = %v", err)
	}
	s = Tiny()
	s.Vocab = 10
	if err := Write(filepath.Join(t.TempDir(), "x.gguf"), s); err == nil || !strings.Contains(err.Error(), "too small") {
		t.Errorf("err = %v", err)
	}
}

func TestText(t *testing.T) {
	a, b := Text(50, 1), Text(50, 1)
	if a != b || a == Text(50, 2) {
		t.Error("Text is not deterministic per seed")
	}
	if n := len(strings.Fields(a)); n != 50 {
		t.Errorf("Text(50) has %d words", n)
	}
}

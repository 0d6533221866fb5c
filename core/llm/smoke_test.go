package llm

import (
	"context"
	"path/filepath"
	"testing"

	"cairn/core/llm/testmodel"
)

func TestSmoke(t *testing.T) {
	for _, s := range []testmodel.Spec{testmodel.Tiny(), testmodel.TinyLastToken()} {
		p := filepath.Join(t.TempDir(), "m.gguf")
		if err := testmodel.Write(p, s); err != nil {
			t.Fatal(err)
		}
		e, err := LoadEmbedder(p, EmbedderOptions{})
		if err != nil {
			t.Fatal(err)
		}
		v, info, err := e.EmbedPassages(context.Background(), []Passage{{Title: "Intro", Text: "the quick brown fox jumps over the lazy dog"}, {Text: "hello world"}})
		t.Log(e.ModelID(), e.Family(), len(v), info, err, v[0][:4])
		toks, _ := e.Tokenize("the quick brown fox Jumps")
		t.Log(toks)
		e.Close()
	}
}

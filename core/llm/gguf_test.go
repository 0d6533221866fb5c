package llm

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"cairn/core/llm/testmodel"
)

func TestReadMetadata(t *testing.T) {
	s := testmodel.TinyChat()
	p := writeModel(t, s, "chat.gguf")
	md, err := ReadMetadata(p)
	if err != nil {
		t.Fatal(err)
	}
	if md.Path != p || md.Architecture != "llama" || md.Name != s.Name || md.EmbeddingLength != s.Hidden ||
		md.ContextLength != s.Context || md.BlockCount != s.Layers || md.HeadCount != s.Heads ||
		md.VocabSize != s.Vocab || md.TokenizerModel != "llama" || md.ChatTemplate != s.ChatTemplate ||
		md.Pooling != PoolingNone || !md.Causal || len(md.Fingerprint) != 64 {
		t.Errorf("metadata = %+v", md)
	}
	if _, ok := md.KV["tokenizer.ggml.tokens"].(ArrayInfo); !ok {
		t.Errorf("the vocabulary should be summarised, got %T", md.KV["tokenizer.ggml.tokens"])
	}

	b, err := ReadMetadata(writeModel(t, testmodel.Tiny(), "minilm.gguf"))
	if err != nil {
		t.Fatal(err)
	}
	if b.Pooling != PoolingMean || b.Causal || b.TokenizerModel != "bert" {
		t.Errorf("BERT metadata: pooling %v, causal %v, tokenizer %q", b.Pooling, b.Causal, b.TokenizerModel)
	}
	if b.Fingerprint == md.Fingerprint {
		t.Error("different models share a fingerprint")
	}
}

func TestReadMetadataRejectsBadFiles(t *testing.T) {
	dir := t.TempDir()
	good, err := os.ReadFile(writeModel(t, testmodel.Tiny(), "m.gguf"))
	if err != nil {
		t.Fatal(err)
	}
	for name, data := range map[string][]byte{
		"empty.gguf":     nil,
		"text.gguf":      []byte("hello"),
		"truncated.gguf": good[:200], // inside the vocabulary
	} {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
		_, err := ReadMetadata(p)
		if err == nil || !strings.Contains(err.Error(), p) {
			t.Errorf("%s: err = %v, want an error naming the file", name, err)
		}
		if name != "truncated.gguf" && !errors.Is(err, ErrNotGGUF) {
			t.Errorf("%s: err = %v, want ErrNotGGUF", name, err)
		}
	}
}

package cli

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

func TestAskTokenizer(t *testing.T) {
	dir := t.TempDir()
	// No file in the default place: the generated vocabulary.
	if got, err := askTokenizer(dir, ""); got != "" || err != nil {
		t.Errorf(`no file: %q, %v; want "", nil`, got, err)
	}
	def := filepath.Join(dir, "tokenizers", "qwen2.5", "tokenizer.json")
	os.MkdirAll(filepath.Dir(def), 0o755)
	os.WriteFile(def, []byte("{}"), 0o644)
	if got, err := askTokenizer(dir, ""); got != def || err != nil {
		t.Errorf("default file: %q, %v; want %q", got, err, def)
	}
	if got, err := askTokenizer(dir, "generated"); got != "" || err != nil {
		t.Errorf(`--tokenizer generated: %q, %v; want ""`, got, err)
	}
	if got, err := askTokenizer(dir, def); got != def || err != nil {
		t.Errorf("--tokenizer PATH: %q, %v", got, err)
	}
	var ue usageError
	if _, err := askTokenizer(dir, filepath.Join(dir, "missing.json")); !errors.As(err, &ue) {
		t.Errorf("a missing --tokenizer file: err = %v, want a usage error", err)
	}
}

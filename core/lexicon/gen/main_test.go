package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"cairn/internal/skip"
)

// TestEmbeddedDataIsWhatGenWrites: the data file core/lexicon embeds is
// gen's output from the installed WordNet 3.0, not an edited copy.
func TestEmbeddedDataIsWhatGenWrites(t *testing.T) {
	const wordnet = "/usr/share/wordnet"
	if _, err := os.Stat(filepath.Join(wordnet, "data.noun")); err != nil {
		skip.Because(t, "needs WordNet 3.0 (Debian package wordnet-base; make test installs it)")
	}
	out := filepath.Join(t.TempDir(), "wordnet.txt.gz")
	if err := run(wordnet, out); err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	want, err := os.ReadFile("../wordnet.txt.gz")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("gen wrote %d bytes that differ from core/lexicon/wordnet.txt.gz (%d bytes): run make lexicon", len(got), len(want))
	}
}

func TestGenSaysWhatIsMissing(t *testing.T) {
	err := run(t.TempDir(), filepath.Join(t.TempDir(), "out.gz"))
	if err == nil || !strings.Contains(err.Error(), "apt-get install wordnet-base") {
		t.Errorf("run on an empty folder: %v", err)
	}
}

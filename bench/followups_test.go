package bench

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

func TestReadFollowUpSet(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "fu")
	os.MkdirAll(dir, 0o755)
	for name, text := range map[string]string{
		"corpus.txt":    "manwidth 80\nman:tail\nman:head\n",
		"followups.tsv": "# pairs\nHow do I show the last 20 lines with tail?\tand with head?\tHow do I show the first 20 lines with head?\thead\t--lines\n",
	} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if !IsFollowUpSet(dir) || IsFollowUpSet(t.TempDir()) {
		t.Fatal("IsFollowUpSet: a set is one with followups.tsv")
	}
	fs, err := ReadFollowUpSet(dir)
	if err != nil {
		t.Fatal(err)
	}
	want := []FollowUpPair{{ID: "f01", First: "How do I show the last 20 lines with tail?", FollowUp: "and with head?",
		Alone: "How do I show the first 20 lines with head?", Doc: "head", Answer: "--lines"}}
	if fs.Name != "fu" || fs.ManWidth != 80 || !reflect.DeepEqual(fs.Docs, []string{"man:tail", "man:head"}) || !reflect.DeepEqual(fs.Pairs, want) {
		t.Errorf("read %+v", fs)
	}

	if err := os.WriteFile(filepath.Join(dir, "followups.tsv"), []byte("first\tand?\tfirst again\thead\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadFollowUpSet(dir); err == nil {
		t.Error("a pair of four fields was read")
	}
}

// A follow-up that names another document than its first question names
// counts as a new subject; its search carries the old one when it holds
// that document's name.
func TestCarriedSubject(t *testing.T) {
	docs := []string{"man:tail", "man:head", "man:wc"}
	for _, tc := range []struct {
		pair     FollowUpPair
		searched string
		old      string
		ok       bool
	}{
		{FollowUpPair{First: "How do I show the last 20 lines with tail?", FollowUp: "and with head?"}, "head 20 lines tail", "tail", true},
		{FollowUpPair{First: "How do I show the last 20 lines with tail?", FollowUp: "and with head?"}, "head last 20 lines", "", true},
		// The same document, or none named first: not a new subject.
		{FollowUpPair{First: "How do I count lines with wc?", FollowUp: "and the characters?"}, "characters wc", "", false},
		{FollowUpPair{First: "How do I show the last lines?", FollowUp: "and with head?"}, "head last lines", "", false},
	} {
		old, ok := carriedSubject(docs, tc.pair, tc.searched)
		if old != tc.old || ok != tc.ok {
			t.Errorf("%q then %q, searched %q: %q %v, want %q %v", tc.pair.First, tc.pair.FollowUp, tc.searched, old, ok, tc.old, tc.ok)
		}
	}
}

package bench

import (
	"compress/gzip"
	"context"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"cairn/core/answer"
)

// writeSet writes a question set's three files into a new folder.
func writeSet(t *testing.T, corpus, answerable, offtopic string) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "myset")
	os.MkdirAll(dir, 0o755)
	for name, text := range map[string]string{"corpus.txt": corpus, "answerable.tsv": answerable, "offtopic.txt": offtopic} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func TestReadQuestionSet(t *testing.T) {
	dir := writeSet(t, "# docs\nmanwidth 80\nman:od\n/usr/share/doc/x/manual.html\ndocs/faq.epub\n",
		"# written blind\nHow do I dump bytes in hex?\t-x\n\nWhich file holds it?\t/etc/x.conf\twhich\n",
		"# off-topic\nWhat is the capital of Peru?\n")
	qs, err := ReadQuestionSet(dir)
	if err != nil {
		t.Fatal(err)
	}
	// A relative document is the set's own, beside its corpus.txt.
	want := QuestionSet{Name: "myset", Dir: dir, ManWidth: 80, Docs: []string{"man:od", "/usr/share/doc/x/manual.html", filepath.Join(dir, "docs/faq.epub")},
		Questions: []Question{
			{ID: "a01", Answer: "-x", Text: "How do I dump bytes in hex?"},
			{ID: "a02", Answer: "/etc/x.conf", Text: "Which file holds it?", Kind: "which"},
			{ID: "o01", Text: "What is the capital of Peru?"},
		}}
	if !reflect.DeepEqual(qs, want) {
		t.Fatalf("ReadQuestionSet = %+v\nwant %+v", qs, want)
	}
	if !want.Questions[2].OffTopic() || want.Questions[0].OffTopic() {
		t.Error("off-topic questions are the ones without an answer string")
	}
}

func TestReadQuestionSetNamesTheBadLine(t *testing.T) {
	for name, files := range map[string][3]string{
		"unknown kind":     {"man:od\n", "Q?\tA\tsomething\n", ""},
		"no answer string": {"man:od\n", "Q?\n", ""},
		"bad width":        {"manwidth wide\nman:od\n", "Q?\tA\n", ""},
		"no questions":     {"man:od\n", "# none\n", "Off?\n"},
	} {
		_, err := ReadQuestionSet(writeSet(t, files[0], files[1], files[2]))
		if err == nil {
			t.Errorf("%s: no error", name)
		}
	}
	_, err := ReadQuestionSet(writeSet(t, "man:od\n", "ok?\tA\nQ?\n", ""))
	if err == nil || !strings.Contains(err.Error(), "answerable.tsv:2") {
		t.Errorf("error %v does not name answerable.tsv:2", err)
	}
}

func TestBuildSetCorpusCopiesAndGunzipsOnce(t *testing.T) {
	src := t.TempDir()
	plain := filepath.Join(src, "guide.html")
	os.WriteFile(plain, []byte("<p>hello</p>"), 0o644)
	packed := filepath.Join(src, "notes.txt.gz")
	f, _ := os.Create(packed)
	gz := gzip.NewWriter(f)
	gz.Write([]byte("zipped notes"))
	gz.Close()
	f.Close()
	qs := QuestionSet{Name: "s", Docs: []string{plain, packed}}
	out := filepath.Join(t.TempDir(), "built")
	dir, err := BuildSetCorpus(context.Background(), qs, out)
	if err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string]string{"guide.html": "<p>hello</p>", "notes.txt": "zipped notes"} {
		if b, _ := os.ReadFile(filepath.Join(dir, name)); string(b) != want {
			t.Errorf("%s holds %q, want %q", name, b, want)
		}
	}
	// A second build keeps what the first made (a file added since stays).
	os.WriteFile(filepath.Join(dir, "mine"), nil, 0o644)
	if _, err := BuildSetCorpus(context.Background(), qs, out); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, "mine")); err != nil {
		t.Error("a second build rebuilt a finished corpus")
	}
}

// features is a block with the given values of Have and Density.
func features(have, density float64) answer.Features {
	var f answer.Features
	f[answer.Have], f[answer.Near], f[answer.Density] = have, have, density
	return f
}

func TestFitBlockWeightsFindsWhatTellsTheAnsweringBlock(t *testing.T) {
	// In every set the answering block holds fewer of the question's
	// words (Have) than its rival but is denser: the weights in force put
	// it second, a weight on Density puts it first, also for a set the
	// search did not see.
	var qs []FitQuestion
	for _, set := range []string{"a", "b", "c"} {
		for range 4 {
			qs = append(qs, FitQuestion{Set: set,
				Features: []answer.Features{features(0.8, 0.2), features(0.6, 0.9), features(0.1, 0.1)},
				Answers:  []bool{false, true, false}})
		}
	}
	r := FitBlockWeights(qs)
	if r.Questions != 12 || r.Top1 != 0 || r.Top2 != 12 {
		t.Fatalf("with the weights in force: %d questions, %d first, %d in the first two; want 12, 0, 12", r.Questions, r.Top1, r.Top2)
	}
	if r.BestTop1 != 12 || r.HeldOutTop1 != 12 {
		t.Errorf("best weights put %d first in-sample and %d held out, want 12 and 12", r.BestTop1, r.HeldOutTop1)
	}
	if r.BestWeights["density"] <= 0 {
		t.Errorf("best weight of density %v, want above 0", r.BestWeights["density"])
	}
	if got := r.HeldOutBySet["b"]; got != [2]int{0, 4} {
		t.Errorf("set b held out: %v, want [0 4]", got)
	}
}

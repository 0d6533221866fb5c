package bench

import (
	"io"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"cairn/core/eval"
	"cairn/core/teamstore/teamtest"
	"cairn/internal/skip"
)

func TestContains(t *testing.T) {
	for _, c := range []struct {
		text, frag string
		want       bool
	}{
		{"       -i, --ignore-case\n              Ignore case distinctions", "-i, --ignore-case", true},
		{"The shell sets the default\n             value to 500", "the shell sets the DEFAULT value to 500", true},
		{"-i, --ignore-case", "-v, --invert-match", false},
		{"anything", "", false},
		{"-i,--ignore-case", "-i, --ignore-case", false}, // white space is folded, not removed
	} {
		if got := Contains(c.text, c.frag); got != c.want {
			t.Errorf("Contains(%q, %q) = %v, want %v", c.text, c.frag, got, c.want)
		}
	}
}

func TestReadQuestions(t *testing.T) {
	path := filepath.Join(t.TempDir(), "q.tsv")
	os.WriteFile(path, []byte("# comment\n\na1\tgrep.1\t-i, --ignore-case\tHow do I ignore case?\no1\t-\t-\tWhat is the capital of Peru?\n"), 0o644)
	qs, err := ReadQuestions(path)
	if err != nil {
		t.Fatal(err)
	}
	want := []Question{
		{ID: "a1", Source: "grep.1", Answer: "-i, --ignore-case", Text: "How do I ignore case?"},
		{ID: "o1", Source: "-", Answer: "", Text: "What is the capital of Peru?"},
	}
	if !reflect.DeepEqual(qs, want) {
		t.Fatalf("got %+v\nwant %+v", qs, want)
	}
	if qs[0].OffTopic() || !qs[1].OffTopic() {
		t.Error("OffTopic: want a1 answerable, o1 off-topic")
	}
	os.WriteFile(path, []byte("a1\tx\ty\tq\na1\tx\ty\tq\n"), 0o644)
	if _, err := ReadQuestions(path); err == nil {
		t.Error("a repeated id: want an error")
	}
}

// The committed question file must stay readable and hold the sizes the
// suite promises: at least 60 answerable and 30 off-topic questions.
func TestQuestionFile(t *testing.T) {
	qs, err := ReadQuestions("../testdata/quality/questions.tsv")
	if err != nil {
		t.Fatal(err)
	}
	var answerable, offTopic int
	for _, q := range qs {
		if q.OffTopic() {
			offTopic++
		} else {
			answerable++
		}
	}
	if answerable < 60 || offTopic < 30 {
		t.Errorf("%d answerable and %d off-topic questions; want at least 60 and 30", answerable, offTopic)
	}
}

func TestScoreAnswers(t *testing.T) {
	qs := []Question{
		{ID: "hit", Answer: "-i, --ignore-case"},
		{ID: "miss-in-sources", Answer: "-v, --invert-match"},
		{ID: "miss", Answer: "-c, --count"},
		{ID: "wrongly-refused", Answer: "-n, --line-number"},
		{ID: "off1"}, {ID: "off2"}, {ID: "off3"}, {ID: "off4"},
	}
	out := map[string]Outcome{
		"hit":             {Answer: "Use\n  -i, --IGNORE-case", Sources: []string{"-i, --ignore-case Ignore case"}},
		"miss-in-sources": {Answer: "-w, --word-regexp", Sources: []string{"x", "-v, --invert-match Invert"}},
		"miss":            {Answer: "nothing", Sources: []string{"nothing"}},
		// Refused with the line among the closest passages: a source hit, not an answer hit.
		"wrongly-refused": {Answer: "-n, --line-number", Refused: true, Sources: []string{"-n, --line-number"}},
		"off1":            {Refused: true},
		"off2":            {Refused: true},
		"off3":            {Refused: true},
		"off4":            {Answer: "Peru"},
	}
	s := ScoreAnswers(qs, out)
	want := AnswerScore{
		Answerable: 4, OffTopic: 4,
		AnswerHits: 1, SourceHits: 3, AnswerHitsWithSource: 1,
		OffTopicRefused: 3, AnswerableRefused: 1,
		AnswerHitRate: 0.25, SourceHitRate: 0.75, AnswerGivenSource: 1.0 / 3,
		OffTopicRefusalRate: 0.75, WrongRefusalRate: 0.25, RefusalPrecision: 0.75,
		Misses: []string{"miss-in-sources", "miss", "wrongly-refused", "off4"},
	}
	if !reflect.DeepEqual(s, want) {
		t.Fatalf("got  %+v\nwant %+v", s, want)
	}
}

func TestParseOutline(t *testing.T) {
	xml := `<pdf2xml><outline>
<item page="7">Introduction</item>
<outline>
<item page="7">What is Bash?</item>
<item>Unresolved destination</item>
</outline>
<item page="87">Top level &#34;Release&#34; file and
 authenticity</item>
</outline><page number="1"></page></pdf2xml>`
	got := ParseOutline(xml)
	want := []OutlineEntry{{"Introduction", 7}, {"What is Bash?", 7}, {`Top level "Release" file and authenticity`, 87}}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("got %+v, want %+v", got, want)
	}
}

func TestPageQueries(t *testing.T) {
	outlines := map[string][]OutlineEntry{
		"/m/a.pdf": {
			{"Introduction", 1},                // one word: too generic
			{"3.2.5.1 Looping Constructs", 17}, // the number goes
			{"1. Getting Started", 2},          // in both manuals at different pages: ambiguous
			{"2.5 42", 3},                      // numbers only
			{"Past The End", 99},               // beyond the last page
			{"A Tutorial Example", 5},          // a title starting with "A" keeps it
			{"Same Page Twice", 6},
			{"same page twice", 6}, // twice at the same page: kept once
		},
		"/m/b.pdf": {
			{"Getting started", 4},
			{"Chapter 3. Memory Errors", 8},
		},
	}
	pages := map[string]int{"/m/a.pdf": 20, "/m/b.pdf": 10}
	got := PageQueries(outlines, pages)
	want := []PageQuery{
		{ID: "p001", File: "/m/a.pdf", Page: 17, Title: "Looping Constructs"},
		{ID: "p002", File: "/m/a.pdf", Page: 5, Title: "A Tutorial Example"},
		{ID: "p003", File: "/m/a.pdf", Page: 6, Title: "Same Page Twice"},
		{ID: "p004", File: "/m/b.pdf", Page: 8, Title: "Memory Errors"},
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("got  %+v\nwant %+v", got, want)
	}
}

func TestCollapsePages(t *testing.T) {
	hits := []PageHit{{"/m/a.pdf", 3}, {"/m/b.pdf", 3}, {"/m/a.pdf", 3}, {"/m/a.pdf", 4}, {"/m/b.pdf", 3}}
	got := CollapsePages(hits)
	want := []string{"/m/a.pdf#3", "/m/b.pdf#3", "/m/a.pdf#4"}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("got %q, want %q", got, want)
	}
	// The relevant page ranked third among chunks is second among pages.
	m := eval.Evaluate(eval.Qrels{"q": {PageKey("/m/b.pdf", 3): 1}}, eval.Run{"q": got}, 10)
	if m.MRR != 0.5 || m.P1 != 0 || m.Recall != 1 {
		t.Errorf("MRR %v P@1 %v R@10 %v; want 0.5, 0, 1", m.MRR, m.P1, m.Recall)
	}
}

func TestSplitPassages(t *testing.T) {
	got := SplitPassages("f", 2, "aaaa\nbbbb\n\ncccccccccccc\nd\n", 10)
	// The blank line between b and c would be a passage of its own: dropped.
	want := []Passage{{"f", 2, "aaaa\nbbbb\n"}, {"f", 2, "cccccccccccc\n"}, {"f", 2, "d\n"}}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("got %+v, want %+v", got, want)
	}
}

func TestHTMLText(t *testing.T) {
	got := HTMLText([]byte(`<html><head><style>p{}</style><script>var x</script></head><body><p>Use <code>dpkg -L</code></p><li>two</li></body></html>`))
	if want := "\nUse dpkg -L\n\ntwo\n"; got != want {
		t.Fatalf("got %q, want %q", got, want)
	}
}

func TestFTS5Baseline(t *testing.T) {
	b, err := NewFTS5Baseline([]Passage{
		{"grep", 0, "-i, --ignore-case: ignore case distinctions in patterns"},
		{"sed", 0, "-i, --in-place: edit files in place"},
	})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	top, err := b.Top("How do I make grep ignore case?", 1)
	if err != nil {
		t.Fatal(err)
	}
	if len(top) != 1 || top[0].Path != "grep" {
		t.Fatalf("top %+v; want the grep passage", top)
	}
	if top, _ := b.Top("What is the capital of Peru?", 1); len(top) != 0 {
		t.Errorf("no word matches: want nothing, got %+v", top)
	}
}

// AnswerBench end to end on a two-file corpus: the wiring from the
// engine's answers and the baseline's passages to the scores. What Cairn
// answers is the suite's measurement, not this test's; the baseline's top
// passage is fixed by the fixture.
func TestAnswerBenchOnATinyCorpus(t *testing.T) {
	dir := t.TempDir()
	docs := filepath.Join(dir, "docs")
	os.MkdirAll(docs, 0o755)
	os.WriteFile(filepath.Join(docs, "grep.1.txt"), []byte("OPTIONS\n       -i, --ignore-case\n              Ignore case distinctions in patterns and input data, so that characters that differ only in case match each other.\n"), 0o644)
	os.WriteFile(filepath.Join(docs, "sort.1.txt"), []byte("OPTIONS\n       -n, --numeric-sort\n              compare according to string numerical value\n"), 0o644)
	questions := filepath.Join(dir, "q.tsv")
	os.WriteFile(questions, []byte("a1\tgrep.1\t-i, --ignore-case\tHow do I make grep ignore case distinctions?\no1\t-\t-\tWhat is the capital of Peru?\n"), 0o644)

	rep, err := AnswerBench(t.Context(), QualityStore{}, QualityCorpus{Docs: docs}, questions, filepath.Join(dir, "work"), nil, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Files != 2 || rep.Passages != 2 || len(rep.Questions) != 2 {
		t.Fatalf("files %d, baseline passages %d, questions %d; want 2, 2, 2", rep.Files, rep.Passages, len(rep.Questions))
	}
	if c := rep.Cairn; c.Answerable != 1 || c.OffTopic != 1 {
		t.Errorf("Cairn scored %d answerable and %d off-topic questions; want 1 and 1", c.Answerable, c.OffTopic)
	}
	b := rep.Baseline
	if b.AnswerHits != 1 || b.SourceHits != 1 || b.OffTopicRefused != 1 {
		t.Errorf("baseline: %d answer hits, %d source hits, %d off-topic refused; want 1, 1, 1 (no word of the Peru question is in the corpus)",
			b.AnswerHits, b.SourceHits, b.OffTopicRefused)
	}
	if q := rep.Questions[0]; q.ID != "a1" || !q.BaselineHit || q.BaselineTop != "grep.1.txt" {
		t.Errorf("detail of a1: %+v", q)
	}
}

// TestTeamAnswerBenchAnswersAsOnTheFile: the answers part of the
// quality suite with its knowledge base in a one-node Weaviate cluster
// (cairn bench quality --store weaviate) indexes the same files and chunks
// and gives every question the same outcome: answer, refusal, top source.
func TestTeamAnswerBenchAnswersAsOnTheFile(t *testing.T) {
	bin, err := teamtest.Bin()
	if err != nil {
		skip.Because(t, err.Error())
	}
	dir := t.TempDir()
	docs := filepath.Join(dir, "docs")
	os.MkdirAll(docs, 0o755)
	for name, text := range map[string]string{
		"grep.1.txt": "GREP\n\nNAME\n       grep - print lines that match patterns\n\nOPTIONS\n       -i, --ignore-case\n              Ignore case distinctions in patterns and input data, so that characters that differ only in case match each other.\n       -v, --invert-match\n              Invert the sense of matching, to select non-matching lines.\n",
		"sort.1.txt": "SORT\n\nNAME\n       sort - sort lines of text files\n\nOPTIONS\n       -n, --numeric-sort\n              compare according to string numerical value\n       -r, --reverse\n              reverse the result of comparisons\n",
		"tar.1.txt":  "TAR\n\nNAME\n       tar - an archiving utility\n\nOPTIONS\n       -x, --extract\n              Extract files from an archive.\n       -z, --gzip\n              Filter the archive through gzip.\n",
	} {
		os.WriteFile(filepath.Join(docs, name), []byte(text), 0o644)
	}
	questions := filepath.Join(dir, "q.tsv")
	os.WriteFile(questions, []byte("a1\tgrep.1\t-i, --ignore-case\tHow do I make grep ignore case distinctions?\n"+
		"a2\tsort.1\t-r, --reverse\tHow do I sort lines in reverse order?\n"+
		"a3\ttar.1\t-x, --extract\tHow do I extract files from an archive?\n"+
		"o1\t-\t-\tWhat is the capital of Peru?\n"), 0o644)
	file, err := AnswerBench(t.Context(), QualityStore{}, QualityCorpus{Docs: docs}, questions, filepath.Join(dir, "work"), nil, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	team, err := AnswerBench(t.Context(), QualityStore{Bin: bin}, QualityCorpus{Docs: docs}, questions, filepath.Join(dir, "work-team"), nil, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if team.Files != 3 || team.Chunks != file.Chunks || !reflect.DeepEqual(team.Cairn, file.Cairn) {
		t.Errorf("cluster: %d files, %d chunks, %+v\nfile: %d files, %d chunks, %+v", team.Files, team.Chunks, team.Cairn, file.Files, file.Chunks, file.Cairn)
	}
	answered := 0
	for i, w := range file.Questions {
		g := team.Questions[i]
		if g.CairnAnswer != w.CairnAnswer || g.CairnRefused != w.CairnRefused || g.CairnTop != w.CairnTop {
			t.Errorf("%s: cluster %q (refused %v, top %s), file %q (refused %v, top %s)", w.ID, g.CairnAnswer, g.CairnRefused, g.CairnTop, w.CairnAnswer, w.CairnRefused, w.CairnTop)
		}
		if !w.CairnRefused {
			answered++
		}
	}
	if answered < 3 {
		t.Errorf("%d questions answered: the fixture no longer tests answers", answered)
	}
}

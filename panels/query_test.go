package panels

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"fyne.io/fyne/v2/test"

	"cairn/core/answer"
	"cairn/core/search"
)

// newTestQuery is the query panel in a window of the test driver, ready,
// with its requests kept in a buffered channel.
func newTestQuery(t *testing.T) (*Query, chan QueryRequest) {
	t.Helper()
	app := test.NewTempApp(t)
	w := test.NewWindow(nil)
	t.Cleanup(w.Close)
	requests := make(chan QueryRequest, 8)
	q := NewQuery(w, app.Clipboard(), func(r QueryRequest) { requests <- r })
	w.SetContent(q.Content())
	q.Apply(QueryReady{})
	return q, requests
}

func passage(id int64, path string, page int, snippet string) *search.Passage {
	return &search.Passage{ChunkID: id, Path: path, Title: path, Page: page, UnitKind: "page", Snippet: snippet, Text: snippet}
}

func TestClosestPassagesAreListedAsNotAnAnswer(t *testing.T) {
	q, _ := newTestQuery(t)
	near := []search.Result{
		{Passage: passage(7, "/docs/pump.pdf", 4, "The pump seal is replaced yearly."), Rank: 1, Relevance: 0.2},
		{Passage: passage(9, "/docs/notes.md", 0, "Seal kits are in the store room."), Rank: 2, Relevance: 0.1},
	}
	ans := &answer.Answer{Question: "who invented the pump", Text: answer.NotCovered, Mode: answer.ModeExtractive,
		Refused: true, Closest: true, Verdict: answer.VerdictNone,
		Sources: []answer.Source{{N: 1, Result: near[0]}, {N: 2, Result: near[1]}}}
	q.Apply(Asking{Question: ans.Question}, Token{Text: ans.Text}, Answered{Answer: ans},
		Ranked{Question: ans.Question, Results: near})

	if q.SourcesHead.Text != "Closest passages — not an answer" {
		t.Errorf("heading %q", q.SourcesHead.Text)
	}
	if got := q.Answer.Text.String(); got != answer.NotCovered {
		t.Errorf("answer %q", got)
	}
	if q.Answer.Verdict.Visible() {
		t.Errorf("a verdict badge %q is shown for no answer", q.Answer.Verdict.Text)
	}
	if !strings.HasPrefix(q.State.Text, "Your documents do not seem to cover this.") {
		t.Errorf("state %q", q.State.Text)
	}
	var where []string
	for _, r := range q.Rows() {
		if r.Cite.Visible() {
			t.Errorf("row %s is marked %s, as a citation", r.Title.Text, r.Cite.Text)
		}
		where = append(where, r.Title.Text+" "+r.Where.Text+" "+r.Relevance.Text)
	}
	if want := []string{"pump.pdf page 4 weak match", "notes.md  weak match"}; !slices.Equal(where, want) {
		t.Errorf("rows %q, want %q", where, want)
	}

	// The next question that is answered lists sources again.
	q.Apply(Asking{Question: "how do I replace the seal"})
	if q.SourcesHead.Text != "Sources" {
		t.Errorf("heading after a new question %q", q.SourcesHead.Text)
	}
}

func TestEachSourceSaysItsRelevanceInWords(t *testing.T) {
	q, _ := newTestQuery(t)
	results := []search.Result{
		{Passage: passage(1, "/a.pdf", 1, "a"), Rank: 1, Relevance: 0.82, Score: 1},
		{Passage: passage(2, "/b.pdf", 2, "b"), Rank: 2, Relevance: 0.55, Score: 0.9},
		{Passage: passage(3, "/c.pdf", 3, "c"), Rank: 3, Relevance: 0.12, Score: 0.8},
	}
	results[2].Navigation = true
	q.Apply(Asking{Question: "q"}, Ranked{Question: "q", Results: results, Params: search.DefaultParams()})
	var got []string
	for _, r := range q.Rows() {
		got = append(got, r.Relevance.Text)
	}
	if want := []string{"strong match", "partial match", "weak match, contents or index page"}; !slices.Equal(got, want) {
		t.Errorf("relevance %q, want %q", got, want)
	}
	row := q.Rows()[0]
	test.Tap(row.Explain)
	if !strings.Contains(row.Why.Text, "Relevant: 0.82, strong match (share of the question's information covered)\n") {
		t.Errorf("why does not give the number:\n%s", row.Why.Text)
	}
}

// A source is named by its file, with the extension, and its folder; the
// document's own title ("2.39.0" for a man page) is in Why.
func TestSourceIsNamedByItsFileAndFolder(t *testing.T) {
	q, _ := newTestQuery(t)
	home, _ := os.UserHomeDir()
	p := passage(1, filepath.Join(home, "Documents", "man", "grep.1"), 0, "grep searches for patterns")
	p.Title = "2.39.0"
	q.Apply(Asking{Question: "q"}, Ranked{Question: "q", Results: []search.Result{{Passage: p, Rank: 1, Relevance: 0.5}}, Params: search.DefaultParams()})
	row := q.Rows()[0]
	if row.Title.Text != "grep.1" || row.Folder.Text != filepath.Join("~", "Documents", "man") {
		t.Errorf("title %q, folder %q; want grep.1 in ~/Documents/man", row.Title.Text, row.Folder.Text)
	}
	test.Tap(row.Explain)
	if !strings.Contains(row.Why.Text, "Title:   2.39.0\n") {
		t.Errorf("why does not give the document's title:\n%s", row.Why.Text)
	}
}

// Why shows the reranker's score, the rank before reranking, and the
// step's budget and N; a result it did not score says so.
func TestWhyShowsTheRerank(t *testing.T) {
	q, _ := newTestQuery(t)
	rr := &search.Reranking{Model: "bge-reranker-v2-m3", Budget: 1500 * time.Millisecond, PerPair: 60 * time.Millisecond,
		N: 25, Took: 1400 * time.Millisecond}
	results := []search.Result{
		{Passage: passage(1, "/a.pdf", 1, "a"), Rank: 1, Relevance: 0.5, PreRank: 4, RerankScore: 3.25},
		{Passage: passage(2, "/b.pdf", 2, "b"), Rank: 2, Relevance: 0.5},
	}
	q.Apply(Asking{Question: "q"}, Ranked{Question: "q", Results: results, Params: search.DefaultParams(), Rerank: rr})
	rows := q.Rows()
	test.Tap(rows[0].Explain)
	test.Tap(rows[1].Explain)
	want := "Rerank:  score 3.250, rank 4 before reranking; the fused top 25 reranked by bge-reranker-v2-m3 in 1.4s (budget 1.5s, 60ms a pair on this machine)\n"
	if !strings.Contains(rows[0].Why.Text, want) {
		t.Errorf("why:\n%s\nwant the line\n%s", rows[0].Why.Text, want)
	}
	if !strings.Contains(rows[1].Why.Text, "Rerank:  not scored (the fused top 25 reranked") {
		t.Errorf("why of an unscored result:\n%s", rows[1].Why.Text)
	}
}

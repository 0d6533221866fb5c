package ui

import (
	"strings"
	"testing"

	"cairn/core/search"
)

// A fresh answer that quotes a passage read beyond the listed sources (a
// fourth passage of a file the per-document cap keeps out of the list) is
// not marked "Retrieval settings changed": nobody moved a knob. It was,
// after every restart, with answer.top_k 5 and a cited [6]. Moving a knob
// so that a listed source goes still marks it.
func TestAFreshAnswerQuotingBeyondTheListIsNotStale(t *testing.T) {
	eng := newFakeEngine(t.TempDir())
	eng.beyond = &search.Passage{ChunkID: 5, DocumentID: 1, Path: "/docs/a.md", Title: "Alpha notes",
		Text: "Alpha: the fourth passage of a.md.", LineStart: 40, LineEnd: 41}
	h := newHarness(t, eng)
	q := askedAndRanked(t, h)
	if !strings.HasPrefix(q.State.Text, "Answered from 5 sources") {
		t.Fatalf("state %q: want an answer from the 4 listed sources and 1 beyond", q.State.Text)
	}
	if shown(q, q.Answer.Stale) {
		t.Fatalf("a fresh answer is marked stale: %q", q.Answer.Stale.Text)
	}
	e := h.shell().Tuning
	e.Knob("retrieval.top_k").Slider.SetValue(1)
	h.until("the stale mark", func() bool { return len(q.Rows()) == 1 && shown(q, q.Answer.Stale) })
}

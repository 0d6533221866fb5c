package panels

import (
	"testing"

	"fyne.io/fyne/v2/test"

	"cairn/core/answer"
	"cairn/core/search"
)

// TestACorrectedWordOffersTheWordsAsTyped: when a word was corrected, the
// line over the answer says what was searched and what was typed, and a
// button asks the question again as typed (Exact, in the answer's place);
// an answer without corrections shows neither.
func TestACorrectedWordOffersTheWordsAsTyped(t *testing.T) {
	q, requests := newTestQuery(t)
	const question = "how do I copy files recursivly"
	corrected := &answer.Answer{Question: question, Text: "-R, -r, --recursive copy directories recursively [1]", Mode: answer.ModeExtractive,
		Query:       "how do I copy files recursively",
		Corrections: []search.Correction{{From: "recursivly", To: "recursively"}}}
	q.Apply(Asking{Question: question}, Answered{Answer: corrected})
	turn := q.Turns()[0]
	if want := "Searched for: how do I copy files recursively (you typed recursivly)"; !turn.Searched.Visible() || turn.Searched.Text != want {
		t.Errorf("searched line %q (visible %v), want %q", turn.Searched.Text, turn.Searched.Visible(), want)
	}
	if !turn.Exact.Visible() || turn.Exact.Text != "Search for recursivly instead" {
		t.Fatalf("exact button %q (visible %v)", turn.Exact.Text, turn.Exact.Visible())
	}
	test.Tap(turn.Exact)
	var got Ask
	for len(requests) > 0 {
		if a, ok := (<-requests).(Ask); ok {
			got = a
		}
	}
	if got.Question != question || !got.Exact || !got.Again {
		t.Errorf("asked %+v", got)
	}
	q.Apply(Asking{Question: question, Again: true}, Answered{Answer: &answer.Answer{Question: question, Text: "as typed", Mode: answer.ModeExtractive}})
	if len(q.Turns()) != 1 {
		t.Errorf("asked again as typed, the conversation shows %d questions, not its one", len(q.Turns()))
	}
	if turn.Exact.Visible() || turn.Searched.Visible() {
		t.Error("an answer searched as typed still offers the words as typed")
	}
}

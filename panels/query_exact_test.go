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
	if want := "Searched for: how do I copy files recursively (you typed recursivly)"; !q.Conversation.Searched.Visible() || q.Conversation.Searched.Text != want {
		t.Errorf("searched line %q (visible %v), want %q", q.Conversation.Searched.Text, q.Conversation.Searched.Visible(), want)
	}
	if !q.Conversation.Exact.Visible() || q.Conversation.Exact.Text != "Search for recursivly instead" {
		t.Fatalf("exact button %q (visible %v)", q.Conversation.Exact.Text, q.Conversation.Exact.Visible())
	}
	test.Tap(q.Conversation.Exact)
	var got Ask
	for len(requests) > 0 {
		if a, ok := (<-requests).(Ask); ok {
			got = a
		}
	}
	if got.Question != question || !got.Exact || !got.Again {
		t.Errorf("asked %+v", got)
	}
	q.Apply(Asking{Question: question}, Answered{Answer: &answer.Answer{Question: question, Text: "as typed", Mode: answer.ModeExtractive}})
	if q.Conversation.Exact.Visible() || q.Conversation.Searched.Visible() {
		t.Error("an answer searched as typed still offers the words as typed")
	}
}

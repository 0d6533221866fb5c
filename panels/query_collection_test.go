package panels

import (
	"testing"

	"fyne.io/fyne/v2/test"

	"cairn/core/answer"
	"cairn/core/collection"
)

// TestWordFormsAreOneClickFromACount: under a count of whole words the
// window offers to count every form of the words, which asks the same
// question again with WordForms; a count of word forms, or one that
// counted nothing for a conflict, does not offer it.
func TestWordFormsAreOneClickFromACount(t *testing.T) {
	q, requests := newTestQuery(t)
	const question = "How many files mention locale?"
	counted := func(parsed collection.Question) *answer.Answer {
		return &answer.Answer{Question: question, Text: "1 file contains 'locale' (whole word, any case).", Mode: answer.ModeCollection,
			Verdict: answer.VerdictNone, Collection: &collection.Result{Question: parsed, Total: 1}}
	}
	q.Apply(Asking{Question: question}, Answered{Answer: counted(collection.Question{Terms: [][]string{{"locale"}}})})
	if !q.Answer.WordForms.Visible() {
		t.Fatal("no way to count the word's forms under a count of whole words")
	}
	test.Tap(q.Answer.WordForms)
	var got Ask
	for len(requests) > 0 {
		if a, ok := (<-requests).(Ask); ok {
			got = a
		}
	}
	if got.Question != question || !got.WordForms || !got.Again {
		t.Errorf("asked %+v", got)
	}
	for _, parsed := range []collection.Question{
		{Terms: [][]string{{"locale"}}, Forms: true},
		{Terms: [][]string{{"locale"}}, Conflicts: []string{"the question asks for PDF files and the search's filter for html files"}},
		{}, // "How many files are there?": no words
	} {
		q.Apply(Asking{Question: question}, Answered{Answer: counted(parsed)})
		if q.Answer.WordForms.Visible() {
			t.Errorf("%+v: offers to count word forms", parsed)
		}
	}
}

package ui

import (
	"strings"
	"testing"

	"fyne.io/fyne/v2/test"
)

// The preview pane follows the question: after a new question it shows the
// new answer's first source, [1], in place of the passage opened for the
// last one, and a new conversation closes it. It kept the previous
// question's passage, read as a source of the new answer.
func TestThePreviewFollowsTheQuestion(t *testing.T) {
	eng := newFakeEngine(t.TempDir())
	h := newHarness(t, eng)
	q := h.shell().Query
	h.ask("how do I reset the router")
	h.until("the sources", func() bool { return len(q.Rows()) == 4 && q.Answer.Verdict.Visible() })
	test.Tap(q.Rows()[1].Open)
	h.until("the preview of source 2", func() bool { return highlightedText(q.Preview) == passB.Text })

	h.ask("what is the default password")
	h.until("the new answer", func() bool { return len(q.Rows()) == 4 && q.Answer.Verdict.Visible() })
	if got := q.Rows()[0].Title.Text; got != "c.pdf" {
		t.Fatalf("the new answer's first source is %q, want c.pdf (passage C)", got)
	}
	first := passC
	h.until("the preview of the new [1]", func() bool {
		return q.Preview.Passage() != nil && q.Preview.Passage().ChunkID == first.ChunkID && highlightedText(q.Preview) == first.Text
	})
	if !q.Preview.Visible() || q.Preview.Title.Text != "c.pdf" {
		t.Errorf("preview visible %v, title %q", q.Preview.Visible(), q.Preview.Title.Text)
	}

	h.win.newConversation()
	h.until("the new conversation", func() bool { return strings.HasPrefix(q.State.Text, "New conversation") })
	if q.Preview.Visible() || q.Preview.Passage() != nil {
		t.Errorf("a new conversation kept the preview of %v", q.Preview.Passage())
	}
}

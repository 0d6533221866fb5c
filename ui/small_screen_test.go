package ui

import (
	"testing"

	"fyne.io/fyne/v2/test"
)

// With the preview pane open the window still fits the smallest size the
// docs name (926x520): the answer's verdict, timing and mode lines, each
// one unwrapped line, made the answer column 640 px wide at the least and
// the window 938 px with the pane beside it.
func TestThePreviewFitsTheSmallestWindow(t *testing.T) {
	h := newHarness(t, newFakeEngine(t.TempDir()))
	q := askedAndRanked(t, h)
	test.Tap(q.Rows()[0].Open)
	h.until("the preview", q.Preview.Visible)
	h.win.w.Resize(smallestWindow)
	h.frame()
	h.frame()
	if min := h.win.w.Content().MinSize(); min.Width > smallestWindow.Width || min.Height > smallestWindow.Height {
		t.Errorf("with the preview open the window needs %v, more than %v", min, smallestWindow)
	}
	for _, l := range []string{q.Answer.Mode.Text, q.Answer.Timing.Text, q.Answer.Verdict.Text} {
		if l == "" {
			t.Fatal("the answer has no verdict, timing or mode line: the test needs them")
		}
	}
}

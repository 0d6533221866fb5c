package ui

import (
	"context"
	"strings"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/widget"

	"cairn/core/config"
	"cairn/panels"
)

// Typing right after start goes into the question box, even before the
// knowledge base is open; Enter then asks once it is. Typing went nowhere:
// nothing had the focus, and the box was disabled until the knowledge base
// opened.
func TestTypingAtStartGoesIntoTheQuestion(t *testing.T) {
	eng := newFakeEngine(t.TempDir())
	h := startHarness(t, func(context.Context, string, config.Config) (Engine, error) { return eng, nil }, eng.Config())
	c := h.win.w.Canvas()
	q := h.shell().Query
	if c.Focused() != q.Question {
		t.Fatalf("at start %T has the focus, not the question box", c.Focused())
	}
	// As the desktop driver types: into the focused widget, else to the
	// canvas's handler.
	for _, r := range "how do I reset the router" {
		if f := c.Focused(); f != nil {
			f.TypedRune(r)
		} else if h := c.OnTypedRune(); h != nil {
			h(r)
		}
	}
	if q.Question.Text != "how do I reset the router" {
		t.Fatalf("typed at start, the question box holds %q", q.Question.Text)
	}
	press(h.win.w, fyne.KeyReturn)
	h.until("the answer", func() bool { return strings.HasPrefix(q.State.Text, "Answered") })
	eng.locked(func() {
		if len(eng.asks) != 1 || eng.asks[0].Query != "how do I reset the router" {
			t.Errorf("asked %+v", eng.asks)
		}
	})
}

// Every Tab stop shows its focus: an empty list showed none (the
// personal test set before any judgment, the Index tab's lists before any
// folder), so Tab seemed to go nowhere. Each tab's chain is walked once
// round.
func TestNoTabStopOnAnEmptyList(t *testing.T) {
	h := newHarness(t, newFakeEngine(t.TempDir()))
	c := h.win.w.Canvas()
	for _, tab := range []int{tabAsk, tabIndex, tabEngineering} {
		h.shell().showTab(tab)
		h.frame()
		c.Unfocus()
		seen := map[fyne.Focusable]bool{}
		for range 100 {
			c.FocusNext()
			f := c.Focused()
			if f == nil || seen[f] {
				break
			}
			seen[f] = true
			var n int = -1
			switch l := f.(type) {
			case *widget.List:
				n = l.Length()
			case *panels.List:
				n = l.Length()
			}
			if n == 0 {
				t.Errorf("tab %d: Tab stops on an empty list, which shows no focus", tab)
			}
		}
		if len(seen) < 3 {
			t.Errorf("tab %d: only %d Tab stops", tab, len(seen))
		}
	}
}

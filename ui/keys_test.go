package ui

import (
	"strings"
	"testing"

	"fyne.io/fyne/v2"

	"cairn/panels"
)

// press sends a key with no modifier as the desktop driver does: a key
// without Ctrl, Alt or Super is never a shortcut, and goes to the focused
// widget, or to the canvas's handler when nothing has the focus.
func press(w fyne.Window, name fyne.KeyName) {
	c := w.Canvas()
	ev := &fyne.KeyEvent{Name: name}
	if f := c.Focused(); f != nil {
		f.TypedKey(ev)
	} else if h := c.OnTypedKey(); h != nil {
		h(ev)
	}
}

// F1, shown in the Help menu, opens the user guide whatever has the focus:
// nothing, the question box, the Folder box or a button. It did nothing:
// Fyne makes no shortcut of a key without a modifier.
func TestF1OpensTheGuide(t *testing.T) {
	h := newHarness(t, newFakeEngine(t.TempDir()))
	s := h.shell()
	c := h.win.w.Canvas()
	for _, focus := range []struct {
		name string
		tab  int
		obj  fyne.Focusable
	}{
		{"nothing", tabAsk, nil},
		{"the question box", tabAsk, s.Query.Question},
		{"the Ask button", tabAsk, s.Query.AskButton},
		{"the Folder box", tabIndex, s.IndexTab.Folder},
		{"the Choose button", tabIndex, s.IndexTab.ChooseButton},
	} {
		s.showTab(focus.tab)
		c.Unfocus()
		if focus.obj != nil {
			c.Focus(focus.obj)
			if c.Focused() != focus.obj {
				t.Fatalf("%s does not take the focus", focus.name)
			}
		}
		press(h.win.w, fyne.KeyF1)
		if h.win.guide == nil {
			t.Fatalf("F1 with %s focused: no guide", focus.name)
		}
		h.win.guide.Close()
		h.win.guide = nil
	}
}

// Escape works when a text box or a button has the focus: Cairn's folder
// picker focuses its path box, and Escape never closed it; Escape did not
// cancel an index run while the Folder box had the focus.
func TestEscapeWorksInFocusedWidgets(t *testing.T) {
	eng := newFakeEngine(t.TempDir())
	h := newHarness(t, eng)
	s := h.shell()
	c := h.win.w.Canvas()
	p := s.IndexTab

	s.showTab(tabIndex)
	p.Apply(panels.ShowFolderDialog{})
	h.until("Cairn's folder picker", func() bool { return p.FolderDialog != nil })
	h.overlay()
	if c.Focused() != p.FolderDialog.Path {
		t.Fatalf("the picker's path box does not have the focus (%T has)", c.Focused())
	}
	press(h.win.w, fyne.KeyEscape)
	if c.Overlays().Top() != nil {
		t.Fatal("Escape in the path box left the folder picker open")
	}

	eng.askGate = make(chan struct{})
	eng.indexGate = make(chan struct{})
	q := s.Query
	h.ask("how do I reset the router")
	startIndexing(h, t.TempDir())
	h.until("both to run", func() bool { return !q.CancelButton.Disabled() && !p.CancelButton.Disabled() })
	s.showTab(tabIndex)
	c.Focus(p.Folder)
	press(h.win.w, fyne.KeyEscape)
	h.until("indexing to stop", func() bool { return strings.HasPrefix(p.State.Text, "Cancelled") })
	if q.CancelButton.Disabled() {
		t.Fatal("Escape on the Index tab also cancelled the question")
	}
	s.showTab(tabAsk)
	c.Focus(q.CancelButton)
	press(h.win.w, fyne.KeyEscape)
	h.until("the question to stop", func() bool { return strings.HasPrefix(q.State.Text, "Cancelled") })
}

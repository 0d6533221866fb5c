package panels

import (
	"slices"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/widget"
)

// maxHistory is how many past questions the question entry remembers.
const maxHistory = 50

// HistoryEntry is a one-line entry that remembers what was submitted: Up and
// Down walk through earlier entries, the drop-down lists them, Enter calls
// OnSubmitted and Escape calls OnEscape.
type HistoryEntry struct {
	widget.SelectEntry

	// OnEscape is called when Escape is typed.
	OnEscape func()

	history []string // most recent first
	pos     int      // -1: not browsing
	draft   string   // what was typed before browsing began
}

// NewHistoryEntry returns an empty entry with no history.
func NewHistoryEntry() *HistoryEntry {
	e := &HistoryEntry{pos: -1}
	e.ExtendBaseWidget(e)
	e.Wrapping = fyne.TextWrap(fyne.TextTruncateClip)
	return e
}

// Remember puts s at the top of the history (once).
func (e *HistoryEntry) Remember(s string) {
	if s == "" {
		return
	}
	e.history = slices.DeleteFunc(e.history, func(h string) bool { return h == s })
	e.history = slices.Insert(e.history, 0, s)
	if len(e.history) > maxHistory {
		e.history = e.history[:maxHistory]
	}
	e.pos = -1
	e.SetOptions(e.history)
}

// History returns the remembered entries, most recent first.
func (e *HistoryEntry) History() []string { return slices.Clone(e.history) }

// TypedKey handles history browsing and Escape, passes F1 to the window
// and the rest to the entry.
func (e *HistoryEntry) TypedKey(k *fyne.KeyEvent) {
	switch k.Name {
	case fyne.KeyUp:
		if e.pos+1 < len(e.history) {
			if e.pos < 0 {
				e.draft = e.Text
			}
			e.pos++
			e.show(e.history[e.pos])
		}
	case fyne.KeyDown:
		switch {
		case e.pos > 0:
			e.pos--
			e.show(e.history[e.pos])
		case e.pos == 0:
			e.pos = -1
			e.show(e.draft)
		}
	case fyne.KeyEscape:
		if e.OnEscape != nil {
			e.OnEscape()
		} else {
			PassKey(e, k)
		}
	case fyne.KeyF1:
		PassKey(e, k)
	default:
		e.SelectEntry.TypedKey(k)
	}
}

func (e *HistoryEntry) show(s string) {
	e.SetText(s)
	e.CursorColumn = len([]rune(s))
	e.Refresh()
}

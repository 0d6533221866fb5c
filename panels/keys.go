package panels

import (
	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/widget"
)

// Fyne hands a key to the focused widget, and to the canvas's key handler
// only when nothing has the focus; a key with no modifier other than Shift
// is never a shortcut. So Escape (cancel, close a dialog) and F1 (the user
// guide) were lost whenever a text box or a button had the focus: Cairn's
// own folder picker focuses its path box, and Escape never closed it.
// Cairn's entries and buttons pass these keys to the canvas's handler.

// windowKey reports whether k is a key of the window rather than of the
// focused widget.
func windowKey(k *fyne.KeyEvent) bool { return k.Name == fyne.KeyEscape || k.Name == fyne.KeyF1 }

// PassKey hands k to the key handler of o's canvas when it is a window key
// (Escape, F1), as Fyne does when nothing has the focus, and reports
// whether it did.
func PassKey(o fyne.CanvasObject, k *fyne.KeyEvent) bool {
	if !windowKey(k) {
		return false
	}
	app := fyne.CurrentApp()
	if app == nil {
		return false
	}
	c := app.Driver().CanvasForObject(o)
	if c == nil || c.OnTypedKey() == nil {
		return false
	}
	c.OnTypedKey()(k)
	return true
}

// Entry is a one-line text box that passes the window's keys on.
type Entry struct{ widget.Entry }

// NewEntry returns an empty Entry.
func NewEntry() *Entry {
	e := &Entry{}
	e.ExtendBaseWidget(e)
	return e
}

// TypedKey passes Escape and F1 to the window, the rest to the entry.
func (e *Entry) TypedKey(k *fyne.KeyEvent) {
	if !PassKey(e, k) {
		e.Entry.TypedKey(k)
	}
}

// Button is a button that passes the window's keys on when it has the
// focus.
type Button struct{ widget.Button }

// NewButton returns a button labelled label that calls tapped.
func NewButton(label string, tapped func()) *Button {
	return NewButtonWithIcon(label, nil, tapped)
}

// NewButtonWithIcon returns a button with an icon.
func NewButtonWithIcon(label string, icon fyne.Resource, tapped func()) *Button {
	b := &Button{}
	b.Text, b.Icon, b.OnTapped = label, icon, tapped
	b.ExtendBaseWidget(b)
	return b
}

// TypedKey passes Escape and F1 to the window, the rest (Space) to the
// button.
func (b *Button) TypedKey(k *fyne.KeyEvent) {
	if !PassKey(b, k) {
		b.Button.TypedKey(k)
	}
}

// List is a list that takes no Tab stop while it is empty: an empty list
// shows its focus on no row, so a Tab stop there showed no focus at all.
// Fyne's focus chain skips a disabled widget, and an empty List reports
// itself disabled; it has nothing else to enable.
type List struct{ widget.List }

// NewList is widget.NewList with the empty list out of the Tab chain.
func NewList(length func() int, create func() fyne.CanvasObject, update func(widget.ListItemID, fyne.CanvasObject)) *List {
	l := &List{}
	l.Length, l.CreateItem, l.UpdateItem = length, create, update
	l.ExtendBaseWidget(l)
	return l
}

// Disabled reports whether the list is empty.
func (l *List) Disabled() bool { return l.Length == nil || l.Length() == 0 }

// Enable and Disable do nothing: the list is enabled when it has rows.
func (l *List) Enable() {}

// Disable does nothing; see Enable.
func (l *List) Disable() {}

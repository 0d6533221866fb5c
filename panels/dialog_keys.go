package panels

import (
	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/dialog"
)

// Fyne's dialogs take no keys: with one shown and no entry focused, keys
// reach the window's canvas. AnswerKeys makes the canvas answer Enter with
// enter (nil: Enter is ignored) and Escape with escape while a dialog is
// shown, passing other keys on; the returned func puts the window's own
// handler back, and must run when the dialog closes.
func AnswerKeys(win fyne.Window, enter, escape func()) (restore func()) {
	c := win.Canvas()
	prev := c.OnTypedKey()
	c.SetOnTypedKey(func(k *fyne.KeyEvent) {
		switch {
		case (k.Name == fyne.KeyReturn || k.Name == fyne.KeyEnter) && enter != nil:
			enter()
		case k.Name == fyne.KeyEscape:
			escape()
		case prev != nil:
			prev(k)
		}
	})
	return func() { c.SetOnTypedKey(prev) }
}

// ShowConfirm is dialog.ShowConfirm answering Enter (yes) and Escape (no).
func ShowConfirm(title, message string, callback func(bool), win fyne.Window) {
	d := dialog.NewConfirm(title, message, callback, win)
	ConfirmKeys(d, win)
	d.Show()
}

// ConfirmKeys makes a confirmation answer Enter and Escape.
func ConfirmKeys(d *dialog.ConfirmDialog, win fyne.Window) {
	restore := AnswerKeys(win, d.Confirm, d.Dismiss)
	d.SetOnClosed(restore)
}

// DialogKeys makes a dialog without a choice (information, about) close
// with Enter or Escape.
func DialogKeys(d dialog.Dialog, win fyne.Window) {
	restore := AnswerKeys(win, d.Hide, d.Hide)
	d.SetOnClosed(restore)
}

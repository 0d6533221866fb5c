package ui

import (
	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/driver"

	"cairn/ui/desktop"
)

// defaultSize fits a laptop screen.
var defaultSize = fyne.NewSize(1100, 760)

// smallestWindow is the size every tab must work at, the whole window with
// its menu bar: what a 1024×600 netbook screen leaves under a panel and a
// title bar. The window's own minimum is below it (tests: windowMinSize).
var smallestWindow = fyne.NewSize(926, 520)

// restoreSize gives the window its last size.
func (win *window) restoreSize() {
	w := float32(win.prefs.FloatWithFallback(prefWidth, float64(defaultSize.Width)))
	h := float32(win.prefs.FloatWithFallback(prefHeight, float64(defaultSize.Height)))
	win.w.Resize(fyne.NewSize(max(w, 480), max(h, 360)))
}

// restorePosition puts the window where it was, on X11 (Wayland lets only
// the compositor place windows; Fyne has no portable call).
func (win *window) restorePosition() {
	x, y := win.prefs.IntWithFallback(prefX, -1), win.prefs.IntWithFallback(prefY, -1)
	if x < 0 || y < 0 {
		return
	}
	if nw, ok := win.w.(driver.NativeWindow); ok {
		nw.RunNative(func(ctx any) {
			if x11, ok := ctx.(driver.X11WindowContext); ok && x11.WindowHandle != 0 {
				desktop.MoveWindow(x11.WindowHandle, x, y)
			}
		})
	}
}

// saveState remembers the window's size and, on X11, its position.
func (win *window) saveState() {
	size := win.w.Canvas().Size()
	win.prefs.SetFloat(prefWidth, float64(size.Width))
	win.prefs.SetFloat(prefHeight, float64(size.Height))
	if nw, ok := win.w.(driver.NativeWindow); ok {
		nw.RunNative(func(ctx any) {
			if x11, ok := ctx.(driver.X11WindowContext); ok && x11.WindowHandle != 0 {
				if x, y, ok := desktop.WindowPosition(x11.WindowHandle); ok {
					win.prefs.SetInt(prefX, x)
					win.prefs.SetInt(prefY, y)
				}
			}
		})
	}
}

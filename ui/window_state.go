package ui

import (
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/driver"

	"cairn/ui/desktop"
)

// defaultSize fits a laptop screen; a smaller screen gets less (fitSize).
var defaultSize = fyne.NewSize(1100, 760)

// smallestWindow is the size every tab must work at, the whole window with
// its menu bar: what a 1024×600 netbook screen leaves under a panel and a
// title bar. The window's own minimum is below it (tests: windowMinSize).
var smallestWindow = fyne.NewSize(926, 520)

// decorations are the window manager's title bar and borders around the
// window, in pixels, until the window is on screen and they can be read:
// a title bar of 40 pixels is at the tall end of common desktops.
var decorations = frame{top: 40}

// frame is the room decorations take around a window, in pixels.
type frame struct{ left, right, top, bottom int }

// screenFunc is the work area of the monitor at (x, y) in pixels (the
// first monitor for a point on none, such as -1, -1); ok is false when it
// cannot be known (no X11 display: Wayland, the test driver).
type screenFunc func(x, y int) (area desktop.Rect, ok bool)

// fitSize is size, made small enough that the window with its
// decorations fits area; scale is Fyne's units to pixels.
func fitSize(size fyne.Size, area desktop.Rect, dec frame, scale float32) fyne.Size {
	if scale <= 0 {
		scale = 1
	}
	w := float32(area.W-dec.left-dec.right) / scale
	h := float32(area.H-dec.top-dec.bottom) / scale
	return fyne.NewSize(min(size.Width, w), min(size.Height, h))
}

// fitPosition moves a window frame of w by h pixels at (x, y) the least
// needed to lie inside area; a frame larger than area keeps its top left
// corner in it.
func fitPosition(x, y, w, h int, area desktop.Rect) (int, int) {
	clamp := func(v, lo, length, room int) int {
		return max(lo, min(v, lo+room-length))
	}
	return clamp(x, area.X, w, area.W), clamp(y, area.Y, h, area.H)
}

// restoreSize gives the window its last size, or the default one, made to
// fit the screen it opens on: a size remembered on a 1920×1080 screen, or
// the default on a 1024×600 one, would put the status bar and the
// buttons on the right beyond the screen's edges.
func (win *window) restoreSize() {
	w := float32(win.prefs.FloatWithFallback(prefWidth, float64(defaultSize.Width)))
	h := float32(win.prefs.FloatWithFallback(prefHeight, float64(defaultSize.Height)))
	size := fyne.NewSize(max(w, 480), max(h, 360))
	if win.env.screen != nil {
		x, y := win.prefs.IntWithFallback(prefX, -1), win.prefs.IntWithFallback(prefY, -1)
		if area, ok := win.env.screen(x, y); ok {
			// The scale the window will have is known once it is on a
			// monitor; fitToScreen corrects for it then.
			size = fitSize(size, area, decorations, win.app.Settings().Scale())
		}
	}
	win.w.Resize(size)
}

// fitToScreen runs once the window is on screen: it puts the window where
// it was (on X11: Wayland lets only the compositor place windows, and
// Fyne has no portable call), and makes the window, its decorations as the
// window manager drew them, fit the work area of the monitor it is on.
// The window manager places and decorates the window after it is mapped,
// so the work is done in the background once it has, or after a second
// without a window manager.
func (win *window) fitToScreen() {
	nw, ok := win.w.(driver.NativeWindow)
	if !ok {
		return
	}
	var handle uintptr
	nw.RunNative(func(ctx any) {
		if x11, ok := ctx.(driver.X11WindowContext); ok {
			handle = x11.WindowHandle
		}
	})
	if handle == 0 {
		return
	}
	scale, size := win.w.Canvas().Scale(), win.w.Canvas().Size()
	x, y := win.prefs.IntWithFallback(prefX, -1), win.prefs.IntWithFallback(prefY, -1)
	stored := x >= 0 && y >= 0
	go func() {
		dec := frame{}
		for range 20 { // a second for the window manager's decorations
			if win.ctx.Err() != nil {
				return // the window closed meanwhile
			}
			if l, r, t, b, ok := desktop.FrameExtents(handle); ok {
				dec = frame{l, r, t, b}
				break
			}
			time.Sleep(50 * time.Millisecond)
		}
		if !stored {
			var ok bool
			if x, y, ok = desktop.WindowPosition(handle); !ok {
				return
			}
		}
		area, ok := desktop.WorkArea(x, y)
		if !ok {
			return
		}
		fit := fitSize(size, area, dec, scale)
		if win.ctx.Err() != nil {
			return // the window closed meanwhile
		}
		if fit != size {
			win.env.do(func() { win.w.Resize(fit) })
		}
		fw := int(fit.Width*scale) + dec.left + dec.right
		fh := int(fit.Height*scale) + dec.top + dec.bottom
		nx, ny := fitPosition(x, y, fw, fh, area)
		if stored || nx != x || ny != y {
			desktop.MoveWindow(handle, nx, ny)
		}
	}()
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

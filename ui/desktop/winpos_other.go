//go:build !linux

package desktop

import (
	"context"
	"errors"
	"time"
)

// WindowPosition is not available on this system.
func WindowPosition(win uintptr) (x, y int, ok bool) { return 0, 0, false }

// Rect is a rectangle of the screen, in pixels.
type Rect struct{ X, Y, W, H int }

// WorkArea is not available on this system.
func WorkArea(x, y int) (r Rect, ok bool) { return Rect{}, false }

// FrameExtents is not available on this system.
func FrameExtents(win uintptr) (left, right, top, bottom int, ok bool) { return 0, 0, 0, 0, false }

// MoveWindow is not available on this system.
func MoveWindow(win uintptr, x, y int) bool { return false }

// WaitPainted is not available on this system.
func WaitPainted(ctx context.Context, display, prefix string) (mapped, painted time.Time, err error) {
	return mapped, painted, errors.New("measuring the first paint needs X11 on Linux")
}

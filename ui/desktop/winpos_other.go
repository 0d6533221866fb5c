//go:build !linux

package desktop

import (
	"context"
	"errors"
	"time"
)

// WindowPosition is not available on this system.
func WindowPosition(win uintptr) (x, y int, ok bool) { return 0, 0, false }

// MoveWindow is not available on this system.
func MoveWindow(win uintptr, x, y int) bool { return false }

// WaitPainted is not available on this system.
func WaitPainted(ctx context.Context, display, prefix string) (mapped, painted time.Time, err error) {
	return mapped, painted, errors.New("measuring the first paint needs X11 on Linux")
}

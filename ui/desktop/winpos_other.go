//go:build !linux

package desktop

// WindowPosition is not available on this system.
func WindowPosition(win uintptr) (x, y int, ok bool) { return 0, 0, false }

// MoveWindow is not available on this system.
func MoveWindow(win uintptr, x, y int) bool { return false }

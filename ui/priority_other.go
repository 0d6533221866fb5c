//go:build !linux

package ui

// lowerOtherThreads does nothing where threads have no nice value of their
// own; see priority_linux.go.
func lowerOtherThreads(int) error { return nil }

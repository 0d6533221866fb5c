package ui

import (
	"os"
	"runtime"
	"testing"
)

// Go gets one processor more for the window, and an index run one
// extraction worker fewer than Go had: with the writer they fill what
// there was, and one processor stays free for the window's goroutine.
func TestReserveProcessorLeavesOneForTheWindow(t *testing.T) {
	t.Setenv("GOMAXPROCS", "")
	os.Unsetenv("GOMAXPROCS")
	before := runtime.GOMAXPROCS(4)
	defer runtime.GOMAXPROCS(before)

	if w := ReserveProcessor(); w != 3 || runtime.GOMAXPROCS(0) != 5 {
		t.Errorf("4 processors: %d workers, GOMAXPROCS %d; want 3 and 5", w, runtime.GOMAXPROCS(0))
	}
	runtime.GOMAXPROCS(1)
	if w := ReserveProcessor(); w != 1 || runtime.GOMAXPROCS(0) != 2 {
		t.Errorf("1 processor: %d workers, GOMAXPROCS %d; want 1 and 2", w, runtime.GOMAXPROCS(0))
	}
	t.Setenv("GOMAXPROCS", "4")
	runtime.GOMAXPROCS(4)
	if w := ReserveProcessor(); w != 0 || runtime.GOMAXPROCS(0) != 4 {
		t.Errorf("GOMAXPROCS set by the person: %d workers, GOMAXPROCS %d; want 0 and 4, untouched", w, runtime.GOMAXPROCS(0))
	}
}

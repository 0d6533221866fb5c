package ui

import (
	"os"
	"runtime"
)

// ReserveProcessor keeps a processor of Go's scheduler for the window's
// goroutine while the indexer keeps the others busy. It gives Go one
// processor more than it has (GOMAXPROCS) and returns how many extraction
// workers an index run should use, one fewer than before (at least one):
// with the writer they fill as many processors as there were. The window's
// goroutine lets go of its processor in each long call into C (a frame's
// buffer swap, tens of milliseconds under software rendering) and needs
// one back to go on; when the indexer's goroutines held them all, it
// waited until one of them was preempted (`cairn bench gui` saw waits of
// 40-100 ms). Call it before the first knowledge base opens. With
// GOMAXPROCS set in the environment nothing changes, and it returns 0:
// the settings' own default.
func ReserveProcessor() (workers int) {
	if os.Getenv("GOMAXPROCS") != "" {
		return 0
	}
	n := runtime.GOMAXPROCS(0)
	runtime.GOMAXPROCS(n + 1)
	return max(1, n-1)
}

// otherThreadsNice is how much less priority the process's other threads
// get than the window's thread (nice values; see lowerOtherThreads): an
// index run's threads then leave the window's a core's turn at once, on a
// machine whose other programs keep the cores busy too.
const otherThreadsNice = 10

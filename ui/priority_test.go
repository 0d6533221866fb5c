package ui

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"syscall"
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

// Every thread but the process's first (the window's) runs at a higher
// nice value, those started afterwards too. It runs in a child process:
// nothing can give the test binary's threads their priority back.
func TestOtherThreadsRunAtALowerPriorityThanTheWindows(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("threads have a nice value of their own on Linux")
	}
	if os.Getenv("CAIRN_TEST_LOWER_THREADS") == "" {
		cmd := exec.Command(os.Args[0], "-test.run=^TestOtherThreadsRunAtALowerPriorityThanTheWindows$", "-test.v")
		cmd.Env = append(os.Environ(), "CAIRN_TEST_LOWER_THREADS=1")
		out, err := cmd.CombinedOutput()
		if err != nil || !bytes.Contains(out, []byte("--- PASS")) {
			t.Fatalf("child: %v\n%s", err, out)
		}
		return
	}

	pid := os.Getpid()
	nice := func(tid int) int {
		prio, err := syscall.Getpriority(syscall.PRIO_PROCESS, tid)
		if err != nil {
			t.Fatal(err)
		}
		return 20 - prio
	}
	base := nice(pid)
	threads := func() map[int]int {
		out := map[int]int{}
		tasks, _ := filepath.Glob(fmt.Sprintf("/proc/%d/task/*", pid))
		for _, task := range tasks {
			tid, _ := strconv.Atoi(filepath.Base(task))
			out[tid] = nice(tid)
		}
		return out
	}
	if err := lowerOtherThreads(3); err != nil {
		t.Fatal(err)
	}
	before := threads()
	if len(before) < 2 {
		t.Fatalf("%d threads; Go runs several", len(before))
	}

	// Goroutines locked to threads of their own make Go start new ones.
	started, release := make(chan struct{}), make(chan struct{})
	for range 4 {
		go func() {
			runtime.LockOSThread()
			started <- struct{}{}
			<-release
		}()
	}
	for range 4 {
		<-started
	}
	defer close(release)
	after := threads()
	if len(after) <= len(before) {
		t.Fatalf("no thread started: %d then %d", len(before), len(after))
	}
	for tid, n := range after {
		want := base + 3
		if tid == pid {
			want = base
		}
		if n != want {
			_, old := before[tid]
			t.Errorf("thread %d (first: %v, there before: %v) at nice %d, want %d", tid, tid == pid, old, n, want)
		}
	}
}

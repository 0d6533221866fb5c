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

// Every thread but the process's first (the window's) runs at a higher
// nice value, those started afterwards too. It runs in a child process:
// nothing can give the test binary's threads their priority back.
func TestOtherThreadsRunAtALowerPriorityThanTheWindows(t *testing.T) {
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

package ui

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"syscall"
)

// lowerOtherThreads raises by delta the nice value of every thread of this
// process but the window's: the process's first thread, which Fyne locks
// the window's goroutine to, and threads the graphics driver started and
// named for itself (Mesa's llvmpipe rasterizer threads draw the window's
// frames). Go's threads, and threads C libraries start without naming
// them, carry the process's name. A thread starts with the nice value of
// the thread that started it, so Go's later threads, and llama.cpp's, are
// lowered too; a thread started while the list is read is caught by the
// next pass. Raising a nice value needs no privilege; nothing can lower
// it back, so this is done once, for the process's life.
func lowerOtherThreads(delta int) error {
	pid := os.Getpid()
	self, err := os.ReadFile(fmt.Sprintf("/proc/%d/task/%d/comm", pid, pid))
	if err != nil {
		return err
	}
	// getpriority(2) as the system call returns 20 - nice.
	prio, err := syscall.Getpriority(syscall.PRIO_PROCESS, pid)
	if err != nil {
		return err
	}
	target := min(20-prio+delta, 19)
	done := map[int]bool{pid: true}
	for range 4 {
		tasks, err := filepath.Glob(fmt.Sprintf("/proc/%d/task/*", pid))
		if err != nil {
			return err
		}
		lowered := 0
		for _, t := range tasks {
			tid, err := strconv.Atoi(filepath.Base(t))
			if err != nil || done[tid] {
				continue
			}
			done[tid] = true
			comm, err := os.ReadFile(filepath.Join(t, "comm"))
			if err != nil || !bytes.Equal(comm, self) {
				continue // gone, or the graphics driver's
			}
			if err := syscall.Setpriority(syscall.PRIO_PROCESS, tid, target); err != nil {
				return fmt.Errorf("thread %d: %w", tid, err)
			}
			lowered++
		}
		if lowered == 0 {
			return nil
		}
	}
	return nil
}

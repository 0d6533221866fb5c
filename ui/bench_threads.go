package ui

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// threadTimes is what the kernel counted for some of this process's
// threads (Linux's /proc/self/task/TID/schedstat): the time they ran, and
// the time they were ready to run but waited for a core.
type threadTimes struct {
	CPU, Wait time.Duration
}

// windowThreads reads the times of the window's thread (the process's
// first: Fyne locks the window's goroutine to it) and of Mesa's software
// rasterizer threads (llvmpipe-N), which draw the window's frames for it.
// They are load-independent measures of what the window costs, where the
// stall figure also counts how long the machine kept the thread waiting.
func windowThreads() (window, raster threadTimes, err error) {
	pid := os.Getpid()
	window, err = readSchedstat(fmt.Sprintf("/proc/self/task/%d", pid))
	if err != nil {
		return window, raster, err
	}
	tasks, _ := filepath.Glob("/proc/self/task/*")
	for _, t := range tasks {
		comm, err := os.ReadFile(filepath.Join(t, "comm"))
		if err != nil || !strings.HasPrefix(string(comm), "llvmpipe") {
			continue
		}
		if tt, err := readSchedstat(t); err == nil {
			raster.CPU += tt.CPU
			raster.Wait += tt.Wait
		}
	}
	return window, raster, nil
}

func readSchedstat(task string) (threadTimes, error) {
	b, err := os.ReadFile(filepath.Join(task, "schedstat"))
	if err != nil {
		return threadTimes{}, err
	}
	var cpu, wait int64
	if _, err := fmt.Sscan(string(b), &cpu, &wait); err != nil {
		return threadTimes{}, fmt.Errorf("%s/schedstat: %w", task, err)
	}
	return threadTimes{CPU: time.Duration(cpu), Wait: time.Duration(wait)}, nil
}

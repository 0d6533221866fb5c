//go:build unix

package llm

import (
	"syscall"
	"time"
)

// ProcessCPUTime is the user plus system CPU time of the whole process,
// all threads included. Benchmarks divide work by it to get a rate that
// other programs competing for the cores do not distort.
func ProcessCPUTime() time.Duration {
	var r syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &r) != nil {
		return 0
	}
	return time.Duration(r.Utime.Nano() + r.Stime.Nano())
}

//go:build !unix

package llm

import "time"

// ProcessCPUTime is not measured on this platform; benchmarks then report
// wall-clock rates only.
func ProcessCPUTime() time.Duration { return 0 }

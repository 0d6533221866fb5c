//go:build !unix

package llm

import "time"

// processCPUTime is not measured on this platform; benchmarks then report
// wall-clock rates only.
func processCPUTime() time.Duration { return 0 }

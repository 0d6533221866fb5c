package llm

import "runtime"

// DefaultThreads is the llama.cpp thread count used when options leave it at
// 0: one less than the logical CPUs, at least one. llama.cpp's threads
// busy-wait for each other after every operation, so when another program
// takes one of the cores the whole decode waits on it. Measured on a 2-core
// machine running other builds (load 6): Qwen2.5-0.5B-shaped generation
// with 2 threads ran at 3.5 tokens/s, with 1 thread at 16.4 tokens/s, and
// prompt processing at 43 and 91 tokens/s. Leaving a core free also keeps
// the window responsive. Configure more threads on a dedicated machine.
func DefaultThreads() int {
	return max(1, runtime.NumCPU()-1)
}

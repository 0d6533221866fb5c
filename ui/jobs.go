package ui

import "sync"

// jobs runs a worker's slow calls (the engine, the file system, other
// programs) on goroutines of their own, so that the worker's loop keeps
// receiving, and lets the worker wait for all of them before it returns.
// A job ends when the worker's context ends; it reports back to the loop
// with a send that gives up then too.
type jobs struct{ wg sync.WaitGroup }

// spawn runs fn on a new goroutine.
func (j *jobs) spawn(fn func()) {
	j.wg.Add(1)
	go func() {
		defer j.wg.Done()
		fn()
	}()
}

// wait returns when every job has returned.
func (j *jobs) wait() { j.wg.Wait() }

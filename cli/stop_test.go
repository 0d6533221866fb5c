package cli

import (
	"context"
	"testing"
	"time"
)

// TestAStopRequestEndsTheProcessWhateverTheCommandIsBlockedIn: after
// Ctrl+C or SIGTERM a command that does not return (a worker blocked in a
// read no context reaches) is ended anyway, and the signals get their
// default action back so a second Ctrl+C ends it at once (issue 33, item 2).
func TestAStopRequestEndsTheProcessWhateverTheCommandIsBlockedIn(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	returned := make(chan struct{}) // never closed: the command is stuck
	unregistered, exited := make(chan struct{}), make(chan struct{})
	go stopWithin(ctx, returned, func() { close(unregistered) }, time.Millisecond, func() { close(exited) })
	cancel()
	<-unregistered
	<-exited
}

// TestACommandThatReturnsIsNotEnded: a command that returns, stopped or
// not, is never ended by the watchdog.
func TestACommandThatReturnsIsNotEnded(t *testing.T) {
	for _, stopped := range []bool{false, true} {
		ctx, cancel := context.WithCancel(context.Background())
		returned, done := make(chan struct{}), make(chan struct{})
		exited := false
		go func() {
			defer close(done)
			stopWithin(ctx, returned, func() {}, time.Hour, func() { exited = true })
		}()
		if stopped {
			cancel()
		}
		close(returned)
		<-done
		cancel()
		if exited {
			t.Errorf("stopped=%v: the process was ended", stopped)
		}
	}
}

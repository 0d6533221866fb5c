package ui

import (
	"context"
	"time"
)

// pump carries a worker's events to the window. It collects events while
// the window is busy and hands them over in batches, one do call at a time,
// so a worker never waits for the window and the window never waits for a
// worker: a flood of progress events becomes one update per frame.
//
// do runs a function on the window's goroutine without waiting (fyne.Do in
// the app, a test loop in tests); apply runs there with the batch. every,
// when positive, spaces batches at least that far apart: a progress bar
// needs no more than ten updates a second, and each update costs the
// window a repaint that input would otherwise wait behind.
func pump[E any](ctx context.Context, do func(func()), in <-chan E, apply func([]E), every time.Duration) {
	applied := make(chan struct{}, 1) // the window finished a batch; never blocks it
	var pending []E
	busy := false
	var last time.Time // when the last batch was handed over
	wait := time.NewTimer(time.Hour)
	wait.Stop()
	waiting := false
	for {
		select {
		case <-ctx.Done():
			wait.Stop()
			return
		case e := <-in:
			pending = append(pending, e)
		case <-applied:
			busy = false
		case <-wait.C:
			waiting = false
		}
		if busy || waiting || len(pending) == 0 {
			continue
		}
		if left := every - time.Since(last); left > 0 {
			wait.Reset(left)
			waiting = true
			continue
		}
		batch := pending
		pending = nil
		busy, last = true, time.Now()
		do(func() {
			apply(batch)
			applied <- struct{}{}
		})
	}
}

// send delivers v on ch unless ctx ends first; it reports whether it did.
func send[T any](ctx context.Context, ch chan<- T, v T) bool {
	select {
	case ch <- v:
		return true
	case <-ctx.Done():
		return false
	}
}

package extract

import (
	"context"
	"errors"
	"io"
	"sync/atomic"
	"time"
)

// A file's extraction is stopped when it makes no progress for
// Limits.Timeout, not when it runs longer than that: a 1,000-page manual on
// a machine at load 15 is slow, not hung (octave.pdf failed with
// "extraction took longer than 2m0s" there), while an extractor caught in
// a loop or a subprocess that waits for ever is still stopped. Progress is
// bytes of the file read, bytes a poppler tool writes, and each page
// (or image) OCR reads. An extractor that keeps progressing without end
// is bounded by ceilingFactor × Timeout of wall time.
const ceilingFactor = 15

var (
	errStalled = errors.New("no progress")
	errCeiling = errors.New("too long")
)

type watchdogKey struct{}

// watchdog holds when the extraction last made progress.
type watchdog struct{ last atomic.Int64 } // UnixNano

// progress records that the extraction under ctx moved on; it does nothing
// when ctx carries no watchdog.
func progress(ctx context.Context) {
	if w, ok := ctx.Value(watchdogKey{}).(*watchdog); ok {
		w.last.Store(time.Now().UnixNano())
	}
}

// withWatchdog returns a context that is cancelled with errStalled once
// progress has not been called for idle, or with errCeiling after
// ceilingFactor × idle. stop releases the watchdog's goroutine.
func withWatchdog(parent context.Context, idle time.Duration) (ctx context.Context, stop func()) {
	w := &watchdog{}
	w.last.Store(time.Now().UnixNano())
	ctx, cancelCeiling := context.WithTimeoutCause(parent, ceilingFactor*idle, errCeiling)
	ctx, cancel := context.WithCancelCause(ctx)
	ctx = context.WithValue(ctx, watchdogKey{}, w)
	done := make(chan struct{})
	go func() {
		tick := time.NewTicker(max(idle/8, time.Millisecond))
		defer tick.Stop()
		for {
			select {
			case <-done:
				return
			case <-ctx.Done():
				return
			case now := <-tick.C:
				if now.Sub(time.Unix(0, w.last.Load())) > idle {
					cancel(errStalled)
					return
				}
			}
		}
	}()
	return ctx, func() {
		close(done)
		cancel(nil)
		cancelCeiling()
	}
}

// progressReader counts every read of the file as progress.
type progressReader struct {
	ctx context.Context
	r   io.ReaderAt
}

func (p progressReader) ReadAt(b []byte, off int64) (int, error) {
	n, err := p.r.ReadAt(b, off)
	if n > 0 {
		progress(p.ctx)
	}
	return n, err
}

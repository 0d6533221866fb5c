package extract

import (
	"context"
	"errors"
	"io"
	"sync"
	"sync/atomic"
	"time"
)

// A file's extraction is stopped when it makes no progress for
// Limits.Timeout, not when it runs longer than that: a 2,316-page manual
// on a machine at load 15 is slow, not hung, however long it takes, while
// an extractor caught in a loop or a subprocess that waits for ever is
// still stopped. Progress is new ground only: the first read of each block
// of the file (reading the same bytes again and again is not progress), a
// poppler tool's output up to its cap, each page (or image) read, each
// thousand rows of a sheet. Each of these is bounded by the file, so an
// extraction that keeps progressing ends; there is no ceiling on the time
// a file may take as a whole (a fixed multiple of the limit failed real
// manuals on busy machines), and each of its steps must progress within
// the limit.

var errStalled = errors.New("no progress")

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
// progress has not been called for idle. stop releases the watchdog's
// goroutine.
func withWatchdog(parent context.Context, idle time.Duration) (ctx context.Context, stop func()) {
	w := &watchdog{}
	w.last.Store(time.Now().UnixNano())
	ctx, cancel := context.WithCancelCause(parent)
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
	}
}

// readBlock is the unit in which progressReader counts the file's bytes
// read for the first time.
const readBlock = 64 << 10

// progressReader counts the first read of each block of the file as
// progress: an extractor that reads the same bytes over and over is not
// moving on.
type progressReader struct {
	ctx  context.Context
	r    io.ReaderAt
	mu   sync.Mutex
	seen []uint64 // a bit per readBlock of the file
}

func newProgressReader(ctx context.Context, r io.ReaderAt, size int64) *progressReader {
	return &progressReader{ctx: ctx, r: r, seen: make([]uint64, (size/readBlock)/64+1)}
}

func (p *progressReader) ReadAt(b []byte, off int64) (int, error) {
	n, err := p.r.ReadAt(b, off)
	if n > 0 && off >= 0 {
		fresh := false
		p.mu.Lock()
		for blk := off / readBlock; blk <= (off+int64(n)-1)/readBlock; blk++ {
			i, bit := blk/64, uint64(1)<<(blk%64)
			if i < int64(len(p.seen)) && p.seen[i]&bit == 0 {
				p.seen[i] |= bit
				fresh = true
			}
		}
		p.mu.Unlock()
		if fresh {
			progress(p.ctx)
		}
	}
	return n, err
}

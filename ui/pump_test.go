package ui

import (
	"context"
	"sync"
	"testing"
	"time"
)

// TestPumpDeliversEverythingInOrderInSpacedBatches: a flood of events
// reaches the window in order, in batches handed over one at a time and,
// with every, at least that far apart.
func TestPumpDeliversEverythingInOrderInSpacedBatches(t *testing.T) {
	for _, every := range []time.Duration{0, 30 * time.Millisecond} {
		ctx, cancel := context.WithCancel(context.Background())
		in := make(chan int)
		l := newLoop()
		var got []int
		var at []time.Time
		var wg sync.WaitGroup
		wg.Add(1)
		go func() {
			defer wg.Done()
			pump(ctx, l.do, in, func(b []int) {
				got = append(got, b...)
				at = append(at, time.Now())
			}, every)
		}()
		go func() {
			for i := range 1000 {
				in <- i
			}
		}()
		l.until(t, "every event", func() bool { return len(got) == 1000 })
		cancel()
		wg.Wait()
		for i, v := range got {
			if v != i {
				t.Fatalf("every %v: event %d is %d: out of order", every, i, v)
			}
		}
		for i := 1; i < len(at); i++ {
			// Measured where applied, so allow for the loop's own delay.
			if gap := at[i].Sub(at[i-1]); gap < every-5*time.Millisecond {
				t.Errorf("every %v: batches %d and %d only %v apart", every, i-1, i, gap)
			}
		}
		if every > 0 && len(at) > 1000/2 {
			t.Errorf("every %v: %d batches for 1000 events; a busy window should get few", every, len(at))
		}
	}
}

package serve

import (
	"math"
	"sync"
	"time"
)

// askSlots are the question slots: a question holds one while it is
// answered (each holds the chat model), and the slots know how long
// answers take, so that a client turned away is told when one is
// expected to be free (Retry-After) rather than a fixed guess.
type askSlots struct {
	free chan struct{}
	now  func() time.Time

	mu      sync.Mutex
	next    int
	running map[int]time.Time // start of each question being answered
	typical time.Duration     // moving average of answers' times; 0 before the first
}

func newAskSlots(n int, now func() time.Time) *askSlots {
	return &askSlots{free: make(chan struct{}, n), now: now, running: map[int]time.Time{}}
}

// acquire takes a slot, or says that all are taken. release gives it back
// and counts the answer's time.
func (a *askSlots) acquire() (release func(), ok bool) {
	select {
	case a.free <- struct{}{}:
	default:
		return nil, false
	}
	a.mu.Lock()
	id := a.next
	a.next++
	a.running[id] = a.now()
	a.mu.Unlock()
	var once sync.Once
	return func() {
		once.Do(func() {
			a.mu.Lock()
			took := a.now().Sub(a.running[id])
			delete(a.running, id)
			if a.typical == 0 {
				a.typical = took
			} else {
				a.typical = (3*a.typical + took) / 4 // the last answers count most
			}
			a.mu.Unlock()
			<-a.free
		})
	}, true
}

// wait is how long until a slot is expected to be free: the least of the
// running answers' typical time left. Before any answer has finished, a
// running one is expected to take as long again as it has taken (at least
// a second: a quoted answer takes less, a written one seconds to minutes).
func (a *askSlots) wait() time.Duration {
	a.mu.Lock()
	defer a.mu.Unlock()
	now := a.now()
	best := time.Duration(math.MaxInt64)
	for _, start := range a.running {
		took := now.Sub(start)
		left := took // no answer finished yet: as long again
		if a.typical > 0 {
			left = a.typical - took
		}
		best = min(best, left)
	}
	if best == time.Duration(math.MaxInt64) {
		return 0
	}
	return max(best, time.Second)
}

// retryAfterSeconds is a wait as Retry-After gives it: whole seconds,
// rounded up, at least 1.
func retryAfterSeconds(d time.Duration) int {
	return max(1, int(math.Ceil(d.Seconds())))
}

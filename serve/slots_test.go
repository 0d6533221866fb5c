package serve

import (
	"testing"
	"time"
)

// Retry-After is the time until a question slot is expected to be free:
// before any answer has finished, as long again as the running one has
// taken; after, what answers typically take, less what the running one
// has taken; a second at least.
func TestAskSlotsExpectedWait(t *testing.T) {
	now := time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)
	slots := newAskSlots(2, func() time.Time { return now })
	if w := slots.wait(); w != 0 {
		t.Errorf("nothing running: %v", w)
	}
	r1, _ := slots.acquire()
	now = now.Add(300 * time.Millisecond)
	r2, _ := slots.acquire()
	if _, ok := slots.acquire(); ok {
		t.Fatal("a third slot of two")
	}
	if w := slots.wait(); w != time.Second {
		t.Errorf("just begun: %v", w)
	}
	now = now.Add(4 * time.Second)
	if w := slots.wait(); w != 4*time.Second {
		t.Errorf("no answer finished, running 4.3 and 4 s: %v", w)
	}
	r1() // took 4.3 s
	r1() // once only
	if w := slots.wait(); w != time.Second {
		t.Errorf("one running 4 s, typical 4.3 s (0.3 s left): %v", w)
	}
	r3, ok := slots.acquire()
	if !ok {
		t.Fatal("a slot was released")
	}
	now = now.Add(2 * time.Second)
	// typical 4.3 s: r2 has run 6 s (overdue: a second), r3 2 s (2.3 s left).
	if w := slots.wait(); w != time.Second {
		t.Errorf("one overdue: %v", w)
	}
	r2() // took 6 s: typical (3×4.3 + 6)/4 = 4.725 s
	if w := slots.wait(); w != 2725*time.Millisecond {
		t.Errorf("r3 at 2 s of a typical 4.725 s: %v", w)
	}
	r3()
	for _, tc := range []struct {
		d    time.Duration
		want int
	}{{0, 1}, {300 * time.Millisecond, 1}, {time.Second, 1}, {2725 * time.Millisecond, 3}, {90 * time.Second, 90}} {
		if got := retryAfterSeconds(tc.d); got != tc.want {
			t.Errorf("Retry-After of %v: %d, want %d", tc.d, got, tc.want)
		}
	}
}

package teamstore

import (
	"context"
	"errors"
	"testing"
	"time"
)

// TestTakeLeaseFreesAFolderOnlyFromAHolderKnownDead: an indexer that died
// leaves its lease; the next one takes the folder at once when it knows
// the holder is gone, and is refused as before when it does not.
func TestTakeLeaseFreesAFolderOnlyFromAHolderKnownDead(t *testing.T) {
	s := testStore(t, Options{})
	ctx := context.Background()
	if _, err := s.AcquireLease(ctx, "share", "cairn index on a by b (pid 1)", time.Hour); err != nil {
		t.Fatal(err)
	}
	var held *LeaseHeldError
	if _, err := s.TakeLease(ctx, "share", "me", time.Minute, func(string) bool { return false }); !errors.As(err, &held) || held.Holder != "cairn index on a by b (pid 1)" {
		t.Fatalf("holder alive: %v", err)
	}
	var asked string
	l, err := s.TakeLease(ctx, "share", "me", time.Minute, func(h string) bool { asked = h; return true })
	if err != nil || asked != "cairn index on a by b (pid 1)" {
		t.Fatalf("holder dead: %v (asked about %q)", err, asked)
	}
	if _, err := s.AcquireLease(ctx, "share", "other", time.Minute); !errors.As(err, &held) || held.Holder != "me" {
		t.Errorf("after the take-over: %v", err)
	}
	if err := l.Renew(ctx); err != nil {
		t.Errorf("renew: %v", err)
	}
}

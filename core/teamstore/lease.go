package teamstore

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"time"
)

// Lease is an indexer's hold on a folder: while it is held and not
// expired, another indexer's AcquireLease on the folder is refused. The
// holder renews it while it runs; one that dies loses it when it expires.
//
// Weaviate has no compare-and-swap, so the lease is advisory: creating it
// is refused when it exists, but two indexers that take over an expired
// lease at the same moment can both believe they hold it until the next
// Renew, which tells the loser (ErrLeaseLost). Indexing twice is harmless
// for the data (ids are fixed); the lease saves the work.
type Lease struct {
	s       *Store
	folder  string
	holder  string
	token   string // this hold's own mark: the holder's name may repeat
	ttl     time.Duration
	expires time.Time
}

// LeaseHeldError is the refusal of a second indexer.
type LeaseHeldError struct {
	Folder   string
	Holder   string
	Acquired time.Time
	Expires  time.Time
}

func (e *LeaseHeldError) Error() string {
	return fmt.Sprintf("the folder %s is already being indexed into the team cluster by %s (since %s): "+
		"wait for that run to finish; if it stopped without releasing the folder, its hold expires at %s unless renewed",
		e.Folder, e.Holder, e.Acquired.Local().Format(time.DateTime), e.Expires.Local().Format(time.DateTime))
}

// ErrLeaseLost means another indexer took the folder over: stop writing.
var ErrLeaseLost = errors.New("the indexer's hold on the folder was taken over by another")

type leaseProps struct {
	Folder   string `json:"folder"`
	Holder   string `json:"holder"`
	Token    string `json:"token"`
	Acquired string `json:"acquired"`
	Expires  string `json:"expires"`
}

// AcquireLease takes folder for holder (a name a person recognises: host,
// user, process) for ttl, or returns a *LeaseHeldError naming who has it.
func (s *Store) AcquireLease(ctx context.Context, folder, holder string, ttl time.Duration) (*Lease, error) {
	if ttl <= 0 {
		return nil, errors.New("team store: a lease needs a positive duration")
	}
	var b [16]byte
	rand.Read(b[:])
	l := &Lease{s: s, folder: folder, holder: holder, token: hex.EncodeToString(b[:]), ttl: ttl}
	for range 3 {
		now := time.Now()
		l.expires = now.Add(ttl)
		obj := map[string]any{"class": s.leaseClass, "id": leaseID(folder), "properties": l.props(now)}
		err := s.do(ctx, "POST", s.query("/v1/objects"), obj, nil)
		if err == nil {
			_, err = l.check(ctx)
			return l, err
		}
		if !errors.Is(err, errExists) {
			return nil, fmt.Errorf("take the folder %s for indexing in the team cluster at %s: %w", folder, s.where(), err)
		}
		cur, err := s.readLease(ctx, folder)
		if errors.Is(err, ErrNotFound) {
			continue // released in between: try to create it again
		}
		if err != nil {
			return nil, err
		}
		if cur.Token != l.token && now.Before(parseTime(cur.Expires)) {
			return nil, cur.held()
		}
		// Expired: take it over.
		if err := s.do(ctx, "PUT", s.query("/v1/objects/"+s.leaseClass+"/"+leaseID(folder)), obj, nil); err != nil {
			return nil, fmt.Errorf("take over the expired hold on %s in the team cluster at %s: %w", folder, s.where(), err)
		}
		_, err = l.check(ctx)
		return l, err
	}
	return nil, fmt.Errorf("the hold on %s in the team cluster at %s kept changing hands; try again", folder, s.where())
}

func (l *Lease) props(acquired time.Time) leaseProps {
	return leaseProps{Folder: l.folder, Holder: l.holder, Token: l.token,
		Acquired: acquired.UTC().Format(time.RFC3339Nano), Expires: l.expires.UTC().Format(time.RFC3339Nano)}
}

func (p leaseProps) held() *LeaseHeldError {
	return &LeaseHeldError{Folder: p.Folder, Holder: p.Holder, Acquired: parseTime(p.Acquired), Expires: parseTime(p.Expires)}
}

func parseTime(s string) time.Time {
	t, _ := time.Parse(time.RFC3339Nano, s)
	return t
}

func (s *Store) readLease(ctx context.Context, folder string) (leaseProps, error) {
	var obj struct {
		Properties json.RawMessage `json:"properties"`
	}
	if err := s.do(ctx, "GET", s.query("/v1/objects/"+s.leaseClass+"/"+leaseID(folder)), nil, &obj); err != nil {
		if errors.Is(err, ErrNotFound) {
			return leaseProps{}, err
		}
		return leaseProps{}, fmt.Errorf("read the hold on %s in the team cluster at %s: %w", folder, s.where(), err)
	}
	var p leaseProps
	if err := json.Unmarshal(obj.Properties, &p); err != nil {
		return leaseProps{}, fmt.Errorf("read the hold on %s: %w", folder, err)
	}
	return p, nil
}

// check reads the lease back: it is this hold's, or another indexer's
// write won and this one is refused with that indexer's name.
func (l *Lease) check(ctx context.Context) (leaseProps, error) {
	cur, err := l.s.readLease(ctx, l.folder)
	if errors.Is(err, ErrNotFound) {
		return cur, fmt.Errorf("%w: the hold on %s is gone", ErrLeaseLost, l.folder)
	}
	if err != nil {
		return cur, err
	}
	if cur.Token != l.token {
		return cur, cur.held()
	}
	return cur, nil
}

// Renew extends the lease by its duration from now; ErrLeaseLost (or a
// *LeaseHeldError naming the new holder) when another indexer has it now.
func (l *Lease) Renew(ctx context.Context) error {
	cur, err := l.check(ctx)
	if err != nil {
		var held *LeaseHeldError
		if errors.As(err, &held) {
			return fmt.Errorf("%w: %v", ErrLeaseLost, err)
		}
		return err
	}
	l.expires = time.Now().Add(l.ttl)
	obj := map[string]any{"class": l.s.leaseClass, "id": leaseID(l.folder), "properties": l.props(parseTime(cur.Acquired))}
	if err := l.s.do(ctx, "PUT", l.s.query("/v1/objects/"+l.s.leaseClass+"/"+leaseID(l.folder)), obj, nil); err != nil {
		return fmt.Errorf("renew the hold on %s in the team cluster at %s: %w", l.folder, l.s.where(), err)
	}
	return nil
}

// Expires is when the lease runs out unless renewed.
func (l *Lease) Expires() time.Time { return l.expires }

// Release gives the folder up, if this lease still holds it.
func (l *Lease) Release(ctx context.Context) error {
	cur, err := l.s.readLease(ctx, l.folder)
	if errors.Is(err, ErrNotFound) {
		return nil
	}
	if err != nil {
		return err
	}
	if cur.Token != l.token {
		return nil // taken over: not ours to remove
	}
	err = l.s.do(ctx, "DELETE", l.s.query("/v1/objects/"+l.s.leaseClass+"/"+leaseID(l.folder)), nil, nil)
	if err != nil && !errors.Is(err, ErrNotFound) {
		return fmt.Errorf("release the hold on %s in the team cluster at %s: %w", l.folder, l.s.where(), err)
	}
	return nil
}

// Hold keeps the lease while the work runs: it renews it every third of its
// duration, and cancels the returned context, with ErrLeaseLost (or the
// renewal's error) as its cause, when the lease is lost or cannot be
// renewed before it would expire. stop ends the renewals, releases the
// lease and returns why the hold ended early, if it did.
func (l *Lease) Hold(ctx context.Context) (held context.Context, stop func() error) {
	held, cancel := context.WithCancelCause(ctx)
	done := make(chan struct{})
	go func() {
		defer close(done)
		t := time.NewTicker(l.ttl / 3)
		defer t.Stop()
		for {
			select {
			case <-held.Done():
				return
			case <-t.C:
			}
			if err := l.Renew(held); err != nil && held.Err() == nil {
				// One failed renewal is not yet a loss: the lease runs
				// until its expiry, and the next tick tries again.
				if errors.Is(err, ErrLeaseLost) || !time.Now().Add(l.ttl/3).Before(l.expires) {
					cancel(err)
					return
				}
			}
		}
	}()
	return held, func() error {
		cause := context.Cause(held)
		cancel(nil)
		<-done
		// The release has its own time: ctx may be cancelled already.
		rctx, rcancel := context.WithTimeout(context.WithoutCancel(ctx), l.s.timeout)
		defer rcancel()
		err := l.Release(rctx)
		if cause != nil && !errors.Is(cause, context.Canceled) {
			return cause
		}
		return err
	}
}

package teamstore

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// TakeLease is AcquireLease that also takes the folder, at once, from a
// holder that dead reports gone (an indexer of this computer whose process
// has ended: killed, crashed), instead of refusing until its lease
// expires. A holder dead does not vouch for is refused as by AcquireLease.
func (s *Store) TakeLease(ctx context.Context, folder, holder string, ttl time.Duration, dead func(holder string) bool) (*Lease, error) {
	l, err := s.AcquireLease(ctx, folder, holder, ttl)
	var held *LeaseHeldError
	if !errors.As(err, &held) || dead == nil || !dead(held.Holder) {
		return l, err
	}
	if err := s.breakLease(ctx, folder, held.Holder); err != nil {
		return nil, err
	}
	return s.AcquireLease(ctx, folder, holder, ttl)
}

// breakLease removes folder's lease if holder still holds it.
func (s *Store) breakLease(ctx context.Context, folder, holder string) error {
	cur, err := s.readLease(ctx, folder)
	if errors.Is(err, ErrNotFound) {
		return nil
	}
	if err != nil {
		return err
	}
	if cur.Holder != holder {
		return cur.held() // taken meanwhile by a live indexer
	}
	err = s.do(ctx, "DELETE", s.query("/v1/objects/"+s.leaseClass+"/"+leaseID(folder)), nil, nil)
	if err != nil && !errors.Is(err, ErrNotFound) {
		return fmt.Errorf("free the folder %s from %s, which has stopped, in the team cluster at %s: %w", folder, holder, s.where(), err)
	}
	return nil
}

package core

import (
	"context"
	"sync"
	"time"

	"cairn/core/search"
	"cairn/core/store"
)

// coverageCache holds the last incomplete meaning coverage a search
// counted, for the searches that follow within coverageTTL.
type coverageCache struct {
	mu        sync.Mutex
	covered   *search.MeaningCoverage
	coveredAt time.Time
}

// coverageTTL is how long an incomplete coverage is reused: counting the
// chunks still to embed reads an index as long as they are many, on every
// search of the hours they take; a complete one costs one probe and is
// never reused, so a file indexed since shows at once.
const coverageTTL = 2 * time.Second

// get is the knowledge base's meaning coverage, nil when complete.
func (cc *coverageCache) get(ctx context.Context, db *store.DB) (*search.MeaningCoverage, error) {
	cc.mu.Lock()
	if c := cc.covered; c != nil && time.Since(cc.coveredAt) < coverageTTL {
		cc.mu.Unlock()
		return c, nil
	}
	cc.mu.Unlock()
	missing, total, err := db.Unembedded(ctx)
	if err != nil {
		return nil, err
	}
	var c *search.MeaningCoverage
	if missing > 0 {
		c = &search.MeaningCoverage{Embedded: total - missing, Chunks: total}
	}
	cc.mu.Lock()
	cc.covered, cc.coveredAt = c, time.Now()
	cc.mu.Unlock()
	return c, nil
}

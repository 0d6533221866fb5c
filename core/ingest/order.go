package ingest

import (
	"strings"

	"cairn/core/store"
)

// Interest names what a person is looking at, most wanted first, so that
// their chunks are embedded before the rest.
type Interest struct {
	// Documents shown in search results, most recently shown first.
	Documents []int64
	// Folders (directory paths) searched most, most searched first.
	Folders []string
}

// embedQueue is the chunks one run still has to embed, in
// store.PendingChunks' order (most recently modified first), from which
// each batch is taken in the order the person's interest of the moment
// gives.
type embedQueue struct {
	pending []store.PendingChunk
	taken   []bool
	left    int
}

func newEmbedQueue(pending []store.PendingChunk) *embedQueue {
	return &embedQueue{pending: pending, taken: make([]bool, len(pending)), left: len(pending)}
}

// next takes up to n chunks: those of in.Documents in its order, then
// those under in.Folders in its order, then the rest in the queue's order.
// A linear pass: 100,000 chunks take milliseconds, a batch's embedding
// seconds.
func (q *embedQueue) next(n int, in Interest) []int64 {
	docRank := make(map[int64]int, len(in.Documents))
	for i, d := range in.Documents {
		if _, ok := docRank[d]; !ok {
			docRank[d] = i
		}
	}
	// buckets[r] holds the queue positions of rank r, in queue order; the
	// last bucket is the rest, which needs no more than n.
	buckets := make([][]int, len(in.Documents)+len(in.Folders)+1)
	rest := len(buckets) - 1
	for i, p := range q.pending {
		if q.taken[i] {
			continue
		}
		r, ok := docRank[p.DocumentID]
		if !ok {
			r = rest
			for j, f := range in.Folders {
				if strings.HasPrefix(p.Path, strings.TrimSuffix(f, "/")+"/") {
					r = len(in.Documents) + j
					break
				}
			}
		}
		if r == rest && len(buckets[rest]) >= n {
			continue
		}
		buckets[r] = append(buckets[r], i)
	}
	var ids []int64
	for _, b := range buckets {
		for _, i := range b {
			if len(ids) == n {
				return ids
			}
			q.taken[i] = true
			q.left--
			ids = append(ids, q.pending[i].ID)
		}
	}
	return ids
}

package search

import (
	"slices"
	"testing"
)

func TestInertKnobs(t *testing.T) {
	pass := func(id int64, near float64) *Passage {
		return &Passage{ChunkID: id, DocumentID: id, Coverage: 1, Near: near}
	}
	// Keyword search only; result 2 holds the question's words closer
	// together than result 1, so at a high rrf_k (ranks 1 and 2 nearly
	// equal) it passes result 1, and at rrf_k 0 it does not.
	flips := &Candidates{Mode: ModeBM25, BM25: []Hit{{ChunkID: 1, Score: 9}, {ChunkID: 2, Score: 8}},
		Passages: map[int64]*Passage{1: pass(1, 0), 2: pass(2, 1)}}
	steady := &Candidates{Mode: ModeBM25, BM25: []Hit{{ChunkID: 1, Score: 9}, {ChunkID: 2, Score: 8}},
		Passages: map[int64]*Passage{1: pass(1, 1), 2: pass(2, 1)}}
	rrf := DefaultParams()
	weighted := rrf
	weighted.Fusion = FusionWeighted
	for _, c := range []struct {
		name string
		c    *Candidates
		mode Mode
		p    Params
		want []string
	}{
		{"keyword only, order fixed", steady, "", rrf, []string{KnobRRFK, KnobVectorPool, KnobVectorWeight}},
		{"keyword only, nearness can reorder", flips, "", rrf, []string{KnobVectorPool, KnobVectorWeight}},
		{"weighted fusion", nil, ModeHybrid, weighted, []string{KnobRRFK}},
		{"hybrid RRF", nil, ModeHybrid, rrf, []string{KnobVectorWeight}},
		{"vector only, no question yet", nil, ModeVector, rrf, []string{KnobBM25Pool, KnobVectorWeight}},
	} {
		got := Inert(c.c, c.mode, c.p)
		var knobs []string
		for k, why := range got {
			if why == "" {
				t.Errorf("%s: %s without a reason", c.name, k)
			}
			knobs = append(knobs, k)
		}
		slices.Sort(knobs)
		if !slices.Equal(knobs, c.want) {
			t.Errorf("%s: inert %q, want %q", c.name, knobs, c.want)
		}
	}
	// The claim checked against the fusion itself: no rrf_k changes the
	// steady order, some rrf_k changes the other.
	orders := map[string]bool{}
	for k := RRFKRange[0]; k <= RRFKRange[1]; k += 10 {
		p := rrf
		p.RRFK = k
		orders[string(rune('0'+chunkIDs(Fuse(flips, p))[0]))] = true
		if first := chunkIDs(Fuse(steady, p))[0]; first != 1 {
			t.Errorf("rrf_k %g reordered the steady list", k)
		}
	}
	if len(orders) != 2 {
		t.Errorf("the list said to reorder with rrf_k has first results %v over the range", orders)
	}
}

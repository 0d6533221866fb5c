package eval

import (
	"testing"

	"cairn/core/domain"
	"cairn/core/search"
)

func TestPersonalSetRanksFilesByTheirBestPassage(t *testing.T) {
	// Two passages of a.txt rank first and third, b.txt's second: files in
	// order a, b. The person marked b right for q1 and a for q2.
	c := &search.Candidates{Mode: search.ModeBM25, Passages: map[int64]*search.Passage{
		1: {ChunkID: 1, Path: "a.txt", Coverage: 1, Near: 1},
		2: {ChunkID: 2, Path: "b.txt", Coverage: 1, Near: 1},
		3: {ChunkID: 3, Path: "a.txt", Coverage: 1, Near: 1},
	}, BM25: []search.Hit{{ChunkID: 1, Score: 3}, {ChunkID: 2, Score: 2}, {ChunkID: 3, Score: 1}}}
	js := []domain.Judgment{{Query: "q1", Path: "b.txt"}, {Query: "q2", Path: "a.txt"}, {Query: "q3", Path: "a.txt"}}
	p := search.DefaultParams()
	p.TopK = 2
	m := PersonalSet(js, map[string]*search.Candidates{"q1": c, "q2": c}, p)
	// q3 has no candidates: it counts, with nothing found.
	if m.K != 2 || m.Queries != 3 || !near(m.MRR, (0.5+1+0)/3) || !near(m.Recall, 2.0/3) {
		t.Errorf("%+v", m)
	}
}

func near(a, b float64) bool { return a-b < 1e-9 && b-a < 1e-9 }

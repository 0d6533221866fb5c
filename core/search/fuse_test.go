package search

import (
	"math"
	"testing"
)

func cands(mode Mode, bm25, vec []int64) *Candidates {
	c := &Candidates{Mode: mode, Passages: map[int64]*Passage{}}
	for i, id := range bm25 {
		c.BM25 = append(c.BM25, Hit{ChunkID: id, Score: float64(10 - i)})
		c.Passages[id] = &Passage{ChunkID: id, DocumentID: id}
	}
	for i, id := range vec {
		c.Vector = append(c.Vector, Hit{ChunkID: id, Score: 0.9 - 0.1*float64(i)})
		c.Passages[id] = &Passage{ChunkID: id, DocumentID: id}
	}
	return c
}

func ids(rs []Result) []int64 {
	var out []int64
	for _, r := range rs {
		out = append(out, r.ChunkID)
	}
	return out
}

func near(a, b float64) bool { return math.Abs(a-b) < 1e-12 }

func TestRRFExactValues(t *testing.T) {
	c := cands(ModeHybrid, []int64{1, 2, 3}, []int64{3, 1, 4})
	res := Fuse(c, Params{RRFK: 60})
	best := 2.0 / 61
	want := map[int64]float64{
		1: (1.0/61 + 1.0/62) / best,
		3: (1.0/63 + 1.0/61) / best,
		2: (1.0 / 62) / best,
		4: (1.0 / 63) / best,
	}
	if got := ids(res); len(got) != 4 || got[0] != 1 || got[1] != 3 || got[2] != 2 || got[3] != 4 {
		t.Fatalf("order %v", got)
	}
	for _, r := range res {
		if !near(r.Score, want[r.ChunkID]) || !near(r.Score, r.BM25Term+r.VectorTerm) {
			t.Errorf("chunk %d score %v want %v", r.ChunkID, r.Score, want[r.ChunkID])
		}
	}
	if r := res[0]; r.BM25Rank != 1 || r.VecRank != 2 || r.Rank != 1 || r.VecSim != 0.8 {
		t.Errorf("evidence %+v", r)
	}
}

func TestRRFTopOfBothListsScoresOne(t *testing.T) {
	res := Fuse(cands(ModeHybrid, []int64{7}, []int64{7}), Params{RRFK: 60})
	if len(res) != 1 || !near(res[0].Score, 1) {
		t.Fatalf("%+v", res)
	}
	res = Fuse(cands(ModeBM25, []int64{7, 8}, nil), Params{RRFK: 0})
	if !near(res[0].Score, 1) || !near(res[1].Score, 0.5) {
		t.Errorf("bm25 only, k=0: %v %v", res[0].Score, res[1].Score)
	}
}

func TestTiesBreakDeterministically(t *testing.T) {
	// 5 is first in BM25, 6 first in vector: equal RRF scores. BM25 rank decides.
	for range 20 {
		res := Fuse(cands(ModeHybrid, []int64{5}, []int64{6}), Params{RRFK: 60})
		if got := ids(res); got[0] != 5 || got[1] != 6 || res[0].Score != res[1].Score {
			t.Fatalf("order %v", got)
		}
	}
}

func TestEmptyLists(t *testing.T) {
	if res := Fuse(cands(ModeHybrid, nil, nil), DefaultParams()); len(res) != 0 {
		t.Errorf("%v", res)
	}
	res := Fuse(cands(ModeHybrid, nil, []int64{9}), Params{RRFK: 60})
	if len(res) != 1 || !near(res[0].Score, 0.5) || res[0].BM25Rank != 0 {
		t.Errorf("vector only hit in hybrid mode: %+v", res)
	}
}

func TestModeIgnoresOtherList(t *testing.T) {
	c := cands(ModeBM25, []int64{1}, []int64{2})
	if got := ids(Fuse(c, Params{RRFK: 60})); len(got) != 1 || got[0] != 1 {
		t.Errorf("bm25 mode used the vector list: %v", got)
	}
}

func TestMinScoreEdges(t *testing.T) {
	c := cands(ModeBM25, []int64{1, 2, 3}, nil)
	// k=0: scores 1, 1/2, 1/3.
	if got := ids(Fuse(c, Params{RRFK: 0, MinScore: 0.5})); len(got) != 2 {
		t.Errorf("min_score 0.5 keeps a score of exactly 0.5: %v", got)
	}
	if got := ids(Fuse(c, Params{RRFK: 0, MinScore: 0.5000001})); len(got) != 1 {
		t.Errorf("just above 0.5: %v", got)
	}
	if got := ids(Fuse(c, Params{RRFK: 0, MinScore: 1})); len(got) != 1 {
		t.Errorf("min_score 1 keeps only the perfect result: %v", got)
	}
	if got := ids(Fuse(c, Params{RRFK: 0, MinScore: 0})); len(got) != 3 {
		t.Errorf("min_score 0: %v", got)
	}
}

func TestTopKAndPerDocCap(t *testing.T) {
	c := cands(ModeBM25, []int64{1, 2, 3, 4, 5}, nil)
	for _, id := range []int64{1, 2, 3} {
		c.Passages[id].DocumentID = 100 // one big document
	}
	got := ids(Fuse(c, Params{RRFK: 60, PerDocCap: 2, TopK: 3}))
	if len(got) != 3 || got[0] != 1 || got[1] != 2 || got[2] != 4 {
		t.Errorf("per-doc cap: %v", got)
	}
	res := Fuse(c, Params{RRFK: 60, TopK: 2})
	if len(res) != 2 || res[1].Rank != 2 {
		t.Errorf("top_k: %+v", res)
	}
}

func TestWeightedFusion(t *testing.T) {
	c := cands(ModeHybrid, []int64{1, 2, 3}, []int64{3, 2})
	// BM25 scores 10, 9, 8 -> 1, .5, 0. Vector 0.9, 0.8 -> 1, 0.
	res := Fuse(c, Params{Fusion: FusionWeighted, VectorWeight: 0.6})
	want := map[int64]float64{1: 0.4, 2: 0.4 * 0.5, 3: 0.6}
	if got := ids(res); got[0] != 3 || got[1] != 1 || got[2] != 2 {
		t.Fatalf("order %v", got)
	}
	for _, r := range res {
		if !near(r.Score, want[r.ChunkID]) {
			t.Errorf("chunk %d: %v want %v", r.ChunkID, r.Score, want[r.ChunkID])
		}
	}
	// One candidate per list: min-max has no range, so it counts as best.
	res = Fuse(cands(ModeVector, nil, []int64{4}), Params{Fusion: FusionWeighted, VectorWeight: 0.6})
	if !near(res[0].Score, 1) {
		t.Errorf("single vector hit %v", res[0].Score)
	}
}

func TestFuseIsPure(t *testing.T) {
	c := cands(ModeHybrid, []int64{1, 2, 3}, []int64{3, 2, 1})
	a := Fuse(c, Params{RRFK: 1})
	b := Fuse(c, Params{RRFK: 1000})
	a2 := Fuse(c, Params{RRFK: 1})
	for i := range a {
		if a[i].ChunkID != a2[i].ChunkID || a[i].Score != a2[i].Score {
			t.Fatal("same params, different result")
		}
	}
	if a[0].Score == b[0].Score {
		t.Error("rrf_k had no effect")
	}
}

func TestDegenerate(t *testing.T) {
	flat := make([]Hit, 20)
	for i := range flat {
		flat[i] = Hit{ChunkID: int64(i), Score: 0.95 - 0.001*float64(i)}
	}
	if !Degenerate(flat) {
		t.Error("flat similarities not detected")
	}
	spread := append([]Hit(nil), flat...)
	spread[19].Score = 0.5
	if Degenerate(spread) {
		t.Error("spread similarities flagged")
	}
	if Degenerate(flat[:3]) {
		t.Error("too few hits to judge")
	}
}

func TestSnippet(t *testing.T) {
	text := "Intro words here. " + repeat("filler ", 60) + "To reset the device, hold RESET for ten seconds. " + repeat("tail ", 40)
	snip, hl, matched := Snippet(text, ParseTerms("how to reset a device"))
	if len(snip) > snippetLen+60 {
		t.Errorf("snippet too long: %d", len(snip))
	}
	var words []string
	for _, h := range hl {
		words = append(words, snip[h.Start:h.End])
	}
	if len(words) != 3 || words[0] != "reset" || words[1] != "device" || words[2] != "RESET" {
		t.Errorf("highlights %q in %q", words, snip)
	}
	if len(matched) != 2 || matched[0] != "reset" || matched[1] != "device" {
		t.Errorf("matched %v", matched)
	}
	// Stems: "resetting" matches "reset"; phrases need consecutive words.
	_, hl, _ = Snippet("Resetting XK 200 B and XK 300", ParseTerms("reset XK-200"))
	if len(hl) != 2 || hl[0] != (Span{0, 9}) || hl[1] != (Span{10, 16}) {
		t.Errorf("stem/phrase highlights %v", hl)
	}
}

func repeat(s string, n int) string {
	out := ""
	for range n {
		out += s
	}
	return out
}

package search

import (
	"math"
	"strings"
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

func TestMinScoreFiltersOnRelevanceNotRank(t *testing.T) {
	c := cands(ModeBM25, []int64{1, 2, 3}, nil)
	// Rank 1 covers little of the question, rank 3 all of it.
	c.Passages[1].Coverage, c.Passages[2].Coverage, c.Passages[3].Coverage = 0.2, 0.5, 1
	if got := ids(Fuse(c, Params{RRFK: 0, MinScore: 0.5})); len(got) != 2 || got[0] != 2 || got[1] != 3 {
		t.Errorf("min_score 0.5 keeps relevance 0.5 and 1, in rank order: %v", got)
	}
	if got := ids(Fuse(c, Params{RRFK: 0, MinScore: 0.5000001})); len(got) != 1 || got[0] != 3 {
		t.Errorf("just above 0.5: %v", got)
	}
	if got := ids(Fuse(c, Params{RRFK: 0, MinScore: 0})); len(got) != 3 {
		t.Errorf("min_score 0: %v", got)
	}
	// The top of a keyword-only ranking always has the fused score 1; its
	// relevance is what it covers.
	res := Fuse(c, Params{RRFK: 60})
	if !near(res[0].Score, 1) || !near(res[0].Relevance, 0.2) {
		t.Errorf("rank 1: score %v relevance %v", res[0].Score, res[0].Relevance)
	}
}

func TestVectorSimilarityLiftsRelevanceHalfwayAtMost(t *testing.T) {
	// Similarities 0.9, 0.8, 0.7, 0.6: the pool's tail is 0.6.
	c := cands(ModeHybrid, nil, []int64{1, 2, 3, 4})
	c.Passages[1].Coverage = 0   // stands out by meaning alone
	c.Passages[2].Coverage = 0.9 // already covered by its words
	res := Fuse(c, Params{RRFK: 60})
	rel := map[int64]float64{}
	for _, r := range res {
		rel[r.ChunkID] = r.Relevance
	}
	// Chunk 1: (0.9-0.6)/(1-0.6) = 0.75 above the tail, half of it counts.
	if !near(rel[1], 0.375) || !near(rel[2], 0.9) || !near(rel[4], 0) {
		t.Errorf("relevance %v: want 0.375 (meaning alone), 0.9 (words), 0 (the tail)", rel)
	}
}

func TestNavigationRanksBelowContent(t *testing.T) {
	c := cands(ModeBM25, []int64{1, 2}, nil)
	c.Passages[1].Navigation, c.Passages[1].Coverage = true, 1 // the contents page names the section
	c.Passages[2].Coverage = 1                                 // the section itself
	res := Fuse(c, Params{RRFK: 60})
	if got := ids(res); got[0] != 2 || got[1] != 1 {
		t.Fatalf("order %v: the table of contents must follow the page it points to", got)
	}
	if !near(res[1].Relevance, 0.5) {
		t.Errorf("contents page relevance %v, want 0.5", res[1].Relevance)
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

func TestIsNavigation(t *testing.T) {
	for name, tc := range map[string]struct {
		text string
		want bool
	}{
		"contents with leaders":    {"Contents\n1 Introduction . . . . . . . . 1\n1.1 Overview ........ 2\n2 Invoking grep ..... 5\n2.1 Options ...... 6", true},
		"contents without leaders": {"Table of Contents\n1 Introduction 1\n2 Invoking 3\n2.1 Command-line Options 4\n2.2 Environment Variables 9\n3 Regular Expressions 12", true},
		"back-of-book index":       {"Index\nalias, 12, 45\nbackground jobs, 88\nbrace expansion, 23-25\ncase statement, 14\ncommand substitution, 31, 33", true},
		"prose":                    {"The -i option makes grep ignore case.\nIt applies to patterns and input.\nSee also --no-ignore-case.\nThis was added in 2.5.", false},
		"table of figures by year": {"Region Sales 2021 2022\nNorth 1200 900\nSouth 300 1500\nEast 2000 100\nWest 50 700", false},
		"man page options":         {"-i, --ignore-case\n    Ignore case distinctions in patterns and input data.\n-v, --invert-match\n    Invert the sense of matching.", false},
		"too short":                {"Contents\n1 Intro .... 1", false},
	} {
		if got := IsNavigation(tc.text); got != tc.want {
			t.Errorf("%s: IsNavigation = %v, want %v", name, got, tc.want)
		}
	}
}

func TestWordsStandingTogetherRankFirst(t *testing.T) {
	c := cands(ModeBM25, []int64{1, 2}, nil)
	c.Passages[1].Near = 0.2 // the words a paragraph apart
	c.Passages[2].Near = 1   // all of them in one line
	res := Fuse(c, Params{RRFK: 60})
	if got := ids(res); got[0] != 2 || got[1] != 1 {
		t.Fatalf("order %v: the passage holding the question's words together must come first", got)
	}
	// The fused score stays the fusion's, as Why explains it.
	if !near(res[1].Score, 1) || !near(res[0].Score, 61.0/62) {
		t.Errorf("scores %v %v, want the RRF values 61/62 and 1", res[0].Score, res[1].Score)
	}
}

func TestNearCoverageIsTheBestWindow(t *testing.T) {
	terms := ParseTerms("ignore case grep")
	weights := []float64{1, 1, 2}
	far := "ignore " + strings.Repeat("filler ", 40) + "case"
	p := &Passage{Text: far, Title: "grep", Matched: []string{"ignore", "case"}}
	_, at := termWords(p.Text, terms)
	all, nearCov := passageCoverage(p, terms, weights, at)
	// All three words are in the passage or its title; no window of 30
	// words holds both "ignore" and "case", so the best window has the
	// title's grep and one of them.
	if !near(all, 1) || !near(nearCov, 0.75) {
		t.Errorf("coverage %v near %v, want 1 and 0.75", all, nearCov)
	}
}

// A snippet flows as one line of single spaces, its highlights still on
// their words: a man page's indentation is no gap in it.
func TestSnippetCollapsesRunsOfSpaces(t *testing.T) {
	text := "       -i, --ignore-case\n              Ignore   case distinctions in patterns."
	snip, hl, _ := Snippet(text, ParseTerms("ignore case"))
	if want := "-i, --ignore-case Ignore case distinctions in patterns."; snip != want {
		t.Fatalf("snippet %q, want %q", snip, want)
	}
	var got []string
	for _, h := range hl {
		got = append(got, snip[h.Start:h.End])
	}
	if strings.Join(got, "|") != "ignore|case|Ignore|case" {
		t.Errorf("highlights %q", got)
	}
}

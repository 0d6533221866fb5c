package search

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"
)

// fixedScorer scores a passage from a table of texts (0 when absent) and
// claims a fixed cost per pair; it records what it was asked.
type fixedScorer struct {
	perPair time.Duration
	scores  map[string]float64
	asked   []string
}

func (f *fixedScorer) Score(_ context.Context, _ string, docs []string) ([]float64, error) {
	f.asked = append(f.asked, docs...)
	out := make([]float64, len(docs))
	for i, d := range docs {
		out[i] = f.scores[d]
	}
	return out, nil
}
func (f *fixedScorer) PerPair() time.Duration { return f.perPair }
func (f *fixedScorer) Name() string           { return "fixed" }

// rerankCands are 30 BM25 results, chunk i at rank i, each with its own
// text and a coverage of 0.5.
func rerankCands() *Candidates {
	var ids []int64
	for i := int64(1); i <= 30; i++ {
		ids = append(ids, i)
	}
	c := cands(ModeBM25, ids, nil)
	for id, p := range c.Passages {
		p.Text = "t" + string(rune('A'+id))
		p.Coverage = 0.5
	}
	return c
}

func TestRerankNFollowsTheBudget(t *testing.T) {
	for _, tc := range []struct {
		budget, perPair time.Duration
		want            int
	}{
		{1500 * time.Millisecond, 30 * time.Millisecond, 50},
		{1500 * time.Millisecond, 31 * time.Millisecond, 48},
		{1500 * time.Millisecond, time.Millisecond, MaxRerank},
		{1500 * time.Millisecond, 0, 0},
		{0, time.Millisecond, 0},
	} {
		if got := RerankN(tc.budget, tc.perPair); got != tc.want {
			t.Errorf("RerankN(%v, %v) = %d, want %d", tc.budget, tc.perPair, got, tc.want)
		}
	}
}

func TestRerankReordersTheFusedTopN(t *testing.T) {
	c := rerankCands()
	p := Params{RRFK: 60, TopK: 5}
	before := Fuse(c, p)
	// The scorer likes later fused ranks better: chunk i scores i.
	sc := &fixedScorer{perPair: 100 * time.Millisecond, scores: map[string]float64{}}
	for id, pa := range c.Passages {
		sc.scores[pa.Text] = float64(id)
	}
	resp := &Response{Results: before, Candidates: c, Params: p}
	if err := Rerank(context.Background(), sc, resp, time.Second); err != nil {
		t.Fatal(err)
	}
	// 1 s at 100 ms a pair: the fused top 10 are scored, and the five
	// kept are the five best scored, best first, with their fused ranks.
	if len(sc.asked) != 10 || c.Rerank.N != 10 || c.Rerank.Budget != time.Second || c.Rerank.PerPair != 100*time.Millisecond {
		t.Fatalf("scored %d pairs, reranking %+v", len(sc.asked), c.Rerank)
	}
	if got := ids(resp.Results); !slices.Equal(got, []int64{10, 9, 8, 7, 6}) {
		t.Errorf("order after rerank %v, want 10 9 8 7 6", got)
	}
	for i, r := range resp.Results {
		if r.Rank != i+1 || r.PreRank != int(r.ChunkID) || r.RerankScore != float64(r.ChunkID) {
			t.Errorf("result %d: rank %d, before %d, score %v", i, r.Rank, r.PreRank, r.RerankScore)
		}
		// Relevance stays the coverage: the reranker only reorders.
		if r.Relevance != 0.5 {
			t.Errorf("result %d: relevance %v, want the coverage 0.5", i, r.Relevance)
		}
	}
	// Re-fusing the candidates (a slider) keeps the reranker's order.
	if got := ids(Fuse(c, p)); !slices.Equal(got, []int64{10, 9, 8, 7, 6}) {
		t.Errorf("re-fused order %v", got)
	}
	rep := NewReport("q", resp)
	if rep.Rerank == nil || rep.Rerank.N != 10 || rep.Rerank.BudgetMS != 1000 || rep.Rerank.PerPairMS != 100 ||
		rep.Results[0].RankBeforeRerank != 10 || rep.Results[0].RerankScore != 10 {
		t.Errorf("report %+v, first result %+v", rep.Rerank, rep.Results[0])
	}
}

func TestRerankSkipsWhenTheBudgetAllowsTooFew(t *testing.T) {
	c := rerankCands()
	p := Params{RRFK: 60, TopK: 5}
	before := Fuse(c, p)
	sc := &fixedScorer{perPair: 2 * time.Second}
	resp := &Response{Results: before, Candidates: c, Params: p}
	if err := Rerank(context.Background(), sc, resp, 1500*time.Millisecond); err != nil {
		t.Fatal(err)
	}
	if len(sc.asked) != 0 || c.Rerank.N != 0 || !strings.Contains(c.Rerank.Skipped, "one pair takes 2s on this machine") {
		t.Errorf("scored %d pairs, reranking %+v", len(sc.asked), c.Rerank)
	}
	if !slices.Equal(ids(resp.Results), ids(before)) || resp.Results[0].PreRank != 0 {
		t.Errorf("order changed without reranking: %v", ids(resp.Results))
	}
}

func TestRerankKeepsTheMinimumRelevance(t *testing.T) {
	c := rerankCands()
	// Chunk 3 covers little of the question: the minimum relevance drops
	// it, and the reranker cannot bring it back however well it scores.
	c.Passages[3].Coverage = 0.05
	p := Params{RRFK: 60, TopK: 5, MinScore: 0.1}
	sc := &fixedScorer{perPair: time.Millisecond, scores: map[string]float64{c.Passages[3].Text: 100}}
	resp := &Response{Results: Fuse(c, p), Candidates: c, Params: p}
	if err := Rerank(context.Background(), sc, resp, time.Second); err != nil {
		t.Fatal(err)
	}
	if slices.Contains(ids(resp.Results), 3) || slices.Contains(sc.asked, c.Passages[3].Text) {
		t.Errorf("a passage under the minimum relevance was reranked: %v", ids(resp.Results))
	}
}

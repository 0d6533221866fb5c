package core

import (
	"cmp"
	"context"
	"math"
	"slices"
	"testing"
	"time"

	"cairn/core/config"
	"cairn/core/llm"
	"cairn/core/llm/testmodel"
	"cairn/core/search"
)

const rerankQuestion = "how do I reset the router"

// rerankOn switches reranking on or off; with no minimum relevance and
// the generated embedder's vector search, the small corpus gives enough
// fused results to reorder.
func rerankOn(on bool) func(*config.Config) {
	return func(c *config.Config) { c.Rerank.Enabled, c.Retrieval.TopK, c.Retrieval.MinScore = on, 5, 0 }
}

func chunkOrder(rs []search.Result) []int64 {
	out := make([]int64, len(rs))
	for i, r := range rs {
		out[i] = r.ChunkID
	}
	return out
}

// With reranking off, a reranker in the models folder changes nothing:
// the results are the fused ones, with no rerank evidence.
func TestRerankOffLeavesTheFusedOrder(t *testing.T) {
	eng := testEngine(t, rerankOn(false), testmodel.Tiny(), testmodel.TinyReranker())
	ctx := context.Background()
	resp, err := eng.Search(ctx, eng.SearchRequest(rerankQuestion))
	if err != nil {
		t.Fatal(err)
	}
	want := search.Fuse(resp.Candidates, resp.Params)
	if resp.Candidates.Rerank != nil || !slices.Equal(chunkOrder(resp.Results), chunkOrder(want)) {
		t.Errorf("reranking off: rerank %+v, order %v, fused %v", resp.Candidates.Rerank, chunkOrder(resp.Results), chunkOrder(want))
	}
	for _, r := range resp.Results {
		if r.PreRank != 0 || r.RerankScore != 0 {
			t.Errorf("result %d carries rerank evidence: %+v", r.Rank, r)
		}
	}
	if rep := search.NewReport(rerankQuestion, resp); rep.Rerank != nil {
		t.Errorf("report has a rerank block: %+v", rep.Rerank)
	}
}

// With reranking on, the fused top N are ordered by the generated
// model's own scores (the same pair scored alone gives the same number),
// each result shows its score and its rank before, and the relevance is
// the fusion's.
func TestRerankOrdersByTheModelsScores(t *testing.T) {
	eng := testEngine(t, rerankOn(true), testmodel.Tiny(), testmodel.TinyReranker())
	ctx := context.Background()
	resp, err := eng.Search(ctx, eng.SearchRequest(rerankQuestion))
	if err != nil {
		t.Fatal(err)
	}
	rr := resp.Candidates.Rerank
	if rr == nil || rr.Skipped != "" || rr.Model != "tiny-reranker-test" || rr.Budget != 1500*time.Millisecond {
		t.Fatalf("reranking %+v; notes %q", rr, resp.Candidates.Notes)
	}
	// The fused order without the reranker, all of it.
	all := resp.Params
	all.TopK = 0
	saved := resp.Candidates.Rerank
	resp.Candidates.Rerank = nil
	fused := search.Fuse(resp.Candidates, all)
	resp.Candidates.Rerank = saved
	if rr.N != min(search.RerankN(rr.Budget, rr.PerPair), len(fused)) {
		t.Errorf("N = %d, want min(budget %v / per pair %v, %d results)", rr.N, rr.Budget, rr.PerPair, len(fused))
	}

	model, err := llm.LoadReranker(eng.models.rr.path, llm.RerankerOptions{Threads: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer model.Close()
	type scored struct {
		id    int64
		score float64
		fused int
	}
	var want []scored
	for i, r := range fused[:rr.N] {
		s, err := model.Score(ctx, rerankQuestion, []string{search.RerankText(r.Passage)})
		if err != nil {
			t.Fatal(err)
		}
		if math.Abs(rr.Scores[r.ChunkID]-s[0]) > 1e-4 {
			t.Errorf("chunk %d: scored %v in the step, %v alone", r.ChunkID, rr.Scores[r.ChunkID], s[0])
		}
		want = append(want, scored{r.ChunkID, rr.Scores[r.ChunkID], i + 1})
	}
	slices.SortStableFunc(want, func(a, b scored) int { return cmp.Compare(b.score, a.score) })
	if len(resp.Results) != 5 {
		t.Fatalf("%d results, want top_k 5", len(resp.Results))
	}
	for i, r := range resp.Results {
		w := want[i]
		if r.ChunkID != w.id || r.PreRank != w.fused || r.RerankScore != w.score || r.Rank != i+1 {
			t.Errorf("result %d: chunk %d (before %d, score %v), want chunk %d (before %d, score %v)",
				i+1, r.ChunkID, r.PreRank, r.RerankScore, w.id, w.fused, w.score)
		}
		if f := fused[w.fused-1]; r.Relevance != f.Relevance {
			t.Errorf("result %d: relevance %v, the fusion's %v", i+1, r.Relevance, f.Relevance)
		}
	}
	if slices.Equal(chunkOrder(resp.Results), chunkOrder(fused[:5])) {
		t.Error("the random model's scores left the fused order as it was; the test proves nothing")
	}
}

// N is as many pairs as fit the budget at the cost per pair measured
// before the step.
func TestRerankNFitsTheBudget(t *testing.T) {
	eng := testEngine(t, rerankOn(true), testmodel.Tiny(), testmodel.TinyReranker())
	ctx := context.Background()
	rr, err := eng.reranker(ctx)
	if err != nil || rr == nil {
		t.Fatalf("reranker %v, %v", rr, err)
	}
	per := rr.PerPair()
	// Room for 5 pairs and a half; set past the knob's bounds, which
	// are for people, not for this machine's milliseconds.
	eng.mu.Lock()
	eng.cfg.Rerank.BudgetSec = (5*per + per/2).Seconds()
	eng.mu.Unlock()
	resp, err := eng.Search(ctx, eng.SearchRequest(rerankQuestion))
	if err != nil {
		t.Fatal(err)
	}
	got := resp.Candidates.Rerank
	if got == nil || got.PerPair != per || got.N != 5 || len(got.Scores) != 5 {
		t.Errorf("per pair %v: reranking %+v, want N = 5", per, got)
	}
	if rep := search.NewReport(rerankQuestion, resp); rep.Rerank == nil || rep.Rerank.N != 5 {
		t.Errorf("report %+v", rep.Rerank)
	}
}

// Refusal reads the relevance, which the reranker does not change: with
// the reranker on, an off-topic question is still refused and a question
// the documents answer is still answered.
func TestRerankKeepsRefusals(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		question string
		refused  bool
	}{
		{"how do I reset the router", false},
		{"what is the capital of Peru", true},
		{"quantum chromodynamics gluon confinement", true},
	} {
		for _, on := range []bool{false, true} {
			eng := testEngine(t, func(c *config.Config) { c.Rerank.Enabled = on }, testmodel.Tiny(), testmodel.TinyReranker())
			ans, err := eng.Ask(ctx, eng.SearchRequest(tc.question), nil)
			if err != nil {
				t.Fatal(err)
			}
			if ans.Refused != tc.refused {
				t.Errorf("%q with reranking %v: refused %v, want %v", tc.question, on, ans.Refused, tc.refused)
			}
		}
	}
}

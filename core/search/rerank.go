package search

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"time"
)

// Scorer scores (question, passage) pairs with a cross-encoder: higher
// for a passage that answers the question, on a scale that orders one
// question's passages only. PerPair is what one pair costs on this
// machine, as measured. *llm.Reranker satisfies it.
type Scorer interface {
	Score(ctx context.Context, query string, passages []string) ([]float64, error)
	PerPair() time.Duration
	Name() string
}

// Reranking is what the rerank step did to one search: which model, the
// time budget, the measured cost per pair, how many of the fused results
// it scored (N) and their scores. Fuse applies it, so a slider that
// re-fuses the candidates keeps the reranker's order.
type Reranking struct {
	Model   string
	Budget  time.Duration
	PerPair time.Duration // measured before the step, from which N follows
	N       int
	Took    time.Duration
	Scores  map[int64]float64 // by chunk id
	// Skipped says why nothing was reranked ("" when N passages were).
	Skipped string
}

// Summary says in one line what the step did, for the command line and
// the window's Why: the model, N, what it took, the budget and the
// measured cost of a pair.
func (rr *Reranking) Summary() string {
	switch {
	case rr == nil:
		return "reranking off"
	case rr.Skipped != "":
		return fmt.Sprintf("not reranked by %s: %s", rr.Model, rr.Skipped)
	}
	return fmt.Sprintf("the fused top %d reranked by %s in %s (budget %s, %s a pair on this machine)",
		rr.N, rr.Model, rr.Took.Round(time.Millisecond), rr.Budget, rr.PerPair.Round(100*time.Microsecond))
}

// Bounds of N: fewer than MinRerank pairs cannot change an order, and
// past MaxRerank the fused ranking's tail rarely holds an answer.
const (
	MinRerank = 2
	MaxRerank = 100
)

// RerankN is how many pairs fit budget at perPair each: floor(budget /
// perPair), at most MaxRerank; 0 when the budget or the cost is unknown.
func RerankN(budget, perPair time.Duration) int {
	if budget <= 0 || perPair <= 0 {
		return 0
	}
	return int(min(int64(budget/perPair), MaxRerank))
}

// Rerank scores the fused top N of resp with sc, N as many as fit budget
// at the scorer's measured cost per pair, and reorders those N by the
// scores. Only the order changes: Relevance, which the minimum relevance
// and the refusal read, stays the passages' coverage of the question, so
// a reranker cannot turn a passage that does not cover the question into
// an answer. Why shows each result's score and its rank before.
func Rerank(ctx context.Context, sc Scorer, resp *Response, budget time.Duration) error {
	c := resp.Candidates
	c.Rerank = nil
	all := resp.Params
	all.TopK = 0
	fused := Fuse(c, all)
	rr := &Reranking{Model: sc.Name(), Budget: budget, PerPair: sc.PerPair()}
	rr.N = min(RerankN(budget, rr.PerPair), len(fused))
	switch {
	case len(fused) < MinRerank:
		rr.N, rr.Skipped = 0, "fewer than two results to reorder"
	case rr.N < MinRerank:
		rr.N, rr.Skipped = 0, fmt.Sprintf("one pair takes %s on this machine: the rerank budget of %s allows fewer than %d",
			rr.PerPair.Round(time.Millisecond), budget, MinRerank)
	}
	if rr.N == 0 {
		c.Rerank = rr
		return nil
	}
	docs := make([]string, rr.N)
	for i, r := range fused[:rr.N] {
		docs[i] = RerankText(r.Passage)
	}
	start := time.Now()
	scores, err := sc.Score(ctx, c.Query, docs)
	if err != nil {
		return fmt.Errorf("rerank: %w", err)
	}
	rr.Took = time.Since(start)
	rr.Scores = make(map[int64]float64, rr.N)
	for i, r := range fused[:rr.N] {
		rr.Scores[r.ChunkID] = scores[i]
	}
	c.Rerank = rr
	resp.Results = Fuse(c, resp.Params)
	resp.Timing.Rerank = rr.Took
	resp.Timing.Total += rr.Took
	return nil
}

// RerankText is what the cross-encoder reads of a passage: where it is
// (the document's title and the heading) and its text.
func RerankText(p *Passage) string {
	head := p.Title
	if p.Heading != "" && p.Heading != p.Title {
		head += " > " + p.Heading
	}
	if head == "" {
		return p.Text
	}
	return head + "\n" + p.Text
}

// applyRerank reorders the results the reranker scored by their scores,
// in the places they hold in the fused order; the others keep theirs
// (after a slider move, a passage the reranker never saw). Each reranked
// result records its fused rank and its score.
func applyRerank(out []*Result, rr *Reranking) {
	var slots []int
	var scored []*Result
	for i, r := range out {
		if s, ok := rr.Scores[r.ChunkID]; ok {
			r.PreRank, r.RerankScore = i+1, s
			slots = append(slots, i)
			scored = append(scored, r)
		}
	}
	slices.SortStableFunc(scored, func(a, b *Result) int { return cmp.Compare(b.RerankScore, a.RerankScore) })
	for k, i := range slots {
		out[i] = scored[k]
	}
}

package llmbench

import (
	"context"
	"fmt"
	"io"
	"time"

	"cairn/core/llm"
	"cairn/core/llm/testmodel"
	"cairn/core/stats"
)

// RerankBenchOptions configures BenchRerank. Zero values pick the defaults
// noted.
type RerankBenchOptions struct {
	// ModelPath is the GGUF reranker to measure; empty writes a
	// random-weight model of bge-reranker-v2-m3's shape
	// (testmodel.BGERerankerV2M3) to a temporary directory.
	ModelPath string
	// Weights is the generated model's weight type; zero means F16.
	Weights testmodel.WeightType
	// Ns are the numbers of passages reranked per step (default 20 and 50).
	Ns []int
	// PassageWords is the length of each passage (default 200 words,
	// about Cairn's 1200-character chunks).
	PassageWords int
	// Runs is the number of timed steps at each N (default 3).
	Runs int
	// Budget is the rerank budget whose N the report derives from the
	// measured cost per pair (default 1.5 s, the setting's default).
	Budget time.Duration
	// Reranker configures the reranker under test.
	Reranker llm.RerankerOptions
}

// RerankBenchReport holds BenchRerank's measurements.
type RerankBenchReport struct {
	Model        string
	Window       int
	PassageWords int
	PairTokens   int // tokens of one pair as the model reads it (the first passage's)
	Runs         int
	Steps        []RerankStep
	// PerPair is the median cost of one pair over every step; BudgetN is
	// how many pairs Budget allows at that cost (as search.RerankN counts,
	// before its cap).
	PerPair time.Duration
	Budget  time.Duration
	BudgetN int
}

// RerankStep is the rerank step's time at one N: every run's, its median
// and p95, and the cost per pair (median / N).
type RerankStep struct {
	N       int
	Runs    []time.Duration
	P50     time.Duration
	P95     time.Duration
	PerPair time.Duration
}

// BenchRerank times Reranker.Score on one question and N passages, the
// whole rerank step of a search but for reordering, at each of opt.Ns, and
// writes progress to w. It is what `cairn bench rerank` calls.
func BenchRerank(ctx context.Context, w io.Writer, opt RerankBenchOptions) (RerankBenchReport, error) {
	if len(opt.Ns) == 0 {
		opt.Ns = []int{20, 50}
	}
	opt.PassageWords = cmpOr(opt.PassageWords, 200)
	opt.Runs = cmpOr(opt.Runs, 3)
	if opt.Budget <= 0 {
		opt.Budget = 1500 * time.Millisecond
	}
	spec := withWeights(testmodel.BGERerankerV2M3(), opt.Weights, testmodel.F16)
	path, cleanup, err := benchModel(opt.ModelPath, spec)
	if err != nil {
		return RerankBenchReport{}, err
	}
	defer cleanup()
	t := time.Now()
	r, err := llm.LoadReranker(path, opt.Reranker)
	if err != nil {
		return RerankBenchReport{}, err
	}
	defer r.Close()
	fmt.Fprintf(w, "rerank: %s loaded and calibrated in %s (%s a pair)\n", r.Name(), time.Since(t).Round(time.Millisecond), r.PerPair().Round(time.Millisecond))

	const question = "how do I reset the network settings of the device"
	most := 0
	for _, n := range opt.Ns {
		most = max(most, n)
	}
	docs := make([]string, most)
	for i := range docs {
		docs[i] = testmodel.Text(opt.PassageWords, uint64(i+1))
	}
	pair, err := r.Pair(question, docs[0])
	if err != nil {
		return RerankBenchReport{}, err
	}
	rep := RerankBenchReport{Model: r.Name(), Window: r.Window(), PassageWords: opt.PassageWords, PairTokens: len(pair),
		Runs: opt.Runs, Budget: opt.Budget}
	var perPair []float64
	for _, n := range opt.Ns {
		st := RerankStep{N: n}
		for run := range opt.Runs {
			t := time.Now()
			if _, err := r.Score(ctx, question, docs[:n]); err != nil {
				return rep, err
			}
			d := time.Since(t)
			st.Runs = append(st.Runs, d)
			perPair = append(perPair, float64(d)/float64(n))
			fmt.Fprintf(w, "  N=%d run %d: %s (%s a pair)\n", n, run+1, d.Round(time.Millisecond), (d / time.Duration(n)).Round(time.Millisecond))
		}
		st.P50, st.P95 = stats.MedianDuration(st.Runs), stats.Quantile(st.Runs, 0.95)
		st.PerPair = st.P50 / time.Duration(n)
		rep.Steps = append(rep.Steps, st)
	}
	rep.PerPair = time.Duration(stats.Median(perPair))
	if rep.PerPair > 0 {
		rep.BudgetN = int(rep.Budget / rep.PerPair)
	}
	return rep, nil
}

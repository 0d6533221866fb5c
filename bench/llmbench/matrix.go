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

// EmbedCase is one configuration BenchEmbedMatrix measures.
type EmbedCase struct {
	Spec     testmodel.Spec // a random-weight model of this shape and weight type is written
	Embedder llm.EmbedderOptions
}

// Label names the case in reports: shape, weights, threads, attention.
func (c EmbedCase) Label() string {
	fa := map[llm.FlashAttention]string{llm.FlashAttentionAuto: "auto", llm.FlashAttentionOn: "on", llm.FlashAttentionOff: "off"}[c.Embedder.FlashAttention]
	return fmt.Sprintf("%s %s, %d thread(s), flash attention %s", c.Spec.Name, c.Spec.Weights, max(c.Embedder.Threads, 1), fa)
}

// CatalogEmbedCases are the catalogue's embedding shapes the test-model
// writer lays out (all-MiniLM-L6-v2; bge-small and e5-small, which share a
// transformer), each in F16 and Q8_0 on 1 and 2 threads; the first is the
// baseline, today's default.
func CatalogEmbedCases() []EmbedCase {
	var cases []EmbedCase
	for _, spec := range []testmodel.Spec{testmodel.MiniLML6(), testmodel.BGESmall()} {
		for _, wt := range []testmodel.WeightType{testmodel.F16, testmodel.Q8_0} {
			for _, th := range []int{1, 2} {
				s := spec
				s.Weights = wt
				cases = append(cases, EmbedCase{Spec: s, Embedder: llm.EmbedderOptions{Threads: th}})
			}
		}
	}
	return cases
}

// EmbedCaseResult is one case's medians over the runs.
type EmbedCaseResult struct {
	Case          EmbedCase
	ChunksPerS    float64 // wall clock
	ChunksPerCPUS float64 // per CPU-second of the whole process
	// Ratio is ChunksPerCPUS over the first case's in the same run.
	Ratio float64
}

// BenchEmbedMatrix embeds the same chunks of chunkTokens tokens with every
// case, the cases taking turns run after run so that the machine's other
// load falls on all of them alike, and reports each case's medians and its
// ratio to the first case (the baseline); each run's figures go to log.
func BenchEmbedMatrix(ctx context.Context, log io.Writer, cases []EmbedCase, chunks, chunkTokens, runs int) ([]EmbedCaseResult, error) {
	type loaded struct {
		e         *llm.Embedder
		ps        []llm.Passage
		wall, cpu []float64
	}
	ls := make([]*loaded, len(cases))
	written := map[string]string{}
	defer func() {
		for _, l := range ls {
			if l != nil {
				l.e.Close()
			}
		}
	}()
	for i, c := range cases {
		key := c.Spec.Name + c.Spec.Weights.String()
		path, ok := written[key]
		if !ok {
			p, cleanup, err := benchModel("", c.Spec)
			if err != nil {
				return nil, err
			}
			defer cleanup()
			path, written[key] = p, p
		}
		e, err := llm.LoadEmbedder(path, c.Embedder)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", c.Label(), err)
		}
		ps, err := benchPassages(e, chunks, chunkTokens)
		if err != nil {
			e.Close()
			return nil, err
		}
		ls[i] = &loaded{e: e, ps: ps}
		if _, _, err := e.EmbedPassages(ctx, ps[:1]); err != nil { // allocates the compute buffers
			return nil, err
		}
	}
	fmt.Fprintf(log, "embedding matrix: %d chunks x %d tokens, %d runs, cases taking turns\n", chunks, chunkTokens, runs)
	for run := range runs {
		for i, l := range ls {
			t, c := time.Now(), llm.ProcessCPUTime()
			if _, _, err := l.e.EmbedPassages(ctx, l.ps); err != nil {
				return nil, err
			}
			n := float64(len(l.ps))
			l.wall = append(l.wall, n/time.Since(t).Seconds())
			l.cpu = append(l.cpu, perCPU(n, c))
			fmt.Fprintf(log, "  run %d, %s: %.2f chunks/s, %.2f per CPU-s\n", run+1, cases[i].Label(), l.wall[run], l.cpu[run])
		}
	}
	out := make([]EmbedCaseResult, len(cases))
	for i, l := range ls {
		out[i] = EmbedCaseResult{Case: cases[i], ChunksPerS: stats.Median(l.wall), ChunksPerCPUS: stats.Median(l.cpu)}
		out[i].Ratio = out[i].ChunksPerCPUS / max(out[0].ChunksPerCPUS, 1e-9)
	}
	return out, nil
}

// WriteEmbedMatrix writes BenchEmbedMatrix's results as a Markdown table.
func WriteEmbedMatrix(w io.Writer, out []EmbedCaseResult) {
	fmt.Fprintln(w, "\n| case | chunks/s (median) | chunks per CPU-second (median) | per CPU-second against the first |")
	fmt.Fprintln(w, "|---|---|---|---|")
	for _, r := range out {
		fmt.Fprintf(w, "| %s | %.2f | %.2f | %.2f |\n", r.Case.Label(), r.ChunksPerS, r.ChunksPerCPUS, r.Ratio)
	}
}

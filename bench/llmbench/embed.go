package llmbench

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"cairn/core/llm"
	"cairn/core/llm/testmodel"
	"cairn/core/stats"
)

// EmbedBenchOptions configures BenchEmbed. Zero values pick the defaults
// noted.
type EmbedBenchOptions struct {
	// ModelPath is the GGUF to measure; empty writes a random-weight model
	// of all-MiniLM-L6-v2's shape (testmodel.MiniLML6) to a temporary
	// directory and removes it afterwards.
	ModelPath string
	// Weights is the weight type of the generated model; the zero value
	// (F32) means F16, as the common GGUF conversions ship it.
	Weights testmodel.WeightType
	// Chunks is the number of passages embedded per run (default 64).
	Chunks int
	// ChunkTokens is the length of each passage in tokens, special tokens
	// included (default 256).
	ChunkTokens int
	// Runs is the number of timed runs of each path (default 5).
	Runs int
	// Embedder configures the embedder under test.
	Embedder llm.EmbedderOptions
}

// EmbedBenchReport holds BenchEmbed's measurements, in chunks per second.
type EmbedBenchReport struct {
	ModelID     string
	Device      llm.Device
	Chunks      int
	ChunkTokens int
	// Pipeline is each run of Embedder.EmbedPassages on text: tokenizing,
	// packing, decoding, pooling, normalising.
	Pipeline []float64
	// Raw is each run of a bare llama_decode loop over the same,
	// pre-tokenized batches on the same llama context.
	Raw            []float64
	PipelineMedian float64
	RawMedian      float64
	// PipelineCPU and RawCPU are the medians in chunks per CPU-second of
	// the whole process (0 where not measured). On a machine shared with
	// other work they are steadier than wall-clock rates; with Threads 1
	// they measure one core's speed.
	PipelineCPU float64
	RawCPU      float64
	// Prepare is the median time to tokenize and window all chunks: the
	// pipeline's main work beyond the decode loop, measured on its own
	// because it is far smaller than the noise of a shared machine.
	Prepare time.Duration
	// Overhead is the share of time the pipeline adds to the bare loop:
	// 1 - PipelineMedian/RawMedian.
	Overhead float64
	// QueryP50 and QueryP95 are the latency of EmbedQuery on a short
	// question: the share of a hybrid search spent before either index is
	// asked.
	QueryP50, QueryP95 time.Duration
}

// BenchEmbed measures embedding throughput through the Embedder and through
// a bare decode loop in the same process, alternating runs so that noise
// from other load falls on both, and writes a summary to w. It is what
// `cairn bench` calls; BenchmarkEmbed* in the tests drive the same code.
func BenchEmbed(ctx context.Context, w io.Writer, opt EmbedBenchOptions) (EmbedBenchReport, error) {
	opt.Chunks = cmpOr(opt.Chunks, 64)
	opt.ChunkTokens = cmpOr(opt.ChunkTokens, 256)
	opt.Runs = cmpOr(opt.Runs, 5)
	path, cleanup, err := benchModel(opt.ModelPath, withWeights(testmodel.MiniLML6(), opt.Weights, testmodel.F16))
	if err != nil {
		return EmbedBenchReport{}, err
	}
	defer cleanup()
	e, err := llm.LoadEmbedder(path, opt.Embedder)
	if err != nil {
		return EmbedBenchReport{}, err
	}
	defer e.Close()

	ps, err := benchPassages(e, opt.Chunks, opt.ChunkTokens)
	if err != nil {
		return EmbedBenchReport{}, err
	}
	var ws llm.Windows
	var prep []float64
	for range 5 {
		t := time.Now()
		if ws, err = e.Windows(ps); err != nil {
			return EmbedBenchReport{}, err
		}
		prep = append(prep, float64(time.Since(t)))
	}
	rep := EmbedBenchReport{ModelID: e.ModelID(), Device: e.Device(), Chunks: opt.Chunks, ChunkTokens: opt.ChunkTokens}
	batchTokens, maxSeqs, window := e.BatchShape()
	fmt.Fprintf(w, "embedding: %s, %d chunks x %d tokens, batch %d tokens / %d sequences, window %d\n",
		rep.ModelID, opt.Chunks, opt.ChunkTokens, batchTokens, maxSeqs, window)

	// Warm up: the first decode allocates llama.cpp's compute buffers.
	if _, _, err := e.EmbedPassages(ctx, ps[:1]); err != nil {
		return rep, err
	}
	var pipeCPU, rawCPU []float64
	n := float64(len(ps))
	for run := range opt.Runs {
		t, c := time.Now(), llm.ProcessCPUTime()
		if _, _, err := e.EmbedPassages(ctx, ps); err != nil {
			return rep, err
		}
		pipe, pc := n/time.Since(t).Seconds(), perCPU(n, c)
		t, c = time.Now(), llm.ProcessCPUTime()
		if err := e.RawDecode(ctx, ws); err != nil {
			return rep, err
		}
		raw, rc := n/time.Since(t).Seconds(), perCPU(n, c)
		rep.Pipeline = append(rep.Pipeline, pipe)
		rep.Raw = append(rep.Raw, raw)
		pipeCPU, rawCPU = append(pipeCPU, pc), append(rawCPU, rc)
		fmt.Fprintf(w, "  run %d: pipeline %.2f chunks/s (%.2f per CPU-s), raw decode %.2f chunks/s (%.2f per CPU-s)\n",
			run+1, pipe, pc, raw, rc)
	}
	rep.PipelineMedian, rep.RawMedian = stats.Median(rep.Pipeline), stats.Median(rep.Raw)
	rep.PipelineCPU, rep.RawCPU = stats.Median(pipeCPU), stats.Median(rawCPU)
	rep.Overhead = 1 - rep.PipelineMedian/rep.RawMedian
	rep.Prepare = time.Duration(stats.Median(prep))
	if rep.QueryP50, rep.QueryP95, err = benchQueries(ctx, e); err != nil {
		return rep, err
	}
	fmt.Fprintf(w, "  query embedding: p50 %v, p95 %v\n", rep.QueryP50.Round(time.Microsecond), rep.QueryP95.Round(time.Microsecond))
	fmt.Fprintf(w, "  tokenizing and windowing %d chunks: %v (%.2f%% of the raw decode time at the median CPU rate)\n",
		len(ps), rep.Prepare.Round(time.Microsecond), 100*rep.Prepare.Seconds()*rep.RawCPU/n)
	fmt.Fprintf(w, "  median: pipeline %.2f chunks/s (%.0f tokens/s), raw %.2f chunks/s, pipeline overhead %.1f%%; per CPU-second: pipeline %.2f, raw %.2f (overhead %.1f%%)\n",
		rep.PipelineMedian, rep.PipelineMedian*float64(opt.ChunkTokens), rep.RawMedian, 100*rep.Overhead,
		rep.PipelineCPU, rep.RawCPU, 100*(1-rep.PipelineCPU/max(rep.RawCPU, 1e-9)))
	return rep, nil
}

// benchQueries times EmbedQuery on short questions like the ones typed
// into the window, each embedded on its own as a search does.
func benchQueries(ctx context.Context, e *llm.Embedder) (p50, p95 time.Duration, err error) {
	qs := []string{
		"how do I reset the device",
		"copy files and directories",
		"what is the maximum dose for children",
		"which port does the server listen on",
		"show the kernel ring buffer",
	}
	var ds []float64
	for range 20 {
		for _, q := range qs {
			t := time.Now()
			if _, err := e.EmbedQuery(ctx, q); err != nil {
				return 0, 0, fmt.Errorf("embed query %q: %w", q, err)
			}
			ds = append(ds, float64(time.Since(t)))
		}
	}
	slices.Sort(ds)
	return time.Duration(stats.Median(ds)), time.Duration(ds[len(ds)*95/100]), nil
}

// benchPassages builds n passages of exactly tokens tokens each (when the
// vocabulary allows) from testmodel.Text.
func benchPassages(e *llm.Embedder, n, tokens int) ([]llm.Passage, error) {
	ps := make([]llm.Passage, n)
	for i := range ps {
		// Find the most words whose tokenization fits, by bisection.
		lo, hi := 1, tokens
		for lo < hi {
			mid := (lo + hi + 1) / 2
			toks, err := e.Tokenize(testmodel.Text(mid, uint64(i)))
			if err != nil {
				return nil, err
			}
			if len(toks) <= tokens {
				lo = mid
			} else {
				hi = mid - 1
			}
		}
		ps[i] = llm.Passage{Text: testmodel.Text(lo, uint64(i))}
	}
	return ps, nil
}

// GenerateBenchOptions configures BenchGenerate. Zero values pick the
// defaults noted.
type GenerateBenchOptions struct {
	// ModelPath is the GGUF to measure; empty writes a random-weight model
	// of Qwen2.5-0.5B-Instruct's shape (testmodel.Qwen25_05B, about 1 GB in
	// F16) to a temporary directory and removes it afterwards.
	ModelPath string
	// Weights is the weight type of the generated model; the zero value
	// (F32) means F16.
	Weights testmodel.WeightType
	// PromptWords sizes the user message (default 400 words, about 500
	// tokens: a question with a few sources).
	PromptWords int
	// MaxTokens is the answer length (default 64).
	MaxTokens int
	// Runs is the number of timed generations (default 3).
	Runs int
	// Generator configures the generator under test.
	Generator llm.GeneratorOptions
}

// GenerateBenchReport holds BenchGenerate's measurements.
type GenerateBenchReport struct {
	Model           string
	Device          llm.Device
	PromptTokens    int
	GeneratedTokens int
	Runs            []llm.Stats
	// Medians over the runs.
	TimeToFirstToken          time.Duration
	PromptTokensPerSecond     float64
	GenerationTokensPerSecond float64
}

// BenchGenerate measures time to first token, prompt processing and
// generation speed of greedy generation, and writes a summary to w.
func BenchGenerate(ctx context.Context, w io.Writer, opt GenerateBenchOptions) (GenerateBenchReport, error) {
	opt.PromptWords = cmpOr(opt.PromptWords, 400)
	opt.MaxTokens = cmpOr(opt.MaxTokens, 64)
	opt.Runs = cmpOr(opt.Runs, 3)
	path, cleanup, err := benchModel(opt.ModelPath, withWeights(testmodel.Qwen25_05B(), opt.Weights, testmodel.F16))
	if err != nil {
		return GenerateBenchReport{}, err
	}
	defer cleanup()
	g, err := llm.LoadGenerator(path, opt.Generator)
	if err != nil {
		return GenerateBenchReport{}, err
	}
	defer g.Close()
	rep := GenerateBenchReport{Model: filepath.Base(path), Device: g.Device()}
	if n := g.Metadata().Name; n != "" {
		rep.Model = n
	}
	fmt.Fprintf(w, "generation: %s, context %d\n", rep.Model, g.ContextSize())
	var ttft []time.Duration
	var pp, tg []float64
	for run := -1; run < opt.Runs; run++ { // run -1 warms up
		msgs := []llm.Message{
			{Role: "system", Content: "Answer the question from the numbered sources and cite them."},
			{Role: "user", Content: testmodel.Text(opt.PromptWords, uint64(100+run))},
		}
		cpu0 := llm.ProcessCPUTime()
		ch, err := g.Generate(ctx, llm.GenerateRequest{Messages: msgs, MaxTokens: opt.MaxTokens})
		if err != nil {
			return rep, err
		}
		var st *llm.Stats
		for tok := range ch {
			if tok.Done {
				if tok.Err != nil {
					return rep, tok.Err
				}
				st = tok.Stats
			}
		}
		cpu := llm.ProcessCPUTime() - cpu0
		if run < 0 {
			continue
		}
		rep.Runs = append(rep.Runs, *st)
		rep.PromptTokens, rep.GeneratedTokens = st.PromptTokens, st.GeneratedTokens
		ttft = append(ttft, st.TimeToFirstToken)
		pp = append(pp, st.PromptTokensPerSecond)
		tg = append(tg, st.GenerationTokensPerSecond)
		fmt.Fprintf(w, "  run %d: %d prompt tokens, %d generated (%s); first token %v, prompt %.1f tokens/s, generation %.1f tokens/s; process CPU %v for %v wall\n",
			run+1, st.PromptTokens, st.GeneratedTokens, st.StopReason, st.TimeToFirstToken.Round(time.Millisecond),
			st.PromptTokensPerSecond, st.GenerationTokensPerSecond, cpu.Round(time.Millisecond),
			(st.TimeToFirstToken + st.GenerationDuration).Round(time.Millisecond))
	}
	slices.Sort(ttft)
	rep.TimeToFirstToken = ttft[len(ttft)/2]
	rep.PromptTokensPerSecond, rep.GenerationTokensPerSecond = stats.Median(pp), stats.Median(tg)
	fmt.Fprintf(w, "  median: first token %v, prompt %.1f tokens/s, generation %.1f tokens/s\n",
		rep.TimeToFirstToken.Round(time.Millisecond), rep.PromptTokensPerSecond, rep.GenerationTokensPerSecond)
	return rep, nil
}

func withWeights(s testmodel.Spec, w, def testmodel.WeightType) testmodel.Spec {
	s.Weights = def
	if w != 0 {
		s.Weights = w
	}
	return s
}

// benchModel returns path, or writes spec to a temporary file when path is
// empty; cleanup removes what it wrote.
func benchModel(path string, spec testmodel.Spec) (string, func(), error) {
	if path != "" {
		return path, func() {}, nil
	}
	dir, err := os.MkdirTemp("", "cairn-bench-")
	if err != nil {
		return "", nil, err
	}
	name := strings.ReplaceAll(spec.Name, " ", "-") + "-" + spec.Weights.String() + ".gguf"
	p := filepath.Join(dir, name)
	if err := testmodel.Write(p, spec); err != nil {
		os.RemoveAll(dir)
		return "", nil, err
	}
	return p, func() { os.RemoveAll(dir) }, nil
}

// perCPU is n divided by the process CPU time spent since start.
func perCPU(n float64, start time.Duration) float64 {
	d := llm.ProcessCPUTime() - start
	if d <= 0 {
		return 0
	}
	return n / d.Seconds()
}

func cmpOr(v, def int) int {
	if v > 0 {
		return v
	}
	return def
}

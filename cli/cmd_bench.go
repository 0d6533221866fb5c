package cli

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"cairn/bench"
	"cairn/core/chunk"
	"cairn/core/llm"
	"cairn/core/llm/testmodel"
	"cairn/core/search"
	"cairn/core/stats"
)

// benchSuites are the suites `cairn bench` knows, in the order "all" runs
// them: the quick ones first, the load suite (10 minutes by default) and
// the window last. team is skipped where no weaviate-server is. The
// product has those that are not devSuites; the developer command (RunDev)
// has all.
var benchSuites = []string{"index", "extract", "hostile", "embed", "generate", "rerank", "ask", "quality", "vector", "load", "serve", "team", "paint", "gui"}

// benchFlags are the options of `cairn bench`; each suite reads the ones
// it needs.
type benchFlags struct {
	dir       string
	runs      int // 0: the suite's own default
	limit     int
	sizes     string
	queries   int
	dim       int
	threads   int
	devices   string // embed, generate and rerank: llm.device settings, comma-separated
	duration  time.Duration
	idle      time.Duration
	searchers int
	chunkSize int
	part      string // extract suite: one part only
	sets      string // quality suite: question sets to ask instead of the suite
	fit       bool   // quality suite with sets: search the block weights too
	scale     int    // quality suite with sets: man pages to add for asking each set again at scale
	// serve suite
	clients       int
	chunks        int
	serveDuration time.Duration
	teamChunks    int                  // team suite: --chunks, 100,000 unless given
	store         string               // quality suite: sqlite or weaviate
	weights       testmodel.WeightType // embed, generate and ask: the generated models' weight type
	tokenizer     string               // ask suite: tokenizer.json of the chat model's vocabulary ("": the default place, if there)
	only          string               // hostile suite: the cases to run (comma-separated parts of their names)
}

func runBench(ctx context.Context, env *cliEnv, args []string) error {
	if len(args) > 0 && args[0] == "gpu" {
		return runBenchGPU(ctx, env, args[1:]) // the GPU kit, with flags of its own
	}
	var bf benchFlags
	fs := flag.NewFlagSet("bench", flag.ContinueOnError)
	fs.StringVar(&bf.dir, "dir", "testdata/bench", "folder for corpora, scratch databases and results")
	fs.IntVar(&bf.runs, "runs", 0, "repetitions; medians are reported (default 3; embed 5, paint 7)")
	fs.IntVar(&bf.limit, "limit", 0, "use at most this many man pages (0: all)")
	fs.StringVar(&bf.sizes, "sizes", "10000,100000,1000000", "vector suite: chunk counts to measure at")
	fs.IntVar(&bf.queries, "queries", 100, "vector suite: queries per size; team suite: hybrid queries per run")
	fs.IntVar(&bf.dim, "dim", 384, "vector and team suites: vector dimension")
	fs.IntVar(&bf.threads, "threads", 0, "embed, generate, rerank and vector suites: llama.cpp threads (0: Cairn's default)")
	fs.StringVar(&bf.devices, "device", "cpu", "embed, generate and rerank suites: where llama.cpp runs (llm.device: cpu, auto or a GPU's name); several, comma-separated (cpu,auto), measure each in turn and compare")
	fs.DurationVar(&bf.duration, "duration", 10*time.Minute, "load suite: how long the searchers run while indexing")
	fs.DurationVar(&bf.idle, "idle", time.Minute, "load suite: how long the searchers run with no indexing, for comparison")
	fs.IntVar(&bf.searchers, "searchers", 8, "load suite: concurrent searchers")
	fs.IntVar(&bf.chunkSize, "chunk-size", benchChunkSize, "index, load and serve suites: characters per chunk")
	fs.IntVar(&bf.clients, "clients", 16, "serve suite: concurrent clients")
	fs.IntVar(&bf.chunks, "chunks", 100000, "serve suite: chunks of the man-page knowledge base (at least; pages are linked again past the corpus's end); team suite: chunks in each store")
	weights := fs.String("weights", "F16", "embed, generate, rerank and ask suites: weight type of the generated models (F16 or Q8_0)")
	fs.StringVar(&bf.sets, "set", "", "quality suite: ask the question sets in these folders (comma-separated, e.g. testdata/quality/dev3) instead of the whole suite")
	fs.IntVar(&bf.scale, "scale", 0, "quality suite with --set: ask each set again with this many unrelated man pages of the file set added (8000 make about 45,000 chunks); 0: not")
	fs.BoolVar(&bf.fit, "fit", false, "quality suite with --set: search the extractive answer's block weights on the sets' questions and report how far keyword evidence goes")
	fs.StringVar(&bf.part, "part", "", "extract suite: run one part only (pdf, formats, reference, hostile or ocr); quality suite: answers (the answers and the question-reading sets, without pages and files)")
	fs.StringVar(&bf.store, "store", "sqlite", "quality suite: the store of its knowledge bases, sqlite or weaviate (one node on 127.0.0.1 from CAIRN_WEAVIATE_BIN or bin/weaviate-server)")
	fs.StringVar(&bf.tokenizer, "tokenizer", "", "ask suite: give the generated Qwen2.5-shaped model the vocabulary of this Hugging Face tokenizer.json, so prompt token counts are Qwen's (default: DIR/tokenizers/qwen2.5/tokenizer.json where `make bench-tokenizers` puts it, if there; \"generated\": the test model's own vocabulary)")
	fs.StringVar(&bf.only, "only", "", "hostile suite: run only the cases whose name contains one of these comma-separated words (e.g. pdf,xlsx)")
	childDB := fs.String("db", "", "vector-child: knowledge base (internal)")
	if env.devSuite == nil {
		fs = withoutFlags(fs, devBenchFlags)
	}
	pos, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	// The serve suite runs 20 s a phase (four phases) unless --duration says otherwise
	// (the load suite's default is ten minutes).
	bf.serveDuration = 20 * time.Second
	bf.teamChunks = 100_000
	fs.Visit(func(f *flag.Flag) {
		switch f.Name {
		case "duration":
			bf.serveDuration = bf.duration
		case "chunks":
			bf.teamChunks = bf.chunks
		}
	})
	if bf.clients < 1 || bf.chunks < 1 {
		return usageError{"--clients and --chunks must be at least 1"}
	}
	switch strings.ToUpper(*weights) {
	case "F16":
		bf.weights = testmodel.F16
	case "Q8_0":
		bf.weights = testmodel.Q8_0
	default:
		return usageError{fmt.Sprintf("--weights %q: use F16 or Q8_0", *weights)}
	}
	suites := pos
	if len(suites) == 1 && suites[0] == "vector-child" && env.devSuite != nil {
		return bench.VectorChild(ctx, *childDB, bf.dim)
	}
	if len(suites) == 2 && suites[0] == "extract-child" {
		return bench.ExtractChild(ctx, env.stdout, suites[1])
	}
	have := benchSuites
	if env.devSuite == nil {
		have = slices.DeleteFunc(slices.Clone(benchSuites), func(s string) bool { return slices.Contains(devSuites, s) })
	}
	if len(suites) == 0 || (len(suites) == 1 && suites[0] == "all") {
		suites = have
	}
	for _, s := range suites {
		if slices.Contains(devSuites, s) && env.devSuite == nil {
			return usageError{fmt.Sprintf("%s is a developer's suite: run it from a clone of the repository, `go run ./bench/cmd/cairn-dev bench %s` (docs/development.md)", s, s)}
		}
		if !slices.Contains(have, s) {
			return usageError{fmt.Sprintf("unknown bench suite %q (have: %s, all; and gpu first: `cairn bench gpu`)", s, strings.Join(have, ", "))}
		}
	}
	bin, err := os.Executable()
	if err != nil {
		return err
	}
	work := filepath.Join(bf.dir, "work")
	if err := os.MkdirAll(work, 0o755); err != nil {
		return err
	}
	out := filepath.Join(bf.dir, "results.json")
	results := readResults(out)
	for _, s := range suites {
		m := bench.DescribeMachine()
		fmt.Fprintf(env.stdout, "\n# cairn bench %s\nMachine: %s\n", s, m)
		t := time.Now()
		var r any
		switch s {
		case "index":
			r, err = benchIndex(ctx, env, bin, bf.dir, work, runsOr(bf.runs, 3), bf.limit, bf.chunkSize)
		case "extract":
			r, err = benchExtract(ctx, env, bin, work, runsOr(bf.runs, 3), bf.part)
		case "embed", "generate":
			r, err = benchOnDevices(ctx, env, s, bf)
		case "serve":
			r, err = benchServe(ctx, env, bf, work)
		case "gui":
			r, err = benchGUI(ctx, env, bf.dir)
		default: // devSuites
			r, err = env.devSuite(ctx, env, s, bf, bin, work)
		}
		if err != nil {
			return fmt.Errorf("bench %s: %w", s, err)
		}
		m.LoadEnd = bench.LoadAverage()
		fmt.Fprintf(env.stdout, "\n(%s: %s; load average %.1f at start, %.1f at end)\n", s, time.Since(t).Round(time.Second), m.Load1, m.LoadEnd)
		// Suites run separately accumulate in one file; each keeps the
		// machine and time it was measured with.
		key := s
		if s == "quality" && bf.store != "sqlite" {
			key = "quality-" + bf.store // beside the SQLite figures, not over them
		}
		results[key] = map[string]any{"machine": m, "seconds": time.Since(t).Seconds(), "figures": r}
		b, _ := json.MarshalIndent(results, "", "  ")
		if err := os.WriteFile(out, b, 0o644); err != nil {
			return err
		}
	}
	fmt.Fprintf(env.stdout, "\nFull results: %s\n", out)
	return nil
}

// readResults returns the suites' results saved by earlier runs, if any.
func readResults(path string) map[string]any {
	results := map[string]any{}
	if b, err := os.ReadFile(path); err == nil {
		json.Unmarshal(b, &results) // a damaged file is replaced
	}
	return results
}

func runsOr(runs, def int) int {
	if runs > 0 {
		return runs
	}
	return def
}

// benchChunkSize is the chunk size of the index and load suites: 1000
// characters (Cairn's default is 1200) turn the ~18,000 man pages into the
// ~100K chunks the indexing targets are specified at, as in the gui suite.
const benchChunkSize = 1000

func benchIndex(ctx context.Context, env *cliEnv, bin, dir, work string, runs, limit, chunkSize int) (map[string]any, error) {
	log := env.stderr
	mc, err := bench.BuildManCorpus(ctx, "/usr/share/man", filepath.Join(dir, corpusName(limit)), limit, log)
	if err != nil {
		return nil, err
	}
	cp := chunk.DefaultParams()
	cp.Size = chunkSize
	ir, err := bench.IndexBench(ctx, bench.IndexOptions{Corpus: mc.Dir, Work: work, Runs: runs, Queries: mc.Queries, Binary: bin, Chunk: cp}, log)
	if err != nil {
		return nil, err
	}
	qr, err := bench.QualityBench(ctx, bench.QualityOptions{Binary: bin, DB: ir.DBPath, Corpus: mc, Work: work}, log)
	if err != nil {
		return nil, err
	}
	w := env.stdout
	fmt.Fprintf(w, "\n## Indexing (BM25 only): %d man pages, %d chunks of %d characters, %.0f MB of text\n", ir.Files, ir.Chunks, chunkSize, ir.MB)
	fmt.Fprintf(w, "GOMAXPROCS=%d; medians of %d runs\n\n", ir.GOMAXPROCS, runs)
	fmt.Fprintln(w, "| measure | Cairn | bare FTS5 loop | ratio |")
	fmt.Fprintln(w, "|---|---|---|---|")
	fmt.Fprintf(w, "| chunks/s | %.0f | %.0f | %.0f%% |\n", ir.CairnChunksPerSec, ir.BaselineChunksPerS, 100*ir.RatioMedian)
	fmt.Fprintf(w, "| MB/s | %.2f | %.2f | |\n", ir.CairnMBPerSec, ir.BaselineMBPerSec)
	fmt.Fprintf(w, "| chunks per CPU-second | %.0f | %.0f | %.0f%% |\n", float64(ir.Chunks)/stats.Median(ir.CairnCPUSeconds),
		float64(ir.Chunks)/stats.Median(ir.BaselineCPUSeconds), 100*ir.CPURatioMedian)
	fmt.Fprintf(w, "\n- Re-index of the unchanged corpus (%d files): %.3f s\n", ir.Files, ir.ReindexMedian)
	fmt.Fprintf(w, "- BM25 query latency at %d chunks (%d queries, one at a time): %s\n", ir.Chunks, ir.QueryLatency.N, ir.QueryLatency)
	fmt.Fprintf(w, "- CPU time per query (what an idle machine would see): %s\n", ir.QueryCPU)
	fmt.Fprintf(w, "- The same queries through FTS5 alone (the baseline): %s; p95 ratio %.1fx\n", ir.FTS5Latency,
		float64(ir.FTS5Latency.P95)/float64(max(ir.QueryLatency.P95, 1)))
	fmt.Fprintf(w, "- Keyword index: built in %.2f s, %.0f MB\n", ir.KeywordBuildSecs, ir.KeywordMB)
	fmt.Fprintf(w, "- Peak RSS of `cairn index` over the corpus: %.0f MB; database %.0f MB\n", ir.PeakRSSMB, ir.DBMB)
	fmt.Fprintf(w, "\n## Known-item retrieval (%d queries: NAME descriptions, NAME removed from the text)\n\n", qr.Cairn.Queries)
	fmt.Fprintln(w, "| run | MRR@10 | Recall@10 | nDCG@10 |")
	fmt.Fprintln(w, "|---|---|---|---|")
	fmt.Fprintf(w, "| cairn search --batch (chunked BM25, best chunk per file) | %.3f | %.3f | %.3f |\n", qr.Cairn.MRR, qr.Cairn.Recall, qr.Cairn.NDCG)
	fmt.Fprintf(w, "| plain FTS5 BM25 over whole pages | %.3f | %.3f | %.3f |\n", qr.Baseline.MRR, qr.Baseline.Recall, qr.Baseline.NDCG)
	removeKB(ir.DBPath)
	return map[string]any{"index": ir, "quality": qr}, nil
}

func removeKB(path string) {
	for _, s := range []string{"", "-wal", "-shm", ".lock"} {
		os.Remove(path + s)
	}
}

func benchVector(ctx context.Context, env *cliEnv, bin, dir, work string, limit int, sizesFlag string, queries, dim, threads int) (any, error) {
	var sizes []int
	for _, s := range search.SplitList(sizesFlag) {
		n, err := strconv.Atoi(s)
		if err != nil || n <= 0 {
			return nil, usageError{fmt.Sprintf("--sizes: %q is not a positive number", s)}
		}
		sizes = append(sizes, n)
	}
	mc, err := bench.BuildManCorpus(ctx, "/usr/share/man", filepath.Join(dir, corpusName(limit)), limit, env.stderr)
	if err != nil {
		return nil, err
	}
	// The query is embedded by a real model of all-MiniLM-L6-v2's shape, so
	// the hybrid figures include that step; the stored and query vectors
	// themselves are synthetic (a random-weight model's are meaningless).
	model, err := benchModelFile(dir, testmodel.MiniLML6(), "minilm-l6-shape-f16.gguf", env.stderr)
	if err != nil {
		return nil, err
	}
	emb, err := llm.LoadEmbedder(model, llm.EmbedderOptions{Threads: threads})
	if err != nil {
		return nil, err
	}
	defer emb.Close()
	embedQuery := func(ctx context.Context, text string) error {
		_, err := emb.EmbedQuery(ctx, text)
		return err
	}
	rs, err := bench.VectorBench(ctx, bench.VectorOptions{Sizes: sizes, Dim: dim, Corpus: mc.Dir, Work: work,
		Queries: queries, Binary: bin, EmbedQuery: embedQuery}, env.stderr)
	if err != nil {
		return nil, err
	}
	w := env.stdout
	fmt.Fprintf(w, "\n## Vector and hybrid search: %d-d synthetic clustered vectors, man-page chunk texts\n\n", dim)
	fmt.Fprintf(w, "Hybrid = embedding the query (%s shape, random weights) + BM25 and KNN in parallel + fusion.\n\n", testmodel.MiniLML6().Name)
	fmt.Fprintln(w, "| chunks | recall@10 fast vs exact | fast KNN p50/p95 | exact sqlite-vec p50 | hybrid p50/p95 | its query embedding p50/p95 | its BM25 half p50/p95 | its KNN half p50/p95 | index load | index RAM | keyword index load | keyword index RAM | disk | of which vectors | search RSS |")
	fmt.Fprintln(w, "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|")
	for _, r := range rs {
		fmt.Fprintf(w, "| %d | %.3f | %s / %s ms | %s ms | %s / %s ms | %s / %s ms | %s / %s ms | %s / %s ms | %s | %.0f MB | %s | %.0f MB | %.0f MB | %.0f MB | %.0f MB |\n",
			r.Chunks, r.Recall10, ms(r.FastKNN.P50), ms(r.FastKNN.P95), ms(r.ExactKNN.P50), ms(r.Hybrid.P50), ms(r.Hybrid.P95),
			ms(r.Embed.P50), ms(r.Embed.P95), ms(r.HybridBM25.P50), ms(r.HybridBM25.P95), ms(r.HybridKNN.P50), ms(r.HybridKNN.P95),
			r.IndexLoad.Round(time.Millisecond), r.IndexMB, r.KeywordLoad.Round(time.Millisecond), r.KeywordMB, r.DBMB, r.VectorMB, r.PeakSearchRSS)
	}
	return rs, nil
}

func corpusName(limit int) string {
	if limit > 0 {
		return fmt.Sprintf("manpages-%d", limit)
	}
	return "manpages"
}

func ms(d time.Duration) string {
	return strconv.FormatFloat(float64(d.Microseconds())/1000, 'f', 1, 64)
}

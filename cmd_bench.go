package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"cairn/core/bench"
)

// benchSuites are the suites `cairn bench` knows, in the order "all" runs them.
var benchSuites = []string{"index", "vector", "gui", "ask"}

func runBench(ctx context.Context, env *cliEnv, args []string) error {
	fs := flag.NewFlagSet("bench", flag.ContinueOnError)
	dir := fs.String("dir", "testdata/bench", "folder for corpora, scratch databases and results")
	runs := fs.Int("runs", 3, "repetitions; medians are reported")
	limit := fs.Int("limit", 0, "use at most this many man pages (0: all)")
	sizes := fs.String("sizes", "10000,100000,1000000", "vector suite: chunk counts to measure at")
	queries := fs.Int("queries", 100, "vector suite: queries per size")
	childDB := fs.String("db", "", "vector-child: knowledge base (internal)")
	dim := fs.Int("dim", 384, "vector suite: dimension")
	pos, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	suites := pos
	if len(suites) == 1 && suites[0] == "vector-child" {
		return bench.VectorChild(ctx, *childDB, *dim)
	}
	if len(suites) == 0 || (len(suites) == 1 && suites[0] == "all") {
		suites = benchSuites
	}
	bin, err := os.Executable()
	if err != nil {
		return err
	}
	work := filepath.Join(*dir, "work")
	if err := os.MkdirAll(work, 0o755); err != nil {
		return err
	}
	results := map[string]any{}
	for _, s := range suites {
		switch s {
		case "index":
			r, err := benchIndex(ctx, env, bin, *dir, work, *runs, *limit)
			if err != nil {
				return fmt.Errorf("bench index: %w", err)
			}
			results["index"] = r
		case "vector":
			r, err := benchVector(ctx, env, bin, *dir, work, *limit, *sizes, *queries, *dim)
			if err != nil {
				return fmt.Errorf("bench vector: %w", err)
			}
			results["vector"] = r
		case "ask":
			r, err := benchAsk(ctx, env, *dir, work, *runs, *limit)
			if err != nil {
				return fmt.Errorf("bench ask: %w", err)
			}
			results["ask"] = r
		case "gui":
			r, err := benchGUI(ctx, env, *dir)
			if err != nil {
				return fmt.Errorf("bench gui: %w", err)
			}
			results["gui"] = r
		default:
			return usageError{fmt.Sprintf("unknown bench suite %q (have: %s)", s, strings.Join(benchSuites, ", "))}
		}
	}
	out := filepath.Join(*dir, "results.json")
	b, _ := json.MarshalIndent(results, "", "  ")
	if err := os.WriteFile(out, b, 0o644); err != nil {
		return err
	}
	fmt.Fprintf(env.stdout, "\nFull results: %s\n", out)
	return nil
}

func benchIndex(ctx context.Context, env *cliEnv, bin, dir, work string, runs, limit int) (map[string]any, error) {
	log := env.stderr
	mc, err := bench.BuildManCorpus(ctx, "/usr/share/man", filepath.Join(dir, corpusName(limit)), limit, log)
	if err != nil {
		return nil, err
	}
	ir, err := bench.IndexBench(ctx, bench.IndexOptions{Corpus: mc.Dir, Work: work, Runs: runs, Queries: mc.Queries, Binary: bin}, log)
	if err != nil {
		return nil, err
	}
	qr, err := bench.QualityBench(ctx, bench.QualityOptions{Binary: bin, DB: ir.DBPath, Corpus: mc, Work: work}, log)
	if err != nil {
		return nil, err
	}
	w := env.stdout
	fmt.Fprintf(w, "\n## Indexing (BM25 only): %d man pages, %d chunks, %.0f MB of text\n", ir.Files, ir.Chunks, ir.MB)
	fmt.Fprintf(w, "Machine: %s, GOMAXPROCS=%d; medians of %d runs\n\n", ir.CPU, ir.GOMAXPROCS, runs)
	fmt.Fprintln(w, "| measure | Cairn | bare FTS5 loop | ratio |")
	fmt.Fprintln(w, "|---|---|---|---|")
	fmt.Fprintf(w, "| chunks/s | %.0f | %.0f | %.0f%% |\n", ir.CairnChunksPerSec, ir.BaselineChunksPerS, 100*ir.RatioMedian)
	fmt.Fprintf(w, "| MB/s | %.2f | %.2f | |\n", ir.CairnMBPerSec, ir.BaselineMBPerSec)
	fmt.Fprintf(w, "\n- Re-index of the unchanged corpus (%d files): %.3f s\n", ir.Files, ir.ReindexMedian)
	fmt.Fprintf(w, "- BM25 query latency at %d chunks: %s\n", ir.Chunks, ir.QueryLatency)
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

func benchVector(ctx context.Context, env *cliEnv, bin, dir, work string, limit int, sizesFlag string, queries, dim int) (any, error) {
	var sizes []int
	for _, s := range splitList(sizesFlag) {
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
	rs, err := bench.VectorBench(ctx, bench.VectorOptions{Sizes: sizes, Dim: dim, Corpus: mc.Dir, Work: work,
		Queries: queries, Binary: bin}, env.stderr)
	if err != nil {
		return nil, err
	}
	w := env.stdout
	fmt.Fprintf(w, "\n## Vector and hybrid search: %d-d synthetic clustered vectors, man-page chunk texts\n\n", dim)
	fmt.Fprintln(w, "| chunks | recall@10 fast vs exact | fast KNN p50/p95 | exact sqlite-vec p50 | hybrid p50/p95 | index load | index RAM | disk | of which vectors | search RSS |")
	fmt.Fprintln(w, "|---|---|---|---|---|---|---|---|---|---|")
	for _, r := range rs {
		fmt.Fprintf(w, "| %d | %.3f | %s / %s ms | %s ms | %s / %s ms | %s | %.0f MB | %.0f MB | %.0f MB | %.0f MB |\n",
			r.Chunks, r.Recall10, ms(r.FastKNN.P50), ms(r.FastKNN.P95), ms(r.ExactKNN.P50), ms(r.Hybrid.P50), ms(r.Hybrid.P95),
			r.IndexLoad.Round(time.Millisecond), r.IndexMB, r.DBMB, r.VectorMB, r.PeakSearchRSS)
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

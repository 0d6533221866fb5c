package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"cairn/core/bench"
)

// benchSuites are the suites `cairn bench` knows, in the order "all" runs them.
var benchSuites = []string{"index"}

func runBench(ctx context.Context, env *cliEnv, args []string) error {
	fs := flag.NewFlagSet("bench", flag.ContinueOnError)
	dir := fs.String("dir", "testdata/bench", "folder for corpora, scratch databases and results")
	runs := fs.Int("runs", 3, "repetitions; medians are reported")
	limit := fs.Int("limit", 0, "use at most this many man pages (0: all)")
	pos, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	suites := pos
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
	name := "manpages"
	if limit > 0 {
		name = fmt.Sprintf("manpages-%d", limit)
	}
	mc, err := bench.BuildManCorpus(ctx, "/usr/share/man", filepath.Join(dir, name), limit, log)
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

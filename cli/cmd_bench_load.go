package cli

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"

	"cairn/bench"
)

// benchLoad measures search latency while the man-page corpus is indexed
// (see bench.LoadBench) next to the idle figure of the same run.
func benchLoad(ctx context.Context, env *cliEnv, bf benchFlags, work string) (bench.LoadReport, error) {
	mc, err := bench.BuildManCorpus(ctx, "/usr/share/man", filepath.Join(bf.dir, corpusName(bf.limit)), bf.limit, env.stderr)
	if err != nil {
		return bench.LoadReport{}, err
	}
	rep, err := bench.LoadBench(ctx, bench.LoadOptions{Corpus: mc, Work: work, Duration: bf.duration, Idle: bf.idle,
		Searchers: bf.searchers, ChunkSize: bf.chunkSize}, env.stderr)
	if err != nil {
		return rep, err
	}
	w := env.stdout
	fmt.Fprintf(w, "\n## Search while indexing: %d searchers, %d man pages (%d chunks) already indexed, a second copy indexed from scratch over and over\n\n",
		rep.Searchers, rep.Files, rep.Chunks)
	fmt.Fprintln(w, "| phase | time | searches | searches/s | p50 | p95 | p99 | max | known item in results |")
	fmt.Fprintln(w, "|---|---|---|---|---|---|---|---|---|")
	fmt.Fprintf(w, "| idle (no indexing) | %.0f s | %d | %.1f | %s | %s | %s | %s | %.1f%% |\n", rep.IdleSeconds, rep.IdleQueries, rep.IdleQPS,
		msUnit(rep.Idle.P50), msUnit(rep.Idle.P95), msUnit(rep.Idle.P99), msUnit(rep.Idle.Max), 100*rep.IdleFound)
	fmt.Fprintf(w, "| while indexing | %.0f s | %d | %.1f | %s | %s | %s | %s | %.1f%% |\n", rep.LoadedSeconds, rep.LoadedQueries, rep.LoadedQPS,
		msUnit(rep.Loaded.P50), msUnit(rep.Loaded.P95), msUnit(rep.Loaded.P99), msUnit(rep.Loaded.Max), 100*rep.LoadedFound)
	fmt.Fprintf(w, "\n- Errors: %d search, %d indexing (must be 0)", rep.SearchErrors, rep.IndexErrors)
	if len(rep.Errors) > 0 {
		fmt.Fprintf(w, ": %s", strings.Join(rep.Errors, "; "))
	}
	fmt.Fprintf(w, "\n- Searches with no result: %d idle, %d while indexing", rep.IdleEmpty, rep.LoadedEmpty)
	if len(rep.EmptyQueries) > 0 {
		fmt.Fprintf(w, " (for example %q)", rep.EmptyQueries)
	}
	fmt.Fprintf(w, "\n- Largest write-ahead log while indexing: %.0f MB\n", rep.MaxWALMB)
	fmt.Fprintf(w, "- Indexing under load: %d full runs of %d chunks completed (the last, unfinished run was cancelled), %.0f chunks/s; with nobody searching %.0f chunks/s\n",
		rep.IndexRuns, rep.Chunks, rep.LoadedIndexCPS, rep.BaseIndexCPS)
	if len(rep.Problems) == 0 {
		fmt.Fprintln(w, "- Knowledge base check afterwards (integrity, FTS5 against chunks): healthy")
	} else {
		fmt.Fprintf(w, "- Knowledge base check afterwards: %s\n", strings.Join(rep.Problems, "; "))
	}
	return rep, nil
}

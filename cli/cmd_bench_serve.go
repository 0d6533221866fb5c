package cli

import (
	"context"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"time"

	"cairn/bench"
	"cairn/core/stats"
)

// benchServe measures the local service under load (see bench.ServeBench)
// on a knowledge base of man pages, next to the same searches in process.
func benchServe(ctx context.Context, env *cliEnv, bf benchFlags, work string) (bench.ServeReport, error) {
	mc, err := bench.BuildManCorpus(ctx, "/usr/share/man", filepath.Join(bf.dir, corpusName(bf.limit)), bf.limit, env.stderr)
	if err != nil {
		return bench.ServeReport{}, err
	}
	rep, err := bench.ServeBench(ctx, bench.ServeOptions{Corpus: mc, Work: work, Chunks: bf.chunks, Clients: bf.clients,
		Duration: bf.serveDuration, ChunkSize: bf.chunkSize, Version: Version}, env.stderr)
	if err != nil {
		return rep, err
	}
	printServeReport(env.stdout, rep)
	return rep, nil
}

func printServeReport(w io.Writer, rep bench.ServeReport) {
	fmt.Fprintf(w, "\n## The local service under load: %d clients, %d man pages (%d chunks), BM25, %s per row\n\n",
		rep.Clients, rep.Files, rep.Chunks, time.Duration(rep.Seconds*float64(time.Second)))
	fmt.Fprintln(w, "| searches made | index run going on | searches | searches/s | errors | p50 | p95 | p99 | p50, p95 against in process | known item in results |")
	fmt.Fprintln(w, "|---|---|---|---|---|---|---|---|---|---|")
	a := rep.After.HTTP
	fmt.Fprintf(w, "| through HTTP, the first %.0f s after the knowledge base was built (keyword index in step after %.1f s) | just ended | %d | %.1f | %d | %s | %s | %s | %s | %.1f%% |\n",
		a.Seconds, rep.After.CatchUpSec, a.Searches, a.PerSec, a.Errors, msUnit(a.Latency.P50), msUnit(a.Latency.P95), msUnit(a.Latency.P99),
		ratio(a.Latency.P50, rep.Idle.HTTP.Latency.P50)+", "+ratio(a.Latency.P95, rep.Idle.HTTP.Latency.P95)+" against HTTP with nothing going on", 100*a.Found)
	for _, row := range []struct {
		how, indexing string
		p             bench.ServePhase
		base          *bench.ServePhase // the in-process row it is compared with
	}{
		{"in process (Engine.Search)", "no", rep.Idle.InProcess, nil},
		{"through HTTP (GET /api/search)", "no", rep.Idle.HTTP, &rep.Idle.InProcess},
		{"in process (Engine.Search)", "yes", rep.Indexing.InProcess, nil},
		{"through HTTP (GET /api/search)", "yes", rep.Indexing.HTTP, &rep.Indexing.InProcess},
	} {
		against := "–"
		if row.base != nil {
			against = ratio(row.p.Latency.P50, row.base.Latency.P50) + ", " + ratio(row.p.Latency.P95, row.base.Latency.P95)
		}
		fmt.Fprintf(w, "| %s | %s | %d | %.1f | %d | %s | %s | %s | %s | %.1f%% |\n", row.how, row.indexing,
			row.p.Searches, row.p.PerSec, row.p.Errors, msUnit(row.p.Latency.P50), msUnit(row.p.Latency.P95), msUnit(row.p.Latency.P99),
			against, 100*row.p.Found)
	}
	fmt.Fprintf(w, "\n- Knowledge base built in %.0f s (searches start when it is)\n", rep.BuildSec)
	fmt.Fprintf(w, "- Index runs through POST /api/index while indexing: %d completed of %d chunks each", rep.IndexRuns, rep.IndexChunks)
	if len(rep.IndexSec) > 0 {
		fmt.Fprintf(w, ", median %.0f s", stats.Median(rep.IndexSec))
	}
	fmt.Fprintln(w, " (the last, unfinished run was cancelled with DELETE /api/index)")
	fmt.Fprintf(w, "- Errors: %d search, %d indexing (must be 0)", rep.After.HTTP.Errors+rep.Idle.InProcess.Errors+rep.Idle.HTTP.Errors+
		rep.Indexing.InProcess.Errors+rep.Indexing.HTTP.Errors, rep.IndexErrors)
	if len(rep.Errors) > 0 {
		fmt.Fprintf(w, ": %s", strings.Join(rep.Errors, "; "))
	}
	fmt.Fprintln(w)
	if len(rep.Problems) == 0 {
		fmt.Fprintln(w, "- Knowledge base check afterwards (integrity, FTS5 against chunks): healthy")
	} else {
		fmt.Fprintf(w, "- Knowledge base check afterwards: %s\n", strings.Join(rep.Problems, "; "))
	}
}

// ratio is a/b as "1.90×", or "–" without b.
func ratio(a, b time.Duration) string {
	if b <= 0 {
		return "–"
	}
	return fmt.Sprintf("%.2f×", float64(a)/float64(b))
}

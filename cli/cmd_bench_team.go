package cli

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"cairn/bench"
	"cairn/core/teamstore/teamtest"
)

// benchTeam compares a three-node Weaviate cluster on 127.0.0.1 with the
// SQLite store on the same chunks (see bench.TeamBench). Without a
// weaviate-server binary it says how to get one and measures nothing.
func benchTeam(ctx context.Context, env *cliEnv, bf benchFlags, work string) (any, error) {
	bin, err := teamtest.Bin()
	if err != nil {
		if _, serr := os.Stat("bin/weaviate-server"); serr != nil {
			fmt.Fprintf(env.stdout, "\nSkipped: %v.\n", err)
			return map[string]string{"skipped": err.Error()}, nil
		}
		bin = "bin/weaviate-server"
	}
	mc, err := bench.BuildManCorpus(ctx, "/usr/share/man", filepath.Join(bf.dir, corpusName(bf.limit)), bf.limit, env.stderr)
	if err != nil {
		return nil, err
	}
	rep, err := bench.TeamBench(ctx, bench.TeamOptions{Bin: bin, Corpus: mc.Dir, Work: work, Chunks: bf.teamChunks,
		Queries: bf.queries, Runs: runsOr(bf.runs, 3), Dim: bf.dim}, env.stderr)
	if err != nil {
		return rep, err
	}
	w := env.stdout
	fmt.Fprintf(w, "\n## Team store: %d Weaviate nodes on 127.0.0.1 (replication factor %d, quorum writes and reads) against SQLite, %d chunks\n\n",
		rep.Nodes, rep.Replicas, rep.Chunks)
	fmt.Fprintf(w, "Man-page chunk texts cycled to %d chunks in %d documents; synthetic %d-d unit vectors (the vector suite's clustered generator). "+
		"Hybrid = BM25 (60) and nearest vectors (60) fused by Cairn's RRF, Cairn's searcher on both (the cluster's through teamsearch: "+
		"its counts, BM25F's list of 480 scored again as FTS5's); %d queries one at a time, medians of %d runs, "+
		"the SQLite and cluster runs taking turns.\n\n",
		rep.Chunks, rep.Documents, rep.Dim, rep.Queries, rep.Runs)
	fmt.Fprintln(w, "| measure | SQLite | cluster | cluster ÷ SQLite |")
	fmt.Fprintln(w, "|---|---|---|---|")
	fmt.Fprintf(w, "| indexing, chunks/s (cluster: %d writers) | %.0f | %.0f | %.2f |\n", rep.Writers, rep.SQLiteIndexCPS, rep.TeamIndexCPS, rep.IndexRatio)
	fmt.Fprintf(w, "| hybrid p50, ms | %s | %s | %.1f |\n", ms(rep.SQLite.P50), ms(rep.Team.P50), rep.P50Ratio)
	fmt.Fprintf(w, "| hybrid p95, ms | %s | %s | %.1f |\n", ms(rep.SQLite.P95), ms(rep.Team.P95), rep.P95Ratio)
	if rep.Killed != "" {
		fmt.Fprintf(w, "| hybrid p50, %s killed, ms | %s | %s | %.1f |\n", rep.Killed, ms(rep.SQLiteDown.P50), ms(rep.TeamDown.P50), rep.DownP50Ratio)
		fmt.Fprintf(w, "| hybrid p95, %s killed, ms | %s | %s | %.1f |\n", rep.Killed, ms(rep.SQLiteDown.P95), ms(rep.TeamDown.P95), rep.DownP95Ratio)
	}
	fmt.Fprintf(w, "\n| node | disk (du) | RSS | peak RSS (VmHWM) | with %s down: RSS | peak RSS |\n|---|---|---|---|---|---|\n", rep.Killed)
	fmt.Fprintf(w, "| SQLite (this process) | %.0f MB | | %.0f MB | | |\n", rep.SQLiteDiskMB, rep.SQLiteHWMMB)
	for i, n := range rep.NodesUp {
		down := "| killed | killed |"
		if i < len(rep.NodesDown) {
			down = fmt.Sprintf("| %.0f MB | %.0f MB |", rep.NodesDown[i].RSSMB, rep.NodesDown[i].HWMMB)
		}
		fmt.Fprintf(w, "| %s | %.0f MB | %.0f MB | %.0f MB %s\n", n.Name, n.DiskMB, n.RSSMB, n.HWMMB, down)
	}
	if len(rep.Collection) > 0 {
		fmt.Fprintf(w, "\nQuestions about the whole collection (the same files and passages on both, medians of %d runs):\n\n", rep.Runs)
		fmt.Fprintln(w, "| question | files | matching passages | SQLite | cluster | cluster ÷ SQLite |")
		fmt.Fprintln(w, "|---|---|---|---|---|---|")
		for _, c := range rep.Collection {
			fmt.Fprintf(w, "| %s | %d | %d | %.1f ms | %.1f ms | %.1f |\n", c.Question, c.Files, c.Passages, c.SQLiteMS, c.TeamMS, c.TeamMS/c.SQLiteMS)
		}
	}
	fmt.Fprintf(w, "\n- Indexing time: SQLite %.0f s (writes, then the in-memory vector and keyword indexes), cluster %.0f s; "+
		"1M chunks into the cluster at this rate: %.0f s (%.1f h)\n", rep.SQLiteIndexSec, rep.TeamIndexSec, rep.Estimate1MSec, rep.Estimate1MSec/3600)
	fmt.Fprint(w, "- Load average (start → end) and duration of each phase:")
	for i, l := range rep.Load {
		sep := ";"
		if i == 0 {
			sep = ""
		}
		fmt.Fprintf(w, "%s %s %.1f → %.1f, %.0f s", sep, l.Phase, l.Start, l.End, l.Seconds)
	}
	fmt.Fprintln(w)
	fmt.Fprintf(w, "- Queries that found nothing: SQLite %d, cluster %d, one node down %d\n", rep.SQLiteEmpty, rep.TeamEmpty, rep.TeamDownEmpty)
	fmt.Fprintf(w, "- Errors: %d (must be 0)", rep.Errors)
	if len(rep.ErrorSamples) > 0 {
		fmt.Fprintf(w, ": %s", strings.Join(rep.ErrorSamples, "; "))
	}
	fmt.Fprintln(w)
	if rep.Errors > 0 {
		return rep, fmt.Errorf("%d errors (see above)", rep.Errors)
	}
	return rep, nil
}

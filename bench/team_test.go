package bench

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"cairn/core/teamstore/teamtest"
	"cairn/internal/skip"
)

// TestTeamBenchReportsEveryFigure runs the team suite at a tiny size
// (three nodes, 300 chunks) and checks that the report holds every figure
// and no error. Its numbers are not judged: they measure nothing at this
// size. It runs only where a weaviate-server binary is (CAIRN_WEAVIATE_BIN,
// as `make test-team` sets).
func TestTeamBenchReportsEveryFigure(t *testing.T) {
	bin, err := teamtest.Bin()
	if err != nil {
		skip.Because(t, err.Error())
	}
	corpus := t.TempDir()
	for i := range 5 {
		var b strings.Builder
		for p := range 20 {
			fmt.Fprintf(&b, "Page %d paragraph %d: the daemon reads its configuration file at start and logs each request to the journal.\n\n", i, p)
		}
		if err := os.WriteFile(filepath.Join(corpus, fmt.Sprintf("page%d.txt", i)), []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	rep, err := TeamBench(context.Background(), TeamOptions{Bin: bin, Corpus: corpus, Work: t.TempDir(), Chunks: 300, Queries: 12, Runs: 2, Dim: 32}, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Errors != 0 {
		t.Fatalf("%d errors: %q", rep.Errors, rep.ErrorSamples)
	}
	if rep.Nodes != 3 || rep.Replicas != 3 || rep.Chunks != 300 || rep.Documents != 3 || rep.Killed != "node3" {
		t.Errorf("shape: %+v", rep)
	}
	for name, v := range map[string]float64{"SQLite chunks/s": rep.SQLiteIndexCPS, "cluster chunks/s": rep.TeamIndexCPS, "index ratio": rep.IndexRatio,
		"p50 ratio": rep.P50Ratio, "p95 ratio": rep.P95Ratio, "down p50 ratio": rep.DownP50Ratio, "down p95 ratio": rep.DownP95Ratio,
		"SQLite disk": rep.SQLiteDiskMB, "SQLite peak memory": rep.SQLiteHWMMB, "1M estimate": rep.Estimate1MSec} {
		if v <= 0 {
			t.Errorf("%s = %v", name, v)
		}
	}
	for name, l := range map[string]TeamLatency{"SQLite": rep.SQLite, "cluster": rep.Team, "SQLite, second half": rep.SQLiteDown, "one node down": rep.TeamDown} {
		if l.P50 <= 0 || l.P95 < l.P50 || len(l.Runs) != 2 || l.Runs[0].N != 12 {
			t.Errorf("%s latency: %+v", name, l)
		}
	}
	if rep.SQLiteEmpty+rep.TeamEmpty+rep.TeamDownEmpty != 0 {
		t.Errorf("queries that found nothing: SQLite %d, cluster %d, one down %d", rep.SQLiteEmpty, rep.TeamEmpty, rep.TeamDownEmpty)
	}
	if len(rep.Load) != 5 {
		t.Errorf("load averages of %d phases, want 5: %+v", len(rep.Load), rep.Load)
	}
	// Questions about the whole collection: the same files on both stores
	// (else an error above), every file for the first, the fixture's
	// "daemon" pages for the word it holds.
	if len(rep.Collection) != len(teamCollectionQuestions) || rep.Collection[0].Files != 3 {
		t.Errorf("questions about the collection: %+v", rep.Collection)
	}
	for _, c := range rep.Collection {
		if c.SQLiteMS <= 0 || c.TeamMS <= 0 {
			t.Errorf("%s: not timed: %+v", c.Question, c)
		}
	}
	if len(rep.NodesUp) != 3 || len(rep.NodesDown) != 2 {
		t.Fatalf("nodes measured: %+v, with one down %+v", rep.NodesUp, rep.NodesDown)
	}
	for _, n := range append(rep.NodesUp, rep.NodesDown...) {
		if n.DiskMB <= 0 || n.RSSMB <= 0 || n.HWMMB < n.RSSMB {
			t.Errorf("node footprint: %+v", n)
		}
	}
}

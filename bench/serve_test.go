package bench

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestServeBench runs the serve suite with tiny parameters: the knowledge
// base reaches the chunks asked for (linking pages again past the
// corpus's end), every phase makes searches with no error and finds its
// known items, index runs complete through the API while the clients
// search, and the knowledge base is sound afterwards. No timing is
// asserted.
func TestServeBench(t *testing.T) {
	dir := t.TempDir()
	mc := tinyManCorpus(t, dir, 30) // about 3 chunks a page at 1000 characters
	var log strings.Builder
	rep, err := ServeBench(context.Background(), ServeOptions{Corpus: mc, Work: filepath.Join(dir, "work"),
		Chunks: 200, Clients: 2, Duration: time.Second, ChunkSize: 1000, Version: "test"}, &log)
	if err != nil {
		t.Fatalf("%v\n%s", err, log.String())
	}
	t.Log(log.String())
	if rep.Chunks < 200 || rep.Files <= 30 || rep.Clients != 2 || rep.Seconds != 1 {
		t.Errorf("knowledge base %d files, %d chunks; %d clients, %v s", rep.Files, rep.Chunks, rep.Clients, rep.Seconds)
	}
	if rep.After.CatchUpSec <= 0 {
		t.Errorf("the keyword index's catch-up after the build was not timed: %+v", rep.After)
	}
	for name, p := range map[string]ServePhase{"right after the build, HTTP": rep.After.HTTP, "idle in process": rep.Idle.InProcess, "idle HTTP": rep.Idle.HTTP,
		"indexing in process": rep.Indexing.InProcess, "indexing HTTP": rep.Indexing.HTTP} {
		if p.Searches == 0 || p.Latency.N != p.Searches || p.Latency.P50 <= 0 || p.Latency.P95 < p.Latency.P50 || p.PerSec <= 0 {
			t.Errorf("%s: %+v", name, p)
		}
		if p.Errors != 0 || p.Empty != 0 || p.Found < 0.9 {
			t.Errorf("%s: %d errors, %d empty, found %.2f", name, p.Errors, p.Empty, p.Found)
		}
	}
	if rep.IndexRuns == 0 || rep.IndexChunks == 0 || len(rep.IndexSec) != rep.IndexRuns {
		t.Errorf("index runs through the API: %d (%d chunks, %v s)\n%s", rep.IndexRuns, rep.IndexChunks, rep.IndexSec, log.String())
	}
	if rep.IndexErrors != 0 || len(rep.Errors) != 0 || len(rep.Problems) != 0 {
		t.Errorf("errors %d %v, problems %v", rep.IndexErrors, rep.Errors, rep.Problems)
	}
	if _, err := os.Stat(filepath.Join(dir, "work", "serve")); !os.IsNotExist(err) {
		t.Errorf("scratch folder left behind: %v", err)
	}
}

package bench

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestLoadBench runs the load suite on a small generated corpus for a few
// seconds: searches run in both phases, the writer completes indexing runs
// of the second copy, nothing fails and the knowledge base is sound.
func TestLoadBench(t *testing.T) {
	dir := t.TempDir()
	mc := tinyManCorpus(t, dir, 60)
	var log strings.Builder
	rep, err := LoadBench(context.Background(), LoadOptions{Corpus: mc, Work: filepath.Join(dir, "work"),
		Idle: 500 * time.Millisecond, Duration: 3 * time.Second, Searchers: 3}, &log)
	if err != nil {
		t.Fatalf("%v\n%s", err, log.String())
	}
	if rep.Files != 60 || rep.Chunks == 0 {
		t.Errorf("indexed %d files, %d chunks; want 60 files", rep.Files, rep.Chunks)
	}
	if rep.IdleQueries == 0 || rep.LoadedQueries == 0 || rep.Loaded.N != rep.LoadedQueries {
		t.Errorf("searches: %d idle, %d while indexing (latencies of %d)", rep.IdleQueries, rep.LoadedQueries, rep.Loaded.N)
	}
	if rep.IndexRuns == 0 {
		t.Errorf("no indexing run of the copy completed in the loaded phase:\n%s", log.String())
	}
	if rep.SearchErrors+rep.IndexErrors != 0 || len(rep.Problems) != 0 || rep.IdleEmpty+rep.LoadedEmpty != 0 {
		t.Errorf("errors %d+%d %v, problems %v, empty results %v", rep.SearchErrors, rep.IndexErrors, rep.Errors, rep.Problems, rep.EmptyQueries)
	}
	if rep.MaxWALMB <= 0 {
		t.Errorf("no write-ahead log seen while indexing")
	}
	if rep.IdleFound == 0 {
		t.Errorf("no known item found while idle")
	}
	if _, err := os.Stat(filepath.Join(dir, "work", "load")); !os.IsNotExist(err) {
		t.Errorf("scratch folder left behind: %v", err)
	}
}

// tinyManCorpus writes n pages of a few repeated sentences, each with a
// known-item query, in the man-page corpus's layout.
func tinyManCorpus(t *testing.T, dir string, n int) ManCorpus {
	t.Helper()
	mc := ManCorpus{Dir: filepath.Join(dir, "pages"), Queries: filepath.Join(dir, "queries.tsv")}
	if err := os.MkdirAll(mc.Dir, 0o755); err != nil {
		t.Fatal(err)
	}
	topics := strings.Fields("archive compress network socket printer queue kernel module editor buffer")
	var qs strings.Builder
	for i := range n {
		topic := topics[i%len(topics)]
		text := strings.Repeat(fmt.Sprintf("The %s tool number %d reads its configuration and writes a report. ", topic, i), 40)
		if err := os.WriteFile(filepath.Join(mc.Dir, fmt.Sprintf("tool%02d.txt", i)), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(&qs, "tool%02d\t%s tool number %d\n", i, topic, i)
	}
	if err := os.WriteFile(mc.Queries, []byte(qs.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	mc.Pages = n
	return mc
}

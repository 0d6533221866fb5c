package ingest

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"cairn/core/domain"
	"cairn/core/extract"
	"cairn/core/store"
)

// slowRegistry reads ".slow" files in 300 ms, within the given per-file
// time limit or not.
func slowRegistry(timeout time.Duration) *extract.Registry {
	lim := extract.DefaultLimits()
	lim.Timeout = timeout
	reg := extract.NewRegistry(lim)
	reg.Register(extract.ExtractorFunc(func(ctx context.Context, f extract.File, _ extract.Limits) (*extract.Document, error) {
		select {
		case <-time.After(300 * time.Millisecond):
			return &extract.Document{Format: "text", Text: "the sluggard turbine manual"}, nil
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}), ".slow")
	return reg
}

// TestFailedFileIsRetried: a file that timed out is retried by the next
// run, not reported unchanged, and is indexed once the limit is raised
// (issue 14, item 3).
func TestFailedFileIsRetried(t *testing.T) {
	dir := t.TempDir()
	slow := filepath.Join(dir, "manual.slow")
	os.WriteFile(slow, []byte("binary-ish manual"), 0o644)
	os.WriteFile(filepath.Join(dir, "ok.txt"), []byte("an ordinary note about pumps"), 0o644)
	db, err := store.Open(filepath.Join(t.TempDir(), "kb.db"), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()

	ix := New(db, slowRegistry(50*time.Millisecond), Options{})
	for i := range 2 {
		run, events := runCollect(t, ix, dir)
		ev := events[slow]
		if ev.Status != domain.StatusFailed || ev.Unchanged || !strings.Contains(ev.Reason, "EXTRACT-004") {
			t.Errorf("run %d: %+v, want a fresh timeout failure", i+1, ev)
		}
		if run.FilesFailed != 1 {
			t.Errorf("run %d: %+v", i+1, run)
		}
	}
	ix = New(db, slowRegistry(5*time.Second), Options{})
	run, events := runCollect(t, ix, dir)
	if ev := events[slow]; ev.Status != domain.StatusIndexed {
		t.Errorf("after raising the limit: %+v", ev)
	}
	if run.FilesFailed != 0 || run.FilesIndexed != 1 || run.FilesUnchanged != 1 {
		t.Errorf("run %+v", run)
	}
	if issues, _ := db.Issues(ctx, 0); len(issues) != 0 {
		t.Errorf("issues left: %+v", issues)
	}
	healthy(t, db)
}

// TestSkipWaitsForItsLimit: a file skipped as too large stays skipped,
// unread, while the limit stands, and is indexed once it is raised.
func TestSkipWaitsForItsLimit(t *testing.T) {
	dir := t.TempDir()
	big := filepath.Join(dir, "big.txt")
	os.WriteFile(big, []byte(strings.Repeat("turbine blade inspection notes\n", 40_000)), 0o644) // 1.2 MB
	db, err := store.Open(filepath.Join(t.TempDir(), "kb.db"), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	reg := extract.NewRegistry(extract.DefaultLimits())
	for i := range 2 {
		_, events := runCollect(t, New(db, reg, Options{MaxFileBytes: 1 << 20}), dir)
		if ev := events[big]; ev.Status != domain.StatusSkipped || ev.Unchanged != (i == 1) {
			t.Errorf("run %d under the 1 MB limit: %+v", i+1, ev)
		}
	}
	_, events := runCollect(t, New(db, reg, Options{MaxFileBytes: 2 << 20}), dir)
	if ev := events[big]; ev.Status != domain.StatusIndexed {
		t.Errorf("after raising the limit to 2 MB: %+v", ev)
	}
	healthy(t, db)
}

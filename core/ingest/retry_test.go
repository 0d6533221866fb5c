package ingest

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
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

// TestFailedFileIsRetried: a file that timed out is read again by the
// next run, not reported unchanged (a timeout may not happen again); one
// that times out twice on the same content waits, as a skipped one does,
// until it changes; both are indexed once the limit is raised (issue 14,
// item 3; issue 43, item 4).
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
	for i, want := range []domain.FileEvent{
		{Status: domain.StatusFailed, Retry: true},     // read, timed out: once more
		{Status: domain.StatusFailed},                  // read, timed out again: it waits
		{Status: domain.StatusFailed, Unchanged: true}, // not read
	} {
		run, events := runCollect(t, ix, dir)
		ev := events[slow]
		if ev.Status != want.Status || ev.Unchanged != want.Unchanged || ev.Retry != want.Retry || !strings.Contains(ev.Reason, "EXTRACT-004") {
			t.Errorf("run %d: %+v, want %+v", i+1, ev, want)
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

// countingRegistry reads ".bad" files as broken and ".skip" files as
// unsafe, counting how often each was read.
func countingRegistry(reads map[string]int) *extract.Registry {
	reg := extract.NewRegistry(extract.DefaultLimits())
	var mu sync.Mutex // the run's workers extract at once
	reg.Register(extract.ExtractorFunc(func(ctx context.Context, f extract.File, _ extract.Limits) (*extract.Document, error) {
		mu.Lock()
		reads[filepath.Base(f.Name)]++
		mu.Unlock()
		b := make([]byte, f.Size)
		f.R.ReadAt(b, 0)
		if strings.HasPrefix(string(b), "good") {
			return &extract.Document{Format: "text", Text: string(b)}, nil
		}
		if filepath.Ext(f.Name) == ".skip" {
			return nil, fmt.Errorf("%w: a bomb", extract.ErrUnsafe)
		}
		return nil, errors.New("broken file: no trailer")
	}), ".bad", ".skip")
	return reg
}

// TestFailedFileWaitsForAChange: a file that failed for a reason that
// stays while the file does (a broken file), or was skipped (a bomb), is
// recorded with its reason and content hash and not read again by later
// runs, touched or not, until its content changes or the person asks
// (RetryFailed); the run says so (issue 43, item 4).
func TestFailedFileWaitsForAChange(t *testing.T) {
	dir := t.TempDir()
	bad, bomb := filepath.Join(dir, "broken.bad"), filepath.Join(dir, "laughs.skip")
	os.WriteFile(bad, []byte("%PDF- no trailer"), 0o644)
	os.WriteFile(bomb, []byte("<!ENTITY lol>"), 0o644)
	os.WriteFile(filepath.Join(dir, "ok.txt"), []byte("an ordinary note about pumps"), 0o644)
	reads := map[string]int{}
	_, db := newIndexer(t, Options{})
	ix := New(db, countingRegistry(reads), Options{})
	check := func(step string, wantReads int, bad, bomb domain.FileEvent) {
		t.Helper()
		_, events := runCollect(t, ix, dir)
		for _, c := range []struct {
			path string
			want domain.FileEvent
		}{{filepath.Join(dir, "broken.bad"), bad}, {filepath.Join(dir, "laughs.skip"), bomb}} {
			ev := events[c.path]
			if ev.Status != c.want.Status || ev.Unchanged != c.want.Unchanged || ev.Retry || ev.Reason == "" {
				t.Errorf("%s: %s: %+v, want %+v", step, filepath.Base(c.path), ev, c.want)
			}
		}
		if reads["broken.bad"] != wantReads || reads["laughs.skip"] != wantReads {
			t.Errorf("%s: read %v, want each %d times", step, reads, wantReads)
		}
	}
	failed, skipped := domain.FileEvent{Status: domain.StatusFailed}, domain.FileEvent{Status: domain.StatusSkipped}
	failedBefore, skippedBefore := domain.FileEvent{Status: domain.StatusFailed, Unchanged: true}, domain.FileEvent{Status: domain.StatusSkipped, Unchanged: true}
	check("first run", 1, failed, skipped)
	check("second run", 1, failedBefore, skippedBefore)
	later := time.Now().Add(time.Hour)
	os.Chtimes(bad, later, later)
	os.Chtimes(bomb, later, later)
	check("touched", 1, failedBefore, skippedBefore)
	check("after touching", 1, failedBefore, skippedBefore)
	issues, _ := db.Issues(ctx, 0)
	if len(issues) != 2 || issues[0].Hash == "" || issues[1].Hash == "" || issues[0].Retry || issues[1].Retry {
		t.Errorf("issues: %+v", issues)
	}

	ch := make(chan domain.Progress, 16)
	go func() {
		for range ch {
		}
	}()
	if _, err := ix.RetryFailed(ctx, dir, ch); err != nil {
		t.Fatal(err)
	}
	if reads["broken.bad"] != 2 || reads["laughs.skip"] != 2 {
		t.Errorf("asked to retry: read %v, want each twice", reads)
	}
	check("after the retry", 2, failedBefore, skippedBefore)
	os.WriteFile(bad, []byte("good text about valves now"), 0o644)
	os.WriteFile(bomb, []byte("<!ENTITY lol2>"), 0o644)
	_, events := runCollect(t, ix, dir)
	if ev := events[bad]; ev.Status != domain.StatusIndexed {
		t.Errorf("changed: %+v", ev)
	}
	if ev := events[bomb]; ev.Status != domain.StatusSkipped || ev.Unchanged {
		t.Errorf("changed bomb: %+v", ev)
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

// TestFailuresAreReadAgainWithAnotherPDFReader: a PDF that failed waits
// for a change while the reader that failed it stands, and is read again
// once another reads PDFs (poppler-utils installed where the pure-Go
// reader read them).
func TestFailuresAreReadAgainWithAnotherPDFReader(t *testing.T) {
	dir := t.TempDir()
	broken := filepath.Join(dir, "broken.pdf")
	os.WriteFile(broken, []byte("%PDF-1.4\nnot a PDF after all\n"), 0o644)
	db, err := store.Open(filepath.Join(t.TempDir(), "kb.db"), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	goOnly := extract.NewRegistry(extract.DefaultLimits(), extract.WithPDFEngine(extract.PDFPureGo))
	for i := range 2 {
		_, events := runCollect(t, New(db, goOnly, Options{}), dir)
		if ev := events[broken]; ev.Status != domain.StatusFailed || ev.Unchanged != (i == 1) {
			t.Errorf("run %d with the pure-Go reader: %+v", i+1, ev)
		}
	}
	poppler := extract.NewRegistry(extract.DefaultLimits(), extract.WithPDFEngine(extract.PDFPoppler))
	if poppler.PDFEngineName() != "poppler" {
		t.Fatal("pdftotext not found: install poppler-utils (make deps)")
	}
	_, events := runCollect(t, New(db, poppler, Options{}), dir)
	if ev := events[broken]; ev.Status != domain.StatusFailed || ev.Unchanged {
		t.Errorf("with poppler: %+v, want read again (and failed again)", ev)
	}
	healthy(t, db)
}

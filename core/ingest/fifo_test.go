package ingest

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"cairn/core/domain"
	"cairn/core/extract"
)

// TestFileSwappedForAPipeDuringARun: a file the walk saw as regular and
// that is a named pipe by the time a worker opens it is skipped, not
// waited on forever with the lock held (issue 33, item 2). One worker reads
// the files in the walk's order, so the first file's extractor swaps the
// second before it is opened.
func TestFileSwappedForAPipeDuringARun(t *testing.T) {
	dir := t.TempDir()
	first := filepath.Join(dir, "a.swap")
	second := filepath.Join(dir, "b.txt")
	os.WriteFile(first, []byte("first"), 0o644)
	os.WriteFile(second, []byte("second file text"), 0o644)
	reg := extract.NewRegistry(extract.DefaultLimits())
	reg.Register(extract.ExtractorFunc(func(ctx context.Context, f extract.File, _ extract.Limits) (*extract.Document, error) {
		if err := os.Remove(second); err != nil {
			return nil, err
		}
		if err := syscall.Mkfifo(second, 0o644); err != nil {
			return nil, err
		}
		return &extract.Document{Format: "test", Text: "text of the first file"}, nil
	}), ".swap")
	_, db := newIndexer(t, Options{})
	ix := New(db, reg, Options{Workers: 1})
	// Without the fix the worker's open waits for a writer: give it one
	// late, so the test fails on its assertions instead of hanging.
	stop := make(chan struct{})
	defer close(stop)
	go func() {
		select {
		case <-time.After(20 * time.Second):
			if w, err := os.OpenFile(second, os.O_WRONLY, 0); err == nil {
				w.Close()
			}
		case <-stop:
		}
	}()
	run, events := runCollect(t, ix, dir)
	ev := events[second]
	if ev.Status != domain.StatusSkipped || !strings.Contains(ev.Reason, "not a regular file (a named pipe since the folder was scanned)") {
		t.Errorf("the swapped file: %+v, want skipped as a named pipe", ev)
	}
	if run.FilesIndexed != 1 || run.Status != domain.RunDone {
		t.Errorf("run %+v", run)
	}
	// The lock is free: another run starts.
	if _, err := ix.Run(ctx, dir, nil); err != nil {
		t.Errorf("a second run: %v", err)
	}
}

package core

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"cairn/core/extract"
	"cairn/core/search"
)

// TestPreviewOfAFileSwappedForAPipe: a search result whose file became a
// named pipe is refused at once, not waited on by the preview worker
// forever (issue 33, item 2).
func TestPreviewOfAFileSwappedForAPipe(t *testing.T) {
	path := filepath.Join(t.TempDir(), "notes.txt")
	if err := syscall.Mkfifo(path, 0o644); err != nil {
		t.Fatal(err)
	}
	// Without the check the open waits for a writer: give it one late, so
	// the test fails on its assertion instead of hanging.
	stop := make(chan struct{})
	defer close(stop)
	go func() {
		select {
		case <-time.After(20 * time.Second):
			if w, err := os.OpenFile(path, os.O_WRONLY, 0); err == nil {
				w.Close()
			}
		case <-stop:
		}
	}()
	_, err := Preview(context.Background(), extract.NewRegistry(extract.DefaultLimits()),
		&search.Passage{Path: path, Format: "text", Text: "x", LineStart: 1, LineEnd: 1})
	if err == nil || !strings.Contains(err.Error(), "not a regular file (a named pipe") {
		t.Errorf("preview of a pipe: %v", err)
	}
}

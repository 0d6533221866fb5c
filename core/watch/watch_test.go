package watch

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// start watches dir with a short debounce and returns the batch channel
// and a stop function that waits for Watch to return.
func start(t *testing.T, dir string, opt Options) <-chan []string {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	out := make(chan []string, 8)
	done := make(chan error, 1)
	if opt.Debounce == 0 {
		opt.Debounce = 50 * time.Millisecond
	}
	go func() { done <- Watch(ctx, dir, opt, out) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != context.Canceled {
			t.Errorf("Watch returned %v, want context.Canceled", err)
		}
	})
	time.Sleep(100 * time.Millisecond) // let the watches be added
	return out
}

func next(t *testing.T, ch <-chan []string) []string {
	t.Helper()
	select {
	case b := <-ch:
		return b
	case <-time.After(10 * time.Second):
		t.Fatal("no batch of changes reported")
		return nil
	}
}

func write(t *testing.T, path, text string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
}

func TestBurstOfWritesIsOneSortedBatch(t *testing.T) {
	dir := t.TempDir()
	out := start(t, dir, Options{})
	a, b := filepath.Join(dir, "a.txt"), filepath.Join(dir, "b.txt")
	for i := range 5 {
		write(t, b, strings.Repeat("x", i))
		write(t, a, strings.Repeat("y", i))
	}
	if got := next(t, out); !slices.Equal(got, []string{a, b}) {
		t.Fatalf("batch %q, want %q", got, []string{a, b})
	}
}

func TestNewSubfolderIsWatchedAndItsFilesReported(t *testing.T) {
	dir := t.TempDir()
	out := start(t, dir, Options{})
	sub := filepath.Join(dir, "new")
	if err := os.Mkdir(sub, 0o700); err != nil {
		t.Fatal(err)
	}
	got := next(t, out)
	if !slices.Contains(got, sub) {
		t.Fatalf("batch %q lacks the new folder", got)
	}
	inner := filepath.Join(sub, "later.md")
	write(t, inner, "# later")
	got = next(t, out)
	if !slices.Contains(got, inner) {
		t.Fatalf("batch %q lacks %s: the new folder is not watched", got, inner)
	}
}

func TestRemovalIsReported(t *testing.T) {
	dir := t.TempDir()
	gone := filepath.Join(dir, "gone.txt")
	write(t, gone, "bye")
	out := start(t, dir, Options{})
	if err := os.Remove(gone); err != nil {
		t.Fatal(err)
	}
	if got := next(t, out); !slices.Equal(got, []string{gone}) {
		t.Fatalf("batch %q, want [%s]", got, gone)
	}
}

func TestSkippedPathsAreNotReported(t *testing.T) {
	dir := t.TempDir()
	hidden := filepath.Join(dir, ".cache")
	if err := os.Mkdir(hidden, 0o700); err != nil {
		t.Fatal(err)
	}
	skip := func(p string, _ bool) bool { return strings.HasPrefix(filepath.Base(p), ".") }
	out := start(t, dir, Options{Skip: skip})
	write(t, filepath.Join(hidden, "db"), "noise")
	write(t, filepath.Join(dir, ".swp"), "noise")
	kept := filepath.Join(dir, "notes.txt")
	write(t, kept, "signal")
	if got := next(t, out); !slices.Equal(got, []string{kept}) {
		t.Fatalf("batch %q, want only %s", got, kept)
	}
}

func TestMissingRootIsAnError(t *testing.T) {
	err := Watch(context.Background(), filepath.Join(t.TempDir(), "nope"), Options{}, make(chan []string))
	if err == nil || !strings.Contains(err.Error(), "nope") {
		t.Fatalf("err = %v, want one naming the folder", err)
	}
}

package store

import (
	"os"
	osexec "os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestWatchedFoldersAreSeenByAnotherProcess: the window (this process)
// records which folders it watches; `cairn status` (this test's binary
// started again, opening the same file read-only while the writer still
// holds it) lists them as watched. A recorded path that is no longer a
// folder of the knowledge base is not listed.
func TestWatchedFoldersAreSeenByAnotherProcess(t *testing.T) {
	if path := os.Getenv("CAIRN_TEST_WATCHED_KB"); path != "" {
		db, err := Open(path, Options{ReadOnly: true})
		if err != nil {
			t.Fatal(err)
		}
		defer db.Close()
		watched, err := db.WatchedFolders(ctx)
		if err != nil {
			t.Fatal(err)
		}
		fs, err := db.Folders(ctx)
		if err != nil {
			t.Fatal(err)
		}
		var marked []string
		for _, f := range fs {
			if f.Watched {
				marked = append(marked, f.Path)
			}
		}
		os.Stdout.WriteString("watched=" + strings.Join(watched, ",") + " marked=" + strings.Join(marked, ",") + "\n")
		return
	}
	path := filepath.Join(t.TempDir(), "kb.db")
	db, err := Open(path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for _, f := range []string{"/docs/a", "/docs/b"} {
		if _, err := db.AddFolder(ctx, f); err != nil {
			t.Fatal(err)
		}
	}
	if got, err := db.WatchedFolders(ctx); err != nil || len(got) != 0 {
		t.Fatalf("a new knowledge base watches %v, %v", got, err)
	}
	if err := db.SetWatchedFolders(ctx, []string{"/docs/b", "/gone", "/docs/b"}); err != nil {
		t.Fatal(err)
	}
	cmd := osexec.Command(os.Args[0], "-test.run=^TestWatchedFoldersAreSeenByAnotherProcess$", "-test.count=1")
	cmd.Env = append(os.Environ(), "CAIRN_TEST_WATCHED_KB="+path)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("second process: %v\n%s", err, out)
	}
	if !strings.Contains(string(out), "watched=/docs/b marked=/docs/b\n") {
		t.Errorf("the second process saw:\n%s", out)
	}
	// Turning the watch off is seen too.
	if err := db.SetWatchedFolders(ctx, nil); err != nil {
		t.Fatal(err)
	}
	if got, err := db.WatchedFolders(ctx); err != nil || !slices.Equal(got, nil) {
		t.Errorf("after unwatching: %v, %v", got, err)
	}
}

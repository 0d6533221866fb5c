package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestARestoreRemovesWhatAKilledOneLeft: the hidden full-size copy a
// killed restore left beside the knowledge base is removed by the next
// restore, which says so (issue 33, item 5).
func TestARestoreRemovesWhatAKilledOneLeft(t *testing.T) {
	home := t.TempDir()
	if _, errs, code := cli(t, home, "index", corpusDir(t)); code != 0 {
		t.Fatal(errs)
	}
	backup := filepath.Join(t.TempDir(), "b.db")
	if _, errs, code := cli(t, home, "backup", backup); code != 0 {
		t.Fatal(errs)
	}
	kb := filepath.Join(home, "data", "kb", "default.db")
	left := filepath.Join(filepath.Dir(kb), ".default.db.tmp-4242")
	os.WriteFile(left, make([]byte, 1<<20), 0o600)
	hour := time.Now().Add(-time.Hour)
	os.Chtimes(left, hour, hour)
	out, errs, code := cli(t, home, "restore", backup)
	want := "Removed " + left + " (1.0 MB), a temporary copy left by an interrupted backup or restore."
	if code != 0 || !strings.Contains(errs, want) || !strings.Contains(out, "Restored 8 documents") {
		t.Errorf("restore: exit %d\nstdout %s\nstderr %s\nwant %q", code, out, errs, want)
	}
	if _, err := os.Stat(left); err == nil {
		t.Error("the leftover is still there")
	}
}

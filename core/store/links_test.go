package store

import (
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/ncruces/go-sqlite3"

	"cairn/core/fault"
)

// TestAnEmptyHardLinkedFileIsRefusedLeavingNothing: an empty file with two
// names is refused (STORE-011) before SQLite's companions are made beside
// it (issue 33, item 8).
func TestAnEmptyHardLinkedFileIsRefusedLeavingNothing(t *testing.T) {
	dir := t.TempDir()
	kb := filepath.Join(dir, "kb.db")
	os.WriteFile(kb, nil, 0o600)
	if err := os.Link(kb, filepath.Join(dir, "other.db")); err != nil {
		t.Fatal(err)
	}
	if _, err := Open(kb, Options{}); fault.CodeOf(err) != fault.StoreLinked {
		t.Errorf("open: %v, want STORE-011", err)
	}
	var names []string
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		names = append(names, e.Name())
	}
	if want := []string{"kb.db", "other.db"}; !slices.Equal(names, want) {
		t.Errorf("files %v, want %v", names, want)
	}
}

// TestAForeignDatabaseOpenElsewhereIsJudgedWithoutItsSharedMemory: another
// program's database in WAL mode, open in that program with rows in its
// log, is refused by an open for reading and for writing with its -wal and
// -shm byte for byte as they were (issue 33, item 8).
func TestAForeignDatabaseOpenElsewhereIsJudgedWithoutItsSharedMemory(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "places.sqlite")
	foreignDB(t, path)
	other, err := sqlite3.Open(path) // the browser, still running
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	for _, q := range []string{`PRAGMA wal_autocheckpoint=0`, `INSERT INTO moz_places (url) VALUES ('https://example.org/modem')`} {
		if err := other.Exec(q); err != nil {
			t.Fatal(err)
		}
	}
	before := snapshot(t, dir)
	if len(before) != 3 {
		t.Fatalf("files %v, want the database, its -wal and -shm", names(before))
	}
	for _, ro := range []bool{true, false} {
		if _, err := Open(path, Options{ReadOnly: ro}); fault.CodeOf(err) != fault.StoreNotKB {
			t.Errorf("read-only %v: %v", ro, err)
		}
		sameFiles(t, "after a refused open", before, snapshot(t, dir))
	}
}

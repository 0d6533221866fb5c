package store

import (
	"os"
	"path/filepath"
	"slices"
	"testing"

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

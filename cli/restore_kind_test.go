package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"cairn/core/store/storetest"
)

// TestRestoreNamesWhatTheFileIs: restoring from a file that is not a
// knowledge base says so, naming what it is (a text file, an empty file,
// a folder, another program's database), instead of SQLite's "unable to
// open database file"; and a backup named by a relative path restores
// (issue 43, item 7).
func TestRestoreNamesWhatTheFileIs(t *testing.T) {
	home, dir := t.TempDir(), t.TempDir()
	if _, errs, code := cli(t, home, "index", corpusDir(t)); code != 0 {
		t.Fatal(errs)
	}
	os.WriteFile(filepath.Join(dir, "notes.db"), []byte("these are notes, not a database\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "empty.db"), nil, 0o644)
	os.Mkdir(filepath.Join(dir, "folder.db"), 0o755)
	storetest.Exec(t, filepath.Join(dir, "other.db"), `CREATE TABLE t(x)`, `INSERT INTO t VALUES (1)`)
	for name, want := range map[string]string{
		"notes.db":  "notes.db: not a Cairn knowledge base: not an SQLite database at all",
		"empty.db":  "empty.db: an empty file, not a Cairn knowledge base",
		"folder.db": "folder.db: a folder, not a Cairn knowledge base",
		"other.db":  "other.db: another program's SQLite database, not a Cairn knowledge base",
	} {
		_, errs, code := cli(t, home, "restore", filepath.Join(dir, name))
		if code == 0 || !strings.Contains(errs, want) || !strings.Contains(errs, "[STORE-010]") {
			t.Errorf("restore %s: exit %d\n%s", name, code, errs)
		}
	}
	t.Chdir(dir)
	if _, errs, code := cli(t, home, "backup", "kb-copy.db"); code != 0 {
		t.Fatal(errs)
	}
	if out, errs, code := cli(t, home, "restore", "kb-copy.db"); code != 0 || !strings.Contains(out, "Restored 8 documents") {
		t.Errorf("restore by a relative path: exit %d\n%s%s", code, out, errs)
	}
}

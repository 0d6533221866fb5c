package store

import (
	"context"
	"crypto/sha256"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"

	"cairn/core/domain"
	"cairn/core/fault"
	"cairn/core/store/storetest"
)

// foreignDB writes another program's SQLite database in WAL mode, as a
// browser's history is, and closes it.
func foreignDB(t *testing.T, path string) {
	t.Helper()
	storetest.Exec(t, path, `PRAGMA journal_mode=WAL`,
		`CREATE TABLE moz_places (id INTEGER PRIMARY KEY, url TEXT)`,
		`INSERT INTO moz_places (url) VALUES ('https://example.org/router')`)
}

// snapshot is the folder's file names and each file's content hash.
func snapshot(t *testing.T, dir string) map[string][32]byte {
	t.Helper()
	out := map[string][32]byte{}
	es, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range es {
		b, _ := os.ReadFile(filepath.Join(dir, e.Name()))
		out[e.Name()] = sha256.Sum256(b)
	}
	return out
}

func names(m map[string][32]byte) []string {
	var out []string
	for n := range m {
		out = append(out, n)
	}
	slices.Sort(out)
	return out
}

func sameFiles(t *testing.T, what string, before, after map[string][32]byte) {
	t.Helper()
	if len(before) != len(after) {
		t.Errorf("%s: files %v became %v", what, names(before), names(after))
		return
	}
	for n, h := range before {
		if after[n] != h {
			t.Errorf("%s: %s changed", what, n)
		}
	}
}

// TestOpenNeverWritesIntoAnotherProgramsDatabase opens a browser-like
// database read-only and for writing: both refuse with STORE-006, and the
// folder is byte for byte as it was (no Cairn table, no -wal or -shm).
func TestOpenNeverWritesIntoAnotherProgramsDatabase(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "places.sqlite")
	foreignDB(t, path)
	before := snapshot(t, dir)
	for _, ro := range []bool{true, false} {
		db, err := Open(path, Options{ReadOnly: ro})
		if err == nil {
			db.Close()
		}
		if fault.CodeOf(err) != fault.StoreNotKB || !strings.Contains(err.Error(), "another program's SQLite database") {
			t.Errorf("read-only %v: err %v", ro, err)
		}
		sameFiles(t, "after a refused open", before, snapshot(t, dir))
	}
	// The same with a mark of its own, read from the header alone.
	storetest.Exec(t, path, `PRAGMA application_id = 1234`)
	before = snapshot(t, dir)
	if _, err := Open(path, Options{}); fault.CodeOf(err) != fault.StoreNotKB {
		t.Errorf("a file with another application id: %v", err)
	}
	sameFiles(t, "another application id", before, snapshot(t, dir))
	if _, err := Restore(context.Background(), path, path, RestoreOptions{}); fault.CodeOf(err) != fault.StoreNotKB {
		t.Errorf("restore over another program's database: %v", err)
	}
	sameFiles(t, "restore over it", before, snapshot(t, dir))
}

// TestReadOnlyOpenCreatesNothing: a missing file or an empty one is no
// knowledge base to a command that only reads, and stays as it was.
func TestReadOnlyOpenCreatesNothing(t *testing.T) {
	dir := t.TempDir()
	missing := filepath.Join(dir, "missing.db")
	if _, err := Open(missing, Options{ReadOnly: true}); fault.CodeOf(err) != fault.StoreOpen || !strings.Contains(err.Error(), "no knowledge base at "+missing) {
		t.Errorf("missing: %v", err)
	}
	empty := filepath.Join(dir, "empty.db")
	os.WriteFile(empty, nil, 0o600)
	if _, err := Open(empty, Options{ReadOnly: true}); fault.CodeOf(err) != fault.StoreOpen || !strings.Contains(err.Error(), "is an empty file") {
		t.Errorf("empty: %v", err)
	}
	if got := names(snapshot(t, dir)); !slices.Equal(got, []string{"empty.db"}) {
		t.Errorf("files after read-only opens: %v", got)
	}
	if fi, _ := os.Stat(empty); fi.Size() != 0 {
		t.Errorf("the empty file has %d bytes", fi.Size())
	}
	// Writing, the empty file becomes a knowledge base.
	db, err := Open(empty, Options{})
	if err != nil {
		t.Fatal(err)
	}
	db.Close()
	if app := storetest.Int(t, empty, `PRAGMA application_id`); app != ApplicationID {
		t.Errorf("application_id %#x", app)
	}
}

// TestOpenCreatesNoFolder: a path in a folder that does not exist is an
// error, and the folder is not made.
func TestOpenCreatesNoFolder(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "nonexistent", "sub", "x.db")
	_, err := Open(path, Options{})
	if fault.CodeOf(err) != fault.StoreOpen || !strings.Contains(err.Error(), "the folder "+filepath.Dir(path)+" does not exist") {
		t.Errorf("err %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "nonexistent")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the folder was created: %v", err)
	}
}

// TestKnowledgeBaseWithoutTheMark: a knowledge base made before the
// application id existed is still Cairn's: read-only it opens unchanged,
// and the next writable open marks it.
func TestKnowledgeBaseWithoutTheMark(t *testing.T) {
	path := filepath.Join(t.TempDir(), "old.db")
	db, err := Open(path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	put(t, db, mustFolder(t, db), "/d/a.md", "A", "router reset")
	db.Close()
	storetest.Exec(t, path, `PRAGMA application_id = 0`)
	db, err = Open(path, Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	if got := ftsIDs(t, db, "router"); len(got) != 1 {
		t.Errorf("search of the old knowledge base: %v", got)
	}
	db.Close()
	if app := storetest.Int(t, path, `PRAGMA application_id`); app != 0 {
		t.Errorf("a read-only open marked the file: %#x", app)
	}
	db, err = Open(path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	db.Close()
	if app := storetest.Int(t, path, `PRAGMA application_id`); app != ApplicationID {
		t.Errorf("application_id %#x after a writable open", app)
	}
}

func mustFolder(t *testing.T, db *DB) int64 {
	t.Helper()
	f, err := db.AddFolder(ctx, "/d")
	if err != nil {
		t.Fatal(err)
	}
	return f.ID
}

// TestHardLinkedKnowledgeBaseIsRefused: SQLite would keep a write-ahead
// log per name, so a file with two names is refused under both.
func TestHardLinkedKnowledgeBaseIsRefused(t *testing.T) {
	dir := t.TempDir()
	kb := filepath.Join(dir, "kb.db")
	db, err := Open(kb, Options{})
	if err != nil {
		t.Fatal(err)
	}
	db.Close()
	if err := os.Link(kb, filepath.Join(dir, "kb2.db")); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{kb, filepath.Join(dir, "kb2.db")} {
		for _, ro := range []bool{false, true} {
			_, err := Open(p, Options{ReadOnly: ro})
			if fault.CodeOf(err) != fault.StoreLinked || !strings.Contains(err.Error(), "has 2 names (hard links)") {
				t.Errorf("%s (read-only %v): %v", p, ro, err)
			}
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "kb2.db-wal")); err == nil {
		t.Error("a refused open left kb2.db-wal")
	}
}

// TestSymlinkedPathOpensTheRealFile: the link is resolved once; the log and
// shared memory sit next to the real file, none next to the link.
func TestSymlinkedPathOpensTheRealFile(t *testing.T) {
	realDir, linkDir := t.TempDir(), t.TempDir()
	kb := filepath.Join(realDir, "kb.db")
	db, err := Open(kb, Options{})
	if err != nil {
		t.Fatal(err)
	}
	put(t, db, mustFolder(t, db), "/d/a.md", "A", "router reset")
	db.Close()
	link := filepath.Join(linkDir, "link.db")
	if err := os.Symlink(kb, link); err != nil {
		t.Fatal(err)
	}
	want, _ := filepath.EvalSymlinks(kb)
	for _, ro := range []bool{false, true} {
		db, err := Open(link, Options{ReadOnly: ro})
		if err != nil {
			t.Fatalf("read-only %v: %v", ro, err)
		}
		if db.Path() != want {
			t.Errorf("path %s, want %s", db.Path(), want)
		}
		if got := ftsIDs(t, db, "router"); len(got) != 1 {
			t.Errorf("search through the link: %v", got)
		}
		db.Close()
	}
	if got := names(snapshot(t, linkDir)); !slices.Equal(got, []string{"link.db"}) {
		t.Errorf("files next to the link: %v", got)
	}
}

// TestIndexingLockFollowsTheFile: the indexing lock belongs to the file,
// not to its name: a run that holds it through one name refuses a run
// through another (here the file renamed while the first run holds it).
func TestIndexingLockFollowsTheFile(t *testing.T) {
	dir := t.TempDir()
	db, err := Open(filepath.Join(dir, "kb.db"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	unlock, err := db.LockIndexing()
	if err != nil {
		t.Fatal(err)
	}
	defer unlock()
	moved := filepath.Join(dir, "moved.db")
	if err := os.Rename(db.Path(), moved); err != nil {
		t.Fatal(err)
	}
	if _, err := lockIndexing(moved); !errors.Is(err, domain.ErrIndexing) || fault.CodeOf(err) != fault.StoreBusy {
		t.Errorf("a second run through another name: %v", err)
	}
	if busy, err := db.Indexing(); !busy || err != nil {
		t.Errorf("Indexing: %v %v", busy, err)
	}
	unlock()
	if busy, err := db.Indexing(); busy || err != nil {
		t.Errorf("Indexing after unlock: %v %v", busy, err)
	}
}

// TestRestoreRefusesWhileSearching: a knowledge base open read-only (a
// `cairn search` between two queries) holds it; restore refuses with
// STORE-008 and changes nothing, and succeeds once it is closed.
func TestRestoreRefusesWhileSearching(t *testing.T) {
	dir := t.TempDir()
	kb := filepath.Join(dir, "kb.db")
	db, err := Open(kb, Options{})
	if err != nil {
		t.Fatal(err)
	}
	put(t, db, mustFolder(t, db), "/d/a.md", "A", "router reset")
	backup := filepath.Join(t.TempDir(), "b.db")
	if err := db.Backup(ctx, backup); err != nil {
		t.Fatal(err)
	}
	put(t, db, 1, "/d/b.md", "B", "modem lights")
	db.Close()

	reader, err := Open(kb, Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	_, err = Restore(ctx, backup, kb, RestoreOptions{})
	if fault.CodeOf(err) != fault.StoreInUse || !strings.Contains(err.Error(), "is open in another Cairn") {
		t.Errorf("restore while a reader is open: %v", err)
	}
	if got := ftsIDs(t, reader, "modem"); len(got) != 1 {
		t.Errorf("the reader lost its knowledge base: %v", got)
	}
	reader.Close()
	if _, err := os.Stat(kb + ".bak"); err == nil {
		t.Error("a refused restore made a .bak")
	}
	if _, err := Restore(ctx, backup, kb, RestoreOptions{}); err != nil {
		t.Fatal(err)
	}
	db, err = Open(kb, Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if got := ftsIDs(t, db, "modem"); len(got) != 0 {
		t.Errorf("after restore, the backup's state: %v", got)
	}
}

// TestRestoreCreatesOnlyWhenAsked: a missing knowledge base is created from
// a backup only with create.
func TestRestoreCreatesOnlyWhenAsked(t *testing.T) {
	db := openTemp(t)
	backup := filepath.Join(t.TempDir(), "b.db")
	if err := db.Backup(ctx, backup); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	kb := filepath.Join(dir, "new.db")
	if _, err := Restore(ctx, backup, kb, RestoreOptions{}); fault.CodeOf(err) != fault.StoreOpen || !strings.Contains(fault.FixLine(err), "--create") {
		t.Errorf("restore into a missing file: %v", err)
	}
	if got := names(snapshot(t, dir)); len(got) != 0 {
		t.Errorf("files after a refused restore: %v", got)
	}
	if _, err := Restore(ctx, backup, kb, RestoreOptions{Create: true}); err != nil {
		t.Fatal(err)
	}
	if _, err := Restore(ctx, backup, filepath.Join(dir, "none", "x.db"), RestoreOptions{Create: true}); fault.CodeOf(err) != fault.StoreOpen {
		t.Errorf("restore into a missing folder: %v", err)
	}
}

// TestEverythingCreatedIsPrivate, under a permissive umask: a read-only
// open of a knowledge base whose log SQLite deleted makes it 0600, and
// checking a backup leaves nothing beside it.
func TestEverythingCreatedIsPrivate(t *testing.T) {
	old := syscall.Umask(0o022)
	defer syscall.Umask(old)
	dir := t.TempDir()
	kb := filepath.Join(dir, "kb.db")
	db, err := Open(kb, Options{})
	if err != nil {
		t.Fatal(err)
	}
	put(t, db, mustFolder(t, db), "/d/a.md", "A", "router reset")
	db.Close()
	for _, s := range companions {
		os.Remove(kb + s) // as SQLite leaves a cleanly closed knowledge base
	}
	db, err = Open(kb, Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	ftsIDs(t, db, "router")
	db.Close()
	for p, mode := range PrivateFiles(kb) {
		if mode != 0o600 {
			t.Errorf("%s: mode %04o", p, mode)
		}
	}

	db, err = Open(kb, Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	backups := t.TempDir()
	backup := filepath.Join(backups, "b.db")
	if err := db.Backup(ctx, backup); err != nil {
		t.Fatal(err)
	}
	db.Close()
	if _, err := Verify(ctx, backup); err != nil {
		t.Fatal(err)
	}
	if got := names(snapshot(t, backups)); !slices.Equal(got, []string{"b.db"}) {
		t.Errorf("files after checking the backup: %v", got)
	}
	if fi, _ := os.Stat(backup); fi.Mode().Perm() != 0o600 {
		t.Errorf("backup mode %04o", fi.Mode().Perm())
	}
}

package store

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ncruces/go-sqlite3"

	"cairn/core/domain"
	"cairn/core/fault"
	"cairn/core/store/storetest"
)

func TestHealthFindsVectorsOutOfStep(t *testing.T) {
	path := filepath.Join(t.TempDir(), "kb.db")
	db, err := Open(path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	f, _ := db.AddFolder(ctx, "/d")
	db.SetVectorModel(ctx, "model-a", 3)
	if _, _, err := db.PutDocument(ctx, Document{FolderID: f.ID, Path: "/d/a", Hash: "h"}, chunks("x", "y"), [][]float32{{1, 0, 0}, {0, 1, 0}}); err != nil {
		t.Fatal(err)
	}
	if _, _, err := db.PutDocument(ctx, Document{FolderID: f.ID, Path: "/d/b", Hash: "h"}, chunks("z"), nil); err != nil {
		t.Fatal(err)
	}
	h, err := db.Health(ctx)
	if err != nil || len(h.Problems()) != 0 || h.Unembedded != 1 {
		t.Fatalf("health %+v %v: one chunk waiting for its vector is not a problem", h, err)
	}
	db.Close()

	// The meta table claims another dimension, and a chunk is marked as
	// embedded without a vector.
	storetest.Exec(t, path, `UPDATE meta SET value = '4' WHERE key = 'vector_dim'`, `UPDATE chunks SET vec = 1 WHERE text = 'z'`)
	db, err = Open(path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	h, err = db.Health(ctx)
	if err != nil {
		t.Fatal(err)
	}
	got := strings.Join(h.Vectors, "\n")
	for _, want := range []string{
		"the vector table holds 3 dimensions, the meta table records 4",
		"vectors whose length is not the recorded 4 dimensions: 2",
		"difference between embedded chunks and stored vectors: 1",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("missing %q in:\n%s", want, got)
		}
	}
	if len(h.Integrity) != 0 || h.FTS != "" || len(h.Orphans) != 0 {
		t.Errorf("health %+v", h)
	}
}

func TestNewerSchemaIsRefusedWithFix(t *testing.T) {
	path := filepath.Join(t.TempDir(), "kb.db")
	db, err := Open(path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	db.Close()
	storetest.Exec(t, path, `PRAGMA user_version = 99`)
	_, err = Open(path, Options{})
	if fault.CodeOf(err) != fault.StoreNewer || !strings.Contains(err.Error(), "schema version 99 is newer") ||
		!strings.Contains(fault.FixLine(err), "update Cairn") {
		t.Errorf("err %v, fix %q", err, fault.FixLine(err))
	}
	if _, err := Verify(ctx, path); fault.CodeOf(err) != fault.StoreBackup || !strings.Contains(err.Error(), "made by a newer Cairn") {
		t.Errorf("verify: %v", err)
	}
}

func TestIndexingLockIsABusyFault(t *testing.T) {
	db := openTemp(t)
	unlock, err := db.LockIndexing()
	if err != nil {
		t.Fatal(err)
	}
	defer unlock()
	_, err = db.LockIndexing()
	if !errors.Is(err, domain.ErrIndexing) || fault.CodeOf(err) != fault.StoreBusy || !strings.Contains(fault.FixLine(err), "crashed run's lock is released") {
		t.Errorf("second lock: %v (%q)", err, fault.FixLine(err))
	}
}

func TestBackupRefusesToOverwrite(t *testing.T) {
	db := openTemp(t)
	dest := filepath.Join(t.TempDir(), "b.db")
	os.WriteFile(dest, []byte("precious"), 0o600)
	if err := db.Backup(ctx, dest); err == nil || !strings.Contains(err.Error(), "exists") {
		t.Errorf("err %v", err)
	}
	if b, _ := os.ReadFile(dest); string(b) != "precious" {
		t.Error("backup overwrote a file")
	}
	if _, err := Verify(ctx, filepath.Join(t.TempDir(), "none.db")); fault.CodeOf(err) != fault.StoreBackup {
		t.Errorf("verify of a missing file: %v", err)
	}
}

// A search cancelled between the tokenizer table's INSERT and DELETE leaves
// its row behind on that reader; the next query on the reader must still
// work (it failed with "constraint failed" on every later search).
func TestAReaderLeftWithATokenizerRowStillAnswers(t *testing.T) {
	db := openTemp(t)
	f, _ := db.AddFolder(ctx, "/d")
	if _, _, err := db.PutDocument(ctx, Document{FolderID: f.ID, Path: "/d/a", Hash: "h"}, chunks("the router resets", "a printer"), nil); err != nil {
		t.Fatal(err)
	}
	c, err := db.getReader()
	if err != nil {
		t.Fatal(err)
	}
	for _, sql := range []string{
		`INSERT INTO temp.query_tokens(rowid, t) VALUES (1, 'left behind')`,
		`INSERT INTO temp.rune_tokens(rowid, t) VALUES (1, 'left behind')`,
	} {
		if err := c.Exec(sql); err != nil {
			t.Fatal(err)
		}
	}
	db.putReader(c)
	dfs, n, err := db.TermDocFreqs(ctx, []string{"router", "printer", "fax"})
	if err != nil || n != 2 || len(dfs) != 3 || dfs[0] != 1 || dfs[1] != 1 || dfs[2] != 0 {
		t.Fatalf("TermDocFreqs = %v, %d, %v; want [1 1 0], 2", dfs, n, err)
	}
	classes, err := db.FTSRuneClasses(ctx, []rune{'a', '-'})
	if err != nil || classes[0].Alone != "a" || classes[1].Alone != "" {
		t.Fatalf("FTSRuneClasses = %+v, %v", classes, err)
	}
}

// A write cancelled while one of the writer's cached statements is stopped
// mid-step rolls back cleanly: SQLite kept the interrupt pending while that
// statement ran, the ROLLBACK was interrupted too, and the driver panicked
// (seen as a rare crash of TestCancelLeavesConsistentIndexAndResumes).
func TestACancelledWriteRollsBackWithAStatementMidStep(t *testing.T) {
	db := openTemp(t)
	f, _ := db.AddFolder(ctx, "/d")
	wctx, cancel := context.WithCancel(ctx)
	err := db.tx(wctx, func(c *sqlite3.Conn) error {
		if err := exec(c, `INSERT INTO folders(path, added_at) VALUES ('/e', 1)`); err != nil {
			return err
		}
		s, err := db.stmt(`WITH RECURSIVE n(x) AS (VALUES(0) UNION ALL SELECT x+1 FROM n LIMIT 10000000) SELECT x FROM n`)
		if err != nil {
			return err
		}
		if !s.Step() {
			return s.Err()
		}
		cancel()                                                               // s has stopped on its first row, still running
		return exec(c, `INSERT INTO folders(path, added_at) VALUES ('/f', 1)`) // interrupted
	})
	if err == nil {
		t.Fatal("the cancelled write reported no error")
	}
	folders, err := db.Folders(ctx)
	if err != nil || len(folders) != 1 || folders[0].ID != f.ID {
		t.Fatalf("folders after the rollback: %+v, %v", folders, err)
	}
	if _, err := db.AddFolder(ctx, "/g"); err != nil {
		t.Errorf("the next write: %v", err)
	}
}

// TestHealthSaysABusyFullTextCheckDidNotRun: a writer holding the lock
// past the busy timeout keeps FTS5's check (a write) from running; Health
// says so, with STORE-002, instead of calling a sound index out of step.
// It waits out the 10 s busy timeout, beside the package's other tests.
func TestHealthSaysABusyFullTextCheckDidNotRun(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "kb.db")
	db, err := Open(path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	f, _ := db.AddFolder(ctx, "/d")
	if _, _, err := db.PutDocument(ctx, Document{FolderID: f.ID, Path: "/d/a", Hash: "h"}, chunks("x"), nil); err != nil {
		t.Fatal(err)
	}
	other, err := sqlite3.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	if err := other.Exec(`BEGIN IMMEDIATE`); err != nil {
		t.Fatal(err)
	}
	h, err := db.Health(ctx)
	if fe, ok := fault.As(err); !ok || fe.Code != fault.StoreBusy || !errors.Is(err, sqlite3.BUSY) || h.FTS != "" {
		t.Fatalf("health %+v, %v: want STORE-002 and no verdict on the index", h, err)
	}
	if err := other.Exec(`ROLLBACK`); err != nil {
		t.Fatal(err)
	}
	if h, err := db.Health(ctx); err != nil || len(h.Problems()) != 0 {
		t.Fatalf("health once the writer is gone: %+v, %v", h, err)
	}
}

// A transaction the writer could not end (FTS5 keeps a blob handle open
// mid-insert, and SQLite then interrupts the ROLLBACK too) is ended by
// replacing the writer connection: its work is rolled back, the write lock
// is free for the check that follows, and the next write goes through. A
// cancelled index run under load left "database is locked" for every later
// write before (core/ingest's TestCancelLeavesConsistentIndexAndResumes,
// about 1 in 60 runs with four copies on two cores).
func TestAWriterWhoseTransactionCannotEndIsReplaced(t *testing.T) {
	db, err := Open(filepath.Join(t.TempDir(), "kb.db"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	f, _ := db.AddFolder(ctx, "/d")
	db.wmu.Lock()
	if err := db.w.Exec(`BEGIN IMMEDIATE; INSERT INTO meta(key, value) VALUES ('left', 'open')`); err != nil {
		t.Fatal(err)
	}
	err = db.reopenWriter()
	db.wmu.Unlock()
	if err != nil {
		t.Fatal(err)
	}
	if problems, err := db.Check(ctx); err != nil || len(problems) > 0 {
		t.Fatalf("check after the writer was replaced: %v %v", problems, err)
	}
	if _, _, err := db.PutDocument(ctx, Document{FolderID: f.ID, Path: "/d/a", Hash: "h"}, chunks("x"), nil); err != nil {
		t.Fatalf("write after the writer was replaced: %v", err)
	}
	var left int
	db.read(ctx, func(c *sqlite3.Conn) error {
		return query(c, `SELECT count(*) FROM meta WHERE key = 'left'`, nil, func(s *sqlite3.Stmt) error { left = s.ColumnInt(0); return nil })
	})
	if left != 0 {
		t.Error("the open transaction's row was kept")
	}
}

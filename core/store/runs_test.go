package store

import (
	"cairn/core/domain"
	"testing"
)

// TestRunWhoseProcessIsGoneIsInterrupted: a run recorded as running is
// shown as running while its indexing lock is held and as interrupted,
// with the counts it recorded, once the lock is free (issue 14, item 8).
func TestRunWhoseProcessIsGoneIsInterrupted(t *testing.T) {
	db := openTemp(t)
	if busy, err := db.Indexing(); busy || err != nil {
		t.Fatalf("before any run: busy %v, %v", busy, err)
	}
	unlock, err := db.LockIndexing()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.AddFolder(ctx, "/docs"); err != nil {
		t.Fatal(err)
	}
	id, err := db.StartRun(ctx, "/docs")
	if err != nil {
		t.Fatal(err)
	}
	err = db.Update(ctx, func(tx *Tx) error {
		return tx.RecordRunProgress(domain.Run{ID: id, FilesSeen: 10, FilesIndexed: 4, FilesFailed: 1, Chunks: 9})
	})
	if err != nil {
		t.Fatal(err)
	}
	check := func(when, status string, busy bool) {
		t.Helper()
		st, err := db.Stats(ctx)
		if err != nil {
			t.Fatal(err)
		}
		r := st.LastRun
		if r == nil || r.Status != status || r.FilesSeen != 10 || r.FilesIndexed != 4 || r.FilesFailed != 1 || r.Chunks != 9 {
			t.Errorf("%s: last run %+v, want %s with the recorded counts", when, r, status)
		}
		if b, err := db.Indexing(); b != busy || err != nil {
			t.Errorf("%s: Indexing() = %v, %v; want %v", when, b, err, busy)
		}
		if runs, _ := db.Runs(ctx, 1); len(runs) != 1 || runs[0].Status != status {
			t.Errorf("%s: Runs %+v", when, runs)
		}
		if fs, _ := db.Folders(ctx); len(fs) != 1 || fs[0].LastRun == nil || fs[0].LastRun.Status != status {
			t.Errorf("%s: folders %+v", when, fs)
		}
	}
	check("while the lock is held", domain.RunRunning, true)
	unlock() // the process that held it is gone
	check("after the lock is released", domain.RunInterrupted, false)
}

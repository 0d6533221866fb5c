package store

import (
	"cairn/core/domain"
	"context"
	"fmt"
	"time"

	"github.com/ncruces/go-sqlite3"
)

// StartRun records the start of a run over folder and returns its id. The
// caller holds the indexing lock (LockIndexing), so runs still marked as
// running were left by a process that died: they are marked interrupted.
func (db *DB) StartRun(ctx context.Context, folder string) (int64, error) {
	var id int64
	err := db.write(ctx, func(c *sqlite3.Conn) error {
		if err := exec(c, `UPDATE index_runs SET status = ?, finished_at = started_at WHERE status = ?`,
			domain.RunInterrupted, domain.RunRunning); err != nil {
			return err
		}
		if err := exec(c, `INSERT INTO index_runs(folder, started_at, status) VALUES (?, ?, ?)`,
			folder, time.Now().UnixMilli(), domain.RunRunning); err != nil {
			return fmt.Errorf("start run: %w", err)
		}
		id = c.LastInsertRowID()
		return nil
	})
	return id, err
}

// FinishRun records the outcome of a run. It runs even when the run's
// context was cancelled, so pass a live context.
func (db *DB) FinishRun(ctx context.Context, r domain.Run) error {
	return db.write(ctx, func(c *sqlite3.Conn) error {
		return exec(c, `UPDATE index_runs SET finished_at = ?, status = ?, files_seen = ?, files_indexed = ?,
			files_unchanged = ?, files_skipped = ?, files_failed = ?, files_removed = ?, chunks = ?, bytes = ?, error = ?
			WHERE id = ?`,
			time.Now().UnixMilli(), r.Status, r.FilesSeen, r.FilesIndexed, r.FilesUnchanged, r.FilesSkipped,
			r.FilesFailed, r.FilesRemoved, r.Chunks, r.Bytes, r.Error, r.ID)
	})
}

// RecordRunProgress records r's counts so far in the transaction that
// writes the files they count: a run that dies keeps the counts of what it
// committed.
func (tx *Tx) RecordRunProgress(r domain.Run) error {
	s, err := tx.db.stmt(`UPDATE index_runs SET files_seen = ?, files_indexed = ?, files_unchanged = ?, files_skipped = ?,
		files_failed = ?, files_removed = ?, chunks = ?, bytes = ? WHERE id = ?`)
	if err != nil {
		return err
	}
	if err := bind(s, r.FilesSeen, r.FilesIndexed, r.FilesUnchanged, r.FilesSkipped, r.FilesFailed, r.FilesRemoved,
		r.Chunks, r.Bytes, r.ID); err != nil {
		return err
	}
	return s.Exec()
}

// Runs returns the most recent runs, newest first.
func (db *DB) Runs(ctx context.Context, limit int) ([]domain.Run, error) {
	var out []domain.Run
	err := db.read(ctx, func(c *sqlite3.Conn) error {
		var err error
		out, err = db.listRuns(c, `ORDER BY id DESC LIMIT ?`, limit)
		return err
	})
	return out, err
}

// listRuns reads runs. A run recorded as running whose indexing lock is
// free was left by a process that died (killed, or stopped by a full disk
// before it could record the end): it is shown as interrupted, with the
// counts it committed. StartRun records that verdict at the next run.
func (db *DB) listRuns(c *sqlite3.Conn, tail string, args ...any) ([]domain.Run, error) {
	runs, err := readRuns(c, tail, args...)
	if err != nil {
		return nil, err
	}
	for i := range runs {
		if runs[i].Status != domain.RunRunning {
			continue
		}
		if busy, err := db.Indexing(); err == nil && !busy {
			runs[i].Status = domain.RunInterrupted
		}
	}
	return runs, nil
}

func readRuns(c *sqlite3.Conn, tail string, args ...any) ([]domain.Run, error) {
	var out []domain.Run
	err := query(c, `SELECT id, folder, started_at, finished_at, status, files_seen, files_indexed, files_unchanged,
		files_skipped, files_failed, files_removed, chunks, bytes, error FROM index_runs `+tail, args,
		func(s *sqlite3.Stmt) error {
			r := domain.Run{ID: s.ColumnInt64(0), Folder: s.ColumnText(1), StartedAt: time.UnixMilli(s.ColumnInt64(2)),
				Status: s.ColumnText(4), FilesSeen: s.ColumnInt(5), FilesIndexed: s.ColumnInt(6),
				FilesUnchanged: s.ColumnInt(7), FilesSkipped: s.ColumnInt(8), FilesFailed: s.ColumnInt(9),
				FilesRemoved: s.ColumnInt(10), Chunks: s.ColumnInt(11), Bytes: s.ColumnInt64(12), Error: s.ColumnText(13)}
			if f := s.ColumnInt64(3); f != 0 {
				r.FinishedAt = time.UnixMilli(f)
			}
			out = append(out, r)
			return nil
		})
	return out, err
}

package store

import (
	"context"
	"fmt"
	"os"
	"strings"

	"github.com/ncruces/go-sqlite3"
)

// Stats summarises a knowledge base.
type Stats struct {
	Path          string
	Documents     int
	Chunks        int
	Vectors       int // chunks with an embedding
	Issues        int
	Folders       int
	Bytes         int64 // database file plus its WAL
	VectorModel   string
	VectorDim     int
	SchemaVersion int
	LastRun       *Run
}

// Stats counts what the knowledge base holds.
func (db *DB) Stats(ctx context.Context) (Stats, error) {
	st := Stats{Path: db.path}
	for _, suffix := range []string{"", "-wal"} {
		if fi, err := os.Stat(db.path + suffix); err == nil {
			st.Bytes += fi.Size()
		}
	}
	err := db.read(ctx, func(c *sqlite3.Conn) error {
		err := query(c, `SELECT (SELECT count(*) FROM documents), (SELECT count(*) FROM chunks),
			(SELECT count(*) FROM chunks WHERE vec = 1), (SELECT count(*) FROM file_issues),
			(SELECT count(*) FROM folders)`, nil, func(s *sqlite3.Stmt) error {
			st.Documents, st.Chunks, st.Vectors, st.Issues, st.Folders = s.ColumnInt(0), s.ColumnInt(1), s.ColumnInt(2), s.ColumnInt(3), s.ColumnInt(4)
			return nil
		})
		if err != nil {
			return err
		}
		if st.VectorModel, st.VectorDim, err = vectorModel(c); err != nil {
			return err
		}
		if st.SchemaVersion, err = userVersion(c); err != nil {
			return err
		}
		runs, err := listRuns(c, `ORDER BY id DESC LIMIT 1`)
		if len(runs) > 0 {
			st.LastRun = &runs[0]
		}
		return err
	})
	return st, err
}

// Check verifies the knowledge base: SQLite's integrity check, the FTS5
// index against the chunks, chunks whose document is gone, and vectors
// against the chunks marked as embedded. It returns one line per problem;
// none means healthy.
func (db *DB) Check(ctx context.Context) ([]string, error) {
	var problems []string
	err := db.read(ctx, func(c *sqlite3.Conn) error {
		err := query(c, `PRAGMA integrity_check`, nil, func(s *sqlite3.Stmt) error {
			if v := s.ColumnText(0); v != "ok" {
				problems = append(problems, "integrity: "+v)
			}
			return nil
		})
		if err != nil {
			return fmt.Errorf("integrity check: %w", err)
		}
		if err := c.Exec(`INSERT INTO chunks_fts(chunks_fts, rank) VALUES ('integrity-check', 1)`); err != nil {
			if !strings.Contains(err.Error(), "readonly") {
				problems = append(problems, "full-text index out of step with chunks: "+err.Error())
			}
		}
		counts := []struct {
			sql, msg string
		}{
			{`SELECT count(*) FROM chunks c LEFT JOIN documents d ON d.id = c.document_id WHERE d.id IS NULL`, "chunks without a document"},
			{`SELECT count(*) FROM documents d LEFT JOIN folders f ON f.id = d.folder_id WHERE f.id IS NULL`, "documents without a folder"},
		}
		if _, dim, err := vectorModel(c); err == nil && dim > 0 {
			counts = append(counts,
				struct{ sql, msg string }{`SELECT (SELECT count(*) FROM chunks WHERE vec = 1) - (SELECT count(*) FROM chunks_vec)`, "difference between embedded chunks and stored vectors"},
				struct{ sql, msg string }{`SELECT (SELECT count(*) FROM chunks WHERE vec = 1) - (SELECT count(*) FROM chunk_vq)`, "difference between embedded chunks and quantized vectors"},
				struct{ sql, msg string }{`SELECT (SELECT count(*) FROM chunk_vq) - coalesce((SELECT count FROM vq_stats), 0)`, "difference between quantized vectors and their running count"},
			)
		}
		for _, q := range counts {
			err := query(c, q.sql, nil, func(s *sqlite3.Stmt) error {
				if n := s.ColumnInt(0); n != 0 {
					problems = append(problems, fmt.Sprintf("%s: %d", q.msg, n))
				}
				return nil
			})
			if err != nil {
				return err
			}
		}
		return nil
	})
	return problems, err
}

// Checkpoint copies the write-ahead log into the database file and empties
// it, so the file alone holds everything (for measuring, backups).
func (db *DB) Checkpoint(ctx context.Context) error {
	return db.write(ctx, func(c *sqlite3.Conn) error { return c.Exec(`PRAGMA wal_checkpoint(TRUNCATE)`) })
}

package store

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"

	"github.com/ncruces/go-sqlite3"

	"cairn/core/domain"
	"cairn/core/fault"
)

// Stats counts what the knowledge base holds.
func (db *DB) Stats(ctx context.Context) (domain.Stats, error) {
	st := domain.Stats{Path: db.path}
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
		runs, err := db.listRuns(c, `ORDER BY id DESC LIMIT 1`)
		if len(runs) > 0 {
			st.LastRun = &runs[0]
		}
		return err
	})
	return st, err
}

// Health is the outcome of every check of a knowledge base's consistency.
// Empty fields mean healthy.
type Health struct {
	Integrity []string // PRAGMA integrity_check's complaints (at most 20)
	FTS       string   // the FTS5 integrity-check's error: the index is out of step with the chunks
	Orphans   []string // chunks without a document, documents without a folder
	Vectors   []string // vectors out of step with the chunks, or with the recorded model
	// Unembedded counts chunks still waiting for a vector of the recorded
	// model (after a model change or a failed embedding): not damage, the
	// next index run computes them.
	Unembedded int
}

// Problems lists every problem on one line each; none means healthy.
func (h Health) Problems() []string {
	var out []string
	for _, p := range h.Integrity {
		out = append(out, "integrity: "+p)
	}
	if h.FTS != "" {
		out = append(out, "full-text index out of step with chunks: "+h.FTS)
	}
	out = append(out, h.Orphans...)
	return append(out, h.Vectors...)
}

// Check verifies the knowledge base (see Health) and returns one line per
// problem; none means healthy.
func (db *DB) Check(ctx context.Context) ([]string, error) {
	h, err := db.Health(ctx)
	return h.Problems(), err
}

// Health runs every check: SQLite's integrity check, the FTS5 index against
// the chunks, chunks whose document is gone, and vectors against the chunks
// marked as embedded and the dimension the meta table records.
//
// It runs on a connection of its own: FTS5's part of PRAGMA integrity_check
// (SQLite 3.47) judges by the structure a connection cached when it last
// read the index, so a pooled reader that searched before the latest writes
// reports a sound index as malformed. FTS5's own check is an INSERT that
// changes nothing, so the connection may write even when db is read-only
// (the doctor's), if the file lets it; otherwise that check is skipped.
func (db *DB) Health(ctx context.Context) (Health, error) {
	var h Health
	c, err := openConn(db.path, false)
	if err != nil && db.ro {
		c, err = openConn(db.path, true)
	}
	if err != nil {
		return h, classify(db.path, err)
	}
	defer c.Close()
	old := c.SetInterrupt(ctx)
	defer c.SetInterrupt(old)
	err = classify(db.path, func() error {
		err := query(c, `PRAGMA integrity_check(20)`, nil, func(s *sqlite3.Stmt) error {
			if v := s.ColumnText(0); v != "ok" {
				// Rows may carry a "*** in database main ***" header line.
				v = strings.TrimSpace(strings.TrimPrefix(v, "*** in database main ***"))
				h.Integrity = append(h.Integrity, strings.ReplaceAll(v, "\n", "; "))
			}
			return nil
		})
		if err != nil {
			if errors.Is(err, sqlite3.CORRUPT) || errors.Is(err, sqlite3.NOTADB) {
				h.Integrity = append(h.Integrity, err.Error())
				return nil // nothing further can be trusted
			}
			return fmt.Errorf("integrity check: %w", err)
		}
		if err := c.Exec(`INSERT INTO chunks_fts(chunks_fts, rank) VALUES ('integrity-check', 1)`); err != nil {
			switch {
			case errors.Is(err, sqlite3.BUSY):
				// Another connection held the write lock past the busy
				// timeout: the check did not run, which says nothing of
				// the index.
				return fault.New(fault.StoreBusy, "the full-text index of "+db.path+" could not be checked: another program kept writing to it",
					"run the check again once that indexing is done", err)
			case !strings.Contains(err.Error(), "readonly"):
				h.FTS = err.Error()
			}
		}
		type count struct{ sql, msg string }
		orphans := []count{
			{`SELECT count(*) FROM chunks c LEFT JOIN documents d ON d.id = c.document_id WHERE d.id IS NULL`, "chunks without a document"},
			{`SELECT count(*) FROM documents d LEFT JOIN folders f ON f.id = d.folder_id WHERE f.id IS NULL`, "documents without a folder"},
		}
		var vectors []count
		_, dim, err := vectorModel(c)
		if err != nil {
			return err
		}
		if dim > 0 {
			vectors = []count{
				{`SELECT (SELECT count(*) FROM chunks WHERE vec = 1) - (SELECT count(*) FROM chunks_vec)`, "difference between embedded chunks and stored vectors"},
				{`SELECT (SELECT count(*) FROM chunks WHERE vec = 1) - (SELECT count(*) FROM chunk_vq)`, "difference between embedded chunks and quantized vectors"},
				{`SELECT (SELECT count(*) FROM chunk_vq) - coalesce((SELECT count FROM vq_stats), 0)`, "difference between quantized vectors and their running count"},
				{fmt.Sprintf(`SELECT count(*) FROM chunks_vec WHERE length(embedding) != %d`, 4*dim), fmt.Sprintf("vectors whose length is not the recorded %d dimensions", dim)},
			}
			if err := query(c, `SELECT count(*) FROM chunks WHERE vec = 0`, nil, func(s *sqlite3.Stmt) error {
				h.Unembedded = s.ColumnInt(0)
				return nil
			}); err != nil {
				return err
			}
			if d := tableDim(c); d != dim {
				h.Vectors = append(h.Vectors, fmt.Sprintf("the vector table holds %d dimensions, the meta table records %d", d, dim))
			}
		} else if err := query(c, `SELECT count(*) FROM chunks WHERE vec = 1`, nil, func(s *sqlite3.Stmt) error {
			if n := s.ColumnInt(0); n != 0 {
				h.Vectors = append(h.Vectors, fmt.Sprintf("chunks marked as embedded with no embedding model recorded: %d", n))
			}
			return nil
		}); err != nil {
			return err
		}
		run := func(qs []count, into *[]string) error {
			for _, q := range qs {
				err := query(c, q.sql, nil, func(s *sqlite3.Stmt) error {
					if n := s.ColumnInt(0); n != 0 {
						*into = append(*into, fmt.Sprintf("%s: %d", q.msg, n))
					}
					return nil
				})
				if err != nil {
					return err
				}
			}
			return nil
		}
		if err := run(orphans, &h.Orphans); err != nil {
			return err
		}
		return run(vectors, &h.Vectors)
	}())
	return h, err
}

// tableDim reads the dimension chunks_vec was created with from its
// definition; 0 when there is no such table.
func tableDim(c *sqlite3.Conn) int {
	var sql string
	query(c, `SELECT sql FROM sqlite_schema WHERE name = 'chunks_vec'`, nil, func(s *sqlite3.Stmt) error {
		sql = s.ColumnText(0)
		return nil
	})
	_, rest, ok := strings.Cut(sql, "float[")
	if !ok {
		return 0
	}
	n, _ := strconv.Atoi(rest[:max(0, strings.IndexByte(rest, ']'))])
	return n
}

// Checkpoint copies the write-ahead log into the database file and empties
// it, so the file alone holds everything (for measuring, backups).
func (db *DB) Checkpoint(ctx context.Context) error {
	return db.write(ctx, func(c *sqlite3.Conn) error { return c.Exec(`PRAGMA wal_checkpoint(TRUNCATE)`) })
}

package store

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/ncruces/go-sqlite3"

	"cairn/core/chunk"
	"cairn/core/domain"
)

// Tx is a write transaction: every change made through it is committed
// together, or none is. The indexer groups several files into one Tx; each
// file is still either fully written or not at all.
type Tx struct {
	db *DB
	c  *sqlite3.Conn
}

// Update runs fn in one write transaction, committed when fn returns nil.
// The Tx must not be used after fn returns.
func (db *DB) Update(ctx context.Context, fn func(tx *Tx) error) error {
	return db.tx(ctx, func(c *sqlite3.Conn) error { return fn(&Tx{db: db, c: c}) })
}

// PutDocument stores doc and its chunks, replacing any earlier version of
// the same path, and clears the path's recorded issue. vectors, when not
// nil, holds one embedding per chunk. It returns the document's id and the
// ids of its chunks in order.
func (tx *Tx) PutDocument(doc Document, chunks []chunk.Chunk, vectors [][]float32) (int64, []int64, error) {
	db := tx.db
	if vectors != nil && len(vectors) != len(chunks) {
		return 0, nil, fmt.Errorf("put %s: %d vectors for %d chunks", doc.Path, len(vectors), len(chunks))
	}
	if vectors != nil && db.vecDim == 0 {
		return 0, nil, errors.New("no vector table: set the embedding model first")
	}
	old, err := db.documentID(doc.Path)
	if err != nil {
		return 0, nil, err
	}
	if old != 0 {
		if err := db.deleteChunks(old); err != nil {
			return 0, nil, err
		}
	}
	// An INSERT or an UPDATE, never an upsert: with foreign keys on, SQLite
	// compiles an upsert's UPDATE branch with a scan of the chunks that
	// reference the row, and runs it for every new document (measured on
	// 18K man pages: 8 of 15 s of the writer's SQLite time).
	sql := `INSERT INTO documents(folder_id, path, size, mtime_ns, hash, title, format, unit_kind, units, chars, warnings, indexed_at, fts_title)
		VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13)`
	if old != 0 {
		sql = `UPDATE documents SET folder_id=?1, size=?3, mtime_ns=?4, hash=?5, title=?6, format=?7,
			unit_kind=?8, units=?9, chars=?10, warnings=?11, indexed_at=?12, fts_title=?13 WHERE path=?2`
	}
	s, err := db.stmt(sql)
	if err != nil {
		return 0, nil, err
	}
	if err := bind(s, doc.FolderID, doc.Path, doc.Size, doc.MTimeNS, doc.Hash, doc.Title, doc.Format,
		doc.UnitKind, doc.Units, doc.Chars, strings.Join(doc.Warnings, "\n"), time.Now().Unix(), ftsForm(doc.Title)); err != nil {
		return 0, nil, err
	}
	if err := s.Exec(); err != nil {
		return 0, nil, fmt.Errorf("put document %s: %w", doc.Path, err)
	}
	docID := old
	if docID == 0 {
		docID = tx.c.LastInsertRowID()
	}
	next, err := db.nextChunkID()
	if err != nil {
		return 0, nil, err
	}
	ins, err := db.stmt(`INSERT INTO chunks(id, document_id, ordinal, text, heading, unit_kind, page, label, line_start, line_end, char_start, char_end, fts_text, fts_heading)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`)
	if err != nil {
		return 0, nil, err
	}
	fts, err := db.stmt(`INSERT INTO chunks_fts(rowid, text, heading, title) VALUES (?, ?, ?, ?)`)
	if err != nil {
		return 0, nil, err
	}
	ids := make([]int64, len(chunks))
	ftsTitle := ftsForm(doc.Title)
	for i, ch := range chunks {
		ins.Reset()
		ids[i] = next + int64(i)
		ftsText, ftsHeading := ftsForm(ch.Text), ftsForm(ch.Heading)
		if err := bind(ins, ids[i], docID, ch.Ordinal, ch.Text, ch.Heading, string(ch.Unit), ch.Page, ch.Label,
			ch.LineStart, ch.LineEnd, ch.Start, ch.End, ftsText, ftsHeading); err != nil {
			return 0, nil, err
		}
		if err := ins.Exec(); err != nil {
			return 0, nil, fmt.Errorf("put chunk %d of %s: %w", i, doc.Path, err)
		}
		fts.Reset()
		if err := bind(fts, ids[i], orText(ftsText, ch.Text), orText(ftsHeading, ch.Heading), orText(ftsTitle, doc.Title)); err != nil {
			return 0, nil, err
		}
		if err := fts.Exec(); err != nil {
			return 0, nil, fmt.Errorf("index chunk %d of %s: %w", i, doc.Path, err)
		}
	}
	if vectors != nil {
		if err := db.insertVectors(ids, vectors); err != nil {
			return 0, nil, fmt.Errorf("put vectors of %s: %w", doc.Path, err)
		}
	}
	if err := tx.clearIssue(doc.Path); err != nil {
		return 0, nil, err
	}
	return docID, ids, nil
}

// nextChunkID is the id for a new chunk: above every chunk id there is and
// every one ever deleted (migration 4), so an id always names one passage.
func (db *DB) nextChunkID() (int64, error) {
	s, err := db.stmt(`SELECT max(coalesce((SELECT max(id) FROM chunks), 0),
		coalesce((SELECT CAST(value AS INTEGER) FROM meta WHERE key = 'chunk_id_high'), 0)) + 1`)
	if err != nil {
		return 0, err
	}
	defer s.Reset()
	if !s.Step() {
		return 0, fmt.Errorf("next chunk id: %w", s.Err())
	}
	return s.ColumnInt64(0), nil
}

func (tx *Tx) clearIssue(path string) error {
	del, err := tx.db.stmt(`DELETE FROM file_issues WHERE path = ?`)
	if err != nil {
		return err
	}
	del.BindText(1, path)
	return del.Exec()
}

// TouchDocument records a new size and modification time for a file whose
// content hash did not change, so the next run skips it without hashing.
func (tx *Tx) TouchDocument(id, size, mtimeNS int64) error {
	s, err := tx.db.stmt(`UPDATE documents SET size = ?, mtime_ns = ? WHERE id = ?`)
	if err != nil {
		return err
	}
	if err := bind(s, size, mtimeNS, id); err != nil {
		return err
	}
	return s.Exec()
}

// DeletePath removes the document and the issue recorded for path.
func (tx *Tx) DeletePath(path string) error {
	db := tx.db
	id, err := db.documentID(path)
	if err != nil {
		return err
	}
	if id != 0 {
		if err := db.deleteChunks(id); err != nil {
			return err
		}
		s, err := db.stmt(`DELETE FROM documents WHERE id = ?`)
		if err != nil {
			return err
		}
		s.BindInt64(1, id)
		if err := s.Exec(); err != nil {
			return fmt.Errorf("delete %s: %w", path, err)
		}
	}
	return tx.clearIssue(path)
}

// RecordIssue notes why a file is not indexed, removing any document
// indexed from an earlier version of it.
func (tx *Tx) RecordIssue(folderID int64, is domain.Issue) error {
	if err := tx.DeletePath(is.Path); err != nil {
		return err
	}
	s, err := tx.db.stmt(`INSERT INTO file_issues(path, folder_id, kind, reason, size, mtime_ns, run_id, at, hash, retry)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`)
	if err != nil {
		return err
	}
	if err := bind(s, is.Path, folderID, is.Kind, is.Reason, is.Size, is.MTimeNS, is.RunID, time.Now().Unix(), is.Hash, is.Retry); err != nil {
		return err
	}
	return s.Exec()
}

func (db *DB) documentID(path string) (int64, error) {
	s, err := db.stmt(`SELECT id FROM documents WHERE path = ?`)
	if err != nil {
		return 0, err
	}
	s.BindText(1, path)
	defer s.Reset()
	if s.Step() {
		return s.ColumnInt64(0), nil
	}
	return 0, s.Err()
}

// deleteChunks removes a document's chunks with their index entries and
// vectors.
func (db *DB) deleteChunks(docID int64) error {
	if err := db.deleteVectors(db.w, `document_id = ?`, docID); err != nil {
		return err
	}
	unindex, err := db.stmt(`INSERT INTO chunks_fts(chunks_fts, rowid, text, heading, title)
		SELECT 'delete', s.id, s.text, s.heading, s.title FROM chunk_fts_source s JOIN chunks c ON c.id = s.id
		WHERE c.document_id = ?`)
	if err != nil {
		return err
	}
	unindex.BindInt64(1, docID)
	if err := unindex.Exec(); err != nil {
		return fmt.Errorf("unindex chunks of document %d: %w", docID, err)
	}
	s, err := db.stmt(`DELETE FROM chunks WHERE document_id = ?`)
	if err != nil {
		return err
	}
	s.BindInt64(1, docID)
	if err := s.Exec(); err != nil {
		return fmt.Errorf("delete chunks of document %d: %w", docID, err)
	}
	return nil
}

// orText is the full-text form f (from ftsForm) or, when it is nil, s.
func orText(f any, s string) string {
	if f == nil {
		return s
	}
	return f.(string)
}

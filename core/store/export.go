package store

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/ncruces/go-sqlite3"

	"cairn/core/chunk"
	"cairn/core/extract"
)

// Documents lists the documents of a folder (all folders when folderID is
// 0), by path, without their chunks: what `cairn migrate` moves, one at a
// time.
func (db *DB) Documents(ctx context.Context, folderID int64) ([]Document, error) {
	var out []Document
	where, args := "", []any(nil)
	if folderID != 0 {
		where, args = "WHERE folder_id = ?", []any{folderID}
	}
	err := db.read(ctx, func(c *sqlite3.Conn) error {
		return query(c, `SELECT id, folder_id, path, size, mtime_ns, hash, title, format, unit_kind, units, chars, warnings, indexed_at
			FROM documents `+where+` ORDER BY path`, args, func(s *sqlite3.Stmt) error {
			d := Document{ID: s.ColumnInt64(0), FolderID: s.ColumnInt64(1), Path: s.ColumnText(2), Size: s.ColumnInt64(3),
				MTimeNS: s.ColumnInt64(4), Hash: s.ColumnText(5), Title: s.ColumnText(6), Format: s.ColumnText(7),
				UnitKind: s.ColumnText(8), Units: s.ColumnInt(9), Chars: s.ColumnInt(10), IndexedAt: time.Unix(s.ColumnInt64(12), 0)}
			if w := s.ColumnText(11); w != "" {
				d.Warnings = strings.Split(w, "\n")
			}
			out = append(out, d)
			return nil
		})
	})
	return out, err
}

// DocumentContent returns a document's chunks in order, as the chunker
// made them, with their vectors (nil when the knowledge base holds none
// for them: no embedding model, or not yet embedded), read in one
// transaction, so an index run cannot change them half-way.
func (db *DB) DocumentContent(ctx context.Context, docID int64) ([]chunk.Chunk, [][]float32, error) {
	var chunks []chunk.Chunk
	var ids []int64
	var vecs map[int64][]float32
	err := db.read(ctx, func(c *sqlite3.Conn) (err error) {
		// One read transaction: one snapshot for the chunks and vectors.
		t := c.Begin()
		defer t.End(&err)
		err = query(c, `SELECT id, ordinal, text, heading, unit_kind, page, label, line_start, line_end, char_start, char_end
			FROM chunks WHERE document_id = ? ORDER BY ordinal`, []any{docID}, func(s *sqlite3.Stmt) error {
			ids = append(ids, s.ColumnInt64(0))
			chunks = append(chunks, chunk.Chunk{Ordinal: s.ColumnInt(1), Text: s.ColumnText(2), Heading: s.ColumnText(3),
				Unit: extract.UnitKind(s.ColumnText(4)), Page: s.ColumnInt(5), Label: s.ColumnText(6), LineStart: s.ColumnInt(7), LineEnd: s.ColumnInt(8),
				Start: s.ColumnInt(9), End: s.ColumnInt(10)})
			return nil
		})
		if err != nil {
			return err
		}
		vecs, err = vectors(c, ids)
		return err
	})
	if err != nil || len(vecs) == 0 {
		return chunks, nil, err
	}
	if len(vecs) != len(ids) {
		return nil, nil, fmt.Errorf("%d of the %d chunks of document %d have vectors: run `cairn index` to embed the rest first", len(vecs), len(ids), docID)
	}
	out := make([][]float32, len(ids))
	for i, id := range ids {
		out[i] = vecs[id]
	}
	return chunks, out, nil
}

// Vectors returns the stored vectors of chunks ids; chunks without one are
// absent.
func (db *DB) Vectors(ctx context.Context, ids []int64) (map[int64][]float32, error) {
	var out map[int64][]float32
	err := db.read(ctx, func(c *sqlite3.Conn) error {
		var err error
		out, err = vectors(c, ids)
		return err
	})
	return out, err
}

func vectors(c *sqlite3.Conn, ids []int64) (map[int64][]float32, error) {
	out := make(map[int64][]float32, len(ids))
	if _, dim, err := vectorModel(c); err != nil || dim == 0 {
		return out, err
	}
	for len(ids) > 0 {
		n := min(len(ids), 500) // far below SQLite's parameter limit
		args := make([]any, n)
		for i, id := range ids[:n] {
			args[i] = id
		}
		ids = ids[n:]
		err := query(c, `SELECT rowid, embedding FROM chunks_vec WHERE rowid IN (`+strings.Repeat("?,", n-1)+`?)`, args,
			func(s *sqlite3.Stmt) error {
				out[s.ColumnInt64(0)] = DecodeVector(s.ColumnRawBlob(1))
				return nil
			})
		if err != nil {
			return nil, fmt.Errorf("read vectors: %w", err)
		}
	}
	return out, nil
}

package store

import (
	"cairn/core/domain"
	"context"
	"fmt"
	"strings"

	"github.com/ncruces/go-sqlite3"
	"golang.org/x/text/cases"
	"golang.org/x/text/unicode/norm"
)

// filterSQL returns f as a WHERE fragment over documents aliased d, and its args.
func filterSQL(f domain.Filter) (string, []any) {
	parts := []string{"1"}
	var args []any
	if len(f.PathPrefixes) > 0 {
		var or []string
		for _, p := range f.PathPrefixes {
			or = append(or, `substr(d.path, 1, length(?)) = ?`)
			args = append(args, p, p)
		}
		parts = append(parts, "("+strings.Join(or, " OR ")+")")
	}
	for _, p := range f.Without {
		parts = append(parts, `substr(d.path, 1, length(?)) <> ?`)
		args = append(args, p, p)
	}
	if len(f.Types) > 0 {
		var or []string
		for _, t := range f.Types {
			t = strings.ToLower(strings.TrimPrefix(t, "."))
			or = append(or, `d.format = ? OR d.path LIKE ?`)
			args = append(args, t, "%."+t)
		}
		parts = append(parts, "("+strings.Join(or, " OR ")+")")
	}
	if !f.Since.IsZero() {
		parts = append(parts, `d.mtime_ns >= ?`)
		args = append(args, f.Since.UnixNano())
	}
	if !f.Until.IsZero() {
		parts = append(parts, `d.mtime_ns < ?`)
		args = append(args, f.Until.UnixNano())
	}
	if len(f.Contains) > 0 {
		// Case is folded in every script (cairn_fold), not only ASCII's as
		// SQLite's lower() folds it. The subquery runs once per statement:
		// the Go function is called once per document, not per chunk (as
		// fast as lower() was, 20,000 documents in about 0.1 s).
		var and []string
		for _, c := range f.Contains {
			and = append(and, `(instr(cairn_fold(path), ?) > 0 OR instr(cairn_fold(title), ?) > 0)`)
			c = fold(c)
			args = append(args, c, c)
		}
		parts = append(parts, `d.id IN (SELECT id FROM documents WHERE `+strings.Join(and, " AND ")+`)`)
	}
	return strings.Join(parts, " AND "), args
}

// fold is text as a filter compares it: case folded in every script
// (Übersicht, übersicht and ÜBERSICHT alike; ß as ss), composed (a name
// in NFD, as macOS writes them, matches one typed in NFC).
func fold(s string) string { return norm.NFC.String(cases.Fold().String(s)) }

// foldFunction is cairn_fold(text): fold(text), for the filter's SQL.
func foldFunction(ctx sqlite3.Context, arg ...sqlite3.Value) {
	ctx.ResultText(fold(arg[0].Text()))
}

// FilterChunkIDs returns, in ascending order, the ids of the chunks with a
// vector whose document passes f: the set a filtered vector search ranks.
func (db *DB) FilterChunkIDs(ctx context.Context, f domain.Filter) ([]int64, error) {
	where, args := filterSQL(f)
	var out []int64
	err := db.read(ctx, func(c *sqlite3.Conn) error {
		return query(c, `SELECT c.id FROM chunks c JOIN documents d ON d.id = c.document_id
			WHERE c.vec = 1 AND `+where+` ORDER BY c.id`, args, func(s *sqlite3.Stmt) error {
			out = append(out, s.ColumnInt64(0))
			return nil
		})
	})
	if err != nil {
		return nil, fmt.Errorf("apply the filter: %w", err)
	}
	return out, nil
}

// SearchFTS runs an FTS5 MATCH expression and returns the best limit chunks
// by BM25 (text weighted 1, heading 0.5, document title 0.8), equal
// scores by chunk id, as the in-memory keyword index (core/bm25) breaks
// them, so that both cut a pool at the same chunk. The expression must
// come from search.MatchQuery, never raw user text.
func (db *DB) SearchFTS(ctx context.Context, match string, limit int, f domain.Filter) ([]domain.FTSHit, error) {
	if strings.TrimSpace(match) == "" || limit <= 0 {
		return nil, nil
	}
	sql := `SELECT rowid, bm25(chunks_fts, 1.0, 0.5, 0.8) AS score FROM chunks_fts WHERE chunks_fts MATCH ? ORDER BY score, rowid LIMIT ?`
	args := []any{match}
	if !f.Empty() {
		where, fargs := filterSQL(f)
		sql = `SELECT f.rowid, bm25(chunks_fts, 1.0, 0.5, 0.8) AS score FROM chunks_fts f
			JOIN chunks c ON c.id = f.rowid JOIN documents d ON d.id = c.document_id
			WHERE chunks_fts MATCH ? AND ` + where + ` ORDER BY score, f.rowid LIMIT ?`
		args = append(args, fargs...)
	}
	args = append(args, limit)
	var out []domain.FTSHit
	err := db.read(ctx, func(c *sqlite3.Conn) error {
		return query(c, sql, args, func(s *sqlite3.Stmt) error {
			out = append(out, domain.FTSHit{ChunkID: s.ColumnInt64(0), BM25: s.ColumnFloat(1)})
			return nil
		})
	})
	if err != nil {
		return nil, fmt.Errorf("full-text search: %w", err)
	}
	return out, nil
}

// Chunks loads the chunks with the given ids; ids not found are absent
// from the map.
func (db *DB) Chunks(ctx context.Context, ids []int64) (map[int64]domain.ChunkInfo, error) {
	out := make(map[int64]domain.ChunkInfo, len(ids))
	err := db.read(ctx, func(c *sqlite3.Conn) error {
		for len(ids) > 0 {
			n := min(len(ids), 500) // stay far below SQLite's parameter limit
			batch := ids[:n]
			ids = ids[n:]
			args := make([]any, n)
			for i, id := range batch {
				args[i] = id
			}
			err := query(c, `SELECT c.id, c.document_id, d.path, d.title, d.format, c.ordinal, c.text, c.heading,
				c.unit_kind, c.page, c.label, c.line_start, c.line_end, c.char_start, c.char_end
				FROM chunks c JOIN documents d ON d.id = c.document_id
				WHERE c.id IN (`+strings.Repeat("?,", n-1)+`?)`, args, func(s *sqlite3.Stmt) error {
				ci := domain.ChunkInfo{ID: s.ColumnInt64(0), DocumentID: s.ColumnInt64(1), Path: s.ColumnText(2),
					Title: s.ColumnText(3), Format: s.ColumnText(4), Ordinal: s.ColumnInt(5), Text: s.ColumnText(6),
					Heading: s.ColumnText(7), UnitKind: s.ColumnText(8), Page: s.ColumnInt(9), Label: s.ColumnText(10),
					LineStart: s.ColumnInt(11), LineEnd: s.ColumnInt(12), Start: s.ColumnInt(13), End: s.ColumnInt(14)}
				out[ci.ID] = ci
				return nil
			})
			if err != nil {
				return err
			}
		}
		return nil
	})
	return out, err
}

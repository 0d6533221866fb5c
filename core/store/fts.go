package store

import (
	"context"
	"fmt"
	"strings"

	"github.com/ncruces/go-sqlite3"
)

// Filter narrows a search to some documents. Zero value: everything.
type Filter struct {
	PathPrefixes []string // absolute path prefixes, any of which matches
	Types        []string // format names ("pdf", "markdown") or extensions without dot ("md"), any of which matches
}

// Empty reports whether f lets everything through.
func (f Filter) Empty() bool { return len(f.PathPrefixes) == 0 && len(f.Types) == 0 }

// Matches applies f to one document, for filtering vector hits in Go.
func (f Filter) Matches(path, format string) bool {
	if len(f.PathPrefixes) > 0 {
		ok := false
		for _, p := range f.PathPrefixes {
			ok = ok || strings.HasPrefix(path, p)
		}
		if !ok {
			return false
		}
	}
	if len(f.Types) > 0 {
		lp := strings.ToLower(path)
		for _, t := range f.Types {
			t = strings.ToLower(strings.TrimPrefix(t, "."))
			if t == format || strings.HasSuffix(lp, "."+t) {
				return true
			}
		}
		return false
	}
	return true
}

// sql returns a WHERE fragment over documents aliased d, and its args.
func (f Filter) sql() (string, []any) {
	var parts []string
	var args []any
	if len(f.PathPrefixes) > 0 {
		var or []string
		for _, p := range f.PathPrefixes {
			or = append(or, `substr(d.path, 1, length(?)) = ?`)
			args = append(args, p, p)
		}
		parts = append(parts, "("+strings.Join(or, " OR ")+")")
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
	return strings.Join(parts, " AND "), args
}

// FTSHit is a chunk matched by the full-text index.
type FTSHit struct {
	ChunkID int64
	BM25    float64 // FTS5 bm25(): negative, lower is better
}

// SearchFTS runs an FTS5 MATCH expression and returns the best limit chunks
// by BM25 (text weighted 1, heading 0.5, document title 0.8). The
// expression must come from search.MatchQuery, never raw user text.
func (db *DB) SearchFTS(ctx context.Context, match string, limit int, f Filter) ([]FTSHit, error) {
	if strings.TrimSpace(match) == "" || limit <= 0 {
		return nil, nil
	}
	sql := `SELECT rowid, bm25(chunks_fts, 1.0, 0.5, 0.8) AS score FROM chunks_fts WHERE chunks_fts MATCH ? ORDER BY score LIMIT ?`
	args := []any{match}
	if !f.Empty() {
		where, fargs := f.sql()
		sql = `SELECT f.rowid, bm25(chunks_fts, 1.0, 0.5, 0.8) AS score FROM chunks_fts f
			JOIN chunks c ON c.id = f.rowid JOIN documents d ON d.id = c.document_id
			WHERE chunks_fts MATCH ? AND ` + where + ` ORDER BY score LIMIT ?`
		args = append(args, fargs...)
	}
	args = append(args, limit)
	var out []FTSHit
	err := db.read(ctx, func(c *sqlite3.Conn) error {
		return query(c, sql, args, func(s *sqlite3.Stmt) error {
			out = append(out, FTSHit{ChunkID: s.ColumnInt64(0), BM25: s.ColumnFloat(1)})
			return nil
		})
	})
	if err != nil {
		return nil, fmt.Errorf("full-text search: %w", err)
	}
	return out, nil
}

// ChunkInfo is a chunk with what a result needs to cite it.
type ChunkInfo struct {
	ID         int64
	DocumentID int64
	Path       string
	Title      string
	Format     string
	Ordinal    int
	Text       string
	Heading    string
	UnitKind   string
	Page       int
	Label      string
	LineStart  int
	LineEnd    int
	Start, End int
}

// Chunks loads the chunks with the given ids; ids not found are absent
// from the map.
func (db *DB) Chunks(ctx context.Context, ids []int64) (map[int64]ChunkInfo, error) {
	out := make(map[int64]ChunkInfo, len(ids))
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
				ci := ChunkInfo{ID: s.ColumnInt64(0), DocumentID: s.ColumnInt64(1), Path: s.ColumnText(2),
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

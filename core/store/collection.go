package store

import (
	"cairn/core/domain"
	"context"
	"fmt"

	"github.com/ncruces/go-sqlite3"
)

// MatchDocuments returns every document that passes f and, when match is
// not "", has a chunk the FTS5 expression matches, in path order: the
// complete list, counted by SQLite. match must be built from quoted terms
// (see collection), never raw user text. keep, when not nil, is asked of
// each matching chunk's text and heading, and a chunk it refuses does
// not count (collection's check of whole words, which the stemmed index
// cannot make).
func (db *DB) MatchDocuments(ctx context.Context, match string, f domain.Filter, keep func(text, heading string) bool) ([]domain.DocumentMatch, error) {
	where, args := filterSQL(f)
	sql := `SELECT d.path, d.title, d.format, d.mtime_ns, 0,
			coalesce((SELECT c.id FROM chunks c WHERE c.document_id = d.id ORDER BY c.ordinal LIMIT 1), 0)
		FROM documents d WHERE ` + where + ` ORDER BY d.path`
	const ranked = `WITH m AS MATERIALIZED (SELECT rowid AS id, bm25(chunks_fts, 1.0, 0.5, 0.8) AS score FROM chunks_fts WHERE chunks_fts MATCH ?)`
	switch {
	case match != "" && keep != nil:
		// Every matching chunk, each document's best-ranked first (the
		// first of a tie, as FTS5 meets them), for keep to pass.
		sql = ranked + `
			SELECT d.path, d.title, d.format, d.mtime_ns, c.id, c.text, c.heading
			FROM m JOIN chunks c ON c.id = m.id JOIN documents d ON d.id = c.document_id
			WHERE ` + where + ` ORDER BY d.path, m.score, c.id`
		args = append([]any{match}, args...)
	case match != "":
		// min() makes SQLite take the other bare columns from the row
		// holding the minimum: the best-ranked chunk of each document.
		// MATERIALIZED: bm25() only works in the MATCH query itself, which
		// SQLite would otherwise flatten into the grouping one.
		sql = ranked + `
			SELECT d.path, d.title, d.format, d.mtime_ns, count(*), c.id, min(m.score)
			FROM m JOIN chunks c ON c.id = m.id JOIN documents d ON d.id = c.document_id
			WHERE ` + where + ` GROUP BY d.id ORDER BY d.path`
		args = append([]any{match}, args...)
	}
	var out []domain.DocumentMatch
	err := db.read(ctx, func(c *sqlite3.Conn) error {
		return query(c, sql, args, func(s *sqlite3.Stmt) error {
			if match != "" && keep != nil {
				if !keep(s.ColumnText(5), s.ColumnText(6)) {
					return nil
				}
				path := s.ColumnText(0)
				if n := len(out); n > 0 && out[n-1].Path == path {
					out[n-1].Passages++
					return nil
				}
				out = append(out, domain.DocumentMatch{Path: path, Title: s.ColumnText(1), Format: s.ColumnText(2),
					MTimeNS: s.ColumnInt64(3), Passages: 1, ChunkID: s.ColumnInt64(4)})
				return nil
			}
			out = append(out, domain.DocumentMatch{Path: s.ColumnText(0), Title: s.ColumnText(1), Format: s.ColumnText(2),
				MTimeNS: s.ColumnInt64(3), Passages: s.ColumnInt(4), ChunkID: s.ColumnInt64(5)})
			return nil
		})
	})
	if err != nil {
		return nil, fmt.Errorf("list matching documents: %w", err)
	}
	return out, nil
}

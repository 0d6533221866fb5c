package store

import (
	"context"
	"fmt"
	"time"

	"cairn/core/domain"

	"github.com/ncruces/go-sqlite3"
)

// DocumentsAfter lists at most limit indexed documents whose paths sort
// after after ("" for the first), in path order: a page of the list that
// stays right while files are added and removed between pages.
func (db *DB) DocumentsAfter(ctx context.Context, after string, limit int) ([]domain.Document, error) {
	var out []domain.Document
	err := db.read(ctx, func(c *sqlite3.Conn) error {
		return query(c, `SELECT d.path, d.title, d.format, d.size, d.mtime_ns, (SELECT count(*) FROM chunks c WHERE c.document_id = d.id)
			FROM documents d WHERE d.path > ? ORDER BY d.path LIMIT ?`, []any{after, limit}, func(s *sqlite3.Stmt) error {
			out = append(out, domain.Document{Path: s.ColumnText(0), Title: s.ColumnText(1), Format: s.ColumnText(2),
				Size: s.ColumnInt64(3), Modified: time.Unix(0, s.ColumnInt64(4)), Chunks: s.ColumnInt(5)})
			return nil
		})
	})
	if err != nil {
		return nil, fmt.Errorf("list documents: %w", err)
	}
	return out, nil
}

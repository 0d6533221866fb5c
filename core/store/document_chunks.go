package store

import (
	"cairn/core/domain"
	"context"

	"github.com/ncruces/go-sqlite3"
)

// DocumentChunks lists the chunks of the document at path in reading
// order; none when the knowledge base holds no such document.
func (db *DB) DocumentChunks(ctx context.Context, path string) ([]domain.ChunkInfo, error) {
	var ids []int64
	err := db.read(ctx, func(c *sqlite3.Conn) error {
		return query(c, `SELECT c.id FROM chunks c JOIN documents d ON d.id = c.document_id
			WHERE d.path = ? ORDER BY c.ordinal`, []any{path}, func(s *sqlite3.Stmt) error {
			ids = append(ids, s.ColumnInt64(0))
			return nil
		})
	})
	if err != nil || len(ids) == 0 {
		return nil, err
	}
	byID, err := db.Chunks(ctx, ids)
	if err != nil {
		return nil, err
	}
	out := make([]domain.ChunkInfo, 0, len(ids))
	for _, id := range ids {
		if ci, ok := byID[id]; ok {
			out = append(out, ci)
		}
	}
	return out, nil
}

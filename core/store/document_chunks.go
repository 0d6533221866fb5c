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

// ChunkNeighbours returns the chunks before and after chunk id in its
// document (ordinals one less and one more), nil where there is none: the
// document's first or last chunk, or an id the knowledge base does not
// hold. Neighbouring windows overlap (domain.ChunkInfo.Outside gives what
// a neighbour adds).
func (db *DB) ChunkNeighbours(ctx context.Context, id int64) (prev, next *domain.ChunkInfo, err error) {
	ord := map[int64]int{} // the neighbours' ids: -1 before, +1 after
	err = db.read(ctx, func(c *sqlite3.Conn) error {
		return query(c, `SELECT n.id, n.ordinal - c.ordinal FROM chunks c
			JOIN chunks n ON n.document_id = c.document_id AND n.ordinal IN (c.ordinal - 1, c.ordinal + 1)
			WHERE c.id = ?`, []any{id}, func(s *sqlite3.Stmt) error {
			ord[s.ColumnInt64(0)] = s.ColumnInt(1)
			return nil
		})
	})
	if err != nil || len(ord) == 0 {
		return nil, nil, err
	}
	ids := make([]int64, 0, len(ord))
	for n := range ord {
		ids = append(ids, n)
	}
	byID, err := db.Chunks(ctx, ids)
	if err != nil {
		return nil, nil, err
	}
	for n, d := range ord {
		ci, ok := byID[n]
		switch {
		case !ok:
		case d < 0:
			prev = &ci
		default:
			next = &ci
		}
	}
	return prev, next, nil
}

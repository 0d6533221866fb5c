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

// ChunkNeighbours returns chunk id with the chunks before and after it in
// its document (ordinals one less and one more); Prev and Next are nil
// where there is none. ok is false when the knowledge base holds no chunk
// id.
func (db *DB) ChunkNeighbours(ctx context.Context, id int64) (n domain.Neighbours, ok bool, err error) {
	ord := map[int64]int{} // id -> ordinal relative to chunk id's: -1, 0, +1
	err = db.read(ctx, func(c *sqlite3.Conn) error {
		return query(c, `SELECT n.id, n.ordinal - c.ordinal FROM chunks c
			JOIN chunks n ON n.document_id = c.document_id AND n.ordinal BETWEEN c.ordinal - 1 AND c.ordinal + 1
			WHERE c.id = ?`, []any{id}, func(s *sqlite3.Stmt) error {
			ord[s.ColumnInt64(0)] = s.ColumnInt(1)
			return nil
		})
	})
	if err != nil || len(ord) == 0 {
		return n, false, err
	}
	ids := make([]int64, 0, len(ord))
	for i := range ord {
		ids = append(ids, i)
	}
	byID, err := db.Chunks(ctx, ids)
	if err != nil {
		return n, false, err
	}
	for i, d := range ord {
		ci, found := byID[i]
		switch {
		case !found:
		case d < 0:
			n.Prev = &ci
		case d > 0:
			n.Next = &ci
		default:
			n.Passage, ok = ci, true
		}
	}
	return n, ok, nil
}

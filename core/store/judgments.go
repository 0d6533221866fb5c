package store

import (
	"cairn/core/domain"
	"context"
	"strings"
	"time"

	"github.com/ncruces/go-sqlite3"
)

// AddJudgment marks path (through the passage chunkID) as a right answer to
// query. Marking the same pair again is a no-op.
func (db *DB) AddJudgment(ctx context.Context, query, path string, chunkID int64) error {
	query = strings.TrimSpace(query)
	return db.write(ctx, func(c *sqlite3.Conn) error {
		return exec(c, `INSERT INTO judgments(query, path, chunk_id, created_at) VALUES (?, ?, ?, ?)
			ON CONFLICT(query, path) DO UPDATE SET chunk_id = excluded.chunk_id`, query, path, chunkID, time.Now().Unix())
	})
}

// RemoveJudgment forgets a judgment.
func (db *DB) RemoveJudgment(ctx context.Context, query, path string) error {
	return db.write(ctx, func(c *sqlite3.Conn) error {
		return exec(c, `DELETE FROM judgments WHERE query = ? AND path = ?`, strings.TrimSpace(query), path)
	})
}

// Judgments lists every judgment, oldest first.
func (db *DB) Judgments(ctx context.Context) ([]domain.Judgment, error) {
	var out []domain.Judgment
	err := db.read(ctx, func(c *sqlite3.Conn) error {
		return query(c, `SELECT id, query, path, chunk_id, created_at FROM judgments ORDER BY id`, nil, func(s *sqlite3.Stmt) error {
			out = append(out, domain.Judgment{ID: s.ColumnInt64(0), Query: s.ColumnText(1), Path: s.ColumnText(2),
				ChunkID: s.ColumnInt64(3), At: time.Unix(s.ColumnInt64(4), 0)})
			return nil
		})
	})
	return out, err
}

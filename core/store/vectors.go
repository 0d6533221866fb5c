package store

import (
	"cairn/core/domain"
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strconv"

	"github.com/ncruces/go-sqlite3"
)

// Meta keys recording which embedding model produced the stored vectors, so a
// different model is detected and never mixed in.
const (
	metaVectorModel = "vector_model"
	metaVectorDim   = "vector_dim"
)

// VectorModel returns the id and dimension of the model whose vectors the
// knowledge base holds; "" and 0 when there are none.
func (db *DB) VectorModel(ctx context.Context) (string, int, error) {
	var id string
	var dim int
	err := db.read(ctx, func(c *sqlite3.Conn) error {
		var err error
		id, dim, err = vectorModel(c)
		return err
	})
	return id, dim, err
}

func vectorModel(c *sqlite3.Conn) (string, int, error) {
	id, _, err := getMeta(c, metaVectorModel)
	if err != nil {
		return "", 0, err
	}
	d, _, err := getMeta(c, metaVectorDim)
	if err != nil {
		return "", 0, err
	}
	dim, _ := strconv.Atoi(d)
	return id, dim, nil
}

// SetVectorModel makes the vector table hold dim-dimensional vectors of
// model id. When the knowledge base held vectors of another model (or
// dimension), they are all dropped and every chunk is marked for
// re-embedding; changed reports that. id "" removes the vector table.
func (db *DB) SetVectorModel(ctx context.Context, id string, dim int) (changed bool, err error) {
	if id != "" && dim <= 0 {
		return false, fmt.Errorf("embedding model %s: invalid dimension %d", id, dim)
	}
	err = db.tx(ctx, func(c *sqlite3.Conn) error {
		oldID, oldDim, err := vectorModel(c)
		if err != nil {
			return err
		}
		if oldID == id && oldDim == dim {
			db.vecDim = dim
			return nil
		}
		changed = true
		for _, sql := range []string{
			`DROP TABLE IF EXISTS chunks_vec`,
			`DELETE FROM chunk_vq`,
			`DELETE FROM vq_stats`,
			`UPDATE chunks SET vec = 0 WHERE vec = 1`,
		} {
			if err := c.Exec(sql); err != nil {
				return fmt.Errorf("drop vectors of %s: %w", oldID, err)
			}
		}
		if id == "" {
			db.vecDim = 0
			return exec(c, `DELETE FROM meta WHERE key IN (?, ?)`, metaVectorModel, metaVectorDim)
		}
		// No trigger deletes vectors with their chunks: SQLite refuses
		// virtual tables that are not marked innocuous (vec0) in triggers
		// unless trusted_schema is on, so deleteVectors does it.
		ddl := fmt.Sprintf(`CREATE VIRTUAL TABLE chunks_vec USING vec0(embedding float[%d] distance_metric=cosine)`, dim)
		if err := c.Exec(ddl); err != nil {
			return fmt.Errorf("create vector table: %w", err)
		}
		if err := setMeta(c, metaVectorModel, id); err != nil {
			return err
		}
		db.vecDim = dim
		return setMeta(c, metaVectorDim, strconv.Itoa(dim))
	})
	return changed, err
}

// insertVectors writes vectors for chunk ids and marks the chunks; the
// caller holds the write lock inside a transaction.
func (db *DB) insertVectors(ids []int64, vecs [][]float32) error {
	ins, err := db.stmt(`INSERT INTO chunks_vec(rowid, embedding) VALUES (?, ?)`)
	if err != nil {
		return err
	}
	mark, err := db.stmt(`UPDATE chunks SET vec = 1 WHERE id = ?`)
	if err != nil {
		return err
	}
	var buf, qbuf []byte
	for i, id := range ids {
		if len(vecs[i]) != db.vecDim {
			return fmt.Errorf("vector of chunk %d has dimension %d, the knowledge base holds %d", id, len(vecs[i]), db.vecDim)
		}
		if qbuf, err = db.addQuantized(id, vecs[i], qbuf); err != nil {
			return err
		}
		buf = EncodeVector(buf[:0], vecs[i])
		ins.Reset()
		ins.BindInt64(1, id)
		ins.BindBlob(2, buf)
		if err := ins.Exec(); err != nil {
			return fmt.Errorf("insert vector of chunk %d: %w", id, err)
		}
		mark.Reset()
		mark.BindInt64(1, id)
		if err := mark.Exec(); err != nil {
			return err
		}
	}
	return nil
}

// deleteVectors removes the vectors of the chunks selected by where (a
// condition on chunks) one rowid at a time, which vec0 serves from its rowid
// index; the caller holds the write lock and deletes the chunks next.
func (db *DB) deleteVectors(c *sqlite3.Conn, where string, args ...any) error {
	if db.vecDim == 0 {
		return nil
	}
	var ids []int64
	err := query(c, `SELECT id FROM chunks WHERE vec = 1 AND `+where, args, func(s *sqlite3.Stmt) error {
		ids = append(ids, s.ColumnInt64(0))
		return nil
	})
	if err != nil {
		return err
	}
	del, err := db.stmt(`DELETE FROM chunks_vec WHERE rowid = ?`)
	if err != nil {
		return err
	}
	for _, id := range ids {
		del.Reset()
		del.BindInt64(1, id)
		if err := del.Exec(); err != nil {
			return fmt.Errorf("delete vector of chunk %d: %w", id, err)
		}
	}
	return db.removeQuantized(ids)
}

// PutVectors stores embeddings for existing chunks (re-embedding after a
// model change) in one transaction. Chunks that vanished meanwhile, or
// already have a vector, are ignored.
func (db *DB) PutVectors(ctx context.Context, ids []int64, vecs [][]float32) error {
	if len(ids) != len(vecs) {
		return fmt.Errorf("put vectors: %d ids, %d vectors", len(ids), len(vecs))
	}
	return db.tx(ctx, func(c *sqlite3.Conn) error {
		if db.vecDim == 0 {
			return errors.New("no vector table: set the embedding model first")
		}
		check, err := db.stmt(`SELECT vec FROM chunks WHERE id = ?`)
		if err != nil {
			return err
		}
		var keepIDs []int64
		var keepVecs [][]float32
		for i, id := range ids {
			check.Reset()
			check.BindInt64(1, id)
			if check.Step() && check.ColumnInt(0) == 0 {
				keepIDs = append(keepIDs, id)
				keepVecs = append(keepVecs, vecs[i])
			}
			if err := check.Err(); err != nil {
				return err
			}
		}
		check.Reset()
		return db.insertVectors(keepIDs, keepVecs)
	})
}

// ChunkText is a chunk's text as the embedder needs it.
type ChunkText struct {
	ID      int64
	Title   string
	Heading string
	Text    string
}

// ChunksWithoutVectors returns up to limit chunks, in id order after
// afterID, that have no vector yet.
func (db *DB) ChunksWithoutVectors(ctx context.Context, afterID int64, limit int) ([]ChunkText, error) {
	var out []ChunkText
	err := db.read(ctx, func(c *sqlite3.Conn) error {
		return query(c, `SELECT c.id, d.title, c.heading, c.text FROM chunks c JOIN documents d ON d.id = c.document_id
			WHERE c.vec = 0 AND c.id > ? ORDER BY c.id LIMIT ?`, []any{afterID, limit},
			func(s *sqlite3.Stmt) error {
				out = append(out, ChunkText{ID: s.ColumnInt64(0), Title: s.ColumnText(1), Heading: s.ColumnText(2), Text: s.ColumnText(3)})
				return nil
			})
	})
	return out, err
}

// PendingChunk is a chunk waiting for its embedding, with what orders it.
type PendingChunk struct {
	ID, DocumentID int64
	Path           string // its document's
}

// PendingChunks lists every chunk without a vector, the most recently
// modified documents first, each document's chunks in reading order: the
// order embeddings follow when nothing else says what a person wants. One
// sort for a whole run; the embedding loop reorders it in memory as the
// person's interest changes (ingest), since sorting 100,000 chunks takes
// longer than embedding a batch of them.
func (db *DB) PendingChunks(ctx context.Context) ([]PendingChunk, error) {
	var out []PendingChunk
	err := db.read(ctx, func(c *sqlite3.Conn) error {
		return query(c, `SELECT c.id, c.document_id, d.path FROM chunks c JOIN documents d ON d.id = c.document_id
			WHERE c.vec = 0 ORDER BY d.mtime_ns DESC, d.id, c.ordinal`, nil,
			func(s *sqlite3.Stmt) error {
				out = append(out, PendingChunk{ID: s.ColumnInt64(0), DocumentID: s.ColumnInt64(1), Path: s.ColumnText(2)})
				return nil
			})
	})
	return out, err
}

// ChunkTexts returns the texts of the chunks ids, in that order; a chunk
// removed meanwhile is left out.
func (db *DB) ChunkTexts(ctx context.Context, ids []int64) ([]ChunkText, error) {
	list, err := json.Marshal(ids)
	if err != nil {
		return nil, err
	}
	texts := make(map[int64]ChunkText, len(ids))
	err = db.read(ctx, func(c *sqlite3.Conn) error {
		return query(c, `SELECT c.id, d.title, c.heading, c.text FROM chunks c JOIN documents d ON d.id = c.document_id
			WHERE c.id IN (SELECT value FROM json_each(?))`, []any{string(list)},
			func(s *sqlite3.Stmt) error {
				id := s.ColumnInt64(0)
				texts[id] = ChunkText{ID: id, Title: s.ColumnText(1), Heading: s.ColumnText(2), Text: s.ColumnText(3)}
				return nil
			})
	})
	out := make([]ChunkText, 0, len(ids))
	for _, id := range ids {
		if t, ok := texts[id]; ok {
			out = append(out, t)
		}
	}
	return out, err
}

// Unembedded counts the chunks still waiting for an embedding and, when
// there are some, all chunks. A complete knowledge base costs one probe of
// an empty index, so every search can ask.
func (db *DB) Unembedded(ctx context.Context) (missing, total int, err error) {
	err = db.read(ctx, func(c *sqlite3.Conn) error {
		err := query(c, `SELECT count(*) FROM chunks WHERE vec = 0`, nil, func(s *sqlite3.Stmt) error {
			missing = s.ColumnInt(0)
			return nil
		})
		if err != nil || missing == 0 {
			return err
		}
		return query(c, `SELECT count(*) FROM chunks`, nil, func(s *sqlite3.Stmt) error {
			total = s.ColumnInt(0)
			return nil
		})
	})
	return missing, total, err
}

// CountWithoutVectors counts chunks still waiting for an embedding.
func (db *DB) CountWithoutVectors(ctx context.Context) (int, error) {
	var n int
	err := db.read(ctx, func(c *sqlite3.Conn) error {
		return query(c, `SELECT count(*) FROM chunks WHERE vec = 0`, nil, func(s *sqlite3.Stmt) error {
			n = s.ColumnInt(0)
			return nil
		})
	})
	return n, err
}

// KNN returns the k chunks whose vectors are nearest to q, nearest first.
func (db *DB) KNN(ctx context.Context, q []float32, k int) ([]domain.VectorHit, error) {
	return db.knn(ctx, q, k, "", nil)
}

// KNNAmong is KNN restricted to the chunks ids (a filter's, from
// FilterChunkIDs): vec0 ranks only those rows, so a narrow filter still
// gets its k nearest, not what survives of everyone's k nearest.
func (db *DB) KNNAmong(ctx context.Context, q []float32, k int, ids []int64) ([]domain.VectorHit, error) {
	if len(ids) == 0 || k <= 0 {
		return nil, nil
	}
	list := make([]byte, 0, 8*len(ids))
	list = append(list, '[')
	for i, id := range ids {
		if i > 0 {
			list = append(list, ',')
		}
		list = strconv.AppendInt(list, id, 10)
	}
	list = append(list, ']')
	return db.knn(ctx, q, k, " AND rowid IN (SELECT value FROM json_each(?))", []any{string(list)})
}

// knn runs vec0's nearest-neighbour query with the extra condition where
// and its arguments, after checking q against the stored vectors.
func (db *DB) knn(ctx context.Context, q []float32, k int, where string, args []any) ([]domain.VectorHit, error) {
	var out []domain.VectorHit
	err := db.read(ctx, func(c *sqlite3.Conn) error {
		_, dim, err := vectorModel(c)
		if err != nil {
			return err
		}
		if dim == 0 {
			return errors.New("the knowledge base has no vectors")
		}
		if len(q) != dim {
			return fmt.Errorf("query vector has dimension %d, the knowledge base holds %d", len(q), dim)
		}
		return query(c, `SELECT rowid, distance FROM chunks_vec WHERE embedding MATCH ? AND k = ?`+where+` ORDER BY distance`,
			append([]any{EncodeVector(nil, q), k}, args...), func(s *sqlite3.Stmt) error {
				out = append(out, domain.VectorHit{ChunkID: s.ColumnInt64(0), Distance: s.ColumnFloat(1)})
				return nil
			})
	})
	return out, err
}

// EncodeVector appends v to buf as little-endian float32s, the layout
// sqlite-vec reads.
func EncodeVector(buf []byte, v []float32) []byte {
	for _, x := range v {
		buf = binary.LittleEndian.AppendUint32(buf, math.Float32bits(x))
	}
	return buf
}

// DecodeVector is the inverse of EncodeVector.
func DecodeVector(b []byte) []float32 {
	v := make([]float32, len(b)/4)
	for i := range v {
		v[i] = math.Float32frombits(binary.LittleEndian.Uint32(b[4*i:]))
	}
	return v
}

package store

import (
	"context"
	"encoding/binary"
	"fmt"
	"math"
	"strings"

	"github.com/ncruces/go-sqlite3"
)

// Every vector written to chunks_vec (the exact float store, searched by
// sqlite-vec) is also written here, quantized to int8 with a per-vector
// scale: 4+D bytes instead of 4*D. The in-memory vector index scans binary
// codes derived from these rows and re-scores its shortlist with them, since
// brute-force float KNN in WASM SQLite is too slow past ~100K vectors and
// vec0 point lookups cost about a millisecond each. vq_stats keeps the sum of
// all stored vectors so the index can centre its codes without a second pass.

// Quantize encodes v as float32 scale followed by int8 components, appended
// to buf: v[i] ≈ int8[i] * scale.
func Quantize(buf []byte, v []float32) []byte {
	var m float32
	for _, x := range v {
		m = max(m, float32(math.Abs(float64(x))))
	}
	scale := m / 127
	buf = binary.LittleEndian.AppendUint32(buf, math.Float32bits(scale))
	for _, x := range v {
		q := int8(0)
		if scale > 0 {
			q = int8(math.Round(float64(x / scale)))
		}
		buf = append(buf, byte(q))
	}
	return buf
}

// Dequantize decodes a Quantize blob into dst (len D) and returns it.
func Dequantize(dst []float32, q []byte) []float32 {
	scale := math.Float32frombits(binary.LittleEndian.Uint32(q))
	for i, b := range q[4:] {
		dst[i] = float32(int8(b)) * scale
	}
	return dst
}

// addQuantized writes the quantized copy of v and adds v to the running sum.
// The caller holds the write lock inside a transaction.
func (db *DB) addQuantized(id int64, v []float32, buf []byte) ([]byte, error) {
	if err := db.loadSum(); err != nil {
		return buf, err
	}
	buf = Quantize(buf[:0], v)
	s, err := db.stmt(`INSERT OR REPLACE INTO chunk_vq(id, q) VALUES (?, ?)`)
	if err != nil {
		return buf, err
	}
	s.BindInt64(1, id)
	s.BindBlob(2, buf)
	if err := s.Exec(); err != nil {
		return buf, fmt.Errorf("quantized vector of chunk %d: %w", id, err)
	}
	db.vqSum.add(v, 1)
	return buf, nil
}

// removeQuantized deletes the quantized copies of ids, subtracting them from
// the running sum.
func (db *DB) removeQuantized(ids []int64) error {
	if len(ids) == 0 {
		return nil
	}
	if err := db.loadSum(); err != nil {
		return err
	}
	sel, err := db.stmt(`SELECT q FROM chunk_vq WHERE id = ?`)
	if err != nil {
		return err
	}
	del, err := db.stmt(`DELETE FROM chunk_vq WHERE id = ?`)
	if err != nil {
		return err
	}
	v := make([]float32, db.vecDim)
	for _, id := range ids {
		sel.Reset()
		sel.BindInt64(1, id)
		if sel.Step() {
			db.vqSum.add(Dequantize(v, sel.ColumnRawBlob(0)), -1)
		}
		if err := sel.Err(); err != nil {
			return err
		}
		sel.Reset()
		del.Reset()
		del.BindInt64(1, id)
		if err := del.Exec(); err != nil {
			return err
		}
	}
	return nil
}

// loadSum reads the running sum once per transaction.
func (db *DB) loadSum() error {
	if db.vqLoaded {
		return nil
	}
	s, err := loadVQSum(db.w)
	if err != nil {
		return err
	}
	db.vqSum, db.vqLoaded = s, true
	return nil
}

// vqSum is the running sum of stored vectors, loaded at the start of each
// write transaction and saved before its commit (see tx).
type vqSum struct {
	count int64
	sum   []float64
	dirty bool
}

func (s *vqSum) add(v []float32, sign float64) {
	if len(s.sum) != len(v) {
		s.sum = make([]float64, len(v))
	}
	for i, x := range v {
		s.sum[i] += sign * float64(x)
	}
	s.count += int64(sign)
	s.dirty = true
}

func loadVQSum(c *sqlite3.Conn) (vqSum, error) {
	var s vqSum
	err := query(c, `SELECT count, sum FROM vq_stats WHERE id = 1`, nil, func(st *sqlite3.Stmt) error {
		s.count = st.ColumnInt64(0)
		b := st.ColumnRawBlob(1)
		s.sum = make([]float64, len(b)/8)
		for i := range s.sum {
			s.sum[i] = math.Float64frombits(binary.LittleEndian.Uint64(b[8*i:]))
		}
		return nil
	})
	return s, err
}

func saveVQSum(c *sqlite3.Conn, s vqSum) error {
	buf := make([]byte, 0, 8*len(s.sum))
	for _, x := range s.sum {
		buf = binary.LittleEndian.AppendUint64(buf, math.Float64bits(x))
	}
	return exec(c, `INSERT INTO vq_stats(id, count, sum) VALUES (1, ?, ?)
		ON CONFLICT(id) DO UPDATE SET count = excluded.count, sum = excluded.sum`, s.count, buf)
}

// VectorSummary describes the stored vectors for the in-memory index.
type VectorSummary struct {
	Model string
	Dim   int
	Count int       // vectors stored
	MaxID int64     // largest chunk id with a vector
	Mean  []float32 // mean of the stored vectors; nil when there are none
}

// VectorSummary returns what the in-memory index needs to decide whether
// to load, extend or rebuild itself.
func (db *DB) VectorSummary(ctx context.Context) (VectorSummary, error) {
	var vs VectorSummary
	err := db.read(ctx, func(c *sqlite3.Conn) error {
		var err error
		if vs.Model, vs.Dim, err = vectorModel(c); err != nil {
			return err
		}
		sum, err := loadVQSum(c)
		if err != nil {
			return err
		}
		vs.Count = int(sum.count)
		if sum.count > 0 {
			vs.Mean = make([]float32, len(sum.sum))
			for i, x := range sum.sum {
				vs.Mean[i] = float32(x / float64(sum.count))
			}
		}
		return query(c, `SELECT coalesce(max(id), 0) FROM chunk_vq`, nil, func(s *sqlite3.Stmt) error {
			vs.MaxID = s.ColumnInt64(0)
			return nil
		})
	})
	return vs, err
}

// ScanQuantized calls fn for every quantized vector with a chunk id above
// afterID, in id order. q is only valid during the call.
func (db *DB) ScanQuantized(ctx context.Context, afterID int64, fn func(id int64, q []byte) error) error {
	return db.read(ctx, func(c *sqlite3.Conn) error {
		return query(c, `SELECT id, q FROM chunk_vq WHERE id > ? ORDER BY id`, []any{afterID}, func(s *sqlite3.Stmt) error {
			return fn(s.ColumnInt64(0), s.ColumnRawBlob(1))
		})
	})
}

// Quantized returns the quantized vectors of ids (copies); ids without one
// are absent.
func (db *DB) Quantized(ctx context.Context, ids []int64) (map[int64][]byte, error) {
	out := make(map[int64][]byte, len(ids))
	err := db.read(ctx, func(c *sqlite3.Conn) error {
		for len(ids) > 0 {
			n := min(len(ids), 500)
			args := make([]any, n)
			for i, id := range ids[:n] {
				args[i] = id
			}
			ids = ids[n:]
			err := query(c, `SELECT id, q FROM chunk_vq WHERE id IN (`+strings.Repeat("?,", n-1)+`?)`, args,
				func(s *sqlite3.Stmt) error {
					out[s.ColumnInt64(0)] = append([]byte(nil), s.ColumnRawBlob(1)...)
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

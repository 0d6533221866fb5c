package store

import (
	"cairn/core/domain"
	"context"
	"fmt"

	"github.com/ncruces/go-sqlite3"
)

// ChunkVersion tells a reader of the chunks what changed since it last
// looked: new chunks raise MaxID (ids only grow, see migration 4), and every
// deleted chunk raises Deletes.
type ChunkVersion struct {
	MaxID   int64
	Deletes int64
}

// ChunkVersion reads the current version; it costs two index lookups.
func (db *DB) ChunkVersion(ctx context.Context) (ChunkVersion, error) {
	var v ChunkVersion
	err := db.read(ctx, func(c *sqlite3.Conn) error {
		return query(c, `SELECT coalesce((SELECT max(id) FROM chunks), 0),
			coalesce((SELECT CAST(value AS INTEGER) FROM meta WHERE key = 'chunk_deletes'), 0)`, nil,
			func(s *sqlite3.Stmt) error {
				v.MaxID, v.Deletes = s.ColumnInt64(0), s.ColumnInt64(1)
				return nil
			})
	})
	if err != nil {
		return v, fmt.Errorf("chunk version: %w", err)
	}
	return v, nil
}

// ScanChunkText calls fn, in id order, with the indexed text of at most
// limit chunks whose ids are above afterID and at most upTo: the three
// columns FTS5 indexes (chunk text, heading, document title). The bytes are
// only valid during the call. It returns how many chunks it passed; a
// caller reads a large store in such pages, each its own short read, so
// the write-ahead log can still be emptied in between.
func (db *DB) ScanChunkText(ctx context.Context, afterID, upTo int64, limit int, fn func(id int64, text, heading, title []byte) error) (int, error) {
	n := 0
	err := db.read(ctx, func(c *sqlite3.Conn) error {
		return query(c, `SELECT c.id, c.text, c.heading, d.title FROM chunks c JOIN documents d ON d.id = c.document_id
			WHERE c.id > ? AND c.id <= ? ORDER BY c.id LIMIT ?`, []any{afterID, upTo, limit}, func(s *sqlite3.Stmt) error {
			if err := ctx.Err(); err != nil {
				return err
			}
			n++
			return fn(s.ColumnInt64(0), s.ColumnRawText(1), s.ColumnRawText(2), s.ColumnRawText(3))
		})
	})
	if err != nil {
		return n, fmt.Errorf("read chunks after %d: %w", afterID, err)
	}
	return n, nil
}

// FTSTokens returns the tokens the FTS5 index makes of text, in order.
func (db *DB) FTSTokens(ctx context.Context, text string) ([]string, error) {
	var toks []string
	err := db.read(ctx, func(c *sqlite3.Conn) error {
		var err error
		toks, err = queryTokens(c, text)
		return err
	})
	return toks, err
}

// ScanChunkIDs calls fn with every chunk id up to upTo, in order.
func (db *DB) ScanChunkIDs(ctx context.Context, upTo int64, fn func(id int64)) error {
	err := db.read(ctx, func(c *sqlite3.Conn) error {
		return query(c, `SELECT id FROM chunks WHERE id <= ? ORDER BY id`, []any{upTo}, func(s *sqlite3.Stmt) error {
			fn(s.ColumnInt64(0))
			return nil
		})
	})
	if err != nil {
		return fmt.Errorf("read chunk ids: %w", err)
	}
	return nil
}

// RuneClass is how the FTS5 tokenizer (without stemming) treats one
// character: Alone is the token it makes of the character between spaces
// ("" for a separator), Inside the one it makes between two letters "a":
// the folded character, or "" when it separates them there too.
type RuneClass struct {
	Alone, Inside string
	InsideIsToken bool
}

// FTSRuneClasses asks the FTS5 tokenizer about each of rs, so that a Go
// tokenizer can follow SQLite's own Unicode tables (which are older than
// Go's) exactly.
func (db *DB) FTSRuneClasses(ctx context.Context, rs []rune) ([]RuneClass, error) {
	out := make([]RuneClass, len(rs))
	if len(rs) == 0 {
		return out, nil
	}
	err := db.read(ctx, func(c *sqlite3.Conn) error {
		// Emptied first too: see queryTokens.
		if err := c.Exec(`DELETE FROM temp.rune_tokens`); err != nil {
			return fmt.Errorf("empty the rune tokenizer table: %w", err)
		}
		ins, _, err := c.Prepare(`INSERT INTO temp.rune_tokens(rowid, t) VALUES (?, ?)`)
		if err != nil {
			return err
		}
		defer ins.Close()
		defer c.Exec(`DELETE FROM temp.rune_tokens`)
		for i, r := range rs {
			for k, text := range []string{" " + string(r) + " ", "a" + string(r) + "a"} {
				ins.Reset()
				if err := bind(ins, int64(2*i+k+1), text); err != nil {
					return err
				}
				if err := ins.Exec(); err != nil {
					return err
				}
			}
		}
		counts := make([]int, 2*len(rs))
		err = query(c, `SELECT doc, term FROM temp.rune_tokens_v ORDER BY doc, offset`, nil, func(s *sqlite3.Stmt) error {
			d := int(s.ColumnInt64(0)) - 1
			i, k := d/2, d%2
			counts[d]++
			if k == 0 {
				out[i].Alone = s.ColumnText(1)
			} else {
				out[i].Inside = s.ColumnText(1)
			}
			return nil
		})
		if err != nil {
			// A read stopped half-way (the window closing, a cancel)
			// leaves rows unread: nothing below may rely on them.
			return err
		}
		for i := range rs {
			// "a" r "a" is one token when r belongs inside a word: "a…a".
			in := out[i].Inside
			out[i].InsideIsToken = counts[2*i+1] == 1 && len(in) >= 2
			if out[i].InsideIsToken {
				out[i].Inside = in[1 : len(in)-1]
			} else {
				out[i].Inside = ""
			}
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("ask FTS5 about %d characters: %w", len(rs), err)
	}
	return out, nil
}

// PhraseScores returns every chunk holding the phrase (one or more words
// in a row), with the share of FTS5's bm25() that the phrase adds to a
// query holding it (the score of the phrase searched alone: bm25() sums
// over a query's phrases). phrase must be a quoted FTS5 phrase of letters
// and digits, as search.MatchQuery writes them.
func (db *DB) PhraseScores(ctx context.Context, phrase string) ([]domain.FTSHit, error) {
	var out []domain.FTSHit
	err := db.read(ctx, func(c *sqlite3.Conn) error {
		return query(c, `SELECT rowid, bm25(chunks_fts, 1.0, 0.5, 0.8) FROM chunks_fts WHERE chunks_fts MATCH ?`, []any{phrase},
			func(s *sqlite3.Stmt) error {
				out = append(out, domain.FTSHit{ChunkID: s.ColumnInt64(0), BM25: s.ColumnFloat(1)})
				return nil
			})
	})
	if err != nil {
		return nil, fmt.Errorf("phrase %s: %w", phrase, err)
	}
	return out, nil
}

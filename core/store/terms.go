package store

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/ncruces/go-sqlite3"

	"cairn/core/cjk"
)

// readerSetup gives every reader connection what TermDocFreqs needs: a
// private FTS5 table with the index's own tokenizer, to learn the exact
// (stemmed) tokens of query terms, and vocabulary views of both tables.
// TEMP tables live in the connection, so readers never write the database.
const readerSetup = `
CREATE VIRTUAL TABLE IF NOT EXISTS temp.query_tokens USING fts5(t, tokenize='porter unicode61 remove_diacritics 2');
CREATE VIRTUAL TABLE IF NOT EXISTS temp.query_tokens_v USING fts5vocab(temp, query_tokens, instance);
CREATE VIRTUAL TABLE IF NOT EXISTS temp.chunks_vocab USING fts5vocab(main, chunks_fts, row);
CREATE VIRTUAL TABLE IF NOT EXISTS temp.rune_tokens USING fts5(t, tokenize='unicode61 remove_diacritics 2');
CREATE VIRTUAL TABLE IF NOT EXISTS temp.rune_tokens_v USING fts5vocab(temp, rune_tokens, instance);
`

// TermDocFreqs returns, for each term (words as the user typed them), how
// many chunks contain it (for a phrase, its rarest token), and the number
// of chunks in the knowledge base.
func (db *DB) TermDocFreqs(ctx context.Context, terms []string) ([]int, int, error) {
	n, err := db.chunkCount(ctx)
	if err != nil {
		return nil, 0, err
	}
	dfs := make([]int, len(terms))
	err = db.read(ctx, func(c *sqlite3.Conn) error {
		for i, t := range terms {
			toks, err := queryTokens(c, t)
			if err != nil {
				return err
			}
			dfs[i] = -1
			for _, tok := range toks {
				var df int
				err := query(c, `SELECT doc FROM temp.chunks_vocab WHERE term = ?`, []any{tok}, func(s *sqlite3.Stmt) error {
					df = s.ColumnInt(0)
					return nil
				})
				if err != nil {
					return err
				}
				if dfs[i] < 0 || df < dfs[i] {
					dfs[i] = df
				}
			}
			dfs[i] = max(dfs[i], 0)
		}
		return nil
	})
	return dfs, n, err
}

// queryTokens tokenizes text exactly as the index does, Chinese and
// Japanese as bigrams. The table is emptied before use as well as after: a
// search cancelled between the INSERT and the DELETE fails the DELETE too
// (the interrupt is still set), and the row left behind would make every
// later INSERT on this reader fail with "constraint failed".
func queryTokens(c *sqlite3.Conn, text string) ([]string, error) {
	if err := c.Exec(`DELETE FROM temp.query_tokens`); err != nil {
		return nil, fmt.Errorf("empty the query tokenizer table: %w", err)
	}
	if err := exec(c, `INSERT INTO temp.query_tokens(rowid, t) VALUES (1, ?)`, cjk.Bigrams(text)); err != nil {
		return nil, err
	}
	var toks []string
	err := query(c, `SELECT term FROM temp.query_tokens_v ORDER BY offset`, nil, func(s *sqlite3.Stmt) error {
		toks = append(toks, s.ColumnText(0))
		return nil
	})
	if derr := c.Exec(`DELETE FROM temp.query_tokens`); err == nil {
		err = derr
	}
	return toks, err
}

// chunkCount is the number of chunks, recounted at most every 30 seconds:
// counting costs milliseconds at 100K chunks, and the query planner only
// needs the rough size.
func (db *DB) chunkCount(ctx context.Context) (int, error) {
	db.countMu.Lock()
	defer db.countMu.Unlock()
	if time.Since(db.countAt) < 30*time.Second {
		return db.count, nil
	}
	err := db.read(ctx, func(c *sqlite3.Conn) error {
		return query(c, `SELECT count(*) FROM chunks`, nil, func(s *sqlite3.Stmt) error {
			db.count = s.ColumnInt(0)
			return nil
		})
	})
	if err == nil {
		db.countAt = time.Now()
	}
	return db.count, err
}

// countCache is embedded in DB.
type countCache struct {
	countMu sync.Mutex
	count   int
	countAt time.Time
}

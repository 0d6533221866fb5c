package store

import (
	"fmt"

	"github.com/ncruces/go-sqlite3"
)

// PlainFTS is one bare FTS5 table with Cairn's tokenizer and nothing else:
// no chunking rules, headings, fusion or relevance. It is the floor Cairn's
// retrieval is measured against (`cairn bench`): the baseline a person
// would get from SQLite alone. It is not safe for concurrent use.
type PlainFTS struct {
	conn  *sqlite3.Conn
	ins   *sqlite3.Stmt
	sel   *sqlite3.Stmt
	keyed bool
}

// OpenPlainFTS creates the table in a new database at path (":memory:" for
// none on disk; an existing file is the caller's to remove first). A keyed
// table stores a key beside each text (unindexed) for Search to return;
// an unkeyed one is the bare insert loop, for timing, and Search returns
// rowids.
func OpenPlainFTS(path string, keyed bool) (*PlainFTS, error) {
	c, err := sqlite3.Open(path)
	if err != nil {
		return nil, fmt.Errorf("plain FTS5 table: %w", err)
	}
	cols, ins := "text", `INSERT INTO fts(text) VALUES (?)`
	if keyed {
		cols, ins = "key UNINDEXED, text", `INSERT INTO fts(key, text) VALUES (?, ?)`
	}
	p := &PlainFTS{conn: c, keyed: keyed}
	if err := c.Exec(`PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;
		CREATE VIRTUAL TABLE fts USING fts5(` + cols + `, tokenize='porter unicode61 remove_diacritics 2')`); err != nil {
		p.Close()
		return nil, fmt.Errorf("plain FTS5 table: %w", err)
	}
	if p.ins, _, err = c.Prepare(ins); err != nil {
		p.Close()
		return nil, fmt.Errorf("plain FTS5 table: %w", err)
	}
	sel := `SELECT rowid FROM fts WHERE fts MATCH ? ORDER BY bm25(fts) LIMIT ?`
	if keyed {
		sel = `SELECT key FROM fts WHERE fts MATCH ? ORDER BY bm25(fts) LIMIT ?`
	}
	if p.sel, _, err = c.Prepare(sel); err != nil {
		p.Close()
		return nil, fmt.Errorf("plain FTS5 table: %w", err)
	}
	return p, nil
}

// Begin and Commit bracket a batch of Adds in one transaction.
func (p *PlainFTS) Begin() error  { return p.conn.Exec(`BEGIN`) }
func (p *PlainFTS) Commit() error { return p.conn.Exec(`COMMIT`) }

// Add inserts one row; key is ignored by an unkeyed table.
func (p *PlainFTS) Add(key, text string) error {
	defer p.ins.Reset()
	if p.keyed {
		p.ins.BindText(1, key)
		p.ins.BindText(2, text)
	} else {
		p.ins.BindText(1, text)
	}
	if err := p.ins.Exec(); err != nil {
		return fmt.Errorf("plain FTS5 insert: %w", err)
	}
	return nil
}

// Search returns the keys (or rowids, unkeyed) of the k rows bm25() ranks
// best for the FTS5 expression match.
func (p *PlainFTS) Search(match string, k int) ([]string, error) {
	defer p.sel.Reset()
	p.sel.BindText(1, match)
	p.sel.BindInt(2, k)
	var out []string
	for p.sel.Step() {
		out = append(out, p.sel.ColumnText(0))
	}
	if err := p.sel.Err(); err != nil {
		return nil, fmt.Errorf("plain FTS5 search: %w", err)
	}
	return out, nil
}

// Close releases the table; safe on nil.
func (p *PlainFTS) Close() error {
	if p == nil {
		return nil
	}
	p.ins.Close()
	p.sel.Close()
	return p.conn.Close()
}

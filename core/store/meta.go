package store

import (
	"context"

	"github.com/ncruces/go-sqlite3"
)

// Meta returns the value stored under key, and whether there is one.
func (db *DB) Meta(ctx context.Context, key string) (string, bool, error) {
	var v string
	var ok bool
	err := db.read(ctx, func(c *sqlite3.Conn) error {
		var err error
		v, ok, err = getMeta(c, key)
		return err
	})
	return v, ok, err
}

// SetMeta stores value under key.
func (db *DB) SetMeta(ctx context.Context, key, value string) error {
	return db.write(ctx, func(c *sqlite3.Conn) error { return setMeta(c, key, value) })
}

func getMeta(c *sqlite3.Conn, key string) (string, bool, error) {
	var v string
	var ok bool
	err := query(c, `SELECT value FROM meta WHERE key = ?`, []any{key}, func(s *sqlite3.Stmt) error {
		v, ok = s.ColumnText(0), true
		return nil
	})
	return v, ok, err
}

func setMeta(c *sqlite3.Conn, key, value string) error {
	return exec(c, `INSERT INTO meta(key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value`, key, value)
}

// Package storetest reads and damages knowledge base files directly, for
// tests that need to see or break what the store wrote: counts per
// document, hand-made inconsistencies, a page of garbage.
package storetest

import (
	"crypto/rand"
	"encoding/binary"
	"os"
	"testing"

	// The same SQLite build as the store (FTS5 and sqlite-vec).
	_ "github.com/asg017/sqlite-vec-go-bindings/ncruces"
	"github.com/ncruces/go-sqlite3"
)

// ChunkCounts returns each document's number of chunks, by path.
func ChunkCounts(t testing.TB, path string) map[string]int {
	t.Helper()
	c, err := sqlite3.OpenFlags(path, sqlite3.OPEN_READONLY)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	s, _, err := c.Prepare(`SELECT d.path, count(c.id) FROM documents d LEFT JOIN chunks c ON c.document_id = d.id GROUP BY d.id`)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	out := map[string]int{}
	for s.Step() {
		out[s.ColumnText(0)] = s.ColumnInt(1)
	}
	if err := s.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// Exec runs statements on the file with foreign keys off, as a damaged or
// hand-edited file would have them.
func Exec(t testing.TB, path string, sql ...string) {
	t.Helper()
	c, err := sqlite3.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	for _, q := range append([]string{`PRAGMA foreign_keys=OFF`}, sql...) {
		if err := c.Exec(q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
}

// CorruptTable overwrites the root page of table with random bytes. The
// file must be closed, its write-ahead log folded in.
func CorruptTable(t testing.TB, path, table string) {
	t.Helper()
	c, err := sqlite3.OpenFlags(path, sqlite3.OPEN_READONLY)
	if err != nil {
		t.Fatal(err)
	}
	s, _, err := c.Prepare(`SELECT rootpage FROM sqlite_schema WHERE name = ?`)
	if err != nil {
		t.Fatal(err)
	}
	s.BindText(1, table)
	if !s.Step() {
		t.Fatalf("no table %s: %v", table, s.Err())
	}
	page := s.ColumnInt64(0)
	s.Close()
	c.Close()
	if fi, err := os.Stat(path + "-wal"); err == nil && fi.Size() > 0 {
		t.Fatalf("%s still has a write-ahead log", path)
	}
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	hdr := make([]byte, 100)
	if _, err := f.ReadAt(hdr, 0); err != nil {
		t.Fatal(err)
	}
	size := int64(binary.BigEndian.Uint16(hdr[16:18]))
	junk := make([]byte, size)
	rand.Read(junk)
	if _, err := f.WriteAt(junk, (page-1)*size); err != nil {
		t.Fatal(err)
	}
}

// Int returns the integer the query (a pragma, a count) gives on the file.
func Int(t testing.TB, path, query string) int64 {
	t.Helper()
	c, err := sqlite3.OpenFlags(path, sqlite3.OPEN_READONLY)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	s, _, err := c.Prepare(query)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if !s.Step() {
		t.Fatalf("%s: %v", query, s.Err())
	}
	return s.ColumnInt64(0)
}

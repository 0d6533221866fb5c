package store

import (
	"path/filepath"
	"testing"

	"github.com/ncruces/go-sqlite3"

	"cairn/core/domain"
)

// A knowledge base of schema 6 keeps its issues through migration 7: a
// failure recorded before is read again by the next run (retry), a skip
// waits; an issue recorded now keeps its hash and whether it is retried.
func TestMigrationKeepsIssuesAndRetriesOldFailures(t *testing.T) {
	path := filepath.Join(t.TempDir(), "old.db")
	c, err := sqlite3.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := c.CreateFunction("cairn_cjk", 1, sqlite3.DETERMINISTIC, cjkFunction); err != nil {
		t.Fatal(err)
	}
	for _, m := range migrations[:6] {
		if err := c.Exec(m); err != nil {
			t.Fatal(err)
		}
	}
	for _, sql := range []string{
		`PRAGMA user_version=6`,
		`INSERT INTO folders(id, path, added_at) VALUES (1, '/docs', 0)`,
		`INSERT INTO file_issues VALUES ('/docs/a.pdf', 1, 'failed', 'timed out', 10, 20, 1, 0)`,
		`INSERT INTO file_issues VALUES ('/docs/b.doc', 1, 'skipped', 'legacy Word', 10, 20, 1, 0)`,
	} {
		if err := c.Exec(sql); err != nil {
			t.Fatalf("%s: %v", sql, err)
		}
	}
	c.Close()
	db, err := Open(path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	states, err := db.FileStates(ctx, 1)
	if err != nil {
		t.Fatal(err)
	}
	if a, b := states["/docs/a.pdf"], states["/docs/b.doc"]; !a.Retry || b.Retry || a.Issue != "failed" || b.Issue != "skipped" {
		t.Errorf("after migration: %+v %+v", a, b)
	}
	if err := db.RecordIssue(ctx, 1, domain.Issue{Path: "/docs/a.pdf", Kind: "failed", Reason: "broken", Size: 10, MTimeNS: 20, Hash: "abc"}); err != nil {
		t.Fatal(err)
	}
	issues, err := db.Issues(ctx, 1)
	if err != nil || len(issues) != 2 {
		t.Fatalf("%+v %v", issues, err)
	}
	for _, is := range issues {
		if is.Path == "/docs/a.pdf" && (is.Hash != "abc" || is.Retry || is.Reason != "broken") {
			t.Errorf("recorded again: %+v", is)
		}
	}
}

package bench

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"
)

// TestCollectionTruth: the truth of a collection question comes from grep
// over the files' text (HTML without its head, comments and tags), combined
// left to right, then filtered by extension and date and ordered.
func TestCollectionTruth(t *testing.T) {
	docs := t.TempDir()
	files := map[string]string{
		"a.txt":  "gzip and bzip2\nhard  link",
		"b.txt":  "only gzip here; gzipped",
		"c.html": "<html><head><title>gzip</title></head><body><!-- bzip2 -->Kerberos <b>password</b></body></html>",
		"d.md":   "hard\nlink, locales and local",
	}
	mtime := map[string]time.Time{}
	for i, name := range []string{"a.txt", "b.txt", "c.html", "d.md"} {
		if err := os.WriteFile(filepath.Join(docs, name), []byte(files[name]), 0o644); err != nil {
			t.Fatal(err)
		}
		mtime[name] = CollectionDate(i)
	}
	tr, err := newTruth(docs, filepath.Join(t.TempDir(), "text"))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		q    CollectionQuestion
		want []string
	}{
		{CollectionQuestion{Expr: "gzip|bzip2"}, []string{"a.txt", "b.txt"}},
		{CollectionQuestion{Expr: "gzip&bzip2"}, []string{"a.txt"}},
		{CollectionQuestion{Expr: "gzip!bzip2"}, []string{"b.txt"}},
		{CollectionQuestion{Expr: "*!gzip"}, []string{"c.html", "d.md"}},
		{CollectionQuestion{Expr: "kerberos&password"}, []string{"c.html"}},
		{CollectionQuestion{Expr: `"hard link"`}, []string{"a.txt", "d.md"}},
		{CollectionQuestion{Expr: "locale"}, nil},
		{CollectionQuestion{Expr: "*", Type: "txt", Order: "newest"}, []string{"b.txt", "a.txt"}},
		{CollectionQuestion{Expr: "*", Since: CollectionDate(1), Until: CollectionDate(3)}, []string{"b.txt", "c.html"}},
	} {
		got, err := tr.files(context.Background(), tc.q, mtime)
		if err != nil || !slices.Equal(got, tc.want) {
			t.Errorf("%+v: %v %v, want %v", tc.q, got, err, tc.want)
		}
	}
}

// TestCollectionSetReads: the repository's collection set reads whole.
func TestCollectionSetReads(t *testing.T) {
	cs, err := ReadCollectionSet("../testdata/quality/collection")
	if err != nil {
		t.Fatal(err)
	}
	conflicts, flagged := 0, 0
	for _, q := range cs.Questions {
		if q.Conflict {
			conflicts++
		}
		if len(q.Flags) > 0 {
			flagged++
		}
	}
	if len(cs.Questions) < 50 || len(cs.Docs) != 66 || conflicts != 3 || flagged != 6 {
		t.Errorf("%d questions, %d documents, %d conflicts, %d with flags", len(cs.Questions), len(cs.Docs), conflicts, flagged)
	}
}

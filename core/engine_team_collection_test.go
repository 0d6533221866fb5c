package core

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"cairn/core/answer"
	"cairn/core/collection"
	"cairn/core/domain"
	"cairn/core/netgate/netgatetest"
)

// TestTeamCollectionQuestionsAreTheSameOnBothStores: questions about the
// whole collection (counts and lists of files by type, folder, name, date
// and the words or phrase their passages hold), asked of the cluster, give
// what the knowledge base file's SQL gives for the same folders: the same
// files in the same order, with their titles, formats, times, matching
// passages and the line, line number and page of the best-ranked one, and
// the same statement; only the method names the cluster. Nothing but the
// node is dialled.
func TestTeamCollectionQuestionsAreTheSameOnBothStores(t *testing.T) {
	n := startNode(t)
	d := &netgatetest.Dialer{Loopback: true}
	sqlite, team := twoStores(t, n.URL, d)
	corpus, _ := filepath.Abs("../testdata/corpus")
	ctx := context.Background()
	withTerms, listed := 0, 0
	for _, c := range []struct {
		q     string
		f     domain.Filter
		forms bool
	}{
		{q: "How many files are there?"},
		{q: "How many PDFs are there?"},
		{q: "List the markdown files"},
		{q: "Which html files are there?"},
		{q: "List the files in the manuals folder"},
		{q: "How many documents under data?"},
		{q: "Which files are named router?"},
		{q: "Which files mention router?"},
		{q: "Which files mention models?"},
		{q: "How many files mention search?"},
		{q: "Which files mention search and index?"},
		{q: "Which files contain \"embedding model\"?"},
		{q: "Which markdown files mention the keyword?"},
		{q: "Which files mention settings?", f: domain.Filter{PathPrefixes: []string{filepath.Join(corpus, "manuals")}}},
		{q: "List files modified since 2001-01-01"},
		{q: "Which files were modified before 2001?"},
		{q: "Which files mention zyzzyvas?"},
		// Operators over whole files, whole words, orders, conflicts.
		{q: "Which files mention search or index?"},
		{q: "Which files mention both search and model?"},
		{q: "Which files mention search but not index?"},
		{q: "Which files do not mention search?"},
		{q: "How many files mention model?"},
		{q: "How many files mention model?", forms: true},
		{q: "Which files mention search, sorted by date?"},
		{q: "How many PDFs mention search?", f: domain.Filter{Types: []string{"md"}}},
	} {
		if _, ok := parseCollection(c.q); !ok {
			t.Fatalf("%q is not a question about the collection", c.q)
		}
		req := sqlite.SearchRequest(c.q)
		req.Filter, req.WordForms = c.f, c.forms
		want, err := sqlite.Ask(ctx, req, nil)
		if err != nil {
			t.Fatalf("%s: sqlite: %v", c.q, err)
		}
		got, err := team.Ask(ctx, req, nil)
		if err != nil {
			t.Fatalf("%s: cluster: %v", c.q, err)
		}
		if got.Mode != answer.ModeCollection || want.Mode != answer.ModeCollection || got.Collection == nil || want.Collection == nil {
			t.Fatalf("%s: modes %s and %s", c.q, got.Mode, want.Mode)
		}
		g, w := got.Collection, want.Collection
		if g.Total != w.Total || g.Statement != w.Statement || !reflect.DeepEqual(g.Files, w.Files) {
			t.Errorf("%s:\ncluster: %s\n%+v\nfile:    %s\n%+v", c.q, g.Statement, g.Files, w.Statement, w.Files)
		}
		if got.Text != want.Text {
			t.Errorf("%s: the answers differ:\n%s\n%s", c.q, got.Text, want.Text)
		}
		if !strings.HasPrefix(g.Method, "Counted by Weaviate at "+n.URL) {
			t.Errorf("%s: method %q", c.q, g.Method)
		}
		if len(w.Question.Terms) > 0 && w.Total > 0 {
			withTerms++
		}
		listed += w.Total
		t.Logf("%s -> %s (%d passages in the first file)", c.q, g.Statement, passagesOfFirst(g))
	}
	if withTerms < 6 || listed < 60 {
		t.Errorf("%d questions with words found files, %d files listed in all: the fixture no longer tests much", withTerms, listed)
	}
	for _, a := range d.Calls() {
		if a != strings.TrimPrefix(n.URL, "http://") {
			t.Errorf("dialled %s; only the node %s may be", a, n.URL)
		}
	}
}

// TestTeamCollectionQuestionsRankPassagesAsTheFileDoes: on Zipf-worded
// files of many passages each, modified on days a few weeks apart, the
// cluster lists the files holding a word, or two (each anywhere in the file), with as
// many matching passages and the same best-ranked one (its line and line
// number) as FTS5's bm25() picks in the file; and counts the files of a
// year, or since a day, as the file's SQL does.
func TestTeamCollectionQuestionsRankPassagesAsTheFileDoes(t *testing.T) {
	n := startNode(t)
	dir, mid := writeZipfCorpus(t, 30, 10, 3000)
	day := time.Date(2023, 1, 1, 9, 30, 0, 123456789, time.Local)
	for i := range 30 {
		mt := day.AddDate(0, 0, 25*i)
		if err := os.Chtimes(filepath.Join(dir, fmt.Sprintf("doc%03d.md", i)), mt, mt); err != nil {
			t.Fatal(err)
		}
	}
	sqlite, team := twoStoresOf(t, n.URL, &netgatetest.Dialer{Loopback: true}, dir)
	ctx := context.Background()
	qs := []string{"How many files were modified in 2023?", "List files modified since 2023-06-01", "Which files were modified before 2024-02-04?"}
	for i := range 16 {
		qs = append(qs, "Which files mention "+mid[i*3]+"?")
	}
	for i := range 8 {
		qs = append(qs, "Which files mention "+mid[i]+" and "+mid[i+8]+"?")
	}
	ranked, dated := 0, 0
	for _, q := range qs {
		if _, ok := parseCollection(q); !ok {
			t.Fatalf("%q is not a question about the collection", q)
		}
		want, err := sqlite.Ask(ctx, sqlite.SearchRequest(q), nil)
		if err != nil {
			t.Fatal(err)
		}
		got, err := team.Ask(ctx, team.SearchRequest(q), nil)
		if err != nil {
			t.Fatal(err)
		}
		g, w := got.Collection, want.Collection
		if g == nil || w == nil {
			t.Fatalf("%s: not answered as a question about the collection", q)
		}
		if g.Statement != w.Statement || !reflect.DeepEqual(g.Files, w.Files) {
			t.Errorf("%s:\ncluster: %s\n%+v\nfile:    %s\n%+v", q, g.Statement, g.Files, w.Statement, w.Files)
		}
		for _, f := range w.Files {
			if f.Passages > 1 {
				ranked++
			}
		}
		if len(w.Question.Terms) == 0 && w.Total > 0 && w.Total < 30 {
			dated++
		}
	}
	if ranked < 100 || dated != 3 {
		t.Errorf("%d files with several matching passages, %d date questions with some files but not all: the corpus no longer tests much", ranked, dated)
	}
}

// parseCollection is the engine's parse of a question about the
// collection.
func parseCollection(q string) (collection.Question, bool) {
	return collection.Parse(q, time.Now(), time.Local, "")
}

func passagesOfFirst(r *collection.Result) int {
	if len(r.Files) == 0 {
		return 0
	}
	return r.Files[0].Passages
}

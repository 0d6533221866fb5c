package search

import (
	"context"
	"math"
	"path/filepath"
	"testing"

	"cairn/core/chunk"
	"cairn/core/store"
)

// TestRelevanceIsTheWeightedShareOfTheQuestion builds a small knowledge
// base and checks the relevance of each result to the digit: words weigh
// their IDF, a word no passage holds weighs half as much again, and the
// title counts as the passage's own words.
func TestRelevanceIsTheWeightedShareOfTheQuestion(t *testing.T) {
	ctx := context.Background()
	db, err := store.Open(filepath.Join(t.TempDir(), "r.db"), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	f, _ := db.AddFolder(ctx, "/d")
	texts := map[string][]string{
		"/d/grep.txt":  {"-i, --ignore-case: ignore case distinctions in patterns.", "-v, --invert-match: select non-matching lines."},
		"/d/less.txt":  {"Searches ignore case when -i is given.", "Move forward one line."},
		"/d/notes.txt": {"Lines of text.", "More lines.", "Case studies."},
	}
	err = db.Update(ctx, func(tx *store.Tx) error {
		for path, ts := range texts {
			var cs []chunk.Chunk
			for i, s := range ts {
				cs = append(cs, chunk.Chunk{Ordinal: i, Text: s})
			}
			title := filepath.Base(path)[:len(filepath.Base(path))-4]
			if _, _, err := tx.PutDocument(store.Document{FolderID: f.ID, Path: path, Title: title, Hash: "h", Format: "text"}, cs, nil); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	resp, err := New(db, nil, nil).Search(ctx, Request{Query: "grep ignore case banana", Params: Params{RRFK: 60}})
	if err != nil {
		t.Fatal(err)
	}
	// 7 chunks: grep in 2 (the title is indexed with each chunk of its
	// document), ignore in 2, case in 3 ("case" and "Case"), banana in
	// none: it weighs its IDF and half as much again.
	n := 7.0
	idf := func(df float64) float64 { return math.Log(1 + (n-df+0.5)/(df+0.5)) }
	wGrep, wIgnore, wCase, wBanana := idf(2), idf(2), idf(3), idf(0)*absentWeight
	total := wGrep + wIgnore + wCase + wBanana
	want := map[string]float64{
		"/d/grep.txt":  (wGrep + wIgnore + wCase) / total, // grep through its title
		"/d/less.txt":  (wIgnore + wCase) / total,
		"/d/notes.txt": wCase / total,
	}
	seen := map[string]bool{}
	for _, r := range resp.Results {
		if seen[r.Path] {
			continue // the document's best passage
		}
		seen[r.Path] = true
		if math.Abs(r.Relevance-want[r.Path]) > 1e-9 {
			t.Errorf("%s: relevance %.6f, want %.6f", r.Path, r.Relevance, want[r.Path])
		}
	}
	if len(seen) != 3 {
		t.Errorf("results from %v, want all three files", seen)
	}

	// In a longer question the words no chunk holds are words of the
	// asking, weighed by their IDF alone.
	resp, err = New(db, nil, nil).Search(ctx, Request{Query: "grep ignore case banana really quickly", Params: Params{RRFK: 60}})
	if err != nil {
		t.Fatal(err)
	}
	absent := 3 * idf(0)
	if got, want := resp.Results[0].Relevance, (wGrep+wIgnore+wCase)/(wGrep+wIgnore+wCase+absent); resp.Results[0].Path != "/d/grep.txt" || math.Abs(got-want) > 1e-9 {
		t.Errorf("first result %s, relevance %.6f, want /d/grep.txt at %.6f", resp.Results[0].Path, got, want)
	}
}

package search

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"testing"

	"cairn/core/chunk"
	"cairn/core/domain"
	"cairn/core/store"
)

func TestRareFirstExpression(t *testing.T) {
	terms := ParseTerms("manual zebra XK-9")
	got := RareFirst(terms, []bool{true, false, false})
	want := `("manual" OR "zebra" OR "xk 9") NOT (("manual" OR "zebra" OR "xk 9") NOT ("zebra" OR "xk 9"))`
	if got != want {
		t.Errorf("got %s", got)
	}
	if RareFirst(terms, []bool{false, false, false}) != MatchQuery(terms) || RareFirst(terms, []bool{true, true, true}) != MatchQuery(terms) {
		t.Error("no pruning expected")
	}
}

// TestRareFirstKeepsScores indexes 12,000 chunks where "common" is
// everywhere and "rare" in a few, and checks that the pruned query returns
// exactly the chunks containing "rare", with the BM25 scores of the plain OR.
func TestRareFirstKeepsScores(t *testing.T) {
	ctx := context.Background()
	db, err := store.Open(filepath.Join(t.TempDir(), "r.db"), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	f, _ := db.AddFolder(ctx, "/d")
	err = db.Update(ctx, func(tx *store.Tx) error {
		for d := 0; d < 120; d++ {
			var cs []chunk.Chunk
			for i := 0; i < 100; i++ {
				text := fmt.Sprintf("common words in chunk %d %d", d, i)
				if (d*100+i)%997 == 0 {
					text += " rare"
				}
				if i%3 == 0 {
					text += " common again"
				}
				cs = append(cs, chunk.Chunk{Ordinal: i, Text: text})
			}
			if _, _, err := tx.PutDocument(store.Document{FolderID: f.ID, Path: fmt.Sprintf("/d/%d", d), Hash: "h"}, cs, nil); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	terms := ParseTerms("common rare")
	plain, err := db.SearchFTS(ctx, MatchQuery(terms), 20000, domain.Filter{})
	if err != nil {
		t.Fatal(err)
	}
	scores := map[int64]float64{}
	for _, h := range plain {
		scores[h.ChunkID] = h.BM25
	}
	s := New(db, nil, nil)
	hits, err := s.st.Keyword(ctx, terms, 10, domain.Filter{})
	if err != nil {
		t.Fatal(err)
	}
	if len(plain) != 12000 || len(hits) != 10 {
		t.Fatalf("plain %d rows, pruned %d (want every chunk, then 10 of the 13 with \"rare\")", len(plain), len(hits))
	}
	for _, h := range hits {
		if -h.Score != scores[h.ChunkID] {
			t.Errorf("chunk %d: pruned score %v, plain %v", h.ChunkID, -h.Score, scores[h.ChunkID])
		}
	}
	// A pool larger than the 13 is the plain OR's: the same list on every
	// path, the in-memory index's included.
	hits, err = s.st.Keyword(ctx, terms, 20, domain.Filter{})
	if err != nil {
		t.Fatal(err)
	}
	top, _ := db.SearchFTS(ctx, MatchQuery(terms), 20, domain.Filter{})
	if len(hits) != 20 || !slices.Equal(hitIDs(hits), hitIDs(ftsHits(top))) {
		t.Errorf("pool of 20: %v, plain %v", hitIDs(hits), hitIDs(ftsHits(top)))
	}
}

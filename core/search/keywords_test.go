package search

import (
	"context"
	"fmt"
	"math"
	"path/filepath"
	"slices"
	"testing"

	"cairn/core/bm25"
	"cairn/core/chunk"
	"cairn/core/domain"
	"cairn/core/store"
)

// countingIndex records which searches reached the keyword index.
type countingIndex struct {
	*bm25.Index
	calls, answered int
}

func (c *countingIndex) Search(ctx context.Context, words []string, common []bool, k int) ([]domain.FTSHit, bool, error) {
	c.calls++
	hits, ok, err := c.Index.Search(ctx, words, common, k)
	if ok {
		c.answered++
	}
	return hits, ok, err
}

// TestKeywordIndexRanksAsFTS5 searches 12,000 chunks through FTS5 (with
// its rare-first pruning) and through the in-memory keyword index: the
// same results, and phrases and filters go to FTS5.
func TestKeywordIndexRanksAsFTS5(t *testing.T) {
	ctx := context.Background()
	db, err := store.Open(filepath.Join(t.TempDir(), "k.db"), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	f, _ := db.AddFolder(ctx, "/d")
	words := []string{"pump", "valve", "pressure", "manual", "reset", "error", "sensor", "battery", "cable", "firmware"}
	err = db.Update(ctx, func(tx *store.Tx) error {
		for d := range 120 {
			var cs []chunk.Chunk
			for i := range 100 {
				n := d*100 + i
				text := fmt.Sprintf("%s %s %s part XK-%d", words[n%10], words[n%7], words[n%3], n%50)
				if n%997 == 0 {
					text += " zeolite"
				}
				cs = append(cs, chunk.Chunk{Ordinal: i, Text: text})
			}
			doc := store.Document{FolderID: f.ID, Path: fmt.Sprintf("/d/%d.txt", d), Hash: "h", Format: "text"}
			if _, _, err := tx.PutDocument(doc, cs, nil); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	kix := &countingIndex{Index: bm25.New(db)}
	defer kix.Close()
	if err := kix.Sync(ctx); err != nil {
		t.Fatal(err)
	}
	fast := New(db, nil, nil).WithKeywordIndex(kix)
	for _, q := range []string{"zeolite pump", "pressure sensor", "battery cable firmware reset", "valve"} {
		terms := ParseTerms(q)
		got, err := fast.st.Keyword(ctx, terms, 60, domain.Filter{})
		if err != nil {
			t.Fatal(err)
		}
		// The plain OR, not the searcher's pruned FTS5 query: the keyword
		// index needs no pruning and ranks every chunk.
		want, err := db.SearchFTS(ctx, MatchQuery(terms), 60, domain.Filter{})
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != 60 || len(want) != 60 {
			t.Fatalf("%q: %d and %d hits", q, len(got), len(want))
		}
		last := -want[59].BM25
		above := func(hs []Hit) []int64 {
			var ids []int64
			for _, h := range hs {
				if h.Score > last+1e-9 {
					ids = append(ids, h.ChunkID)
				}
			}
			slices.Sort(ids)
			return ids
		}
		for i := range got {
			if d := got[i].Score + want[i].BM25; d > 1e-9 || d < -1e-9 {
				t.Errorf("%q rank %d: score %v, FTS5 %v", q, i+1, got[i].Score, -want[i].BM25)
			}
		}
		if !slices.Equal(above(got), above(ftsHits(want))) {
			t.Errorf("%q: different chunks above the cut", q)
		}
	}
	if kix.answered != 4 {
		t.Fatalf("keyword index answered %d of 4 plain searches", kix.answered)
	}
	p := DefaultParams()
	p.TopK = 10
	// A phrase is FTS5's to score, within the index's answer; a filter is
	// FTS5's alone, and the index is not asked.
	r, err := fast.Search(ctx, Request{Query: "XK-7 pump", Params: p})
	if err != nil || len(r.Results) != 10 || kix.answered != 5 {
		t.Fatalf("phrase: %v results, %v, answered %d", len(r.Results), err, kix.answered)
	}
	if plain, _ := db.SearchFTS(ctx, MatchQuery(ParseTerms("XK-7 pump")), 1, domain.Filter{}); math.Abs(r.Results[0].BM25Score+plain[0].BM25) > 1e-9 {
		t.Errorf("phrase: best score %v, FTS5 %v", r.Results[0].BM25Score, -plain[0].BM25)
	}
	r, err = fast.Search(ctx, Request{Query: "pump", Params: p, Filter: domain.Filter{PathPrefixes: []string{"/d/1"}}})
	if err != nil || len(r.Results) == 0 || kix.calls != 5 {
		t.Fatalf("filter: %v results, %v, calls %d", len(r.Results), err, kix.calls)
	}
	for _, x := range r.Results {
		if x.Path[:4] != "/d/1" {
			t.Errorf("filtered result %s", x.Path)
		}
	}
}

// behindIndex cannot answer the first search it is asked; its Behind says
// the index has caught up, or else admits the search to FTS5.
type behindIndex struct {
	hits                      []domain.FTSHit
	caughtUp                  bool
	asked, admitted, released int
}

func (b *behindIndex) Search(context.Context, []string, []bool, int) ([]domain.FTSHit, bool, error) {
	b.asked++
	return b.hits, b.asked > 1, nil
}

func (b *behindIndex) Behind(context.Context) (func(), bool, error) {
	if b.caughtUp {
		return func() {}, true, nil
	}
	b.admitted++
	return func() { b.released++ }, false, nil
}

// A search the keyword index cannot answer waits in its Behind before it
// goes to FTS5 and gives its admission back after; told that the index
// caught up meanwhile, it asks the index again.
func TestKeywordSearchWaitsWhileTheIndexCatchesUp(t *testing.T) {
	ctx := context.Background()
	db, err := store.Open(filepath.Join(t.TempDir(), "k.db"), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	f, err := db.AddFolder(ctx, "/d")
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := db.PutDocument(ctx, store.Document{FolderID: f.ID, Path: "/d/pump.txt", Hash: "h", Format: "text"},
		[]chunk.Chunk{{Text: "the pump and its valve"}}, nil); err != nil {
		t.Fatal(err)
	}
	terms := ParseTerms("pump")

	caught := &behindIndex{hits: []domain.FTSHit{{ChunkID: 42, BM25: -3}}, caughtUp: true}
	got, err := New(db, nil, nil).WithKeywordIndex(caught).st.Keyword(ctx, terms, 10, domain.Filter{})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(got, []Hit{{ChunkID: 42, Score: 3}}) || caught.asked != 2 {
		t.Errorf("caught up: %v after asking the index %d times; want its answer, asked twice", got, caught.asked)
	}

	admitted := &behindIndex{}
	got, err = New(db, nil, nil).WithKeywordIndex(admitted).st.Keyword(ctx, terms, 10, domain.Filter{})
	if err != nil {
		t.Fatal(err)
	}
	want, err := db.SearchFTS(ctx, MatchQuery(terms), 10, domain.Filter{})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(got, ftsHits(want)) || len(got) != 1 {
		t.Errorf("admitted to FTS5: %v, FTS5 %v", got, want)
	}
	if admitted.asked != 1 || admitted.admitted != 1 || admitted.released != 1 {
		t.Errorf("asked the index %d times, admitted %d, released %d; want 1, 1, 1", admitted.asked, admitted.admitted, admitted.released)
	}
}

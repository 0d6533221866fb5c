package search

import (
	"context"
	"fmt"
	"maps"
	"path/filepath"
	"strings"
	"testing"
	"unicode"

	"cairn/core/chunk"
	"cairn/core/domain"
	"cairn/core/store"
)

// FuzzRareFirst checks the pruned expression the searcher runs on large
// knowledge bases, for any query and any split into common and rare terms:
// FTS5 accepts it, it returns exactly the chunks of the plain OR that hold
// a rare term (all of them when no term, or every term, is common), and
// with the plain OR's BM25 scores.
func FuzzRareFirst(f *testing.F) {
	for _, s := range []struct {
		q    string
		mask uint64
	}{
		{"manual zebra XK-9", 1}, {"b c x", 2}, {"near and or not", 5}, {"café straße 東京", 3},
		{"run running runs", 6}, {"x", 1}, {"", 0}, {`"a" NOT b*`, 1},
	} {
		f.Add(s.q, s.mask)
	}
	db := fuzzDB(f)
	f.Fuzz(func(t *testing.T, q string, mask uint64) {
		terms := ParseTerms(q)
		common := make([]bool, len(terms))
		var rare []Term
		for i := range terms {
			common[i] = mask&(1<<(i%64)) != 0
			if !common[i] {
				rare = append(rare, terms[i])
			}
		}
		m := RareFirst(terms, common)
		plain := fuzzSearch(t, db, MatchQuery(terms))
		got := fuzzSearch(t, db, m)
		want := plain
		if len(rare) > 0 && len(rare) < len(terms) {
			var withRare map[int64]float64
			for _, r := range rare {
				withRare = union(withRare, fuzzSearch(t, db, MatchQuery([]Term{r})))
			}
			want = map[int64]float64{}
			for id, score := range plain {
				if _, ok := withRare[id]; ok {
					want[id] = score
				}
			}
		}
		if !sameKeys(got, want) {
			t.Fatalf("query %q, common %v -> %s: %d chunks, want %d", q, common, m, len(got), len(want))
		}
		for id, score := range got {
			if score != plain[id] {
				t.Fatalf("query %q, common %v -> %s: chunk %d scored %v, the plain OR %v", q, common, m, id, score, plain[id])
			}
		}
	})
}

// fuzzDB is a small knowledge base whose words a fuzzer finds quickly
// (single letters and digits) next to FTS5 operator words, stems,
// diacritics and non-Latin scripts.
func fuzzDB(f *testing.F) *store.DB {
	f.Helper()
	db, err := store.Open(filepath.Join(f.TempDir(), "fuzz.db"), store.Options{})
	if err != nil {
		f.Fatal(err)
	}
	f.Cleanup(func() { db.Close() })
	ctx := context.Background()
	folder, err := db.AddFolder(ctx, "/d")
	if err != nil {
		f.Fatal(err)
	}
	texts := []string{
		"near and or not col val start", "a b c d e f", "x y z 1 2 3", "b x 2 manual", "zebra manual guide",
		"xk 9 seal", "xk 200 b seal ring", "café ünïcode", "straße strasse", "東京 日本 データ", "αβγ δ",
		"run running runs ran", "common words everywhere b", "0 9 00 e1 x2",
	}
	for d, ext := range []string{"txt", "md", "html"} {
		var cs []chunk.Chunk
		for i, text := range texts {
			cs = append(cs, chunk.Chunk{Ordinal: i, Text: fmt.Sprintf("%s %s", text, texts[(i+d)%len(texts)]),
				Heading: texts[(i+2*d+1)%len(texts)]})
		}
		doc := store.Document{FolderID: folder.ID, Path: fmt.Sprintf("/d/%d.%s", d, ext), Hash: "h", Title: texts[d]}
		if _, _, err := db.PutDocument(ctx, doc, cs, nil); err != nil {
			f.Fatal(err)
		}
	}
	return db
}

// fuzzSearch runs a MATCH expression and returns every matched chunk with
// its BM25 score; FTS5 refusing the expression fails the test.
func fuzzSearch(t *testing.T, db *store.DB, match string) map[int64]float64 {
	t.Helper()
	out := map[int64]float64{}
	if match == "" {
		return out
	}
	hits, err := db.SearchFTS(context.Background(), match, 1000, domain.Filter{})
	if err != nil {
		t.Fatalf("FTS5 refused %s: %v", match, err)
	}
	for _, h := range hits {
		out[h.ChunkID] = h.BM25
	}
	return out
}

// checkExpression checks the shape of MatchQuery's result for query q:
// empty exactly when there are no terms, else distinct quoted phrases of
// tokens made of letters, digits and combining marks, each taken from the
// query itself, joined by " OR ".
func checkExpression(t *testing.T, q, m string, terms []Term) {
	t.Helper()
	if len(terms) == 0 {
		if m != "" {
			t.Fatalf("query %q has no terms but built %q", q, m)
		}
		return
	}
	phrases := strings.Split(m, " OR ")
	if len(phrases) != len(terms) || len(phrases) > maxTerms {
		t.Fatalf("query %q -> %q: %d phrases for %d terms (at most %d)", q, m, len(phrases), len(terms), maxTerms)
	}
	seen := map[string]bool{}
	lower := strings.ToLower(q)
	for _, p := range phrases {
		inner, opened := strings.CutPrefix(p, `"`)
		inner, closed := strings.CutSuffix(inner, `"`)
		if !opened || !closed || inner == "" || seen[inner] {
			t.Fatalf("query %q -> %q: %q is not a new quoted phrase", q, m, p)
		}
		seen[inner] = true
		for _, tok := range strings.Split(inner, " ") {
			if tok == "" || !strings.Contains(lower, tok) {
				t.Fatalf("query %q -> %q: token %q is not a word of the query", q, m, tok)
			}
			for _, r := range tok {
				if !unicode.IsLetter(r) && !unicode.IsDigit(r) && !unicode.Is(unicode.Mn, r) {
					t.Fatalf("query %q -> %q: token %q holds %q", q, m, tok, r)
				}
			}
		}
	}
}

// union adds b's entries to a (allocating a when nil) and returns it.
func union(a, b map[int64]float64) map[int64]float64 {
	if a == nil {
		a = map[int64]float64{}
	}
	maps.Copy(a, b)
	return a
}

func sameKeys(a, b map[int64]float64) bool {
	if len(a) != len(b) {
		return false
	}
	for k := range a {
		if _, ok := b[k]; !ok {
			return false
		}
	}
	return true
}

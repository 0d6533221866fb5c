package search

import (
	"cairn/core/domain"
	"context"
	"testing"
)

func TestMatchQuery(t *testing.T) {
	tests := []struct{ in, want string }{
		{"how do I reset the device", `"reset" OR "device"`},
		{"XK-200-B seal", `"xk 200 b" OR "seal"`},
		{`"quoted phrase" NEAR(a b) *star^ col:umn`, `"quoted" OR "phrase" OR "near a" OR "b" OR "star" OR "col umn"`},
		{"AND OR NOT", `"and" OR "or" OR "not"`}, // all stopwords: keep them, as plain words
		{"the the THE", `"the"`},
		{"café Ünïcode", `"café" OR "ünïcode"`},
		{`") OR 1=1 --`, `"1 1"`},
		{"*** ::: ---", ``},
		{"", ``},
	}
	for _, tt := range tests {
		if got := MatchQuery(ParseTerms(tt.in)); got != tt.want {
			t.Errorf("MatchQuery(%q) = %s, want %s", tt.in, got, tt.want)
		}
	}
}

func TestTermLimit(t *testing.T) {
	q := ""
	for i := range 50 {
		q += " w" + string(rune('a'+i%26)) + string(rune('a'+i/26))
	}
	if n := len(ParseTerms(q)); n != maxTerms {
		t.Errorf("%d terms, want %d", n, maxTerms)
	}
}

// FuzzMatchQuery checks that no user text can make FTS5 fail or widen the
// query: the expression is quoted phrases of letters and digits joined by
// OR (no operator, column filter, prefix or NEAR of the user's survives),
// and it matches exactly the chunks that one of its phrases matches.
func FuzzMatchQuery(f *testing.F) {
	for _, s := range []string{`a "b" c`, "NEAR(x y, 3)", "a*", "-x", "col:val", "^start", "{a b}:c", "\x00\xff", "AND",
		`near OR val NOT start`, `text:zebra`, `"zebra" OR *`, "XK-200-B café", "ΑΒΓ ß 東京", "e\u0301 \u0301"} {
		f.Add(s)
	}
	db := fuzzDB(f)
	ctx := context.Background()
	f.Fuzz(func(t *testing.T, q string) {
		terms := ParseTerms(q)
		m := MatchQuery(terms)
		checkExpression(t, q, m, terms)
		got := fuzzSearch(t, db, m)
		var want map[int64]float64
		for _, term := range terms {
			want = union(want, fuzzSearch(t, db, MatchQuery([]Term{term})))
		}
		if !sameKeys(got, want) {
			t.Fatalf("query %q -> %s matched %d chunks; its phrases one by one match %d", q, m, len(got), len(want))
		}
		if _, err := db.SearchFTS(ctx, m, 5, domain.Filter{Types: []string{"md"}}); err != nil {
			t.Fatalf("query %q -> %s with a filter: %v", q, m, err)
		}
	})
}

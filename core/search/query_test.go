package search

import (
	"context"
	"path/filepath"
	"testing"

	"cairn/core/chunk"
	"cairn/core/store"
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
// query: every term must come back as a quoted phrase of letters and digits.
func FuzzMatchQuery(f *testing.F) {
	for _, s := range []string{`a "b" c`, "NEAR(x y, 3)", "a*", "-x", "col:val", "^start", "{a b}:c", "\x00\xff", "AND"} {
		f.Add(s)
	}
	db, err := store.Open(filepath.Join(f.TempDir(), "fuzz.db"), store.Options{})
	if err != nil {
		f.Fatal(err)
	}
	defer db.Close()
	ctx := context.Background()
	folder, _ := db.AddFolder(ctx, "/d")
	if _, _, err := db.PutDocument(ctx, store.Document{FolderID: folder.ID, Path: "/d/a", Hash: "h"},
		[]chunk.Chunk{{Text: "near and or not col val start"}}, nil); err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, q string) {
		m := MatchQuery(ParseTerms(q))
		if _, err := db.SearchFTS(ctx, m, 5, store.Filter{}); err != nil {
			t.Fatalf("query %q -> %s: %v", q, m, err)
		}
	})
}

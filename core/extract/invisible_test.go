package extract

import (
	"context"
	"strings"
	"testing"
)

// TestInvisibleCharactersAreRemoved: zero-width and other
// default-ignorable characters leave the text before it is indexed, with
// every unit and heading still where its text is; a document mostly made
// of them says so, and one made only of them has no text (issue 43,
// item 6).
func TestInvisibleCharactersAreRemoved(t *testing.T) {
	r := NewRegistry(DefaultLimits())
	d, err := r.Extract(t.Context(), fileOf("hidden.txt", []byte("the p\u200ba\u200bs\u200bs\u200bw\u200bo\u200br\u200bd is here")))
	if err != nil || d.Text != "the password is here" || len(d.Warnings) != 0 {
		t.Errorf("%q %v %v", d.Text, d.Warnings, err)
	}

	zw := strings.Repeat("\u200b", 40)
	r.Register(ExtractorFunc(func(ctx context.Context, f File, lim Limits) (*Document, error) {
		text := "\ufeffIntro" + zw + "\n\nPage two" + zw + " text\n\nPage three"
		p2 := strings.Index(text, "Page two")
		p3 := strings.Index(text, "Page three")
		return &Document{Format: "test", Title: "Ti\u200dtle", Text: text,
			Units:    []Unit{{Kind: UnitPage, Number: 1, Start: 0, End: p2}, {Kind: UnitPage, Number: 2, Start: p2, End: p3}, {Kind: UnitPage, Number: 3, Start: p3, End: len(text)}},
			Headings: []Heading{{Offset: p2, Level: 1, Text: "Page\u200b two"}, {Offset: p3 - 1, Level: 1, Text: "before three"}}}, nil
	}), ".zw")
	d, err = r.Extract(t.Context(), fileOf("doc.zw", []byte("x")))
	if err != nil {
		t.Fatal(err)
	}
	if d.Text != "Intro\n\nPage two text\n\nPage three" || d.Title != "Title" {
		t.Fatalf("text %q title %q", d.Text, d.Title)
	}
	for i, want := range []string{"Intro\n\n", "Page two text\n\n", "Page three"} {
		if got := d.Text[d.Units[i].Start:d.Units[i].End]; got != want {
			t.Errorf("page %d: %q, want %q", i+1, got, want)
		}
	}
	if h := d.Headings[0]; h.Text != "Page two" || !strings.HasPrefix(d.Text[h.Offset:], "Page two") {
		t.Errorf("heading %+v", h)
	}
	if h := d.Headings[1]; !strings.HasPrefix(d.Text[h.Offset:], "\nPage three") {
		t.Errorf("heading %+v at %q", h, d.Text[h.Offset:])
	}
	contains(t, "warnings", strings.Join(d.Warnings, "\n"), "81 invisible characters (zero-width spaces, joiners and the like) removed: more than the 25 visible ones")

	_, err = r.Extract(t.Context(), fileOf("invisible.txt", []byte(strings.Repeat("\u200b\u200c\u2060", 1000))))
	wantErr(t, "only invisible", err, ErrEmpty, "no text: the file contains no extractable text (3000 invisible characters (zero-width spaces, joiners and the like) removed: more than the 0 visible ones)")
}

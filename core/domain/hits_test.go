package domain

import "testing"

// TestNeighboursBeforeAndAfter: what the passages either side add to a
// passage, when they overlap it (as the chunker's windows do), when they
// only touch it, when they lie further away, and when there is none.
func TestNeighboursBeforeAndAfter(t *testing.T) {
	doc := "One. Two three. Four five. Six."
	at := func(s, e int) *ChunkInfo { return &ChunkInfo{Text: doc[s:e], Start: s, End: e} }
	for _, tt := range []struct {
		name          string
		n             Neighbours
		before, after string
	}{
		{"overlapping", Neighbours{*at(5, 26), at(0, 15), at(16, 31)}, "One.", "Six."},
		{"touching", Neighbours{*at(5, 15), at(0, 5), at(16, 31)}, "One.", "Four five. Six."},
		{"apart", Neighbours{*at(16, 26), at(0, 4), nil}, "One.", ""},
		{"none", Neighbours{Passage: *at(0, 31)}, "", ""},
	} {
		if b, a := tt.n.Before(), tt.n.After(); b != tt.before || a != tt.after {
			t.Errorf("%s: before %q, after %q; want %q, %q", tt.name, b, a, tt.before, tt.after)
		}
	}
}

package domain

import "testing"

// TestOutside: what a neighbouring passage adds to a passage, when the two
// overlap (as the chunker's windows do), when they only touch, and when
// the neighbour lies further away.
func TestOutside(t *testing.T) {
	doc := "One. Two three. Four five. Six."
	at := func(s, e int) ChunkInfo { return ChunkInfo{Text: doc[s:e], Start: s, End: e} }
	c := at(5, 26)    // "Two three. Four five."
	prev := at(0, 15) // "One. Two three."
	next := at(16, 31)
	if got := c.Outside(prev); got != "One." {
		t.Errorf("before: %q", got)
	}
	if got := c.Outside(next); got != "Six." {
		t.Errorf("after: %q", got)
	}
	if got := at(5, 15).Outside(at(16, 31)); got != "Four five. Six." {
		t.Errorf("touching: %q", got)
	}
	if got := at(16, 26).Outside(at(0, 4)); got != "One." {
		t.Errorf("apart: %q", got)
	}
}

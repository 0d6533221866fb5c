package domain

import "strings"

// FTSHit is a chunk matched by the full-text index.
type FTSHit struct {
	ChunkID int64
	BM25    float64 // FTS5 bm25(): negative, lower is better
}

// VectorHit is a chunk found by vector search.
type VectorHit struct {
	ChunkID  int64
	Distance float64 // cosine distance: 0 identical, 2 opposite
}

// ChunkInfo is a chunk with what a result needs to cite it.
type ChunkInfo struct {
	ID         int64
	DocumentID int64
	Path       string
	Title      string
	Format     string
	Ordinal    int
	Text       string
	Heading    string
	UnitKind   string
	Page       int
	Label      string
	LineStart  int
	LineEnd    int
	Start, End int
}

// DocumentMatch is one document found by a question about the collection.
type DocumentMatch struct {
	Path     string
	Title    string
	Format   string
	MTimeNS  int64
	Passages int   // chunks matching the text condition; 0 without one
	ChunkID  int64 // its best matching chunk; without a text condition, its first
}

// Neighbours is a passage with the passages either side of it in its
// document (the ordinals one less and one more).
type Neighbours struct {
	Passage    ChunkInfo
	Prev, Next *ChunkInfo // nil where there is none: the document's first or last passage
}

// Before is the text of Prev that Passage does not hold, trimmed ("" with
// no Prev): the sentences just before the passage's first. Neighbouring
// passages overlap, so Prev's text is cut where Passage begins.
func (n Neighbours) Before() string {
	if n.Prev == nil {
		return ""
	}
	return n.Passage.outside(*n.Prev)
}

// After is the text of Next that Passage does not hold, trimmed ("" with
// no Next): the sentences just after the passage's last.
func (n Neighbours) After() string {
	if n.Next == nil {
		return ""
	}
	return n.Passage.outside(*n.Next)
}

// outside is the text of n, a passage next to c in the same document,
// that c does not hold: n's text before c's start when n comes first,
// after c's end when it comes last, trimmed; all of it when they do not
// touch.
func (c ChunkInfo) outside(n ChunkInfo) string {
	t := n.Text
	switch {
	case n.Start < c.Start && n.End > c.Start:
		t = t[:min(len(t), c.Start-n.Start)]
	case n.Start >= c.Start && n.Start < c.End:
		t = t[min(len(t), c.End-n.Start):]
	}
	return strings.TrimSpace(t)
}

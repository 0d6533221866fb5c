package core

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"cairn/core/config"
	"cairn/core/domain"
	"cairn/core/kb"
)

// namedCaptures is prose wrapped at 60 columns, as a PDF's or a text
// rendering's lines are; 200-character windows cut it into six passages.
const namedCaptures = `Named captures make long patterns easier to read and to
maintain. To attach a name to a group, write (?<name>...)
and use the name later. The captured text is then in the %+
hash, keyed by the name you gave it. Perl numbers the groups
from the left as well, so $1 still works. Two groups may
share a name, and the hash then holds the leftmost one that
matched. Named backreferences are written \k<name>, which
reads better than \3 in a long pattern. Use them whenever a
pattern has more than two groups.
`

// TestChunkNeighboursGiveTheSentencesAround: the passages either side of
// a passage are its document's previous and next, and what they add to it
// is the sentence before its first and the one after its last; the first
// passage has none before it, the last none after it; an unknown passage
// is not found.
func TestChunkNeighboursGiveTheSentencesAround(t *testing.T) {
	eng := testEngine(t, func(c *config.Config) { c.Chunking.Size, c.Chunking.Overlap = 200, 60 })
	ctx := context.Background()
	dir := t.TempDir()
	path := filepath.Join(dir, "captures.txt")
	if err := os.WriteFile(path, []byte(namedCaptures), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := eng.IndexFolder(ctx, dir, nil); err != nil {
		t.Fatal(err)
	}
	cs, err := eng.DocumentChunks(ctx, path)
	if err != nil || len(cs) != 6 {
		t.Fatalf("%d passages (%v), want 6", len(cs), err)
	}
	n, err := eng.ChunkNeighbours(ctx, cs[1].ID)
	if err != nil || n.Passage.ID != cs[1].ID || n.Prev == nil || n.Next == nil || n.Prev.ID != cs[0].ID || n.Next.ID != cs[2].ID {
		t.Fatalf("neighbours of passage 1: %+v (%v); want passages 0 and 2", n, err)
	}
	if got, want := n.Before(), "Named captures make long patterns easier to read and to\nmaintain."; got != want {
		t.Errorf("before passage 1: %q, want %q", got, want)
	}
	if got, want := n.After(), "Perl numbers the groups\nfrom the left as well, so $1 still works."; got != want {
		t.Errorf("after passage 1: %q, want %q", got, want)
	}
	for _, tt := range []struct {
		c          domain.ChunkInfo
		prev, next bool
	}{{cs[0], false, true}, {cs[5], true, false}} {
		n, err := eng.ChunkNeighbours(ctx, tt.c.ID)
		if err != nil || (n.Prev != nil) != tt.prev || (n.Next != nil) != tt.next {
			t.Errorf("passage %d: before %v, after %v (%v)", tt.c.Ordinal, n.Prev, n.Next, err)
		}
	}
	if _, err := eng.ChunkNeighbours(ctx, cs[5].ID+1000); !errors.Is(err, kb.ErrNotFound) {
		t.Errorf("an unknown passage: %v, want kb.ErrNotFound", err)
	}
}

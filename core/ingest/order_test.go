package ingest

import (
	"fmt"
	"slices"
	"testing"

	"cairn/core/store"
)

func TestEmbedQueueServesThePersonFirst(t *testing.T) {
	// In store.PendingChunks' order: most recently modified first.
	pending := []store.PendingChunk{
		{ID: 1, DocumentID: 10, Path: "/d/new.txt"},
		{ID: 2, DocumentID: 20, Path: "/d/mid.txt"},
		{ID: 3, DocumentID: 30, Path: "/d/old.txt"},
		{ID: 4, DocumentID: 30, Path: "/d/old.txt"},
		{ID: 5, DocumentID: 40, Path: "/d/sub/deep.txt"},
		{ID: 6, DocumentID: 50, Path: "/d/subway.txt"}, // not under /d/sub
	}
	for _, tc := range []struct {
		name string
		in   Interest
		n    int
		want [][]int64 // batch after batch
	}{
		{"most recently modified first", Interest{}, 4, [][]int64{{1, 2, 3, 4}, {5, 6}, nil}},
		{"a document shown in results first", Interest{Documents: []int64{30}}, 3, [][]int64{{3, 4, 1}, {2, 5, 6}}},
		{"then a folder searched", Interest{Documents: []int64{30}, Folders: []string{"/d/sub"}}, 4, [][]int64{{3, 4, 5, 1}, {2, 6}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			q := newEmbedQueue(pending)
			for i, want := range tc.want {
				if got := q.next(tc.n, tc.in); !slices.Equal(got, want) {
					t.Errorf("batch %d: %v, want %v", i+1, got, want)
				}
			}
		})
	}
	// Interest that changes between batches takes effect at the next one.
	q := newEmbedQueue(pending)
	q.next(2, Interest{})
	if got := q.next(2, Interest{Documents: []int64{50}}); !slices.Equal(got, []int64{6, 3}) {
		t.Errorf("after a document was shown: %v, want [6 3]", got)
	}
	if q.left != 2 {
		t.Errorf("%d left, want 2", q.left)
	}
}

// BenchmarkEmbedQueueNext takes a batch of 32 among 100,000 pending chunks
// with a person's interest: what the embedding loop pays each batch.
func BenchmarkEmbedQueueNext(b *testing.B) {
	pending := make([]store.PendingChunk, 100000)
	for i := range pending {
		pending[i] = store.PendingChunk{ID: int64(i), DocumentID: int64(i / 10), Path: fmt.Sprintf("/d/%d/f%d.txt", i%100, i/10)}
	}
	in := Interest{Folders: []string{"/d/7", "/d/42"}}
	for d := range 50 {
		in.Documents = append(in.Documents, int64(d*97))
	}
	for b.Loop() {
		q := newEmbedQueue(pending) // untaken: every pass scans them all
		if ids := q.next(32, in); len(ids) != 32 {
			b.Fatal(len(ids))
		}
	}
}

package teamstore

import (
	"context"
	"reflect"
	"strings"
	"testing"

	"cairn/core/chunk"
)

// TestReadDocumentPagesThroughEveryChunkWithItsVector: a file's chunks
// come back in order, page after page, with what the cluster keeps of
// them and their vectors; Documents lists the file with its fingerprint,
// and TouchDocument changes only its time, on the file and its chunks.
func TestReadDocumentPagesThroughEveryChunkWithItsVector(t *testing.T) {
	s := testStore(t, Options{})
	ctx := context.Background()
	defer func(n int) { readPage = n }(readPage)
	readPage = 3
	var cs []chunk.Chunk
	var vs [][]float32
	for i := range 7 {
		text := strings.Repeat("word ", i+1) + "end"
		cs = append(cs, chunk.Chunk{Ordinal: i, Text: text, Heading: "H", Page: i / 2, LineStart: i*3 + 1, LineEnd: i*3 + 2})
		vs = append(vs, embed(text))
	}
	doc := Document{Folder: "f", Path: "a/b.md", Size: 99, MTimeNS: 1_700_000_000_123_456_789, Hash: "h1", Title: "B", Format: "markdown", IndexedBy: "test"}
	if err := s.PutDocument(ctx, doc, cs, vs); err != nil {
		t.Fatal(err)
	}
	got, gv, err := s.ReadDocument(ctx, "f", "a/b.md")
	if err != nil || !reflect.DeepEqual(got, cs) || !reflect.DeepEqual(gv, vs) {
		t.Fatalf("read back (%v):\n got %+v\nwant %+v\nvectors equal: %v", err, got, cs, reflect.DeepEqual(gv, vs))
	}
	if err := s.PutDocument(ctx, Document{Folder: "f", Path: "kw.txt", Hash: "h2"}, cs[:2], nil); err != nil {
		t.Fatal(err)
	}
	if _, gv, err := s.ReadDocument(ctx, "f", "kw.txt"); gv != nil || err != nil {
		t.Errorf("a file without vectors: %v, %v", gv, err)
	}
	if err := s.TouchDocument(ctx, "f", "a/b.md", 100, 1_800_000_000_000_000_001); err != nil {
		t.Fatal(err)
	}
	docs, err := s.Documents(ctx)
	if err != nil || len(docs) != 2 {
		t.Fatalf("documents: %+v, %v", docs, err)
	}
	d := docs[0]
	if d.Path != "a/b.md" || d.Size != 100 || d.MTimeNS != 1_800_000_000_000_000_001 || d.Hash != "h1" || d.Title != "B" || d.Format != "markdown" || d.Chunks != 7 {
		t.Errorf("after the touch: %+v", d)
	}
	// Its chunks carry the new time: a search for files changed since
	// then finds all seven, and none before it.
	for _, f := range []Files{{SinceMs: 1_800_000_000_000}, {UntilMs: 1_800_000_000_000}} {
		hits, err := s.BM25(ctx, "word", Query{Limit: 20, Files: f})
		want := 7
		if f.UntilMs != 0 {
			want = 2 // kw.txt's, of time 0
		}
		if err != nil || len(hits) != want {
			t.Errorf("searched with %+v after the touch: %d hits (%v), want %d", f, len(hits), err, want)
		}
	}
	if err := s.TouchDocument(ctx, "f", "gone.md", 1, 1); err == nil || !strings.Contains(err.Error(), "it holds no such file") {
		t.Errorf("touching a file the cluster lacks: %v", err)
	}
}

// TestTheVectorModelIsRecordedInTheCluster, for the knowledge base and per
// folder, and read back by another Store.
func TestTheVectorModelIsRecordedInTheCluster(t *testing.T) {
	s := testStore(t, Options{})
	ctx := context.Background()
	if id, dim, err := s.VectorModel(ctx); id != "" || dim != 0 || err != nil {
		t.Fatalf("new: %q %d %v", id, dim, err)
	}
	if err := s.SetVectorModel(ctx, "minilm-384-abcd", 384); err != nil {
		t.Fatal(err)
	}
	if err := s.SetFolderVectorModel(ctx, "share/x", "minilm-384-abcd"); err != nil {
		t.Fatal(err)
	}
	other := testStore(t, Options{})
	if id, dim, err := other.VectorModel(ctx); id != "minilm-384-abcd" || dim != 384 || err != nil {
		t.Errorf("read back: %q %d %v", id, dim, err)
	}
	for folder, want := range map[string]string{"share/x": "minilm-384-abcd", "share": ""} {
		if got, err := other.FolderVectorModel(ctx, folder); got != want || err != nil {
			t.Errorf("folder %s: %q %v", folder, got, err)
		}
	}
}

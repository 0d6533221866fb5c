package teamstore

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"testing"
	"time"

	"cairn/core/domain"
	"cairn/core/teamstore/teamtest"
)

// TestRemovingAFolderRemovesAllOfItInRoundsAndNothingElse: a folder's
// fingerprints, chunks (a file's whose write stopped before its
// fingerprint too) and records leave the cluster, in rounds the progress
// reports, under the folder's lease; another folder keeps every file,
// chunk and record. The node removes at most 5 objects a request
// (QUERY_MAXIMUM_RESULTS), so the fixture's chunks take several rounds.
func TestRemovingAFolderRemovesAllOfItInRoundsAndNothingElse(t *testing.T) {
	bin := weaviateBin(t)
	cfg, err := teamtest.SingleNode(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	const perRound = 5
	cfg.Env = []string{fmt.Sprintf("QUERY_MAXIMUM_RESULTS=%d", perRound)}
	n := teamtest.New(bin, cfg)
	t.Cleanup(n.Stop)
	if err := n.Start(); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	opt := Options{URL: n.URL, Key: testKey, Collection: "Removal"}
	s, err := Open(ctx, opt)
	if err != nil {
		t.Fatal(err)
	}
	docs := corpus(t)
	total := putAll(t, s, docs)
	const other = "share/other"
	for _, d := range docs {
		d.doc.Folder = other
		if err := s.PutDocument(ctx, d.doc, d.chunks, d.vectors); err != nil {
			t.Fatal(err)
		}
	}
	// half.md: chunks written, the connection lost before its fingerprint.
	opt.HTTP = &http.Client{Transport: &lossyTransport{failAt: 2}}
	half, err := Open(ctx, opt)
	if err != nil {
		t.Fatal(err)
	}
	h := docs[0]
	h.doc.Path = "half.md"
	if err := half.PutDocument(ctx, h.doc, h.chunks, h.vectors); err == nil {
		t.Fatal("the fingerprint write did not fail")
	}
	for _, f := range []string{fixtureFolder, other} {
		if err := s.SetFolderExtractors(ctx, f, "pdf=3"); err != nil {
			t.Fatal(err)
		}
		if err := s.SetFolderVectorModel(ctx, f, "test-embed"); err != nil {
			t.Fatal(err)
		}
	}
	want := domain.FolderSize{Folder: fixtureFolder, Files: len(docs), Chunks: total + len(h.chunks)}
	if want.Chunks <= 3*perRound {
		t.Fatalf("the fixture has %d chunks: too few for several rounds of %d", want.Chunks, perRound)
	}
	kept := domain.FolderSize{Folder: other, Files: len(docs), Chunks: total}
	if got, err := s.Folders(ctx); err != nil || !slices.Equal(got, []domain.FolderSize{want, kept}) {
		t.Fatalf("folders before: %+v, %v; want %+v", got, err, []domain.FolderSize{want, kept})
	}

	// A lease of another folder does not let one remove this one.
	otherLease, err := s.AcquireLease(ctx, other, "ann@laptop (pid 101)", time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := half.RemoveFolder(ctx, otherLease, nil); err == nil {
		t.Error("a lease taken on another store removed a folder")
	}
	otherLease.Release(ctx)

	l, err := s.AcquireLease(ctx, fixtureFolder, "cairn remove (test)", time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	var seen []domain.Removal
	got, err := s.RemoveFolder(ctx, l, func(r domain.Removal) { seen = append(seen, r) })
	l.Release(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if wantEnd := (domain.Removal{FolderSize: want, FilesRemoved: want.Files, ChunksRemoved: want.Chunks}); got != wantEnd {
		t.Errorf("removal: %+v, want %+v", got, wantEnd)
	}
	// The first report is the size before anything is removed; the
	// fingerprints go first, then the chunks in rounds of perRound; every
	// report moves forward.
	if len(seen) == 0 || seen[0] != (domain.Removal{FolderSize: want}) || seen[len(seen)-1] != got {
		t.Fatalf("progress: %+v", seen)
	}
	rounds := 0
	for i := 1; i < len(seen); i++ {
		a, b := seen[i-1], seen[i]
		if b.FilesRemoved < a.FilesRemoved || b.ChunksRemoved < a.ChunksRemoved || b == a {
			t.Errorf("progress went back or stood still: %+v then %+v", a, b)
		}
		if b.ChunksRemoved > 0 && b.FilesRemoved != want.Files {
			t.Errorf("chunks removed before every fingerprint: %+v", b)
		}
		if b.ChunksRemoved > a.ChunksRemoved {
			rounds++
			if b.ChunksRemoved-a.ChunksRemoved > perRound {
				t.Errorf("a round removed %d chunks, the node's limit is %d", b.ChunksRemoved-a.ChunksRemoved, perRound)
			}
		}
	}
	if wantRounds := (want.Chunks + perRound - 1) / perRound; rounds != wantRounds {
		t.Errorf("%d rounds of chunks reported, want %d", rounds, wantRounds)
	}

	if got, err := s.Folders(ctx); err != nil || !slices.Equal(got, []domain.FolderSize{kept}) {
		t.Errorf("folders after: %+v, %v; want only %+v", got, err, kept)
	}
	// (The node's limit of 5 is below the cursor's page of 500, so the
	// counts above, not FileStates, say which fingerprints are left.)
	for _, f := range []struct {
		folder, model, extractors string
	}{{fixtureFolder, "", ""}, {other, "test-embed", "pdf=3"}} {
		m, err1 := s.FolderVectorModel(ctx, f.folder)
		x, err2 := s.FolderExtractors(ctx, f.folder)
		if m != f.model || x != f.extractors || err1 != nil || err2 != nil {
			t.Errorf("%s's records: model %q, extractors %q (%v, %v); want %q, %q", f.folder, m, x, err1, err2, f.model, f.extractors)
		}
	}
	// Removing it again finds nothing and removes nothing.
	l, err = s.AcquireLease(ctx, fixtureFolder, "cairn remove (test)", time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Release(ctx)
	if again, err := s.RemoveFolder(ctx, l, nil); err != nil || again != (domain.Removal{FolderSize: domain.FolderSize{Folder: fixtureFolder}}) {
		t.Errorf("second removal: %+v, %v", again, err)
	}
}

// TestEmbeddedChunksAreThoseOfFoldersRecordedWithTheModel: before any
// vector the cluster counts none; then the chunks of the folders whose
// record names the cluster's model, not those of a folder written
// without vectors or recorded with another model.
func TestEmbeddedChunksAreThoseOfFoldersRecordedWithTheModel(t *testing.T) {
	s := testStore(t, Options{})
	ctx := context.Background()
	docs := corpus(t)
	total := putAll(t, s, docs)
	if model, _, err := s.VectorModel(ctx); model != "" || err != nil {
		t.Fatalf("before a model: %q, %v", model, err)
	}
	if n, err := s.EmbeddedChunks(ctx, ""); n != 0 || err != nil {
		t.Fatalf("before a model: %d, %v", n, err)
	}
	for _, d := range docs {
		d.doc.Folder = "share/plain"
		if err := s.PutDocument(ctx, d.doc, d.chunks, nil); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.SetVectorModel(ctx, "test-embed", 64); err != nil {
		t.Fatal(err)
	}
	if err := s.SetFolderVectorModel(ctx, fixtureFolder, "test-embed"); err != nil {
		t.Fatal(err)
	}
	if err := s.SetFolderVectorModel(ctx, "share/plain", "another-model"); err != nil {
		t.Fatal(err)
	}
	if n, err := s.EmbeddedChunks(ctx, "test-embed"); n != total || err != nil {
		t.Errorf("embedded chunks: %d, %v; want %d, the fixture folder's", n, err, total)
	}
}

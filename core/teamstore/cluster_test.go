package teamstore

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"hash/fnv"
	"io/fs"
	"math"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync/atomic"
	"testing"
	"time"
	"unicode"

	"cairn/core/chunk"
	"cairn/core/extract"
)

// fixtureFolder is the folder name the fixture is indexed under.
const fixtureFolder = "share/corpus"

// fixtureDoc is one file of testdata/corpus, extracted and chunked by
// Cairn's own extractors and chunker, with stand-in embeddings.
type fixtureDoc struct {
	doc     Document
	chunks  []chunk.Chunk
	vectors [][]float32
}

// corpus reads testdata/corpus. Chunks are small (150 characters) so that
// every file has several.
func corpus(t *testing.T) []fixtureDoc {
	t.Helper()
	root := filepath.Join("..", "..", "testdata", "corpus")
	reg := extract.NewRegistry(extract.DefaultLimits())
	var out []fixtureDoc
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		info, _ := d.Info()
		rel, _ := filepath.Rel(root, p)
		x, err := reg.Extract(context.Background(), extract.File{Name: p, Size: int64(len(b)), R: strings.NewReader(string(b))})
		if err != nil {
			t.Fatalf("extract %s: %v", p, err)
		}
		sum := sha256.Sum256(b)
		cs := chunk.Split(x, chunk.Params{Size: 150, Overlap: 30, MaxHeadingLen: 160})
		vs := make([][]float32, len(cs))
		for i, c := range cs {
			vs[i] = embed(c.Text)
		}
		out = append(out, fixtureDoc{
			doc: Document{Folder: fixtureFolder, Path: filepath.ToSlash(rel), Size: int64(len(b)), MTimeNS: info.ModTime().UnixNano(),
				Hash: hex.EncodeToString(sum[:]), Title: x.Title, Format: x.Format, IndexedBy: "test"},
			chunks: cs, vectors: vs,
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(out) < 5 {
		t.Fatalf("the fixture has %d files", len(out))
	}
	return out
}

// embed is a stand-in embedding (no model in tests): the words hashed
// into 64 dimensions, normalised, so texts that share words are near.
func embed(text string) []float32 {
	v := make([]float32, 64)
	for _, w := range strings.FieldsFunc(strings.ToLower(text), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) }) {
		h := fnv.New32a()
		h.Write([]byte(w))
		v[h.Sum32()%64]++
	}
	var n float64
	for _, x := range v {
		n += float64(x * x)
	}
	for i := range v {
		v[i] /= float32(math.Sqrt(n) + 1e-9)
	}
	return v
}

func putAll(t *testing.T, s *Store, docs []fixtureDoc) int {
	t.Helper()
	n := 0
	for _, d := range docs {
		if err := s.PutDocument(context.Background(), d.doc, d.chunks, d.vectors); err != nil {
			t.Fatal(err)
		}
		n += len(d.chunks)
	}
	return n
}

// storedIDs lists the ids of a file's chunks as the cluster holds them,
// by ordinal.
func storedIDs(t *testing.T, s *Store, path string) []string {
	t.Helper()
	hs, err := s.DocumentChunks(context.Background(), fixtureFolder, path)
	if err != nil {
		t.Fatal(err)
	}
	ids := make([]string, len(hs))
	for i, h := range hs {
		ids[i] = h.ID
	}
	return ids
}

func wantIDs(path string, n int) []string {
	ids := make([]string, n)
	for i := range ids {
		ids[i] = ChunkID(fixtureFolder, path, i)
	}
	return ids
}

// TestWritesAreIdempotentWithStableIDsAndChunkParity: the fixture written
// twice holds exactly its chunks once, under the ids fixed by folder, path
// and ordinal, each with its text, heading, page and lines as the chunker
// made them.
func TestWritesAreIdempotentWithStableIDsAndChunkParity(t *testing.T) {
	s := testStore(t, Options{BatchSize: 3})
	ctx := context.Background()
	docs := corpus(t)
	total := putAll(t, s, docs)
	for run := 1; run <= 2; run++ {
		if n, err := s.CountChunks(ctx, fixtureFolder, ""); err != nil || n != total {
			t.Fatalf("run %d: %d chunks in the cluster, want %d (%v)", run, n, total, err)
		}
		for _, d := range docs {
			hs, err := s.DocumentChunks(ctx, fixtureFolder, d.doc.Path)
			if err != nil {
				t.Fatal(err)
			}
			if len(hs) != len(d.chunks) {
				t.Fatalf("run %d: %s has %d chunks in the cluster, want %d", run, d.doc.Path, len(hs), len(d.chunks))
			}
			for i, h := range hs {
				c := d.chunks[i]
				if h.ID != ChunkID(fixtureFolder, d.doc.Path, i) || h.Ordinal != c.Ordinal || h.Text != c.Text || h.Heading != c.Heading ||
					h.Page != c.Page || h.LineStart != c.LineStart || h.LineEnd != c.LineEnd || h.Title != d.doc.Title || h.DocHash != d.doc.Hash {
					t.Errorf("run %d: %s chunk %d = %+v, want %+v", run, d.doc.Path, i, h, c)
				}
			}
		}
		putAll(t, s, docs) // the second run changes nothing
	}
	states, err := s.FileStates(ctx, fixtureFolder)
	if err != nil || len(states) != len(docs) {
		t.Fatalf("%d fingerprints, want %d (%v)", len(states), len(docs), err)
	}
	for _, d := range docs {
		st := states[d.doc.Path]
		if st != (FileState{Size: d.doc.Size, MTimeNS: d.doc.MTimeNS, Hash: d.doc.Hash, Chunks: len(d.chunks), Format: d.doc.Format}) {
			t.Errorf("%s: fingerprint %+v", d.doc.Path, st)
		}
	}
	// A shorter version of a file leaves none of the longer one's chunks.
	d := docs[0]
	if err := s.PutDocument(ctx, d.doc, d.chunks[:1], d.vectors[:1]); err != nil {
		t.Fatal(err)
	}
	if ids := storedIDs(t, s, d.doc.Path); !slices.Equal(ids, wantIDs(d.doc.Path, 1)) {
		t.Errorf("after shrinking to one chunk: %v", ids)
	}
}

// lossyTransport fails the failAt-th batch write: with delivered, after
// the cluster took it (the answer is lost, as in a crash just after the
// write), else before it left.
type lossyTransport struct {
	failAt    int32
	delivered bool
	n         atomic.Int32
}

func (l *lossyTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	fail := r.Method == "POST" && r.URL.Path == "/v1/batch/objects" && l.n.Add(1) == l.failAt
	if fail && !l.delivered {
		return nil, errors.New("connection lost (test)")
	}
	resp, err := http.DefaultTransport.RoundTrip(r)
	if fail && err == nil {
		resp.Body.Close()
		return nil, errors.New("connection lost (test)")
	}
	return resp, err
}

// TestAnInterruptedWriteIsResumedWithoutDuplicates: a write that fails
// half-way leaves the file without a fingerprint (so it counts as not
// indexed) and some of its chunks; writing it again leaves exactly its
// chunks, once each.
func TestAnInterruptedWriteIsResumedWithoutDuplicates(t *testing.T) {
	lossy := &lossyTransport{failAt: 2, delivered: true}
	s := testStore(t, Options{BatchSize: 2, HTTP: &http.Client{Transport: lossy}})
	ctx := context.Background()
	var d fixtureDoc
	for _, x := range corpus(t) {
		if len(x.chunks) > len(d.chunks) {
			d = x
		}
	}
	if len(d.chunks) < 5 {
		t.Fatalf("the longest fixture file has %d chunks; the test needs at least 5", len(d.chunks))
	}
	err := s.PutDocument(ctx, d.doc, d.chunks, d.vectors)
	if err == nil || !strings.Contains(err.Error(), "connection lost (test)") || !strings.Contains(err.Error(), d.doc.Path) {
		t.Fatalf("interrupted write: %v", err)
	}
	states, err := s.FileStates(ctx, fixtureFolder)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := states[d.doc.Path]; ok {
		t.Fatalf("%s has a fingerprint after an interrupted write", d.doc.Path)
	}
	if n, _ := s.CountChunks(ctx, fixtureFolder, d.doc.Path); n != 4 {
		t.Fatalf("%d chunks after two batches of 2 were delivered, want 4", n)
	}
	if err := s.PutDocument(ctx, d.doc, d.chunks, d.vectors); err != nil {
		t.Fatal(err)
	}
	if ids := storedIDs(t, s, d.doc.Path); !slices.Equal(ids, wantIDs(d.doc.Path, len(d.chunks))) {
		t.Errorf("after resuming: %d chunks %v, want %d", len(ids), ids, len(d.chunks))
	}
	if n, _ := s.CountChunks(ctx, fixtureFolder, ""); n != len(d.chunks) {
		t.Errorf("%d chunks in the folder, want %d", n, len(d.chunks))
	}
}

// TestFingerprintsLetASecondIndexerSkipUnchangedFiles: a second machine
// reads the first one's fingerprints from the cluster and writes only the
// file that changed.
func TestFingerprintsLetASecondIndexerSkipUnchangedFiles(t *testing.T) {
	first := testStore(t, Options{})
	docs := corpus(t)
	putAll(t, first, docs)
	second := testStore(t, Options{Collection: first.chunkClass[:len(first.chunkClass)-len("Chunk")]})
	index := func(docs []fixtureDoc) (written []string) {
		states, err := second.FileStates(context.Background(), fixtureFolder)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range docs {
			if st, ok := states[d.doc.Path]; ok && st.Unchanged(d.doc.Size, d.doc.MTimeNS, d.doc.Hash) {
				continue
			}
			if err := second.PutDocument(context.Background(), d.doc, d.chunks, d.vectors); err != nil {
				t.Fatal(err)
			}
			written = append(written, d.doc.Path)
		}
		return written
	}
	if w := index(docs); len(w) != 0 {
		t.Errorf("the second indexer wrote %v; every file was unchanged", w)
	}
	changed := docs[1]
	changed.doc.Hash, changed.doc.MTimeNS = "changed", changed.doc.MTimeNS+1
	docs[1] = changed
	if w := index(docs); !slices.Equal(w, []string{changed.doc.Path}) {
		t.Errorf("the second indexer wrote %v, want only %s", w, changed.doc.Path)
	}
	// The cheap look (size and time, no hash) agrees.
	st := FileState{Size: 10, MTimeNS: 20, Hash: "h"}
	if !st.Unchanged(10, 20, "") || st.Unchanged(10, 21, "") || !st.Unchanged(11, 21, "h") || st.Unchanged(10, 20, "other") {
		t.Error("FileState.Unchanged")
	}
}

// TestOrphansAreRemoved: files gone from the folder lose their chunks and
// fingerprints, including a file whose write stopped before its
// fingerprint; the others keep theirs.
func TestOrphansAreRemoved(t *testing.T) {
	s := testStore(t, Options{})
	ctx := context.Background()
	docs := corpus(t)
	total := putAll(t, s, docs)
	// gone.md: chunks written, then the connection lost before the
	// fingerprint (its second batch request) reached the cluster.
	lossy := &lossyTransport{failAt: 2}
	half := testStore(t, Options{HTTP: &http.Client{Transport: lossy}, Collection: s.chunkClass[:len(s.chunkClass)-len("Chunk")]})
	g := docs[0]
	g.doc.Path = "gone.md"
	if err := half.PutDocument(ctx, g.doc, g.chunks, g.vectors); err == nil {
		t.Fatal("the fingerprint write did not fail")
	}
	if n, _ := s.CountChunks(ctx, fixtureFolder, "gone.md"); n != len(g.chunks) {
		t.Fatalf("gone.md has %d chunks before the removal, want %d", n, len(g.chunks))
	}
	if states, _ := s.FileStates(ctx, fixtureFolder); len(states) != len(docs) {
		t.Fatalf("%d fingerprints before the removal, want %d (gone.md has none)", len(states), len(docs))
	}
	deleted := docs[2].doc.Path
	removed, err := s.RemoveOrphans(ctx, fixtureFolder, func(p string) bool { return p != deleted && p != "gone.md" })
	if err != nil {
		t.Fatal(err)
	}
	want := []string{deleted, "gone.md"}
	sort.Strings(want)
	if !slices.Equal(removed, want) {
		t.Errorf("removed %v, want %v", removed, want)
	}
	if n, _ := s.CountChunks(ctx, fixtureFolder, ""); n != total-len(docs[2].chunks) {
		t.Errorf("%d chunks left, want %d", n, total-len(docs[2].chunks))
	}
	states, _ := s.FileStates(ctx, fixtureFolder)
	if _, ok := states[deleted]; ok || len(states) != len(docs)-1 {
		t.Errorf("fingerprints after removal: %d, deleted one present: %v", len(states), ok)
	}
}

// TestASecondIndexerOnTheSameFolderIsRefused: while one indexer holds a
// folder, another is refused with a message naming the holder; after a
// release, or once the hold expires, the other may take it, and the first
// learns at its next renewal that it lost it.
func TestASecondIndexerOnTheSameFolderIsRefused(t *testing.T) {
	s := testStore(t, Options{})
	ctx := context.Background()
	a, err := s.AcquireLease(ctx, fixtureFolder, "ann@laptop (pid 101)", time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	_, err = s.AcquireLease(ctx, fixtureFolder, "bob@desktop (pid 202)", time.Minute)
	var held *LeaseHeldError
	if !errors.As(err, &held) || held.Holder != "ann@laptop (pid 101)" ||
		!strings.Contains(err.Error(), "the folder share/corpus is already being indexed into the team cluster by ann@laptop (pid 101)") ||
		!strings.Contains(err.Error(), "wait for that run to finish") {
		t.Fatalf("second indexer: %v", err)
	}
	if other, err := s.AcquireLease(ctx, "share/other", "bob@desktop (pid 202)", time.Minute); err != nil {
		t.Errorf("another folder: %v", err)
	} else {
		other.Release(ctx)
	}
	if err := a.Renew(ctx); err != nil {
		t.Errorf("renew: %v", err)
	}
	if err := a.Release(ctx); err != nil {
		t.Fatal(err)
	}
	b, err := s.AcquireLease(ctx, fixtureFolder, "bob@desktop (pid 202)", 500*time.Millisecond)
	if err != nil {
		t.Fatalf("after the release: %v", err)
	}
	time.Sleep(time.Second) // b dies without releasing: its hold expires
	c, err := s.AcquireLease(ctx, fixtureFolder, "cat@server (pid 303)", time.Minute)
	if err != nil {
		t.Fatalf("after the expiry: %v", err)
	}
	if err := b.Renew(ctx); !errors.Is(err, ErrLeaseLost) || !strings.Contains(err.Error(), "cat@server (pid 303)") {
		t.Errorf("the expired holder's renewal: %v", err)
	}
	if err := b.Release(ctx); err != nil {
		t.Errorf("the expired holder's release: %v", err)
	}
	if _, err := s.AcquireLease(ctx, fixtureFolder, "dan", time.Minute); !errors.As(err, &held) || held.Holder != "cat@server (pid 303)" {
		t.Errorf("the expired holder's release removed the new hold: %v", err)
	}
	c.Release(ctx)
}

// TestKeywordAndVectorSearchFindTheFixture: BM25F finds the descaling
// passage for its words and explains the score; the vector search finds it
// for a question with those words; a folder filter keeps other folders
// out; Lists runs both.
func TestKeywordAndVectorSearchFindTheFixture(t *testing.T) {
	s := testStore(t, Options{})
	ctx := context.Background()
	docs := corpus(t)
	putAll(t, s, docs)
	other := docs[0]
	other.doc.Folder = "share/other"
	if err := s.PutDocument(ctx, other.doc, other.chunks, other.vectors); err != nil {
		t.Fatal(err)
	}
	hits, err := s.BM25(ctx, "descale button", Query{Limit: 3})
	if err != nil {
		t.Fatal(err)
	}
	if len(hits) == 0 || hits[0].Path != "manuals/coffee-machine.txt" || !strings.Contains(hits[0].Text, "press the descale button") ||
		hits[0].Score <= 0 || !strings.Contains(hits[0].Explain, "BM25F_descale_frequency") {
		t.Fatalf("bm25 hits %+v", hits)
	}
	if len(hits) > 1 && hits[1].Score > hits[0].Score {
		t.Errorf("hits out of order: %v then %v", hits[0].Score, hits[1].Score)
	}
	// A title word counts: BM25F searches the title as well.
	hits, err = s.BM25(ctx, "factory reset", Query{Limit: 5, Folder: fixtureFolder})
	if err != nil || len(hits) == 0 || hits[0].Path != "manuals/router-x200.md" || hits[0].Page != 0 || hits[0].LineStart == 0 {
		t.Fatalf("factory reset: %+v, %v", hits, err)
	}
	for _, h := range hits {
		if h.Folder != fixtureFolder {
			t.Errorf("folder filter let %s/%s through", h.Folder, h.Path)
		}
	}
	if hits, err := s.BM25(ctx, "zyzzyva", Query{}); err != nil || len(hits) != 0 {
		t.Errorf("a word in no document: %+v, %v", hits, err)
	}
	near, err := s.NearVector(ctx, embed("how often do I descale the machine with descaling solution"), Query{Limit: 3, Folder: fixtureFolder})
	if err != nil {
		t.Fatal(err)
	}
	if len(near) == 0 || near[0].Path != "manuals/coffee-machine.txt" || near[0].Distance < 0 || near[0].Distance > 1 ||
		math.Abs(near[0].Score-(1-near[0].Distance)) > 1e-9 {
		t.Fatalf("vector hits %+v", near)
	}
	kw, vec, err := s.Lists(ctx, "descale button", embed("descale button"), Query{Limit: 4}, Query{Limit: 5})
	if err != nil || len(kw) == 0 || len(kw) > 4 || len(vec) != 5 {
		t.Fatalf("lists: %d keyword, %d vector hits, %v", len(kw), len(vec), err)
	}
	if _, err := s.BM25(ctx, "  ", Query{}); err == nil {
		t.Error("an empty query was sent")
	}
	if _, err := s.NearVector(ctx, []float32{float32(math.NaN())}, Query{}); err == nil || !strings.Contains(err.Error(), "NaN") {
		t.Errorf("a NaN vector: %v", err)
	}
}

// TestAWrongKeyIsExplained: a refused key says where the key comes from,
// and a class of another program's is refused, not written into.
func TestAWrongKeyIsExplained(t *testing.T) {
	s := testStore(t, Options{})
	_, err := Open(context.Background(), Options{URL: shared.n.URL, Key: "wrong", Collection: "TWrongKey"})
	if err == nil || !strings.Contains(err.Error(), "401") || !strings.Contains(err.Error(), "CAIRN_WEAVIATE_KEY") {
		t.Errorf("wrong key: %v", err)
	}
	// A class named like the chunk class but without Cairn's properties.
	foreign := class{Class: "TForeignChunk", Vectorizer: "none", Properties: []property{words("body")}}
	if err := s.do(context.Background(), "POST", "/v1/schema", foreign, nil); err != nil {
		t.Fatal(err)
	}
	_, err = Open(context.Background(), Options{URL: shared.n.URL, Key: testKey, Collection: "TForeign"})
	if err == nil || !strings.Contains(err.Error(), "class TForeignChunk in the team cluster at "+shared.n.URL+" lacks text, heading") ||
		!strings.Contains(err.Error(), "not a Cairn knowledge base") {
		t.Errorf("foreign class: %v", err)
	}
}

// TestAHeldLeaseIsRenewedAndItsLossStopsTheWork: Hold renews the lease
// past its duration, so a second indexer is still refused; when the lease
// is taken away, the work's context ends with ErrLeaseLost; stop releases
// the lease.
func TestAHeldLeaseIsRenewedAndItsLossStopsTheWork(t *testing.T) {
	s := testStore(t, Options{})
	ctx := context.Background()
	l, err := s.AcquireLease(ctx, fixtureFolder, "ann", 900*time.Millisecond)
	if err != nil {
		t.Fatal(err)
	}
	work, stop := l.Hold(ctx)
	time.Sleep(2 * time.Second) // more than twice the lease's duration
	var held *LeaseHeldError
	if _, err := s.AcquireLease(ctx, fixtureFolder, "bob", time.Minute); !errors.As(err, &held) || held.Holder != "ann" {
		t.Fatalf("a second indexer while the lease is held and renewed: %v", err)
	}
	if err := stop(); err != nil || work.Err() == nil {
		t.Fatalf("stop: %v, work %v", err, work.Err())
	}
	b, err := s.AcquireLease(ctx, fixtureFolder, "bob", time.Minute)
	if err != nil {
		t.Fatalf("after stop released it: %v", err)
	}
	defer b.Release(ctx)

	// A hold whose lease is taken over ends its work.
	if err := b.Release(ctx); err != nil {
		t.Fatal(err)
	}
	c, err := s.AcquireLease(ctx, fixtureFolder, "cat", 900*time.Millisecond)
	if err != nil {
		t.Fatal(err)
	}
	work, stop = c.Hold(ctx)
	if err := s.do(ctx, "DELETE", "/v1/objects/"+s.leaseClass+"/"+leaseID(fixtureFolder), nil, nil); err != nil {
		t.Fatal(err)
	}
	d, err := s.AcquireLease(ctx, fixtureFolder, "dan", time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Release(ctx)
	select {
	case <-work.Done():
	case <-time.After(5 * time.Second):
		t.Fatal("the work went on after its lease was taken over")
	}
	if cause := context.Cause(work); !errors.Is(cause, ErrLeaseLost) || !strings.Contains(cause.Error(), "dan") {
		t.Errorf("cause %v", cause)
	}
	if err := stop(); !errors.Is(err, ErrLeaseLost) {
		t.Errorf("stop after the loss: %v", err)
	}
	if _, err := s.AcquireLease(ctx, fixtureFolder, "eve", time.Minute); !errors.As(err, &held) || held.Holder != "dan" {
		t.Errorf("the lost hold's stop released dan's lease: %v", err)
	}
}

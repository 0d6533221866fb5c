package migrate

import (
	"context"
	"crypto/sha256"
	"errors"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"cairn/core/chunk"
	"cairn/core/extract"
	"cairn/core/ingest"
	"cairn/core/store"
	"cairn/core/teamstore"
	"cairn/core/teamstore/teamtest"
	"cairn/internal/skip"
)

var ctx = context.Background()

// embedder maps text to a deterministic unit vector: a model where the
// test is about moving vectors, not making them.
type embedder struct {
	id  string
	dim int
}

func (e embedder) ModelID() string { return e.id }
func (e embedder) Dim() int        { return e.dim }
func (e embedder) EmbedPassages(_ context.Context, ps []ingest.Passage) ([][]float32, error) {
	out := make([][]float32, len(ps))
	for i, p := range ps {
		h := sha256.Sum256([]byte(p.Title + "\x00" + p.Text))
		v := make([]float32, e.dim)
		var n float64
		for j := range v {
			v[j] = float32(int8(h[j%32])) + float32(j)/3
			n += float64(v[j]) * float64(v[j])
		}
		for j := range v {
			v[j] /= float32(math.Sqrt(n))
		}
		out[i] = v
	}
	return out, nil
}

// indexedKB indexes a copy of testdata/corpus into a new knowledge base,
// with emb's vectors (none when emb is nil), and returns it and the
// folder.
func indexedKB(t *testing.T, emb ingest.Embedder) (*store.DB, string) {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "corpus")
	src := filepath.Join("..", "..", "testdata", "corpus")
	err := filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		if d.IsDir() {
			return os.MkdirAll(filepath.Join(dir, rel), 0o755)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dir, rel), b, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
	db := newKB(t)
	opt := ingest.Options{Chunk: chunk.Params{Size: 150, Overlap: 30, MaxHeadingLen: 160}, Embedder: emb}
	if _, err := ingest.New(db, extract.NewRegistry(extract.DefaultLimits()), opt).Run(ctx, dir, nil); err != nil {
		t.Fatal(err)
	}
	return db, dir
}

func newKB(t *testing.T) *store.DB {
	t.Helper()
	db, err := store.Open(filepath.Join(t.TempDir(), "kb.db"), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

// cluster starts a one-node cluster (skipped without CAIRN_WEAVIATE_BIN,
// as core/teamstore's tests are) and opens a collection in it.
func cluster(t *testing.T) (*teamtest.Node, func(collection string) *teamstore.Store) {
	t.Helper()
	bin, err := teamtest.Bin()
	if err != nil {
		skip.Because(t, err.Error())
	}
	cfg, err := teamtest.SingleNode(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	n := teamtest.New(bin, cfg)
	t.Cleanup(n.Stop)
	if err := n.Start(); err != nil {
		t.Fatal(err)
	}
	return n, func(c string) *teamstore.Store {
		ts, err := teamstore.Open(ctx, teamstore.Options{URL: n.URL, Key: teamtest.Key, Collection: c, BatchSize: 9})
		if err != nil {
			t.Fatal(err)
		}
		return ts
	}
}

// content is a knowledge base's documents and chunks as both stores keep
// them, keyed by path, for comparing one with the other.
type content map[string]docContent

type docContent struct {
	Size, MTimeNS       int64
	Hash, Title, Format string
	Chunks              []chunk.Chunk // Ordinal, Text, Heading, Page, lines only
	Vectors             [][]float32
}

func sqliteContent(t *testing.T, db *store.DB) content {
	t.Helper()
	docs, err := db.Documents(ctx, 0)
	if err != nil {
		t.Fatal(err)
	}
	out := content{}
	for _, d := range docs {
		cs, vs, err := db.DocumentContent(ctx, d.ID)
		if err != nil {
			t.Fatal(err)
		}
		out[d.Path] = docContent{Size: d.Size, MTimeNS: d.MTimeNS, Hash: d.Hash, Title: d.Title, Format: d.Format, Chunks: kept(cs), Vectors: vs}
	}
	return out
}

func clusterContent(t *testing.T, ts *teamstore.Store, root string) content {
	t.Helper()
	docs, err := ts.Documents(ctx)
	if err != nil {
		t.Fatal(err)
	}
	out := content{}
	for _, d := range docs {
		cs, vs, err := ts.ReadDocument(ctx, d.Folder, d.Path)
		if err != nil {
			t.Fatal(err)
		}
		if d.Chunks != len(cs) {
			t.Errorf("%s: fingerprint says %d chunks, the cluster holds %d", d.Path, d.Chunks, len(cs))
		}
		out[filepath.Join(root, d.Path)] = docContent{Size: d.Size, MTimeNS: d.MTimeNS, Hash: d.Hash, Title: d.Title, Format: d.Format, Chunks: kept(cs), Vectors: vs}
	}
	return out
}

// kept is what the cluster keeps of chunks.
func kept(cs []chunk.Chunk) []chunk.Chunk {
	out := make([]chunk.Chunk, len(cs))
	for i, c := range cs {
		out[i] = chunk.Chunk{Ordinal: c.Ordinal, Text: c.Text, Heading: c.Heading, Page: c.Page, LineStart: c.LineStart, LineEnd: c.LineEnd}
	}
	return out
}

// sameContent compares two stores' content: exact but for vectors, which
// cross JSON as float32 and must agree within float32 rounding.
func sameContent(t *testing.T, what string, got, want content) {
	t.Helper()
	if len(got) != len(want) || len(want) == 0 {
		t.Errorf("%s: %d documents, want %d", what, len(got), len(want))
	}
	nchunks, nvecs := 0, 0
	for p, w := range want {
		g, ok := got[p]
		if !ok {
			t.Errorf("%s: %s missing", what, p)
			continue
		}
		gv, wv := g.Vectors, w.Vectors
		g.Vectors, w.Vectors = nil, nil
		if !reflect.DeepEqual(g, w) {
			t.Errorf("%s: %s differs:\n got %+v\nwant %+v", what, p, g, w)
		}
		if len(gv) != len(wv) {
			t.Errorf("%s: %s has %d vectors, want %d", what, p, len(gv), len(wv))
			continue
		}
		for i := range wv {
			if len(gv[i]) != len(wv[i]) {
				t.Fatalf("%s: %s vector %d has %d dimensions, want %d", what, p, i, len(gv[i]), len(wv[i]))
			}
			for j := range wv[i] {
				if math.Abs(float64(gv[i][j]-wv[i][j])) > 1e-7 {
					t.Errorf("%s: %s vector %d[%d] = %v, want %v", what, p, i, j, gv[i][j], wv[i][j])
				}
			}
		}
		nchunks += len(w.Chunks)
		nvecs += len(wv)
	}
	if nchunks == 0 || nvecs == 0 {
		t.Errorf("%s: compared %d chunks and %d vectors", what, nchunks, nvecs)
	}
}

// TestMigrateIntoTheClusterAndBackKeepsEveryChunkAndVector: a knowledge
// base moved into the cluster and from there into a new knowledge base
// arrives whole (documents, chunks, pages, lines, vectors and the vector
// model); a second migration each way writes nothing; one stopped half-way
// is finished by running it again; and `cairn index` of the folder then
// finds every file unchanged.
func TestMigrateIntoTheClusterAndBackKeepsEveryChunkAndVector(t *testing.T) {
	_, open := cluster(t)
	ts := open("Moved")
	emb := embedder{id: "fake-a", dim: 8}
	src, dir := indexedKB(t, emb)
	want := sqliteContent(t, src)
	var seen []Progress
	sum, err := ToTeam(ctx, src, ts, Options{Holder: "test", Progress: func(p Progress) { seen = append(seen, p) }})
	if err != nil {
		t.Fatal(err)
	}
	chunks := 0
	for _, d := range want {
		chunks += len(d.Chunks)
	}
	if sum.Documents != 8 || sum.Written != 8 || sum.Unchanged != 0 || sum.Chunks != chunks || sum.Vectors != chunks || sum.Model != "fake-a" || sum.Dim != 8 {
		t.Errorf("into the cluster: %+v (%d chunks)", sum, chunks)
	}
	if len(seen) != 8 || seen[7].Done != 8 || seen[7].Total != 8 {
		t.Errorf("progress: %+v", seen)
	}
	sameContent(t, "cluster", clusterContent(t, ts, dir), want)
	if m, d, err := ts.VectorModel(ctx); m != "fake-a" || d != 8 || err != nil {
		t.Errorf("the cluster's model: %q %d %v", m, d, err)
	}

	// Again: nothing written, the fingerprints untouched.
	before, _ := ts.Documents(ctx)
	if sum, err := ToTeam(ctx, src, ts, Options{Holder: "test"}); err != nil || sum.Written != 0 || sum.Unchanged != 8 || sum.Chunks != 0 {
		t.Errorf("again: %+v, %v", sum, err)
	}
	if after, _ := ts.Documents(ctx); !reflect.DeepEqual(after, before) {
		t.Errorf("a second migration wrote")
	}
	// Stopped half-way: a file without its fingerprint is written again.
	if err := ts.DeletePaths(ctx, filepath.ToSlash(dir), []string{"manuals/router-x200.md"}); err != nil {
		t.Fatal(err)
	}
	if sum, err := ToTeam(ctx, src, ts, Options{Holder: "test"}); err != nil || sum.Written != 1 || sum.Unchanged != 7 {
		t.Errorf("resumed: %+v, %v", sum, err)
	}
	sameContent(t, "cluster after the resume", clusterContent(t, ts, dir), want)

	// The indexer recognises the migrated files: nothing to write.
	ix := ingest.New(nil, extract.NewRegistry(extract.DefaultLimits()), ingest.Options{Chunk: chunk.Params{Size: 150, Overlap: 30, MaxHeadingLen: 160}, Embedder: emb})
	run, err := ix.RunTeam(ctx, ingest.Team{Store: ts, Holder: "test"}, dir, nil)
	if err != nil || run.FilesIndexed != 0 || run.FilesUnchanged != 8 {
		t.Errorf("cairn index after the migration: %+v, %v", run, err)
	}

	// And back, into a new knowledge base.
	dst := newKB(t)
	sum, err = FromTeam(ctx, ts, dst, Options{})
	if err != nil || sum.Written != 8 || sum.Chunks != chunks || sum.Vectors != chunks {
		t.Fatalf("back: %+v, %v", sum, err)
	}
	sameContent(t, "back", sqliteContent(t, dst), want)
	if m, d, err := dst.VectorModel(ctx); m != "fake-a" || d != 8 || err != nil {
		t.Errorf("the knowledge base's model: %q %d %v", m, d, err)
	}
	if sum, err := FromTeam(ctx, ts, dst, Options{}); err != nil || sum.Written != 0 || sum.Unchanged != 8 {
		t.Errorf("back again: %+v, %v", sum, err)
	}
	// The SQLite indexer recognises them too.
	run, err = ingest.New(dst, extract.NewRegistry(extract.DefaultLimits()), ingest.Options{Chunk: chunk.Params{Size: 150, Overlap: 30, MaxHeadingLen: 160}, Embedder: emb}).Run(ctx, dir, nil)
	if err != nil || run.FilesIndexed != 0 || run.FilesUnchanged != 8 {
		t.Errorf("cairn index after the way back: %+v, %v", run, err)
	}
	sameContent(t, "back, after an index run", sqliteContent(t, dst), want)
}

// TestMigrateRefusesAnotherVectorModel: vectors of different models (or
// dimensions) are never mixed, either way, and nothing is written.
func TestMigrateRefusesAnotherVectorModel(t *testing.T) {
	_, open := cluster(t)
	ts := open("Models")
	a, _ := indexedKB(t, embedder{id: "fake-a", dim: 8})
	if _, err := ToTeam(ctx, a, ts, Options{Holder: "test"}); err != nil {
		t.Fatal(err)
	}
	b, _ := indexedKB(t, embedder{id: "fake-b", dim: 4})
	_, err := ToTeam(ctx, b, ts, Options{Holder: "test"})
	var mm *ModelMismatchError
	if !errors.As(err, &mm) || !strings.Contains(err.Error(), "holds vectors of the embedding model fake-b (4 dimensions) and the team cluster holds vectors of the embedding model fake-a (8 dimensions): a knowledge base's vectors are never mixed") {
		t.Errorf("into the cluster: %v", err)
	}
	before := sqliteContent(t, b)
	if _, err := FromTeam(ctx, ts, b, Options{}); !errors.As(err, &mm) || !strings.Contains(err.Error(), "the team cluster holds vectors of the embedding model fake-a (8 dimensions)") {
		t.Errorf("out of the cluster: %v", err)
	}
	sameContent(t, "the refused knowledge base", sqliteContent(t, b), before)
	// A keyword-only knowledge base cannot join a cluster with vectors.
	kw, _ := indexedKB(t, nil)
	if _, err := ToTeam(ctx, kw, ts, Options{Holder: "test"}); !errors.As(err, &mm) || !strings.Contains(err.Error(), "has no vectors (keyword search only) and the team cluster holds vectors of the embedding model fake-a") {
		t.Errorf("keyword-only into the cluster: %v", err)
	}
	// A second migration of the same folder at once is refused.
	l, err := ts.AcquireLease(ctx, "elsewhere", "cairn index on nas-2", time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Release(ctx)
	var held *teamstore.LeaseHeldError
	if _, err := ToTeam(ctx, a, ts, Options{As: "elsewhere", Holder: "test"}); !errors.As(err, &held) {
		t.Errorf("while the folder is held: %v", err)
	}
}

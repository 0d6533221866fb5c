package vecindex

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"testing"

	"cairn/core/chunk"
	"cairn/core/domain"
	"cairn/core/store"
)

var ctx = context.Background()

func unit(v []float32) []float32 {
	var n float64
	for _, x := range v {
		n += float64(x) * float64(x)
	}
	for i := range v {
		v[i] /= float32(math.Sqrt(n))
	}
	return v
}

// clustered draws unit vectors around cluster centres with a shared offset,
// like real embeddings, which crowd into a cone rather than the whole sphere.
func clustered(rng *rand.Rand, n, dim, clusters int, spread float64) [][]float32 {
	offset := make([]float64, dim)
	for i := range offset {
		offset[i] = rng.NormFloat64() * 0.5
	}
	cent := make([][]float64, clusters)
	for c := range cent {
		cent[c] = make([]float64, dim)
		for i := range cent[c] {
			cent[c][i] = offset[i] + rng.NormFloat64()
		}
	}
	out := make([][]float32, n)
	for k := range out {
		c := cent[rng.IntN(clusters)]
		v := make([]float32, dim)
		for i := range v {
			v[i] = float32(c[i] + rng.NormFloat64()*spread)
		}
		out[k] = unit(v)
	}
	return out
}

// fill stores vectors as chunks of documents of 100 chunks each and
// returns the chunk ids in order.
func fill(t testing.TB, db *store.DB, model string, vecs [][]float32, prefix string) []int64 {
	t.Helper()
	if _, err := db.SetVectorModel(ctx, model, len(vecs[0])); err != nil {
		t.Fatal(err)
	}
	f, err := db.AddFolder(ctx, "/d")
	if err != nil {
		t.Fatal(err)
	}
	var ids []int64
	for d := 0; d*100 < len(vecs); d++ {
		part := vecs[d*100 : min(len(vecs), d*100+100)]
		cs := make([]chunk.Chunk, len(part))
		for i := range cs {
			cs[i] = chunk.Chunk{Ordinal: i, Text: "x"}
		}
		_, got, err := db.PutDocument(ctx, store.Document{FolderID: f.ID, Path: fmt.Sprintf("/d/%s%d", prefix, d), Hash: "h"}, cs, part)
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, got...)
	}
	return ids
}

func exactTop(vecs [][]float32, ids []int64, q []float32, k int) []int64 {
	type s struct {
		id  int64
		sim float64
	}
	all := make([]s, len(vecs))
	for i, v := range vecs {
		var d float64
		for j := range v {
			d += float64(v[j]) * float64(q[j])
		}
		all[i] = s{ids[i], d}
	}
	slices.SortFunc(all, func(a, b s) int {
		if a.sim > b.sim {
			return -1
		}
		if a.sim < b.sim {
			return 1
		}
		return 0
	})
	out := make([]int64, k)
	for i := range out {
		out[i] = all[i].id
	}
	return out
}

func openDB(t testing.TB) *store.DB {
	db, err := store.Open(filepath.Join(t.TempDir(), "v.db"), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

func TestExactWhenShortlistCoversAll(t *testing.T) {
	db := openDB(t)
	rng := rand.New(rand.NewPCG(1, 1))
	vecs := clustered(rng, 300, 32, 5, 0.8)
	ids := fill(t, db, "m", vecs, "a")
	ix := New(db)
	ix.Shortlist = func(k, n int) int { return n }
	q := vecs[17]
	hits, err := ix.KNN(ctx, q, 10)
	if err != nil {
		t.Fatal(err)
	}
	want := exactTop(vecs, ids, q, 10)
	for i, h := range hits {
		if h.ChunkID != want[i] {
			t.Fatalf("rank %d: %d, want %d", i, h.ChunkID, want[i])
		}
	}
	if hits[0].ChunkID != ids[17] || hits[0].Distance > 0.001 {
		t.Errorf("the query's own vector: %+v", hits[0])
	}
}

func TestRecallAgainstExactKNN(t *testing.T) {
	db := openDB(t)
	rng := rand.New(rand.NewPCG(2, 2))
	vecs := clustered(rng, 20000, 128, 200, 1.2)
	ids := fill(t, db, "m", vecs, "a")
	ix := New(db)
	total := 0.0
	const nq = 40
	for i := range nq {
		q := unit(append([]float32(nil), clustered(rng, 1, 128, 1, 0.1)[0]...))
		if i%2 == 0 {
			q = vecs[rng.IntN(len(vecs))]
		}
		hits, err := ix.KNN(ctx, q, 10)
		if err != nil {
			t.Fatal(err)
		}
		want := exactTop(vecs, ids, q, 10)
		found := 0
		for _, h := range hits {
			if slices.Contains(want, h.ChunkID) {
				found++
			}
		}
		total += float64(found) / 10
	}
	if r := total / nq; r < 0.95 {
		t.Errorf("recall@10 %.3f, want >= 0.95", r)
	}
	if ix.Len() != 20000 || ix.Bytes() != 20000*(16+8) {
		t.Errorf("len %d bytes %d", ix.Len(), ix.Bytes())
	}
}

func TestFollowsTheStore(t *testing.T) {
	db := openDB(t)
	rng := rand.New(rand.NewPCG(3, 3))
	vecs := clustered(rng, 200, 16, 4, 0.5)
	ids := fill(t, db, "m", vecs, "a")
	ix := New(db)
	if _, err := ix.KNN(ctx, vecs[0], 5); err != nil {
		t.Fatal(err)
	}
	// New vectors appear without a rebuild.
	more := clustered(rng, 100, 16, 4, 0.5)
	newIDs := fill(t, db, "m", more, "b")
	hits, _ := ix.KNN(ctx, more[3], 1)
	if len(hits) != 1 || hits[0].ChunkID != newIDs[3] {
		t.Errorf("new vector not found: %+v", hits)
	}
	// Deleted chunks are never returned.
	if err := db.DeletePaths(ctx, []string{"/d/a0"}); err != nil {
		t.Fatal(err)
	}
	hits, _ = ix.KNN(ctx, vecs[5], 50)
	for _, h := range hits {
		if slices.Contains(ids[:100], h.ChunkID) {
			t.Fatalf("deleted chunk %d returned", h.ChunkID)
		}
	}
	// A new model with another dimension rebuilds the index.
	if _, err := db.SetVectorModel(ctx, "other", 8); err != nil {
		t.Fatal(err)
	}
	if _, err := ix.KNN(ctx, vecs[0], 5); err == nil {
		t.Error("16-d query accepted by an 8-d knowledge base")
	}
	if hits, err := ix.KNN(ctx, make([]float32, 8), 5); err != nil || len(hits) != 0 || ix.Len() != 0 {
		t.Errorf("after model change: %v %v len %d", hits, err, ix.Len())
	}
}

func BenchmarkScan100K(b *testing.B) {
	rng := rand.New(rand.NewPCG(4, 4))
	ix := &Index{dim: 384, words: 6, mean: make([]float32, 384)}
	for i, v := range clustered(rng, 100000, 384, 100, 1) {
		ix.ids = append(ix.ids, int64(i))
		ix.codes = appendCode(ix.codes, v, ix.mean, 6)
	}
	q := clustered(rng, 1, 384, 1, 1)[0]
	for b.Loop() {
		ix.scan(q, 480, nil)
	}
}

// A filter that keeps one document of many still gets that document's
// nearest chunks, although every one of them is farther from the query
// than the top of the whole collection: the codes outside the filter are
// not scored, rather than cut from a list of everyone's nearest.
func TestKNNAmongSearchesInsideTheFilter(t *testing.T) {
	db := openDB(t)
	rng := rand.New(rand.NewPCG(3, 3))
	vecs := clustered(rng, 3000, 32, 10, 0.8)
	ids := fill(t, db, "m", vecs, "a") // 30 documents of 100 chunks
	ix := New(db)
	q := vecs[0]
	all, err := ix.KNN(ctx, q, 10)
	if err != nil {
		t.Fatal(err)
	}
	// The document whose best chunk ranks lowest in the whole collection.
	pos := map[int64]int{}
	for i, id := range ids {
		pos[id] = i
	}
	far := 29
	for _, h := range all {
		if pos[h.ChunkID]/100 == far {
			t.Fatalf("document %d is among the global top 10; pick another", far)
		}
	}
	among, err := db.FilterChunkIDs(ctx, domain.Filter{PathPrefixes: []string{fmt.Sprintf("/d/a%d", far)}})
	if err != nil || len(among) != 100 {
		t.Fatalf("filter: %d ids, %v", len(among), err)
	}
	hits, err := ix.KNNAmong(ctx, q, 10, among)
	if err != nil {
		t.Fatal(err)
	}
	want := exactTop(vecs[far*100:far*100+100], ids[far*100:far*100+100], q, 10)
	// Distances come from the int8 copies: neighbours may swap places
	// with exact ones, not leave the top.
	if len(hits) != 10 || hits[0].ChunkID != want[0] || overlap(hits, want) < 9 {
		t.Errorf("hits %+v, want the top 10 %v", hits, want)
	}

	// A wide filter (more chunks than the shortlist) scans only its own
	// codes: every hit is inside it, and its top 10 is found.
	half, err := db.FilterChunkIDs(ctx, domain.Filter{PathPrefixes: []string{"/d/a1"}}) // a1, a10..a19
	if err != nil || len(half) != 1100 {
		t.Fatalf("wide filter: %d ids, %v", len(half), err)
	}
	ix.Shortlist = func(k, n int) int { return min(n, 1050) }
	hits, err = ix.KNNAmong(ctx, q, 10, half)
	if err != nil {
		t.Fatal(err)
	}
	var hv [][]float32
	for _, id := range half {
		hv = append(hv, vecs[pos[id]])
	}
	want = exactTop(hv, half, q, 10)
	for _, h := range hits {
		if !slices.Contains(half, h.ChunkID) {
			t.Errorf("hit %d is outside the filter", h.ChunkID)
		}
	}
	if n := overlap(hits, want); n < 9 {
		t.Errorf("wide filter: %d of the exact top 10, want >= 9", n)
	}
	if hits, err := ix.KNNAmong(ctx, q, 10, nil); err != nil || len(hits) != 0 {
		t.Errorf("empty filter: %+v, %v", hits, err)
	}
}

func overlap(hits []domain.VectorHit, want []int64) int {
	n := 0
	for _, h := range hits {
		if slices.Contains(want, h.ChunkID) {
			n++
		}
	}
	return n
}

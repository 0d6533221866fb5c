package bench

import (
	"context"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"cairn/core/bm25"
	"cairn/core/chunk"
	"cairn/core/eval"
	"cairn/core/extract"
	"cairn/core/search"
	"cairn/core/store"
	"cairn/core/vecindex"
)

// VectorOptions configure VectorBench.
type VectorOptions struct {
	Sizes   []int  // chunk counts to measure at, ascending; the knowledge base grows between them
	Dim     int    // vector dimension (384: all-MiniLM-L6-v2)
	Corpus  string // folder whose chunk texts fill the knowledge base (cycled)
	Work    string
	Queries int    // queries per size
	Binary  string // the cairn executable, for the memory measurement
	// EmbedQuery, when set, is timed for every query as the query-embedding
	// step (a real model); the search itself uses synthetic query vectors
	// that match the synthetic stored ones.
	EmbedQuery func(ctx context.Context, text string) error
}

// VectorSize holds the figures at one size.
type VectorSize struct {
	Chunks        int
	Recall10      float64      // fast path vs exact KNN, recall@10
	FastKNN       eval.Latency // vecindex KNN alone
	ExactKNN      eval.Latency // sqlite-vec brute force (few queries at large sizes)
	Hybrid        eval.Latency // embed (if a model is given) + BM25 + KNN + fusion
	HybridBM25    eval.Latency // the BM25 half of the hybrid searches (runs next to the KNN)
	HybridKNN     eval.Latency // their vector half
	Embed         eval.Latency // query embedding alone
	IndexLoad     time.Duration
	IndexMB       float64       // memory of the in-memory codes
	KeywordLoad   time.Duration // bringing the in-memory keyword index up to this size
	KeywordMB     float64       // its memory
	DBMB          float64       // whole knowledge base on disk
	VectorMB      float64       // growth of the file when the vectors were added
	PeakSearchRSS float64       // MB, a child process loading the index and searching
	BuildSeconds  float64
}

// vectorGen makes the synthetic corpus vectors: unit vectors around 1000
// cluster centres that share an offset, so they crowd into a cone as real
// sentence embeddings do. Vector i is a pure function of i.
type vectorGen struct {
	dim    int
	offset []float64
	cent   [][]float64
}

func newVectorGen(dim int) *vectorGen {
	rng := rand.New(rand.NewPCG(42, 42))
	g := &vectorGen{dim: dim, offset: make([]float64, dim)}
	for i := range g.offset {
		g.offset[i] = rng.NormFloat64() * 0.5
	}
	for range 1000 {
		c := make([]float64, dim)
		for i := range c {
			c[i] = g.offset[i] + rng.NormFloat64()
		}
		g.cent = append(g.cent, c)
	}
	return g
}

func (g *vectorGen) vector(i int, dst []float32) []float32 {
	rng := rand.New(rand.NewPCG(7, uint64(i)))
	c := g.cent[rng.IntN(len(g.cent))]
	var n float64
	for j := range dst {
		x := c[j] + rng.NormFloat64()*1.2
		dst[j] = float32(x)
		n += x * x
	}
	n = math.Sqrt(n)
	for j := range dst {
		dst[j] /= float32(n)
	}
	return dst
}

// VectorBench builds a knowledge base of real chunk texts with synthetic
// 384-d vectors, growing through opt.Sizes, and at each size measures the
// fast vector path's recall against exact KNN, KNN and hybrid latency,
// memory and disk.
func VectorBench(ctx context.Context, opt VectorOptions, log io.Writer) ([]VectorSize, error) {
	if opt.Dim == 0 {
		opt.Dim = 384
	}
	if opt.Queries == 0 {
		opt.Queries = 100
	}
	texts, err := chunkTexts(ctx, opt.Corpus)
	if err != nil {
		return nil, err
	}
	path := filepath.Join(opt.Work, "vector.db")
	removeDB(path)
	defer removeDB(path)
	db, err := store.Open(path, store.Options{})
	if err != nil {
		return nil, err
	}
	defer db.Close()
	if _, err := db.SetVectorModel(ctx, "synthetic-clustered", opt.Dim); err != nil {
		return nil, err
	}
	folder, err := db.AddFolder(ctx, "/bench")
	if err != nil {
		return nil, err
	}
	gen := newVectorGen(opt.Dim)
	ix := vecindex.New(db)
	kix := bm25.New(db)
	defer kix.Close()
	var out []VectorSize
	have := 0
	for _, size := range opt.Sizes {
		t := time.Now()
		textMB, err := grow(ctx, db, folder.ID, texts, gen, have, size)
		if err != nil {
			return nil, err
		}
		vs := VectorSize{Chunks: size, BuildSeconds: time.Since(t).Seconds()}
		have = size
		if err := db.Checkpoint(ctx); err != nil {
			return nil, err
		}
		if fi, err := os.Stat(path); err == nil {
			vs.DBMB = float64(fi.Size()) / (1 << 20)
			vs.VectorMB = vs.DBMB - textMB
		}
		if err := measureSize(ctx, db, ix, kix, gen, opt, &vs, log); err != nil {
			return nil, err
		}
		if opt.Binary != "" {
			rss, err := childSearchRSS(ctx, opt.Binary, path, opt.Dim)
			if err != nil {
				return nil, err
			}
			vs.PeakSearchRSS = rss
		}
		fmt.Fprintf(log, "%d chunks: recall@10 %.3f, fast KNN %s, hybrid %s, exact %s, disk %.0f MB, search RSS %.0f MB\n",
			size, vs.Recall10, vs.FastKNN, vs.Hybrid, vs.ExactKNN, vs.DBMB, vs.PeakSearchRSS)
		out = append(out, vs)
	}
	return out, nil
}

// grow adds chunks have..size-1 to the knowledge base: first their text
// (one document per 100 chunks), then their vectors through the
// re-embedding path, so the file size before the vectors tells the text's
// share. It returns that size in MB.
func grow(ctx context.Context, db *store.DB, folder int64, texts []string, gen *vectorGen, have, size int) (float64, error) {
	for start := have; start < size; start += 100 * 64 {
		err := db.Update(ctx, func(tx *store.Tx) error {
			for d := start; d < min(size, start+100*64); d += 100 {
				var cs []chunk.Chunk
				for i := d; i < min(size, d+100); i++ {
					s := texts[i%len(texts)]
					cs = append(cs, chunk.Chunk{Ordinal: i - d, Text: s, End: len(s), LineStart: 1, LineEnd: 1})
				}
				doc := store.Document{FolderID: folder, Path: fmt.Sprintf("/bench/doc%07d.txt", d/100), Hash: "h", Format: "text"}
				if _, _, err := tx.PutDocument(doc, cs, nil); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			return 0, err
		}
	}
	// After a checkpoint the main file holds everything: its size is the
	// text's share.
	if err := db.Checkpoint(ctx); err != nil {
		return 0, err
	}
	textMB := 0.0
	if fi, err := os.Stat(db.Path()); err == nil {
		textMB = float64(fi.Size()) / (1 << 20)
	}
	// Chunk ids are assigned in insertion order from 1, so chunk id-1 is the
	// generator index.
	after := int64(0)
	for {
		todo, err := db.ChunksWithoutVectors(ctx, after, 5000)
		if err != nil {
			return 0, err
		}
		if len(todo) == 0 {
			break
		}
		ids := make([]int64, len(todo))
		vecs := make([][]float32, len(todo))
		for i, c := range todo {
			ids[i] = c.ID
			vecs[i] = gen.vector(int(c.ID-1), make([]float32, gen.dim))
		}
		if err := db.PutVectors(ctx, ids, vecs); err != nil {
			return 0, err
		}
		after = ids[len(ids)-1]
	}
	return textMB, nil
}

func measureSize(ctx context.Context, db *store.DB, ix *vecindex.Index, kix *bm25.Index, gen *vectorGen, opt VectorOptions, vs *VectorSize, log io.Writer) error {
	t := time.Now()
	if err := ix.Sync(ctx); err != nil {
		return err
	}
	vs.IndexLoad = time.Since(t)
	vs.IndexMB = float64(ix.Bytes()) / (1 << 20)
	t = time.Now()
	if err := kix.Sync(ctx); err != nil {
		return err
	}
	vs.KeywordLoad = time.Since(t)
	vs.KeywordMB = float64(kix.Stats().Bytes) / (1 << 20)
	qrng := rand.New(rand.NewPCG(99, uint64(vs.Chunks)))
	qs := make([][]float32, opt.Queries)
	for i := range qs {
		// Half near a stored vector, half anywhere in a cluster.
		v := gen.vector(qrng.IntN(vs.Chunks), make([]float32, opt.Dim))
		if i%2 == 1 {
			v = gen.vector(vs.Chunks+qrng.IntN(1<<30), v)
		}
		qs[i] = v
	}
	exact := exactTop10(gen, vs.Chunks, qs)
	var fast []time.Duration
	recall := 0.0
	for i, q := range qs {
		t := time.Now()
		hits, err := ix.KNN(ctx, q, 10)
		if err != nil {
			return err
		}
		fast = append(fast, time.Since(t))
		for _, h := range hits {
			if slices.Contains(exact[i], h.ChunkID) {
				recall += 0.1
			}
		}
	}
	vs.Recall10 = recall / float64(len(qs))
	vs.FastKNN = eval.Percentiles(fast)
	// sqlite-vec brute force: a few queries are enough to know its cost.
	var ex []time.Duration
	for _, q := range qs[:min(len(qs), max(3, 2000000/max(vs.Chunks, 1)))] {
		t := time.Now()
		if _, err := db.KNN(ctx, q, 10); err != nil {
			return err
		}
		ex = append(ex, time.Since(t))
	}
	vs.ExactKNN = eval.Percentiles(ex)
	// Hybrid: query text from the corpus, vector from the generator.
	var hy, em, hb, hk []time.Duration
	for i, q := range qs {
		text := fmt.Sprintf("query %d", i)
		if cs, err := db.Chunks(ctx, []int64{int64(i%vs.Chunks) + 1}); err == nil {
			if c, ok := cs[int64(i%vs.Chunks)+1]; ok {
				text = firstWords(c.Text, 8)
			}
		}
		emb := &timedEmbedder{vec: q, embed: opt.EmbedQuery}
		s := search.New(db, emb, ix).WithKeywordIndex(kix)
		t := time.Now()
		resp, err := s.Search(ctx, search.Request{Query: text, Mode: search.ModeHybrid, Params: search.DefaultParams()})
		if err != nil {
			return err
		}
		hy = append(hy, time.Since(t))
		hb, hk = append(hb, resp.Timing.BM25), append(hk, resp.Timing.Vector)
		em = append(em, emb.took)
	}
	vs.Hybrid, vs.HybridBM25, vs.HybridKNN = eval.Percentiles(hy), eval.Percentiles(hb), eval.Percentiles(hk)
	if opt.EmbedQuery != nil {
		vs.Embed = eval.Percentiles(em)
	}
	return nil
}

// timedEmbedder times a real model's query embedding (when given) and
// returns the synthetic vector that matches the stored ones.
type timedEmbedder struct {
	vec   []float32
	embed func(ctx context.Context, text string) error
	took  time.Duration
}

func (e *timedEmbedder) EmbedQuery(ctx context.Context, text string) ([]float32, error) {
	if e.embed != nil {
		t := time.Now()
		if err := e.embed(ctx, text); err != nil {
			return nil, err
		}
		e.took = time.Since(t)
	}
	return e.vec, nil
}

// exactTop10 computes the exact top 10 by cosine for every query in one
// pass over regenerated vectors, without holding the corpus in memory.
func exactTop10(gen *vectorGen, n int, qs [][]float32) [][]int64 {
	type hit struct {
		id  int64
		sim float32
	}
	tops := make([][]hit, len(qs))
	v := make([]float32, gen.dim)
	for i := 0; i < n; i++ {
		gen.vector(i, v)
		for qi, q := range qs {
			var s float32
			for j := range v {
				s += v[j] * q[j]
			}
			t := tops[qi]
			if len(t) < 10 || s > t[len(t)-1].sim {
				t = append(t, hit{int64(i + 1), s})
				slices.SortFunc(t, func(a, b hit) int {
					if a.sim > b.sim {
						return -1
					}
					if a.sim < b.sim {
						return 1
					}
					return 0
				})
				if len(t) > 10 {
					t = t[:10]
				}
				tops[qi] = t
			}
		}
	}
	out := make([][]int64, len(qs))
	for i, t := range tops {
		for _, h := range t {
			out[i] = append(out[i], h.id)
		}
	}
	return out
}

func chunkTexts(ctx context.Context, dir string) ([]string, error) {
	files, err := preChunk(ctx, extract.NewRegistry(extract.DefaultLimits()), dir, chunk.DefaultParams())
	if err != nil {
		return nil, err
	}
	var out []string
	for _, f := range files {
		out = append(out, f.chunks...)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("no text in %s", dir)
	}
	return out, nil
}

func firstWords(s string, n int) string {
	f := strings.Fields(s)
	return strings.Join(f[:min(n, len(f))], " ")
}

// childSearchRSS opens the knowledge base in a child process (`cairn bench
// vector-child`), loads the vector index, runs hybrid searches and returns
// the child's peak RSS in MB.
func childSearchRSS(ctx context.Context, bin, db string, dim int) (float64, error) {
	return runPeakRSS(exec.CommandContext(ctx, bin, "bench", "vector-child", "--db", db, "--dim", strconv.Itoa(dim)))
}

// VectorChild is the child side of childSearchRSS.
func VectorChild(ctx context.Context, dbPath string, dim int) error {
	db, err := store.Open(dbPath, store.Options{})
	if err != nil {
		return err
	}
	defer db.Close()
	ix := vecindex.New(db)
	kix := bm25.New(db)
	defer kix.Close()
	if err := kix.Sync(ctx); err != nil {
		return err
	}
	gen := newVectorGen(dim)
	v := make([]float32, dim)
	for i := range 50 {
		s := search.New(db, &timedEmbedder{vec: gen.vector(i*7919, v)}, ix).WithKeywordIndex(kix)
		if _, err := s.Search(ctx, search.Request{Query: "configuration file options", Mode: search.ModeHybrid, Params: search.DefaultParams()}); err != nil {
			return err
		}
	}
	return nil
}

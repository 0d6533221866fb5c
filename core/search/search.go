// Package search retrieves the chunks that answer a question: BM25 over the
// FTS5 index, nearest neighbours over the chunk embeddings, and the fusion of
// both rankings (Reciprocal Rank Fusion or weighted scores).
package search

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"golang.org/x/sync/errgroup"

	"cairn/core/domain"
)

// QueryEmbedder turns a question into a vector in the space of the stored
// chunk embeddings. core/llm's Embedder satisfies it.
type QueryEmbedder interface {
	EmbedQuery(ctx context.Context, query string) ([]float32, error)
}

// VectorIndex finds the nearest stored chunk vectors to a query vector,
// among all chunks or among some (a filter's, ascending ids). *store.DB
// (core/store) satisfies it with exact KNN, *vecindex.Index with its fast path.
type VectorIndex interface {
	KNN(ctx context.Context, q []float32, k int) ([]domain.VectorHit, error)
	KNNAmong(ctx context.Context, q []float32, k int, ids []int64) ([]domain.VectorHit, error)
}

// KeywordIndex ranks chunks for an OR of terms (Term.Words of each)
// exactly as FTS5's bm25() would, only faster; *bm25.Index satisfies it.
// common marks the terms that select no chunks of their own, as RareFirst
// asks FTS5 (nil: none). ok is false when it cannot answer now, and the
// searcher asks FTS5.
type KeywordIndex interface {
	Search(ctx context.Context, terms []string, common []bool, k int) (hits []domain.FTSHit, ok bool, err error)
}

// A keywordGate is a KeywordIndex that rations the FTS5 searches made
// while it catches up with the store, so that they leave it a core
// (bm25.Index.Behind).
type keywordGate interface {
	Behind(ctx context.Context) (release func(), caughtUp bool, err error)
}

// Store is the knowledge base a Searcher reads: the SQLite file (New) or
// a team's cluster (NewOver with core/teamsearch's). It finds the two
// ranked lists and loads passages; everything that ranks them (weights,
// fusion, relevance, the cut-offs) is the Searcher's, the same over both.
type Store interface {
	// TermDocFreqs returns how many chunks hold each of words (a Term's
	// String; for a phrase, its rarest word) and how many chunks there
	// are: the terms' IDF.
	TermDocFreqs(ctx context.Context, words []string) (dfs []int, n int, err error)
	// Keyword ranks up to k chunks holding any of terms, within f, best
	// first, scored as FTS5's bm25() scores them (Hit.Score = -bm25()).
	Keyword(ctx context.Context, terms []Term, k int, f domain.Filter) ([]Hit, error)
	// Nearest ranks the k chunks nearest to q, within f, most similar
	// first (Hit.Score = cosine similarity).
	Nearest(ctx context.Context, q []float32, k int, f domain.Filter) ([]Hit, error)
	// Chunks loads the chunks of ids; ids not found are absent.
	Chunks(ctx context.Context, ids []int64) (map[int64]domain.ChunkInfo, error)
}

// Searcher runs searches over one knowledge base.
type Searcher struct {
	st  Store
	emb QueryEmbedder // nil: BM25 only
}

// New returns a Searcher over the SQLite store db. emb may be nil (BM25
// only); vec defaults to exact KNN in the store.
func New(db FileDB, emb QueryEmbedder, vec VectorIndex) *Searcher {
	if vec == nil {
		vec = db
	}
	return &Searcher{st: &sqliteStore{db: db, vec: vec}, emb: emb}
}

// NewOver returns a Searcher over st, any Store. emb may be nil (BM25
// only).
func NewOver(st Store, emb QueryEmbedder) *Searcher { return &Searcher{st: st, emb: emb} }

// WithKeywordIndex makes BM25 searches without filters use kw, over the
// SQLite store (a cluster has its own keyword index).
func (s *Searcher) WithKeywordIndex(kw KeywordIndex) *Searcher {
	if sq, ok := s.st.(*sqliteStore); ok {
		sq.kw = kw
	}
	return s
}

// FileDB is what a Searcher made by New reads of the SQLite file;
// *store.DB (core/store) is one, with exact KNN as its VectorIndex.
type FileDB interface {
	VectorIndex
	Chunks(ctx context.Context, ids []int64) (map[int64]domain.ChunkInfo, error)
	TermDocFreqs(ctx context.Context, words []string) (dfs []int, n int, err error)
	SearchFTS(ctx context.Context, match string, limit int, f domain.Filter) ([]domain.FTSHit, error)
	FilterChunkIDs(ctx context.Context, f domain.Filter) ([]int64, error)
}

// sqliteStore is the SQLite file as a Store: FTS5 (or the in-memory
// keyword index kw, in step with it) and vec.
type sqliteStore struct {
	db  FileDB
	vec VectorIndex
	kw  KeywordIndex // nil: FTS5 only
}

func (s *sqliteStore) Chunks(ctx context.Context, ids []int64) (map[int64]domain.ChunkInfo, error) {
	return s.db.Chunks(ctx, ids)
}

// TermDocFreqs asks the keyword index when it holds the counts (no query
// to the store), FTS5 otherwise.
func (s *sqliteStore) TermDocFreqs(ctx context.Context, words []string) ([]int, int, error) {
	if d, can := s.kw.(DocFreqIndex); can {
		if dfs, n, ok, err := d.DocFreqs(ctx, words); ok || err != nil {
			return dfs, n, err
		}
	}
	return s.db.TermDocFreqs(ctx, words)
}

// Request is one search.
type Request struct {
	Query      string
	Mode       Mode // "" picks hybrid when an embedder is loaded, else BM25
	Filter     domain.Filter
	BM25Pool   int `knob:"bm25_pool"`   // candidates taken from BM25; default 60
	VectorPool int `knob:"vector_pool"` // candidates taken from vector search; default 60
	// Exact searches the words as typed: a word no passage holds is not
	// corrected (spell.go).
	Exact bool
	// WordForms makes a question about the collection ("how many files
	// mention locale") count any form of its words, as the index's stemmer
	// joins them, instead of whole words only.
	WordForms bool
	// Terms are Query's terms when the question's reader parsed them
	// already (answer.Question): they are searched as given, not parsed
	// from Query again. nil: ParseTerms(Query).
	Terms []Term
	// Guide are the folders of the bundled user guide (each ending with a
	// separator; core.Engine sets them): its passages never rank above a
	// passage of the person's own documents that answers as well
	// (guide.go). nil: no passage is the guide's.
	Guide []string
	Params
}

// Timing says where a search spent its time.
type Timing struct {
	Embed  time.Duration `json:"embed_ns"`
	BM25   time.Duration `json:"bm25_ns"`
	Vector time.Duration `json:"vector_ns"`
	Fuse   time.Duration `json:"fuse_ns"`
	Rerank time.Duration `json:"rerank_ns,omitempty"`
	Total  time.Duration `json:"total_ns"`
}

// Response holds the fused results and the candidates behind them.
type Response struct {
	Results    []Result
	Candidates *Candidates
	// Params are the fusion parameters Results were ranked with, so that a
	// reader of the candidates ranks them the same way.
	Params Params
	Timing Timing
}

// ErrNoVectors is returned for a vector search when no embedding model is
// loaded or the knowledge base holds no vectors.
var ErrNoVectors = errors.New("vector search needs an embedding model: put a GGUF embedding model in the models folder or run `cairn models use PATH`")

// Search runs the retrievers of req.Mode concurrently, fuses their lists
// and returns the best results.
func (s *Searcher) Search(ctx context.Context, req Request) (*Response, error) {
	t0 := time.Now()
	if req.BM25Pool <= 0 {
		req.BM25Pool = 60
	}
	if req.VectorPool <= 0 {
		req.VectorPool = 60
	}
	if req.Fusion == "" {
		req.Fusion = FusionRRF
	}
	mode := req.Mode
	if mode == "" {
		mode = ModeBM25
		if s.emb != nil {
			mode = ModeHybrid
		}
	}
	if mode != ModeBM25 && s.emb == nil {
		return nil, ErrNoVectors
	}
	terms := slices.Clone(req.Terms) // corrections replace a term's words in the copy
	if terms == nil {
		terms = ParseTerms(req.Query)
	}
	c := &Candidates{Query: req.Query, Terms: terms, Mode: mode, Guide: req.Guide}
	if !req.Exact {
		if err := s.correct(ctx, c); err != nil {
			return nil, err
		}
		c.Query = Corrected(req.Query, c.Corrections)
	}
	var tm Timing
	g, gctx := errgroup.WithContext(ctx)
	if mode != ModeVector {
		g.Go(func() error {
			t := time.Now()
			var err error
			c.BM25, err = s.st.Keyword(gctx, keywordTerms(c.Terms), req.BM25Pool, req.Filter)
			tm.BM25 = time.Since(t)
			return err
		})
	}
	if mode != ModeBM25 {
		g.Go(func() error {
			t := time.Now()
			q, err := s.emb.EmbedQuery(gctx, c.Query)
			if err != nil {
				return fmt.Errorf("embed the query: %w", err)
			}
			tm.Embed = time.Since(t)
			t = time.Now()
			c.Vector, err = s.st.Nearest(gctx, q, req.VectorPool, req.Filter)
			tm.Vector = time.Since(t)
			return err
		})
	}
	if err := g.Wait(); err != nil {
		return nil, err
	}
	if mode == ModeHybrid && Degenerate(c.Vector) {
		c.Mode = ModeBM25
		c.Notes = append(c.Notes, "the embedding model gave nearly the same similarity to every passage; ranked by keywords only")
	}
	if err := s.weigh(ctx, c); err != nil {
		return nil, err
	}
	if err := s.load(ctx, c); err != nil {
		return nil, err
	}
	if len(c.Corrections) > 0 {
		settle(c.Corrections, c.Terms, c.Passages)
		c.Query = Corrected(req.Query, c.Corrections)
	}
	t := time.Now()
	res := Fuse(c, req.Params)
	tm.Fuse = time.Since(t)
	tm.Total = time.Since(t0)
	return &Response{Results: res, Candidates: c, Params: req.Params, Timing: tm}, nil
}

// Above pruneFrom chunks, terms found in more than commonShare of them are
// left out of candidate generation (see RareFirst). Measured with 1000
// known-item queries on 84K man-page chunks: latency about 10 times lower,
// MRR@10 unchanged (0.604) at shares from 0.2 down to 0.02.
const (
	pruneFrom   = 10000
	commonShare = 0.02
)

func (s *sqliteStore) Keyword(ctx context.Context, terms []Term, pool int, f domain.Filter) ([]Hit, error) {
	plain := MatchQuery(terms)
	if plain == "" {
		return nil, nil
	}
	common, err := s.commonTerms(ctx, terms)
	if err != nil {
		return nil, err
	}
	if hits, ok, err := s.keywordIndex(ctx, terms, common, pool, f); ok || err != nil {
		return hits, err
	}
	if g, ok := s.kw.(keywordGate); ok {
		release, caughtUp, err := g.Behind(ctx)
		if err != nil {
			return nil, err
		}
		defer release()
		if caughtUp {
			if hits, ok, err := s.keywordIndex(ctx, terms, common, pool, f); ok || err != nil {
				return hits, err
			}
		}
	}
	match := plain
	if common != nil {
		match = RareFirst(terms, common)
	}
	hits, err := s.db.SearchFTS(ctx, match, pool, f)
	if err != nil {
		return nil, err
	}
	if match != plain && len(hits) < pool {
		// Fewer passages hold a rarer term than the pool takes: the
		// frequent terms' passages fill it, as the plain OR ranks them
		// (the in-memory index does the same: bm25.Index.Search).
		if hits, err = s.db.SearchFTS(ctx, plain, pool, f); err != nil {
			return nil, err
		}
	}
	return ftsHits(hits), nil
}

// commonTerms marks, over a large knowledge base, the terms found in more
// than commonShare of its chunks, which select no candidates of their own
// (RareFirst); nil when nothing is pruned. The rarest term that some
// passage holds always selects (a word held nowhere, a typo searched as
// typed, selects none), and so does a phrase, whose own frequency is not
// known. Both keyword paths prune by this one mark, so that they give one
// list.
func (s *sqliteStore) commonTerms(ctx context.Context, terms []Term) ([]bool, error) {
	if len(terms) < 2 {
		return nil, nil
	}
	words := make([]string, len(terms))
	for i, t := range terms {
		words[i] = t.Words()
	}
	dfs, n, err := s.TermDocFreqs(ctx, words)
	if err != nil || n < pruneFrom {
		return nil, err
	}
	common := make([]bool, len(terms))
	rarest := -1
	for i, df := range dfs {
		common[i] = len(terms[i].Tokens) == 1 && float64(df) > commonShare*float64(n)
		if df > 0 && (rarest < 0 || df < dfs[rarest]) {
			rarest = i
		}
	}
	if rarest < 0 {
		return nil, nil
	}
	common[rarest] = false
	if !slices.Contains(common, true) {
		return nil, nil
	}
	return common, nil
}

// keywordIndex answers from the in-memory index when it can: no filter,
// and the index in step with the store. A filtered search goes to FTS5,
// which applies the filter in the same SQL statement as the ranking.
func (s *sqliteStore) keywordIndex(ctx context.Context, terms []Term, common []bool, pool int, f domain.Filter) ([]Hit, bool, error) {
	if s.kw == nil || !f.Empty() {
		return nil, false, nil
	}
	words := make([]string, len(terms))
	for i, t := range terms {
		words[i] = t.Words()
	}
	hits, ok, err := s.kw.Search(ctx, words, common, pool)
	if err != nil || !ok {
		return nil, false, err
	}
	return ftsHits(hits), true, nil
}

func ftsHits(hits []domain.FTSHit) []Hit {
	out := make([]Hit, len(hits))
	for i, h := range hits {
		out[i] = Hit{ChunkID: h.ChunkID, Score: -h.BM25}
	}
	return out
}

// Nearest ranks the chunks nearest to q. With a filter, only the chunks it
// keeps are ranked (not everyone's nearest cut down afterwards), so a
// filter that keeps one file of many still gets that file's best passages.
func (s *sqliteStore) Nearest(ctx context.Context, q []float32, pool int, f domain.Filter) ([]Hit, error) {
	var hits []domain.VectorHit
	var err error
	if f.Empty() {
		hits, err = s.vec.KNN(ctx, q, pool)
	} else {
		var ids []int64
		if ids, err = s.db.FilterChunkIDs(ctx, f); err == nil {
			hits, err = s.vec.KNNAmong(ctx, q, pool, ids)
		}
	}
	if err != nil {
		return nil, fmt.Errorf("vector search: %w", err)
	}
	out := make([]Hit, 0, len(hits))
	for _, h := range hits {
		out = append(out, Hit{ChunkID: h.ChunkID, Score: 1 - h.Distance})
	}
	return out, nil
}

// weigh sets the weight of each query term: its IDF in the knowledge base,
// so that a passage's coverage of the question counts rare words more.
func (s *Searcher) weigh(ctx context.Context, c *Candidates) error {
	if len(c.Terms) == 0 {
		return nil
	}
	// A term's document frequency is that of its commonest form: a
	// question's "folder" is as common as the documents' "directory".
	var words []string
	of := []int{} // words[i] is a form of c.Terms[of[i]]
	for ti, t := range c.Terms {
		for _, f := range t.forms() {
			words = append(words, strings.Join(f, " "))
			of = append(of, ti)
		}
		// An irregular form ("ran") is as common as its base, which the
		// index holds by Porter's stem and passages match it by
		// (irregular.go): without it "ran" was a word no document holds.
		if base, ok := irregular[t.Words()]; ok && t.Literal == "" {
			words = append(words, base)
			of = append(of, ti)
		}
	}
	dfs, n, err := s.st.TermDocFreqs(ctx, words)
	if err != nil {
		return fmt.Errorf("weigh the query's terms: %w", err)
	}
	df := make([]int, len(c.Terms))
	for i, d := range dfs {
		df[of[i]] = max(df[of[i]], d)
	}
	c.Weights = make([]float64, len(df))
	c.Absent = make([]bool, len(df))
	c.Chunks = n
	most := 0.0 // the heaviest word's weight
	for i, d := range df {
		c.Weights[i] = IDF(d, n)
		c.Absent[i] = d == 0
		if d == 0 && len(df) <= absentTopicTerms {
			c.Weights[i] *= absentWeight
		}
		if c.Terms[i].Literal == "" {
			most = max(most, c.Weights[i])
		}
	}
	// A technical token is the most specific term of a question ("-a" in
	// "what does ls -a do"), whatever the index makes of its letters.
	for i, t := range c.Terms {
		if t.Literal != "" {
			c.Weights[i] = max(c.Weights[i], most)
		}
	}
	return nil
}

// DocFreqIndex is a KeywordIndex that also knows how many chunks hold each
// term; *bm25.Index is one.
type DocFreqIndex interface {
	DocFreqs(ctx context.Context, terms []string) (dfs []int, n int, ok bool, err error)
}

// absentWeight scales the weight of a question's word that no passage
// holds: beyond being rare, it is evidence that the question is about
// something the documents do not cover ("Peru" in "What is the capital of
// Peru?" asked of software manuals). Measured on the quality suite's and a
// development set's questions (docs/answers.md): off-topic questions whose
// best passage was a partial match fell from 9 of 46 to 3, answerable
// questions under the line went from 1 of 95 to 2.
const absentWeight = 1.5

// absentTopicTerms is the most terms a question may have for a word no
// passage holds to weigh absentWeight: in a short question such a word is
// its topic ("Peru" of two), in a long one it is often a word of the
// asking ("overly" in "break up overly long lines without joining short
// ones", "accident" in "…even by accident"), and weighing it more pushed
// answerable questions under the refusal line (the suite's 1 of 76 and a
// development set's 5 of 66 became 0 and 4, no off-topic question
// answered more; docs/bench/quality.md).
const absentTopicTerms = 4

// load fetches the passages of every candidate and computes their snippets.
func (s *Searcher) load(ctx context.Context, c *Candidates) error {
	ids := append(hitIDs(c.BM25), hitIDs(c.Vector)...)
	infos, err := s.st.Chunks(ctx, ids)
	if err != nil {
		return fmt.Errorf("load results: %w", err)
	}
	c.Passages = make(map[int64]*Passage, len(infos))
	for id, ci := range infos {
		p := &Passage{ChunkID: id, DocumentID: ci.DocumentID, Path: ci.Path, PathEscaped: EscapePath(ci.Path), Title: ci.Title, Format: ci.Format,
			Heading: ci.Heading, Text: ci.Text, UnitKind: ci.UnitKind, Page: ci.Page, Label: ci.Label,
			LineStart: ci.LineStart, LineEnd: ci.LineEnd}
		words, at := termWords(ci.Text, c.Terms)
		p.Snippet, p.Highlights, p.Matched = snippetOf(ci.Text, c.Terms, words, at)
		p.Coverage, p.Near = passageCoverage(p, c.Terms, c.Weights, at)
		p.Phrase = phraseShare(c.Terms, c.Weights, at)
		p.Navigation = IsNavigation(ci.Text)
		p.Guide = InGuide(ci.Path, c.Guide)
		c.Passages[id] = p
	}
	return nil
}

func hitIDs(hs []Hit) []int64 {
	ids := make([]int64, len(hs))
	for i, h := range hs {
		ids[i] = h.ChunkID
	}
	return ids
}

// Degenerate reports whether vector similarities carry no ranking signal:
// over the top 20, all above 0.88 and within 0.06 of each other (NuraSafe
// §5.3). A model that maps everything to nearly one point would otherwise
// inject a random order into the fusion.
func Degenerate(hits []Hit) bool {
	if len(hits) < 5 {
		return false
	}
	top := hits[:min(20, len(hits))]
	lo, hi := scoreRange(top)
	return lo > 0.88 && hi-lo < 0.06
}

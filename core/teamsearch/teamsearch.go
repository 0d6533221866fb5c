// Package teamsearch is a team's Weaviate cluster (core/teamstore) as the
// Store core/search reads, so that searches and answers over the cluster
// are ranked, cut and refused by the same code as over the SQLite file.
//
// Weaviate finds, Cairn scores: the keyword list is Weaviate's BM25F over
// the chunks' FTS5 tokens (teamstore.StemFields), taken wider than asked,
// then scored again here with FTS5's bm25() formula (column weights 1, 0.5
// and 0.8 on term frequencies, k1 1.2, b 0.75, FTS5's IDF) from the
// cluster's own counts: its chunks and their tokens (teamstore.Totals) and
// each word's chunks (teamstore.StemDocFreqs). The list a search fuses is
// then the one FTS5 would give, when the wider list holds FTS5's top.
//
// Chunk ids are this process's: the cluster's UUIDs are numbered in the
// order they are first seen (docs/team.md, Decisions), so an id from a
// search or a citation names its passage for as long as the process runs.
package teamsearch

import (
	"context"
	"errors"
	"fmt"
	"math"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"cairn/core/bm25"
	"cairn/core/domain"
	"cairn/core/search"
	"cairn/core/teamstore"
)

// Store is a cluster as a search.Store. Its methods are safe for
// concurrent use.
type Store struct {
	ts  *teamstore.Store
	opt Options

	mu     sync.Mutex
	ids    map[string]int64 // chunk UUID -> this process's id
	uuids  []string         // id-1 -> chunk UUID
	docIDs map[string]int64 // file -> this process's document id
	cache  map[int64]domain.ChunkInfo
	order  []int64 // cache's ids, oldest first, for eviction
	stats  stats
}

// Options tune a Store.
type Options struct {
	// StatsFor is how long the cluster's counts (chunks, tokens, each
	// word's chunks) are reused before being asked again; default 5 s.
	// Counts that changed meanwhile (an index run) are dropped at once.
	StatsFor time.Duration
	// Widen is how many times k hits the keyword search takes from the
	// cluster before scoring them as FTS5 would; default 8. BM25F orders
	// the tail of a list otherwise than FTS5 (other IDF and length
	// normalisation, no column weights): on 2,400 Zipf-worded chunks, 4
	// times a pool of 40 missed FTS5's 39th hit once in 60 questions, 8
	// times missed none (TestTeamKeywordListsAreTheSameOnALargerCorpus).
	Widen int
	// CacheChunks bounds the passages kept in memory; a passage dropped
	// from it is read again by its id. Default 20,000.
	CacheChunks int
	// Now is the clock; nil is time.Now.
	Now func() time.Time
	// Folders say where the cluster's folders are on this computer, by
	// name (store.folders): a passage's path is the file here, and a
	// folder filter given with paths here finds the cluster's files. A
	// folder without one is shown by its name (its path, when the
	// indexer named it by its absolute path).
	Folders map[string]string
}

// stats are the cluster's counts as last read.
type stats struct {
	at     time.Time
	chunks int
	tokens int64
	dfs    map[string]int // stem -> chunks holding it
	gen    int            // how many times the counts were started afresh
}

// New returns a cluster's Store.
func New(ts *teamstore.Store, opt Options) *Store {
	if opt.StatsFor <= 0 {
		opt.StatsFor = 5 * time.Second
	}
	if opt.Widen <= 0 {
		opt.Widen = 8
	}
	if opt.CacheChunks <= 0 {
		opt.CacheChunks = 20000
	}
	if opt.Now == nil {
		opt.Now = time.Now
	}
	folders := map[string]string{}
	for name, dir := range opt.Folders {
		folders[name] = filepath.Clean(dir)
	}
	opt.Folders = folders
	return &Store{ts: ts, opt: opt, ids: map[string]int64{}, docIDs: map[string]int64{}, cache: map[int64]domain.ChunkInfo{}}
}

// Team is the cluster.
func (s *Store) Team() *teamstore.Store { return s.ts }

// maxHits is Weaviate's default QUERY_MAXIMUM_RESULTS: one query returns
// at most that many objects.
const maxHits = 10000

// Keyword ranks chunks for terms as FTS5's bm25() does (see the package
// comment). Hit.Score is -bm25().
func (s *Store) Keyword(ctx context.Context, terms []search.Term, k int, f domain.Filter) ([]search.Hit, error) {
	if len(terms) == 0 || k <= 0 {
		return nil, nil
	}
	tk := bm25.NewTokenizer()
	phrases := make([][]string, 0, len(terms))
	var all []string
	for _, t := range terms {
		toks := tk.Tokens(t.String())
		if len(toks) == 0 {
			continue
		}
		phrases = append(phrases, toks)
		for _, w := range toks {
			if !slices.Contains(all, w) {
				all = append(all, w)
			}
		}
	}
	if len(all) == 0 {
		return nil, nil
	}
	n, tokens, dfs, err := s.counts(ctx, all)
	if err != nil {
		return nil, err
	}
	if n == 0 {
		return nil, nil
	}
	hits, err := s.ts.BM25(ctx, strings.Join(all, " "), teamstore.Query{Fields: teamstore.StemFields,
		Limit: min(k*s.opt.Widen, maxHits), Files: s.files(f), Lean: true})
	if err != nil {
		return nil, err
	}
	idf := make([]float64, len(phrases))
	for i, p := range phrases {
		// A phrase counts as often as its rarest word: what the SQLite
		// store's term counts say too (FTS5 itself counts the phrase).
		df := -1
		for _, w := range p {
			if df < 0 || dfs[w] < df {
				df = dfs[w]
			}
		}
		idf[i] = fts5IDF(n, df)
	}
	avgdl := float64(tokens) / float64(n)
	type scored struct {
		h     teamstore.Hit
		score float64
	}
	var ranked []scored
	for _, h := range hits {
		if sc := fts5Score(tk, h, phrases, idf, avgdl); sc > 0 {
			ranked = append(ranked, scored{h, sc})
		}
	}
	// Ties go to the file and chunk that come first, as FTS5 meets rows
	// in the order they were indexed.
	slices.SortStableFunc(ranked, func(a, b scored) int {
		if a.score != b.score {
			if a.score > b.score {
				return -1
			}
			return 1
		}
		if c := strings.Compare(a.h.File, b.h.File); c != 0 {
			return c
		}
		return a.h.Ordinal - b.h.Ordinal
	})
	ranked = ranked[:min(k, len(ranked))]
	// The kept hits in full: the wide list carried what scoring needs.
	ids := make([]string, len(ranked))
	for i, r := range ranked {
		ids[i] = r.h.ID
	}
	full, err := s.ts.Hits(ctx, ids)
	if err != nil {
		return nil, err
	}
	byID := make(map[string]teamstore.Hit, len(full))
	for _, h := range full {
		byID[h.ID] = h
	}
	out := make([]search.Hit, 0, len(ranked))
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, r := range ranked {
		h, ok := byID[r.h.ID]
		if !ok {
			continue // removed since the list was made
		}
		out = append(out, search.Hit{ChunkID: s.keep(h), Score: r.score})
	}
	return out, nil
}

// fts5IDF is FTS5's IDF of a phrase n of whose N chunks hold.
func fts5IDF(N, n int) float64 {
	idf := math.Log((float64(N) - float64(n) + 0.5) / (float64(n) + 0.5))
	if idf <= 0 {
		return 1e-6
	}
	return idf
}

// Column weights and constants of FTS5's bm25() as the SQLite store calls
// it: bm25(chunks_fts, 1.0, 0.5, 0.8).
const (
	wText, wHeading, wTitle = 1.0, 0.5, 0.8
	k1, b                   = 1.2, 0.75
)

// fts5Score is FTS5's bm25() of h for the phrases (negated: higher is
// better): each phrase's occurrences weighted by column, saturated against
// the chunk's length in tokens (all three columns) over the average.
func fts5Score(tk *bm25.Tokenizer, h teamstore.Hit, phrases [][]string, idf []float64, avgdl float64) float64 {
	text, heading, title := tk.Tokens(h.Text), tk.Tokens(h.Heading), tk.Tokens(h.Title)
	return columnsScore([][]string{text, heading, title}, []float64{wText, wHeading, wTitle},
		len(text)+len(heading)+len(title), phrases, idf, avgdl)
}

// columnsScore is FTS5's bm25() (negated) of a chunk of d tokens whose
// columns searched are cols, weighted by weights: under a column filter
// (collection.MatchExpr's {text heading}) the other columns hold no
// occurrences, but their tokens still count in d.
func columnsScore(cols [][]string, weights []float64, d int, phrases [][]string, idf []float64, avgdl float64) float64 {
	score := 0.0
	for i, p := range phrases {
		f := 0.0
		for c, toks := range cols {
			f += weights[c] * float64(occurrences(toks, p))
		}
		if f == 0 {
			continue
		}
		score += idf[i] * f * (k1 + 1) / (f + k1*(1-b+b*float64(d)/avgdl))
	}
	return score
}

// occurrences counts p in toks, as consecutive tokens.
func occurrences(toks, p []string) int {
	n := 0
	for i := 0; i+len(p) <= len(toks); i++ {
		if slices.Equal(toks[i:i+len(p)], p) {
			n++
		}
	}
	return n
}

// Nearest ranks the k chunks nearest to q within f by cosine similarity.
func (s *Store) Nearest(ctx context.Context, q []float32, k int, f domain.Filter) ([]search.Hit, error) {
	if k <= 0 {
		return nil, nil
	}
	hits, err := s.ts.NearVector(ctx, q, teamstore.Query{Limit: min(k, maxHits), Files: s.files(f)})
	if err != nil {
		return nil, fmt.Errorf("vector search: %w", err)
	}
	out := make([]search.Hit, len(hits))
	s.mu.Lock()
	defer s.mu.Unlock()
	for i, h := range hits {
		out[i] = search.Hit{ChunkID: s.keep(h), Score: h.Score}
	}
	return out, nil
}

// TermDocFreqs counts the chunks holding each word (a phrase: its rarest
// word), and all chunks, from the cluster's counts.
func (s *Store) TermDocFreqs(ctx context.Context, words []string) ([]int, int, error) {
	tk := bm25.NewTokenizer()
	toks := make([][]string, len(words))
	var all []string
	for i, w := range words {
		toks[i] = tk.Tokens(w)
		for _, t := range toks[i] {
			if !slices.Contains(all, t) {
				all = append(all, t)
			}
		}
	}
	n, _, dfs, err := s.counts(ctx, all)
	if err != nil {
		return nil, 0, err
	}
	out := make([]int, len(words))
	for i, ts := range toks {
		out[i] = -1
		for _, t := range ts {
			if out[i] < 0 || dfs[t] < out[i] {
				out[i] = dfs[t]
			}
		}
		out[i] = max(out[i], 0)
	}
	return out, n, nil
}

// counts returns the cluster's chunks and tokens and the chunks holding
// each of stems. Counts read less than StatsFor ago are reused unless the
// cluster's totals have moved since (an index run).
func (s *Store) counts(ctx context.Context, stems []string) (int, int64, map[string]int, error) {
	now := s.opt.Now()
	s.mu.Lock()
	fresh := s.stats.dfs != nil && now.Sub(s.stats.at) < s.opt.StatsFor
	s.mu.Unlock()
	if !fresh {
		n, tokens, err := s.ts.Totals(ctx)
		if err != nil {
			return 0, 0, nil, err
		}
		s.mu.Lock()
		if s.stats.dfs == nil || n != s.stats.chunks || tokens != s.stats.tokens {
			s.stats = stats{chunks: n, tokens: tokens, dfs: map[string]int{}, gen: s.stats.gen + 1}
		}
		s.stats.at = now
		s.mu.Unlock()
	}
	s.mu.Lock()
	st := s.stats
	out := make(map[string]int, len(stems))
	var missing []string
	for _, w := range stems {
		if n, ok := st.dfs[w]; ok {
			out[w] = n
		} else {
			missing = append(missing, w)
		}
	}
	s.mu.Unlock()
	if len(missing) == 0 {
		return st.chunks, st.tokens, out, nil
	}
	dfs, err := s.ts.StemDocFreqs(ctx, missing)
	if err != nil {
		return 0, 0, nil, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	for i, w := range missing {
		out[w] = dfs[i]
		if s.stats.gen == st.gen { // not counted again meanwhile
			s.stats.dfs[w] = dfs[i]
		}
	}
	return st.chunks, st.tokens, out, nil
}

// keep numbers h's chunk (once) and remembers it as a passage; s.mu is
// held.
func (s *Store) keep(h teamstore.Hit) int64 {
	id, ok := s.ids[h.ID]
	if !ok {
		s.uuids = append(s.uuids, h.ID)
		id = int64(len(s.uuids))
		s.ids[h.ID] = id
	}
	if _, ok := s.cache[id]; !ok {
		s.order = append(s.order, id)
		for len(s.order) > s.opt.CacheChunks {
			delete(s.cache, s.order[0])
			s.order = s.order[1:]
		}
	}
	s.cache[id] = s.info(id, h)
	return id
}

// info is h as the SQLite store describes a chunk; s.mu is held.
func (s *Store) info(id int64, h teamstore.Hit) domain.ChunkInfo {
	doc, ok := s.docIDs[h.File]
	if !ok {
		doc = int64(len(s.docIDs) + 1)
		s.docIDs[h.File] = doc
	}
	return domain.ChunkInfo{ID: id, DocumentID: doc, Path: s.local(h.Folder, h.Path), Title: h.Title, Format: h.Format, Ordinal: h.Ordinal,
		Text: h.Text, Heading: h.Heading, UnitKind: h.Unit, Page: h.Page, Label: h.Label, LineStart: h.LineStart, LineEnd: h.LineEnd}
}

// Chunks returns the passages of ids: those this process has seen, read
// again from the cluster when they left the cache. An id this process
// never gave out is absent.
func (s *Store) Chunks(ctx context.Context, ids []int64) (map[int64]domain.ChunkInfo, error) {
	out := make(map[int64]domain.ChunkInfo, len(ids))
	var reread []int64
	s.mu.Lock()
	for _, id := range ids {
		if ci, ok := s.cache[id]; ok {
			out[id] = ci
		} else if id > 0 && id <= int64(len(s.uuids)) {
			reread = append(reread, id)
		}
	}
	s.mu.Unlock()
	for _, id := range reread {
		s.mu.Lock()
		uuid := s.uuids[id-1]
		s.mu.Unlock()
		h, err := s.ts.Chunk(ctx, uuid)
		if errors.Is(err, teamstore.ErrNotFound) {
			continue // removed from the cluster since
		}
		if err != nil {
			return nil, err
		}
		s.mu.Lock()
		s.keep(h)
		out[id] = s.cache[id]
		s.mu.Unlock()
	}
	return out, nil
}

// DocumentChunks returns the passages of the file at path (as passages
// show it), in reading order; none when the cluster holds no such file.
func (s *Store) DocumentChunks(ctx context.Context, path string) ([]domain.ChunkInfo, error) {
	var hits []teamstore.Hit
	for _, file := range s.clusterPaths(path) {
		var err error
		if hits, err = s.ts.FileChunks(ctx, file); err != nil {
			return nil, err
		}
		if len(hits) > 0 {
			break
		}
	}
	out := make([]domain.ChunkInfo, len(hits))
	s.mu.Lock()
	defer s.mu.Unlock()
	for i, h := range hits {
		out[i] = s.cache[s.keep(h)]
	}
	return out, nil
}

// local is where the cluster's file folder/path is on this computer.
func (s *Store) local(folder, path string) string {
	if dir, ok := s.opt.Folders[folder]; ok {
		return filepath.Join(dir, filepath.FromSlash(path))
	}
	return teamstore.FilePath(folder, path)
}

// clusterPaths are the cluster's names (teamstore.FilePath) for p, a path
// or path prefix on this computer, mapped folders' last: p itself (a
// folder named by its absolute path), then p inside each folder of
// Options.Folders that holds it, or the whole folder when p is a prefix of
// where it is. A prefix matches as the SQLite store's does, as a string.
func (s *Store) clusterPaths(p string) []string {
	out := []string{p}
	for name, dir := range s.opt.Folders {
		switch {
		case p == dir || strings.HasPrefix(p, dir+string(filepath.Separator)):
			out = append(out, teamstore.FilePath(name, filepath.ToSlash(strings.TrimPrefix(p[len(dir):], string(filepath.Separator)))))
		case strings.HasPrefix(dir, p):
			out = append(out, teamstore.FilePath(name, ""))
		}
	}
	return out
}

// files is the SQLite store's filter as the cluster's: the same files
// pass (see Files), the folders given by their paths on this computer.
func (s *Store) files(f domain.Filter) teamstore.Files {
	out := Files(f)
	out.Prefixes = nil
	for _, p := range f.PathPrefixes {
		out.Prefixes = append(out.Prefixes, s.clusterPaths(p)...)
	}
	return out
}

// Files is the SQLite store's filter as the cluster's: the same files
// pass, to the millisecond for times, folders named by their paths.
func Files(f domain.Filter) teamstore.Files {
	out := teamstore.Files{Prefixes: f.PathPrefixes, Contains: f.Contains}
	for _, t := range f.Types {
		out.Types = append(out.Types, teamstore.ASCIILower(strings.TrimPrefix(t, ".")))
	}
	if !f.Since.IsZero() {
		out.SinceMs = ceilMs(f.Since)
	}
	if !f.Until.IsZero() {
		out.UntilMs = ceilMs(f.Until)
	}
	return out
}

// ceilMs is t in whole milliseconds, rounded up: a file's time is stored
// in milliseconds, rounded down, so "at or after t" and "before t" keep
// the same files as in nanoseconds whenever t is a whole millisecond.
func ceilMs(t time.Time) int64 {
	ns := t.UnixNano()
	ms := ns / 1e6
	if ns%1e6 > 0 {
		ms++
	}
	return ms
}

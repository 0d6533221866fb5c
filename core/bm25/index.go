// Package bm25 is the fast path of keyword search: an in-memory inverted
// index over the chunks the store keeps, ranking exactly as FTS5's bm25()
// does (same tokens, same formula, same column weights).
//
// FTS5 scores every row that matches any query word, at about 2 µs a row in
// WASM SQLite; an OR of everyday words matches a third of a large
// collection, which took p95 86 ms at 100K chunks. Here a posting costs a
// few nanoseconds. FTS5 stays the store and the reference; it scores the
// query's phrases (the index keeps no word positions), and answers alone
// for filtered searches and until the index has caught up with the store.
package bm25

import (
	"cmp"
	"context"
	"encoding/binary"
	"fmt"
	"math"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	"cairn/core/domain"
	"cairn/core/store"
)

// Store is what the index reads; *store.DB implements it.
type Store interface {
	ChunkVersion(ctx context.Context) (store.ChunkVersion, error)
	ScanChunkText(ctx context.Context, afterID, upTo int64, limit int, fn func(id int64, text, heading, title []byte) error) (int, error)
	ScanChunkIDs(ctx context.Context, upTo int64, fn func(id int64)) error
	FTSRuneClasses(ctx context.Context, rs []rune) ([]store.RuneClass, error)
	PhraseScores(ctx context.Context, phrase string) ([]domain.FTSHit, error)
}

// Column weights of store.SearchFTS's bm25(chunks_fts, 1.0, 0.5, 0.8), in
// tenths so that weighted term frequencies stay integers.
var columnWeights = [3]uint16{10, 5, 8}

// The constants of FTS5's bm25().
const (
	k1 = 1.2
	b  = 0.75
)

// scanPage is how many chunks one read of the store returns.
const scanPage = 2000

// Index is safe for concurrent use. A snapshot never changes once
// published: Sync builds the next one (sharing what it can) and swaps it in.
type Index struct {
	// OnError, when set before the first search, hears of background
	// syncs that failed (the engine logs them).
	OnError func(error)

	st    Store
	runes *runeTable               // SQLite's view of the characters met so far
	snap  atomic.Pointer[snapshot] // nil until the first sync

	syncMu sync.Mutex // one sync at a time
	ctx    context.Context
	cancel context.CancelFunc
	bg     sync.WaitGroup

	stateMu sync.Mutex
	running bool          // a background sync is under way
	syncing chan struct{} // closed when the background sync under way ends
	slots   chan struct{} // the FTS5 searches Behind lets run at once during a sync
	// waits, when set (by a test), is called by Behind once it has seen a
	// sync under way and before it waits for a slot or the sync's end.
	waits   func()
	stop    context.CancelFunc // stops it
	holds   int                // index runs under way (Hold)
	wanted  bool               // started (Start or Sync): searches and Release catch it up
	lastErr error              // of the last background sync

	accs sync.Pool // *[]float64: per-chunk score arrays, zeroed, for searches
}

// snapshot is the index at one version of the store.
type snapshot struct {
	version store.ChunkVersion
	vocab   map[string]int32 // stemmed token -> term
	terms   []postings
	ids     []int64   // dense document number -> chunk id, ascending
	dl      []float32 // tokens per chunk, all columns
	dead    []bool    // chunk deleted since the last full build
	nDead   int
	liveDF  []int32 // with dead chunks: per term, the live documents holding it
	tokens  float64 // sum of dl over the live documents
}

// postings lists the documents holding a term in ascending order, as
// pairs of varints: the gap from the previous document, then the term's
// weighted frequency there (tenths, see columnWeights). About 2.3 bytes a
// posting on the man pages, against 6 for plain arrays.
type postings struct {
	data []byte
	n    int32 // documents
	last int32 // the last document, which the next gap starts from
}

func (p *postings) add(d int32, w uint64) {
	p.data = binary.AppendUvarint(p.data, uint64(d-p.last))
	p.data = binary.AppendUvarint(p.data, w)
	p.last = d
	p.n++
}

// each calls fn with every document and weighted frequency, in order.
func (p *postings) each(fn func(d int32, w uint64)) {
	d := int32(0)
	for i := 0; i < len(p.data); {
		g, n := uvarint(p.data, i)
		w, m := uvarint(p.data, i+n)
		i += n + m
		d += int32(g)
		fn(d, w)
	}
}

// uvarint decodes the varint at b[i:], the one-byte case inline.
func uvarint(b []byte, i int) (uint64, int) {
	if c := b[i]; c < 0x80 {
		return uint64(c), 1
	}
	return binary.Uvarint(b[i:])
}

// New returns an empty index over st. It builds itself in the background
// on first use; Close stops that.
func New(st Store) *Index {
	ctx, cancel := context.WithCancel(context.Background())
	return &Index{st: st, runes: &runeTable{ask: st.FTSRuneClasses}, ctx: ctx, cancel: cancel,
		slots: make(chan struct{}, fts5Slots())}
}

// Close stops a background sync and waits for it.
func (ix *Index) Close() {
	ix.cancel()
	ix.bg.Wait()
}

// Stats describes the index for reports.
type Stats struct {
	Chunks, Terms, Postings int
	Bytes                   int64 // postings, per-chunk arrays and vocabulary, roughly
}

// Stats returns the size of the current snapshot.
func (ix *Index) Stats() Stats {
	s := ix.snap.Load()
	if s == nil {
		return Stats{}
	}
	st := Stats{Chunks: len(s.ids) - s.nDead, Terms: len(s.terms)}
	for _, p := range s.terms {
		st.Postings += int(p.n)
		st.Bytes += int64(cap(p.data))
	}
	st.Bytes += int64(len(s.ids))*13 + int64(len(s.terms))*(64+24)
	return st
}

// Search returns the best k chunks for an OR of the query terms, best
// first, scored exactly as FTS5's bm25() scores it. A term is a word, or
// the tokens of a phrase separated by spaces (search.Term's String); the
// index holds no word positions, so FTS5 scores each phrase (bm25() is a
// sum over the query's phrases) and the index adds the words. ok is false
// while the index is behind the store, and the caller asks FTS5; an index
// that has been started (Start or Sync) then catches up in the background.
// One that never was stays empty: a single search from the command line
// would wait for nothing but the build.
//
// common marks the terms that select no passage of their own (nil: none):
// only passages holding another term are ranked, unless fewer than k do,
// as search.RareFirst asks FTS5 for them, so that both give one list.
func (ix *Index) Search(ctx context.Context, terms []string, common []bool, k int) (hits []domain.FTSHit, ok bool, err error) {
	s := ix.snap.Load()
	if s == nil && !ix.started() {
		return nil, false, nil
	}
	v, err := ix.st.ChunkVersion(ctx)
	if err != nil {
		return nil, false, fmt.Errorf("keyword index: %w", err)
	}
	if s == nil || s.version != v {
		ix.kick()
		return nil, false, nil
	}
	tk := newTokenizer(ix.runes)
	texts := make([][]byte, len(terms))
	for i, w := range terms {
		texts[i] = []byte(w)
	}
	if err := tk.Learn(ctx, texts...); err != nil {
		return nil, false, fmt.Errorf("keyword index: %w", err)
	}
	q := make([]queryTerm, 0, len(terms))
	for i, w := range terms {
		selects := common == nil || !common[i]
		switch toks := tk.Tokens(w); len(toks) {
		case 0:
		case 1:
			q = append(q, queryTerm{stem: toks[0], selects: selects})
		default:
			// Quotes cannot occur in a term (search keeps letters and
			// digits only); dropping them keeps the phrase one phrase anyway.
			hits, err := ix.st.PhraseScores(ctx, `"`+strings.ReplaceAll(w, `"`, " ")+`"`)
			if err != nil {
				return nil, false, fmt.Errorf("keyword index: %w", err)
			}
			q = append(q, queryTerm{phrase: hits, selects: selects})
		}
	}
	return s.search(q, k, &ix.accs), true, nil
}

// DocFreqs returns, for each term (a word, or a phrase's words separated by
// spaces), how many chunks hold it (for a phrase, its rarest word), and the
// number of chunks: what store.DB.TermDocFreqs counts, without a query.
// ok is false while the index is behind the store, as for Search.
func (ix *Index) DocFreqs(ctx context.Context, terms []string) (dfs []int, n int, ok bool, err error) {
	s := ix.snap.Load()
	if s == nil {
		return nil, 0, false, nil
	}
	v, err := ix.st.ChunkVersion(ctx)
	if err != nil {
		return nil, 0, false, fmt.Errorf("keyword index: %w", err)
	}
	if s.version != v {
		return nil, 0, false, nil
	}
	tk := newTokenizer(ix.runes)
	texts := make([][]byte, len(terms))
	for i, w := range terms {
		texts[i] = []byte(w)
	}
	if err := tk.Learn(ctx, texts...); err != nil {
		return nil, 0, false, fmt.Errorf("keyword index: %w", err)
	}
	dfs = make([]int, len(terms))
	for i, w := range terms {
		dfs[i] = -1
		for _, tok := range tk.Tokens(w) {
			df := 0
			if t, found := s.vocab[tok]; found {
				df = int(s.terms[t].n)
				if s.liveDF != nil {
					df = int(s.liveDF[t])
				}
			}
			if dfs[i] < 0 || df < dfs[i] {
				dfs[i] = df
			}
		}
		dfs[i] = max(dfs[i], 0)
	}
	return dfs, len(s.ids) - s.nDead, true, nil
}

// queryTerm is a word to look up, or a phrase FTS5 has scored.
type queryTerm struct {
	stem   string
	phrase []domain.FTSHit
	// selects: the passages holding it are candidates (a frequent term's
	// only add to their scores, unless too few are; Index.Search).
	selects bool
}

// search scores q; accs recycles the score arrays (each search touches a
// few of its entries and zeroes them again).
func (s *snapshot) search(q []queryTerm, k int, accs *sync.Pool) []domain.FTSHit {
	size := len(s.ids)
	n := size - s.nDead // live chunks: a deleted one's postings stay until the next full build
	if n <= 0 || k <= 0 {
		return nil
	}
	var acc []float64
	if p, _ := accs.Get().(*[]float64); p != nil && cap(*p) >= size {
		acc = (*p)[:size]
	} else {
		acc = make([]float64, size)
	}
	var touched []int32
	defer func() {
		for _, d := range touched {
			acc[d] = 0
		}
		accs.Put(&acc)
	}()
	avgdl := s.tokens / float64(n)
	// picked marks the passages a selecting term holds, when some term
	// selects none (Index.Search's common).
	var picked []uint64
	if slices.ContainsFunc(q, func(t queryTerm) bool { return !t.selects }) {
		picked = make([]uint64, (size+63)/64)
	}
	for _, qt := range q {
		mark := picked != nil && qt.selects
		if qt.stem == "" {
			for _, h := range qt.phrase {
				d, found := slices.BinarySearch(s.ids, h.ChunkID)
				if !found || s.dead[d] { // added or deleted since this snapshot
					continue
				}
				if acc[d] == 0 {
					touched = append(touched, int32(d))
				}
				acc[d] -= h.BM25
				if mark {
					picked[d/64] |= 1 << (d % 64)
				}
			}
			continue
		}
		t, ok := s.vocab[qt.stem]
		if !ok {
			continue
		}
		p := &s.terms[t]
		df := float64(p.n)
		if s.liveDF != nil {
			df = float64(s.liveDF[t])
		}
		idf := math.Log((float64(n) - df + 0.5) / (df + 0.5))
		if idf <= 0 {
			idf = 1e-6
		}
		p.each(func(d int32, w uint64) {
			if s.dead[d] {
				return
			}
			f := float64(w) / 10
			if acc[d] == 0 {
				touched = append(touched, d)
			}
			acc[d] += idf * f * (k1 + 1) / (f + k1*(1-b+b*float64(s.dl[d])/avgdl))
			if mark {
				picked[d/64] |= 1 << (d % 64)
			}
		})
	}
	cands := touched
	if picked != nil {
		var in []int32
		for _, d := range touched {
			if picked[d/64]&(1<<(d%64)) != 0 {
				in = append(in, d)
			}
		}
		if len(in) >= k { // else too few: every passage ranks, as FTS5's plain OR
			cands = in
		}
	}
	// The best k: a min-heap on score, ties to the lower chunk id first.
	better := func(a, c int32) bool {
		if acc[a] != acc[c] {
			return acc[a] > acc[c]
		}
		return a < c
	}
	heap := make([]int32, 0, min(k, len(cands)))
	for _, d := range cands {
		if len(heap) < k {
			heap = append(heap, d)
			for i := len(heap) - 1; i > 0; {
				parent := (i - 1) / 2
				if !better(heap[parent], heap[i]) {
					break
				}
				heap[parent], heap[i] = heap[i], heap[parent]
				i = parent
			}
			continue
		}
		if !better(d, heap[0]) {
			continue
		}
		heap[0] = d
		for i := 0; ; {
			l, r, worst := 2*i+1, 2*i+2, i
			if l < len(heap) && better(heap[worst], heap[l]) {
				worst = l
			}
			if r < len(heap) && better(heap[worst], heap[r]) {
				worst = r
			}
			if worst == i {
				break
			}
			heap[i], heap[worst] = heap[worst], heap[i]
			i = worst
		}
	}
	slices.SortFunc(heap, func(a, c int32) int {
		if better(a, c) {
			return -1
		}
		if better(c, a) {
			return 1
		}
		return 0
	})
	out := make([]domain.FTSHit, len(heap))
	for i, d := range heap {
		out[i] = domain.FTSHit{ChunkID: s.ids[d], BM25: -acc[d]}
	}
	return out
}

// Start builds or updates the index in the background, unless that is
// already under way; searches go to FTS5 until it is done.
func (ix *Index) Start() { ix.kick() }

// Hold stops background syncs until the matching Release: an index run is
// writing, and following it page by page would take CPU from it (and from
// the window) for a copy that is stale at once. Searches meanwhile go to
// FTS5, as they would with the index behind.
func (ix *Index) Hold() {
	ix.stateMu.Lock()
	defer ix.stateMu.Unlock()
	ix.holds++
	if ix.stop != nil {
		ix.stop()
	}
}

// Release ends a Hold; the last one catches the index up in the
// background if it has been started.
func (ix *Index) Release() {
	ix.stateMu.Lock()
	ix.holds--
	catchUp := ix.holds == 0 && ix.wanted
	ix.stateMu.Unlock()
	if catchUp {
		ix.kick()
	}
}

func (ix *Index) started() bool {
	ix.stateMu.Lock()
	defer ix.stateMu.Unlock()
	return ix.wanted
}

// kick starts a background sync unless one is running or a Hold is on.
func (ix *Index) kick() {
	ix.stateMu.Lock()
	defer ix.stateMu.Unlock()
	ix.wanted = true
	if ix.running || ix.holds > 0 || ix.ctx.Err() != nil {
		return
	}
	ctx, stop := context.WithCancel(ix.ctx)
	syncing := make(chan struct{})
	ix.running, ix.stop, ix.syncing = true, stop, syncing
	ix.bg.Add(1)
	go func() {
		defer ix.bg.Done()
		err := ix.Sync(ctx)
		if ctx.Err() != nil { // stopped by Hold or Close: not a failure
			err = nil
		}
		stop()
		ix.stateMu.Lock()
		close(syncing)
		ix.running, ix.stop, ix.syncing, ix.lastErr = false, nil, nil, err
		onError := ix.OnError
		ix.stateMu.Unlock()
		if err != nil && onError != nil {
			onError(err)
		}
	}()
}

// fts5Slots is how many searches Behind lets run on FTS5 at once during a
// sync: one fewer than the cores, one at least (the window gives Go one
// processor more than there are cores: ui.ReserveProcessor).
func fts5Slots() int { return max(1, min(runtime.NumCPU(), runtime.GOMAXPROCS(0))-1) }

// Behind admits a search to FTS5 while the index is behind the store.
// During a background sync, it lets fts5Slots searches run at a time:
// unbounded, 16 clients' FTS5 searches took the cores from the sync right
// after a 30,000-chunk index run, which then took 11 to 13 s, against 5 to
// 7 s so rationed and 3.4 s with one client (`cairn bench serve`, 2 busy
// cores). Should the sync end while a search waits, caughtUp is true and
// the caller asks the index again. release ends the admission; it is never
// nil.
func (ix *Index) Behind(ctx context.Context) (release func(), caughtUp bool, err error) {
	none := func() {}
	ix.stateMu.Lock()
	syncing := ix.syncing
	ix.stateMu.Unlock()
	if syncing == nil {
		return none, false, nil
	}
	if ix.waits != nil {
		ix.waits()
	}
	select {
	case ix.slots <- struct{}{}:
		return func() { <-ix.slots }, false, nil
	case <-syncing:
		return none, true, nil
	case <-ctx.Done():
		return none, false, ctx.Err()
	}
}

// Err returns the error of the last background sync, if it failed
// (searches then use FTS5, and the next one tries again).
func (ix *Index) Err() error {
	ix.stateMu.Lock()
	defer ix.stateMu.Unlock()
	return ix.lastErr
}

// Sync brings the index up to the store's current version: new chunks are
// added, deleted ones marked (and left out of the statistics), and when a
// tenth of the index is deleted chunks it is built anew.
func (ix *Index) Sync(ctx context.Context) error {
	ix.stateMu.Lock()
	ix.wanted = true
	ix.stateMu.Unlock()
	ix.syncMu.Lock()
	defer ix.syncMu.Unlock()
	for {
		v, err := ix.st.ChunkVersion(ctx)
		if err != nil {
			return fmt.Errorf("keyword index: %w", err)
		}
		old := ix.snap.Load()
		if old != nil && old.version == v {
			return nil
		}
		next, err := ix.advance(ctx, old, v, newTokenizer(ix.runes))
		if err != nil {
			return fmt.Errorf("keyword index: %w", err)
		}
		ix.snap.Store(next)
	}
}

// advance returns a snapshot at version v, reusing old where it can. old
// is never changed: searches may still be reading it.
func (ix *Index) advance(ctx context.Context, old *snapshot, v store.ChunkVersion, tk *Tokenizer) (*snapshot, error) {
	// Chunk ids only grow and every deletion is counted (store migration
	// 4); a store that went back anyway was replaced: start over.
	rebuild := old == nil || v.Deletes < old.version.Deletes ||
		(v.MaxID < old.version.MaxID && v.Deletes == old.version.Deletes)
	var s *snapshot
	if !rebuild {
		s = old.extendable()
		if v.Deletes != old.version.Deletes && len(s.ids) > 0 {
			if err := s.markDead(ctx, ix.st); err != nil {
				return nil, err
			}
			rebuild = s.nDead > len(s.ids)/10
		}
	}
	if rebuild {
		s = &snapshot{vocab: map[string]int32{}}
	}
	if err := s.add(ctx, ix.st, tk, v.MaxID); err != nil {
		return nil, err
	}
	s.liveDF = nil
	if s.nDead > 0 {
		// FTS5's statistics count live rows only: so do these.
		s.liveDF = make([]int32, len(s.terms))
		for t := range s.terms {
			s.terms[t].each(func(d int32, _ uint64) {
				if !s.dead[d] {
					s.liveDF[t]++
				}
			})
		}
	}
	if rebuild {
		s.compact()
	}
	s.version = v
	return s, nil
}

// extendable copies the snapshot's headers so that appending to the copy
// leaves the original's visible contents alone: appends past a slice's
// length never move what readers of the old slice header see.
func (s *snapshot) extendable() *snapshot {
	c := *s
	c.vocab = make(map[string]int32, len(s.vocab))
	for w, t := range s.vocab {
		c.vocab[w] = t
	}
	c.terms = slices.Clone(s.terms)
	c.dead = slices.Clone(s.dead)
	return &c
}

// markDead flags the documents whose chunks are gone from the store.
func (s *snapshot) markDead(ctx context.Context, st Store) error {
	live := make([]bool, len(s.ids))
	j := 0
	err := st.ScanChunkIDs(ctx, s.ids[len(s.ids)-1], func(id int64) {
		for j < len(s.ids) && s.ids[j] < id {
			j++
		}
		if j < len(s.ids) && s.ids[j] == id {
			live[j] = true
		}
	})
	if err != nil {
		return err
	}
	s.nDead, s.tokens = 0, 0
	for d, ok := range live {
		s.dead[d] = !ok
		if ok {
			s.tokens += float64(s.dl[d])
		} else {
			s.nDead++
		}
	}
	return nil
}

// add indexes the chunks with ids above the last one held, up to upTo, a
// page at a time: read, learn the page's characters, then tokenize.
func (s *snapshot) add(ctx context.Context, st Store, tk *Tokenizer, upTo int64) error {
	after := int64(0)
	if len(s.ids) > 0 {
		after = s.ids[len(s.ids)-1]
	}
	type row struct {
		id   int64
		cols [3][]byte // text, heading, title
	}
	var page []row
	var doc []int32 // the current chunk's terms, one entry per occurrence
	var weights []uint16
	for {
		page = page[:0]
		n, err := st.ScanChunkText(ctx, after, upTo, scanPage, func(id int64, text, heading, title []byte) error {
			page = append(page, row{id, [3][]byte{slices.Clone(text), slices.Clone(heading), slices.Clone(title)}})
			return nil
		})
		if err != nil {
			return err
		}
		var texts [][]byte
		for _, r := range page {
			texts = append(texts, r.cols[:]...)
		}
		if err := tk.Learn(ctx, texts...); err != nil {
			return err
		}
		for _, r := range page {
			doc, weights = doc[:0], weights[:0]
			for col, b := range r.cols {
				tk.Each(b, func(tok string) {
					t, ok := s.vocab[tok]
					if !ok {
						t = int32(len(s.terms))
						s.vocab[tok] = t
						s.terms = append(s.terms, postings{})
					}
					doc = append(doc, t)
					weights = append(weights, columnWeights[col])
				})
			}
			s.addDoc(r.id, len(doc), doc, weights)
			after = r.id
		}
		if n < scanPage {
			return nil
		}
	}
}

// addDoc appends one chunk, given each token's term and column weight.
func (s *snapshot) addDoc(id int64, dl int, terms []int32, weights []uint16) {
	d := int32(len(s.ids))
	s.ids = append(s.ids, id)
	s.dl = append(s.dl, float32(dl))
	s.dead = append(s.dead, false)
	s.tokens += float64(dl)
	// Sum the weights per term: sort the occurrences by term.
	idx := make([]int, len(terms))
	for i := range idx {
		idx[i] = i
	}
	slices.SortFunc(idx, func(a, c int) int { return cmp.Compare(terms[a], terms[c]) })
	for i := 0; i < len(idx); {
		t := terms[idx[i]]
		var w uint64
		for ; i < len(idx) && terms[idx[i]] == t; i++ {
			w += uint64(weights[idx[i]])
		}
		s.terms[t].add(d, w)
	}
}

// compact gives every slice of a freshly built snapshot its exact size:
// growing by appends leaves up to half of each unused.
func (s *snapshot) compact() {
	for t := range s.terms {
		p := &s.terms[t]
		p.data = append(make([]byte, 0, len(p.data)), p.data...)
	}
	s.terms = slices.Clip(s.terms)
	s.ids = append(make([]int64, 0, len(s.ids)), s.ids...)
	s.dl = append(make([]float32, 0, len(s.dl)), s.dl...)
	s.dead = append(make([]bool, 0, len(s.dead)), s.dead...)
}

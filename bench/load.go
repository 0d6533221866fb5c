package bench

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"cairn/core"
	"cairn/core/config"
	"cairn/core/eval"
	"cairn/core/llm/models"
)

// LoadOptions configure LoadBench.
type LoadOptions struct {
	Corpus    ManCorpus
	Work      string        // scratch folder
	Duration  time.Duration // searching while indexing (default 10 minutes)
	Idle      time.Duration // searching with no indexing, for comparison (default 1 minute)
	Searchers int           // concurrent searchers (default 8)
	ChunkSize int           // characters per chunk; 0: Cairn's default
}

// LoadReport holds LoadBench's figures. Latencies are per search, as each
// searcher saw them, so with more searchers than cores they include the
// wait for a core.
type LoadReport struct {
	Files, Chunks int // the corpus, as indexed once before the phases
	Searchers     int
	BaseIndexSec  float64 // indexing the corpus with nobody searching

	IdleSeconds    float64
	IdleQueries    int
	IdleQPS        float64
	Idle           eval.Latency
	LoadedSeconds  float64
	LoadedQueries  int
	LoadedQPS      float64
	Loaded         eval.Latency
	IdleFound      float64 // share of known-item queries whose page is in the results
	LoadedFound    float64
	IdleEmpty      int      // searches that returned nothing, idle
	LoadedEmpty    int      // and while indexing
	EmptyQueries   []string // a few of them
	MaxWALMB       float64  // the largest the write-ahead log grew while indexing
	SearchErrors   int
	IndexErrors    int
	Errors         []string // the first few errors, verbatim
	IndexRuns      int      // full indexing runs of the mirror completed under load
	IndexedChunks  int      // chunks written by those runs
	IndexSec       []float64
	RemoveSec      []float64 // removing the mirror's folder between runs (also a write)
	LoadedIndexCPS float64   // chunks/s of the completed runs under load
	BaseIndexCPS   float64   // chunks/s of the first, unloaded run
	Problems       []string  // store.Check after the run; must be empty
}

// LoadBench measures search while indexing, through the real Engine that
// the window drives. The knowledge base first holds the whole corpus
// (folder A, indexed with nobody searching); then opt.Searchers goroutines
// run the known-item queries for opt.Idle with no writer, and again for
// opt.Duration while a writer indexes a second copy of the corpus (folder
// B, hard links to A's files) from scratch, removes it and indexes it
// again, for as long as the searchers run. The knowledge base thus never
// holds less than the whole corpus, so the loaded figure is not flattered
// by a smaller index. SQLite's WAL lets the readers proceed while the
// writer commits; every search and indexing error is counted, and the
// knowledge base is checked afterwards.
func LoadBench(ctx context.Context, opt LoadOptions, log io.Writer) (LoadReport, error) {
	if opt.Duration <= 0 {
		opt.Duration = 10 * time.Minute
	}
	if opt.Idle <= 0 {
		opt.Idle = time.Minute
	}
	if opt.Searchers <= 0 {
		opt.Searchers = 8
	}
	rep := LoadReport{Searchers: opt.Searchers}
	qs, err := readQueryList(opt.Corpus.Queries)
	if err != nil {
		return rep, err
	}
	if len(qs) == 0 {
		return rep, fmt.Errorf("no queries in %s", opt.Corpus.Queries)
	}
	home, err := filepath.Abs(filepath.Join(opt.Work, "load"))
	if err != nil {
		return rep, err
	}
	if err := os.RemoveAll(home); err != nil {
		return rep, err
	}
	mirror := filepath.Join(home, "mirror")
	if err := linkTree(opt.Corpus.Dir, mirror); err != nil {
		return rep, fmt.Errorf("mirror of the corpus: %w", err)
	}
	defer os.RemoveAll(home)

	e, err := openKeywordEngine(ctx, home, "load", opt.ChunkSize)
	if err != nil {
		return rep, err
	}
	defer e.Close()
	e.WarmKeywordIndex() // as the window does

	fmt.Fprintf(log, "load: indexing %s (nobody searching)…\n", opt.Corpus.Dir)
	t := time.Now()
	run, err := e.IndexFolder(ctx, opt.Corpus.Dir, nil)
	if err != nil {
		return rep, err
	}
	rep.BaseIndexSec = time.Since(t).Seconds()
	rep.Files, rep.Chunks = run.FilesIndexed, run.Chunks
	rep.BaseIndexCPS = float64(run.Chunks) / rep.BaseIndexSec
	fmt.Fprintf(log, "load: %d files, %d chunks in %.0f s (%.0f chunks/s)\n", rep.Files, rep.Chunks, rep.BaseIndexSec, rep.BaseIndexCPS)

	search := func(phase time.Duration) searchPhase {
		return runSearchers(ctx, engineSearch(e), qs, opt.Searchers, phase)
	}
	fmt.Fprintf(log, "load: %d searchers, idle, %s…\n", opt.Searchers, opt.Idle)
	idle := search(opt.Idle)
	rep.IdleSeconds, rep.IdleQueries = idle.seconds, len(idle.lat)
	rep.IdleQPS, rep.Idle, rep.IdleFound = float64(len(idle.lat))/idle.seconds, eval.Percentiles(idle.lat), idle.foundShare()
	fmt.Fprintf(log, "load: idle: %d searches, %.1f/s, %s\n", rep.IdleQueries, rep.IdleQPS, rep.Idle)

	fmt.Fprintf(log, "load: %d searchers while indexing, %s…\n", opt.Searchers, opt.Duration)
	wctx, stopWriter := context.WithCancel(ctx)
	var writerErrs []string
	var wg sync.WaitGroup
	// Readers that never pause can keep SQLite from restarting the WAL,
	// which then grows with every commit and makes reads slower.
	wg.Add(1)
	go func() {
		defer wg.Done()
		tick := time.NewTicker(time.Second)
		defer tick.Stop()
		for {
			select {
			case <-wctx.Done():
				return
			case <-tick.C:
				if fi, err := os.Stat(e.Path() + "-wal"); err == nil {
					rep.MaxWALMB = max(rep.MaxWALMB, float64(fi.Size())/(1<<20))
				}
			}
		}
	}()
	wg.Add(1)
	go func() {
		defer wg.Done()
		for wctx.Err() == nil {
			t := time.Now()
			run, err := e.IndexFolder(wctx, mirror, nil)
			if errors.Is(err, context.Canceled) || wctx.Err() != nil {
				return // the phase ended during this run
			}
			if err != nil || run.FilesFailed > 0 {
				writerErrs = append(writerErrs, fmt.Sprintf("index run %d: %v (%d files failed)", rep.IndexRuns+1, err, run.FilesFailed))
				return
			}
			rep.IndexRuns++
			rep.IndexedChunks += run.Chunks
			rep.IndexSec = append(rep.IndexSec, time.Since(t).Seconds())
			fmt.Fprintf(log, "load: indexing run %d: %d chunks in %.0f s\n", rep.IndexRuns, run.Chunks, time.Since(t).Seconds())
			t = time.Now()
			if _, err := e.RemoveFolder(wctx, mirror, nil); err != nil {
				if wctx.Err() == nil {
					writerErrs = append(writerErrs, fmt.Sprintf("removing the mirror: %v", err))
				}
				return
			}
			rep.RemoveSec = append(rep.RemoveSec, time.Since(t).Seconds())
		}
	}()
	loaded := search(opt.Duration)
	stopWriter()
	wg.Wait()
	rep.LoadedSeconds, rep.LoadedQueries = loaded.seconds, len(loaded.lat)
	rep.LoadedQPS, rep.Loaded, rep.LoadedFound = float64(len(loaded.lat))/loaded.seconds, eval.Percentiles(loaded.lat), loaded.foundShare()
	rep.IdleEmpty, rep.LoadedEmpty = len(idle.empty), len(loaded.empty)
	for _, q := range append(idle.empty, loaded.empty...) {
		if len(rep.EmptyQueries) < 5 && !slices.Contains(rep.EmptyQueries, q) {
			rep.EmptyQueries = append(rep.EmptyQueries, q)
		}
	}
	rep.SearchErrors = len(idle.errs) + len(loaded.errs)
	rep.IndexErrors = len(writerErrs)
	for _, es := range [][]string{writerErrs, idle.errs, loaded.errs} {
		rep.Errors = append(rep.Errors, es[:min(len(es), 5)]...)
	}
	if total := sum(rep.IndexSec); total > 0 {
		rep.LoadedIndexCPS = float64(rep.IndexedChunks) / total
	}
	fmt.Fprintf(log, "load: loaded: %d searches, %.1f/s, %s; %d indexing runs, %d errors\n",
		rep.LoadedQueries, rep.LoadedQPS, rep.Loaded, rep.IndexRuns, rep.SearchErrors+rep.IndexErrors)
	// Whatever the cancelled last run left must be a sound knowledge base.
	if rep.Problems, err = e.Check(ctx); err != nil {
		return rep, err
	}
	return rep, nil
}

// searchPhase is what the searchers saw in one phase.
type searchPhase struct {
	seconds float64
	lat     []time.Duration
	found   int      // searches whose known item is among the results
	empty   []string // queries that returned nothing
	errs    []string
}

// add appends what another slice of the same phase saw.
func (p *searchPhase) add(o searchPhase) {
	p.seconds += o.seconds
	p.lat = append(p.lat, o.lat...)
	p.found += o.found
	p.empty = append(p.empty, o.empty...)
	p.errs = append(p.errs, o.errs...)
}

func (p searchPhase) foundShare() float64 {
	if len(p.lat) == 0 {
		return 0
	}
	return float64(p.found) / float64(len(p.lat))
}

// searchFunc makes one search and returns the paths of its results.
type searchFunc func(ctx context.Context, query string) ([]string, error)

// engineSearch searches through the engine, in process.
func engineSearch(e *core.Engine) searchFunc {
	return func(ctx context.Context, q string) ([]string, error) {
		resp, err := e.Search(ctx, e.SearchRequest(q))
		if err != nil {
			return nil, err
		}
		paths := make([]string, len(resp.Results))
		for i, r := range resp.Results {
			paths[i] = r.Path
		}
		return paths, nil
	}
}

// runSearchers runs n searchers over qs for d, each starting at its own
// place in the list, and merges what they measured. A searcher finishes
// the search in flight when d is up, so no search is cut short.
func runSearchers(ctx context.Context, search searchFunc, qs []knownItem, n int, d time.Duration) searchPhase {
	return runSearchersUntil(ctx, search, qs, n, d, nil)
}

// runSearchersUntil is runSearchers that also ends once stop is closed
// (nil: never), again finishing the searches in flight; each searcher
// makes one search at least.
func runSearchersUntil(ctx context.Context, search searchFunc, qs []knownItem, n int, d time.Duration, stop <-chan struct{}) searchPhase {
	stopped := func() bool {
		select {
		case <-stop:
			return true
		default:
			return false
		}
	}
	parts := make([]searchPhase, n)
	start := time.Now()
	deadline := start.Add(d)
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func(p *searchPhase, first int) {
			defer wg.Done()
			// Each makes one search at least, however soon stop comes.
			for j := first; ctx.Err() == nil && (j == first || time.Now().Before(deadline) && !stopped()); j++ {
				q := qs[j%len(qs)]
				t := time.Now()
				paths, err := search(ctx, q.query)
				if err != nil {
					if ctx.Err() == nil {
						p.errs = append(p.errs, fmt.Sprintf("search %q: %v", q.query, err))
					}
					continue
				}
				p.lat = append(p.lat, time.Since(t))
				if len(paths) == 0 {
					p.empty = append(p.empty, q.query)
				}
				for _, path := range paths {
					if filepath.Base(path) == q.file {
						p.found++
						break
					}
				}
			}
		}(&parts[i], i*len(qs)/n)
	}
	wg.Wait()
	out := searchPhase{}
	for _, p := range parts {
		out.add(p)
	}
	out.seconds = time.Since(start).Seconds()
	return out
}

// knownItem is a query and the file name of the page it describes.
type knownItem struct{ query, file string }

func readQueryList(path string) ([]knownItem, error) {
	m, err := readQueryMap(path)
	if err != nil {
		return nil, err
	}
	out := make([]knownItem, 0, len(m))
	for qid, q := range m {
		out = append(out, knownItem{query: q, file: qid + ".txt"})
	}
	// Map order is random; a fixed order makes runs comparable.
	slices.SortFunc(out, func(a, b knownItem) int { return strings.Compare(a.file, b.file) })
	return out, nil
}

// linkTree mirrors the regular files of src into dst as hard links (a
// copy where links are impossible), so a second folder holds the same
// pages at new paths.
func linkTree(src, dst string) error {
	return filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(src, p)
		if err != nil {
			return err
		}
		to := filepath.Join(dst, rel)
		if d.IsDir() {
			return os.MkdirAll(to, 0o755)
		}
		if !d.Type().IsRegular() {
			return nil
		}
		if os.Link(p, to) == nil {
			return nil
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(to, b, 0o644)
	})
}

func sum(xs []float64) float64 {
	s := 0.0
	for _, x := range xs {
		s += x
	}
	return s
}

// openKeywordEngine opens a writable engine whose settings and knowledge
// base (named kb) live under home, with no models and no OCR: the load and
// serve figures are about SQLite's readers and writer and the service, and
// embedding 100K chunks takes hours on a small CPU (see the embed suite).
// chunkSize > 0 sets the chunk size.
func openKeywordEngine(ctx context.Context, home, kb string, chunkSize int) (*core.Engine, error) {
	cfg := config.Default("")
	cfg.Paths.DataDir, cfg.Paths.ModelsDir, cfg.Paths.KB = filepath.Join(home, "data"), filepath.Join(home, "models"), kb
	cfg.Embedding.Model, cfg.Generation.Model = models.None, models.None
	cfg.OCR.Enabled = false
	if chunkSize > 0 {
		cfg.Chunking.Size = chunkSize
	}
	dirs := config.Dirs{Config: filepath.Join(home, "config"), Data: cfg.Paths.DataDir, State: filepath.Join(home, "state")}
	return core.Open(ctx, cfg, dirs, core.Options{Write: true})
}

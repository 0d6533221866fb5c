package bench

import (
	"context"
	"fmt"
	"io"
	"io/fs"
	"math/rand/v2"
	"net/http"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"cairn/core/bm25"
	"cairn/core/chunk"
	"cairn/core/collection"
	"cairn/core/eval"
	"cairn/core/search"
	"cairn/core/stats"
	"cairn/core/store"
	"cairn/core/teamsearch"
	"cairn/core/teamstore"
	"cairn/core/teamstore/teamtest"
	"cairn/core/vecindex"
)

// TeamOptions configure TeamBench.
type TeamOptions struct {
	Bin     string // weaviate-server
	Corpus  string // folder whose chunk texts fill both stores (cycled)
	Work    string // scratch folder; the nodes' data lives under it
	Chunks  int    // chunks in each store (default 100,000)
	Queries int    // hybrid queries per run (default 100)
	Runs    int    // query runs; the report holds their medians (default 3)
	Dim     int    // vector dimension (default 384, all-MiniLM-L6-v2's)
	Nodes   int    // cluster nodes, each holding a replica (default 3)
	Writers int    // documents written to the cluster at once (default 4)
}

// TeamLoad is the load average around one phase of the run.
type TeamLoad struct {
	Phase   string  `json:"phase"`
	Start   float64 `json:"start"` // one-minute load average
	End     float64 `json:"end"`
	Seconds float64 `json:"seconds"`
}

// TeamNode is one node's footprint.
type TeamNode struct {
	Name   string  `json:"name"`
	DiskMB float64 `json:"disk_mb"` // du of its data folder
	RSSMB  float64 `json:"rss_mb"`  // VmRSS when measured
	HWMMB  float64 `json:"hwm_mb"`  // VmHWM: its peak since it started
}

// TeamLatency is a query set's latency: the median over the runs of each
// run's p50 and p95.
type TeamLatency struct {
	P50  time.Duration  `json:"p50_ns"`
	P95  time.Duration  `json:"p95_ns"`
	Runs []eval.Latency `json:"runs"`
}

// TeamReport holds TeamBench's figures. Every ratio is cluster / SQLite,
// measured in the same run on the same chunks and vectors.
type TeamReport struct {
	Nodes, Replicas, Chunks, Documents, Dim, Queries, Runs, Writers int

	SQLiteIndexSec float64 `json:"sqlite_index_s"` // writes + bringing the in-memory indexes up
	SQLiteIndexCPS float64 `json:"sqlite_index_cps"`
	TeamIndexSec   float64 `json:"team_index_s"`
	TeamIndexCPS   float64 `json:"team_index_cps"`
	IndexRatio     float64 `json:"index_ratio"` // team chunks/s ÷ SQLite chunks/s

	// The SQLite and cluster runs alternate, so that the machine's other
	// load weighs on both alike; SQLiteDown are the SQLite runs made
	// between those with one node down.
	SQLite     TeamLatency `json:"sqlite"`
	Team       TeamLatency `json:"team"`
	SQLiteDown TeamLatency `json:"sqlite_next_to_one_down"`
	TeamDown   TeamLatency `json:"team_one_node_down"`
	// P50Ratio… are cluster latency ÷ SQLite latency of the same runs.
	P50Ratio, P95Ratio, DownP50Ratio, DownP95Ratio float64
	// Empty counts queries that found nothing (each side, every run).
	SQLiteEmpty, TeamEmpty, TeamDownEmpty int

	SQLiteDiskMB float64    `json:"sqlite_disk_mb"`
	SQLiteHWMMB  float64    `json:"sqlite_process_hwm_mb"` // this process, which held the SQLite store and its indexes
	NodesUp      []TeamNode `json:"nodes"`                 // after loading and the queries
	NodesDown    []TeamNode `json:"nodes_one_down"`        // the survivors, after the queries with one node down
	Killed       string     `json:"killed"`

	Errors       int      `json:"errors"`
	ErrorSamples []string `json:"error_samples,omitempty"`
	// Load is the one-minute load average at the start and end of each
	// phase: the machine is shared.
	Load []TeamLoad `json:"load"`
	// Estimate1MSec is how long loading 1M chunks into the cluster would
	// take at the measured rate.
	Estimate1MSec float64 `json:"estimate_1m_s"`
	// Collection are questions about the whole collection, answered by
	// both stores (core/collection), with all nodes up.
	Collection []TeamCollection `json:"collection"`
}

// TeamCollection is one question about the whole collection on both
// stores: the files it found (the same on both, else an error is counted)
// and the median time of each side.
type TeamCollection struct {
	Question string  `json:"question"`
	Files    int     `json:"files"`
	Passages int     `json:"passages"` // matching passages, all files together
	SQLiteMS float64 `json:"sqlite_ms"`
	TeamMS   float64 `json:"team_ms"`
}

// teamCollectionQuestions are asked of both stores: every file, words of
// the man pages from rare to common, and a phrase.
var teamCollectionQuestions = []string{
	"How many files are there?",
	"Which files mention kernel?",
	"Which files mention signal?",
	"Which files mention option?",
	`Which files contain "regular expression"?`,
}

// TeamBench compares a Weaviate cluster of opt.Nodes nodes on 127.0.0.1
// (replication factor opt.Nodes, quorum writes and reads) with Cairn's
// SQLite store, on the same chunks: real chunk texts from opt.Corpus,
// cycled to opt.Chunks, with synthetic 384-d unit vectors (the vector
// suite's clustered generator; an embedding model would take hours for
// 100K chunks on this machine and would not change what the stores do).
// It measures loading both, hybrid queries (BM25 + nearest vectors, fused
// by search.Fuse as Cairn fuses them; Cairn's searcher on both, the
// cluster's through core/teamsearch as the desktop runs it), the same queries on the
// cluster with one node killed (SIGKILL), and each node's disk and memory.
// Errors are counted, not fatal, so that one failed query does not lose a
// long run; the caller checks Errors.
func TeamBench(ctx context.Context, opt TeamOptions, log io.Writer) (TeamReport, error) {
	opt = opt.withDefaults()
	rep := TeamReport{Nodes: opt.Nodes, Replicas: opt.Nodes, Chunks: opt.Chunks, Dim: opt.Dim, Queries: opt.Queries, Runs: opt.Runs, Writers: opt.Writers}
	texts, err := chunkTexts(ctx, opt.Corpus)
	if err != nil {
		return rep, err
	}
	home, err := filepath.Abs(filepath.Join(opt.Work, "team"))
	if err != nil {
		return rep, err
	}
	if err := os.RemoveAll(home); err != nil {
		return rep, err
	}
	defer os.RemoveAll(home)
	if err := os.MkdirAll(home, 0o755); err != nil {
		return rep, err
	}
	gen := newVectorGen(opt.Dim)
	docs := teamDocs(texts, opt.Chunks)
	rep.Documents = len(docs)
	qs := teamQueries(gen, texts, opt)
	var errs errorLog

	// SQLite: the store, its in-memory vector and keyword indexes, and
	// Cairn's searcher over them.
	fmt.Fprintf(log, "team: loading %d chunks into SQLite…\n", opt.Chunks)
	phase := rep.phase("loading SQLite")
	dbPath := filepath.Join(home, "sqlite.db")
	db, ix, kix, secs, err := loadSQLite(ctx, dbPath, docs, gen, opt.Dim)
	if err != nil {
		return rep, err
	}
	defer db.Close()
	defer kix.Close()
	phase()
	rep.SQLiteIndexSec, rep.SQLiteIndexCPS = secs, float64(opt.Chunks)/secs
	fmt.Fprintf(log, "team: SQLite: %.0f s, %.0f chunks/s\n", secs, rep.SQLiteIndexCPS)
	sqliteQuery := func(ctx context.Context, q teamQuery) (int, error) {
		s := search.New(db, &timedEmbedder{vec: q.vec}, ix).WithKeywordIndex(kix)
		resp, err := s.Search(ctx, search.Request{Query: q.text, Mode: search.ModeHybrid, Params: teamParams()})
		if err != nil {
			return 0, err
		}
		return len(resp.Results), nil
	}
	rep.SQLiteDiskMB = (fileSize(dbPath) + fileSize(dbPath+"-wal")) / (1 << 20)
	rep.SQLiteHWMMB = procMemMB(os.Getpid(), "VmHWM")

	// The cluster.
	fmt.Fprintf(log, "team: starting %d Weaviate nodes on 127.0.0.1…\n", opt.Nodes)
	nodes, err := teamtest.StartCluster(opt.Bin, filepath.Join(home, "nodes"), opt.Nodes)
	if err != nil {
		return rep, fmt.Errorf("start the cluster: %w", err)
	}
	defer func() {
		for _, n := range nodes {
			n.Stop()
		}
	}()
	hc := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 4 * opt.Writers}}
	ts, err := teamstore.Open(ctx, teamstore.Options{URL: nodes[0].URL, Key: teamtest.Key, HTTP: hc, Collection: "Bench",
		Replicas: opt.Nodes, Consistency: "QUORUM", BatchSize: 100, Timeout: 2 * time.Minute})
	if err != nil {
		return rep, err
	}
	fmt.Fprintf(log, "team: loading %d chunks into the cluster (%d writers)…\n", opt.Chunks, opt.Writers)
	phase = rep.phase("loading the cluster")
	t := time.Now()
	if err := loadTeam(ctx, ts, docs, gen, opt, log); err != nil {
		return rep, err
	}
	rep.TeamIndexSec = time.Since(t).Seconds()
	phase()
	rep.TeamIndexCPS = float64(opt.Chunks) / rep.TeamIndexSec
	rep.IndexRatio = rep.TeamIndexCPS / rep.SQLiteIndexCPS
	rep.Estimate1MSec = 1e6 / rep.TeamIndexCPS
	fmt.Fprintf(log, "team: cluster: %.0f s, %.0f chunks/s\n", rep.TeamIndexSec, rep.TeamIndexCPS)
	if n, err := ts.CountChunks(ctx, "/bench", ""); err != nil || n != opt.Chunks {
		errs.add(fmt.Sprintf("the cluster holds %d chunks of %d after loading (%v)", n, opt.Chunks, err))
	}
	// The cluster as the desktop searches it: Cairn's searcher over
	// teamsearch (the counts, cached as in a session; BM25F's wider list
	// scored again as FTS5's; near-vector), fused alike.
	cluster := teamsearch.New(ts, teamsearch.Options{})
	teamQuery := func(ctx context.Context, q teamQuery) (int, error) {
		resp, err := search.NewOver(cluster, &timedEmbedder{vec: q.vec}).Search(ctx, search.Request{Query: q.text, Mode: search.ModeHybrid, Params: teamParams()})
		if err != nil {
			return 0, err
		}
		return len(resp.Results), nil
	}
	phase = rep.phase("queries")
	up := []*querySet{{what: "SQLite", query: sqliteQuery}, {what: "cluster", query: teamQuery}}
	runQueries(ctx, qs, opt.Runs, up, &errs, log)
	phase()
	rep.SQLite, rep.SQLiteEmpty, rep.Team, rep.TeamEmpty = up[0].latency(), up[0].empty, up[1].latency(), up[1].empty
	rep.NodesUp = footprint(nodes)
	phase = rep.phase("questions about the whole collection")
	rep.Collection = collectionQuestions(ctx, collection.OverFile(db), cluster, opt.Runs, &errs, log)
	phase()

	if len(nodes) > 1 {
		last := nodes[len(nodes)-1]
		rep.Killed = last.Name
		fmt.Fprintf(log, "team: SIGKILL %s…\n", last.Name)
		last.Kill()
		phase = rep.phase("queries, one node down")
		down := []*querySet{{what: "SQLite", query: sqliteQuery}, {what: "cluster, one node down", query: teamQuery}}
		runQueries(ctx, qs, opt.Runs, down, &errs, log)
		phase()
		rep.SQLiteDown, rep.TeamDown, rep.TeamDownEmpty = down[0].latency(), down[1].latency(), down[1].empty
		rep.NodesDown = footprint(nodes[:len(nodes)-1])
	}
	rep.P50Ratio, rep.P95Ratio = latencyRatio(rep.Team.P50, rep.SQLite.P50), latencyRatio(rep.Team.P95, rep.SQLite.P95)
	rep.DownP50Ratio, rep.DownP95Ratio = latencyRatio(rep.TeamDown.P50, rep.SQLiteDown.P50), latencyRatio(rep.TeamDown.P95, rep.SQLiteDown.P95)
	rep.Errors, rep.ErrorSamples = errs.n, errs.samples
	return rep, nil
}

// collectionQuestions asks teamCollectionQuestions of the file and of
// the cluster, runs times each in turn, and checks that both find the same
// files, passages and lines.
func collectionQuestions(ctx context.Context, file, cluster collection.Store, runs int, errs *errorLog, log io.Writer) []TeamCollection {
	var out []TeamCollection
	for _, text := range teamCollectionQuestions {
		q, ok := collection.Parse(text, time.Now(), time.Local, "")
		if !ok {
			errs.add(fmt.Sprintf("%q is not a question about the collection", text))
			continue
		}
		var times [2][]time.Duration
		var res [2]*collection.Result
		for range runs {
			for i, st := range []collection.Store{file, cluster} {
				t := time.Now()
				r, err := collection.Answer(ctx, st, q)
				if err != nil {
					errs.add(fmt.Sprintf("%s: %v", text, err))
					continue
				}
				times[i] = append(times[i], time.Since(t))
				res[i] = r
			}
		}
		if res[0] == nil || res[1] == nil {
			continue
		}
		if res[0].Total != res[1].Total || !reflect.DeepEqual(res[0].Files, res[1].Files) {
			errs.add(fmt.Sprintf("%s: the cluster found %d files, the file %d, or other passages", text, res[1].Total, res[0].Total))
		}
		c := TeamCollection{Question: text, Files: res[0].Total,
			SQLiteMS: float64(stats.MedianDuration(times[0]).Microseconds()) / 1000, TeamMS: float64(stats.MedianDuration(times[1]).Microseconds()) / 1000}
		for _, f := range res[0].Files {
			c.Passages += f.Passages
		}
		fmt.Fprintf(log, "team: %s %d files, %d passages: SQLite %.1f ms, cluster %.1f ms\n", text, c.Files, c.Passages, c.SQLiteMS, c.TeamMS)
		out = append(out, c)
	}
	return out
}

func (opt TeamOptions) withDefaults() TeamOptions {
	if opt.Chunks <= 0 {
		opt.Chunks = 100_000
	}
	if opt.Queries <= 0 {
		opt.Queries = 100
	}
	if opt.Runs <= 0 {
		opt.Runs = 3
	}
	if opt.Dim <= 0 {
		opt.Dim = 384
	}
	if opt.Nodes <= 0 {
		opt.Nodes = 3
	}
	if opt.Writers <= 0 {
		opt.Writers = 4
	}
	return opt
}

// teamParams are Cairn's default fusion (RRF, k 60, 3 per document, top
// 12) without the min_score cut, so that both sides rank the same number
// of results whatever the synthetic queries cover.
func teamParams() search.Params {
	p := search.DefaultParams()
	p.MinScore = 0
	return p
}

// teamDoc is one synthetic document: 100 consecutive chunks; chunk i of the
// whole set has text texts[i % len(texts)] and the generator's vector i.
type teamDoc struct {
	path  string
	first int
	texts []string
}

func teamDocs(texts []string, n int) []teamDoc {
	var out []teamDoc
	for d := 0; d < n; d += 100 {
		doc := teamDoc{path: fmt.Sprintf("doc%07d.txt", d/100), first: d}
		for i := d; i < min(n, d+100); i++ {
			doc.texts = append(doc.texts, texts[i%len(texts)])
		}
		out = append(out, doc)
	}
	return out
}

func (d teamDoc) chunks() []chunk.Chunk {
	cs := make([]chunk.Chunk, len(d.texts))
	for i, s := range d.texts {
		cs[i] = chunk.Chunk{Ordinal: i, Text: s, End: len(s), LineStart: 1, LineEnd: 1}
	}
	return cs
}

func (d teamDoc) vectors(gen *vectorGen) [][]float32 {
	vs := make([][]float32, len(d.texts))
	for i := range vs {
		vs[i] = gen.vector(d.first+i, make([]float32, gen.dim))
	}
	return vs
}

// teamQuery is a hybrid query: the first words of a stored chunk, and a
// vector near a stored one (half of them) or anywhere in a cluster.
type teamQuery struct {
	text string
	vec  []float32
}

func teamQueries(gen *vectorGen, texts []string, opt TeamOptions) []teamQuery {
	rng := rand.New(rand.NewPCG(99, uint64(opt.Chunks)))
	qs := make([]teamQuery, opt.Queries)
	for i := range qs {
		j := rng.IntN(opt.Chunks)
		v := gen.vector(j, make([]float32, opt.Dim))
		if i%2 == 1 {
			v = gen.vector(opt.Chunks+rng.IntN(1<<30), v)
		}
		qs[i] = teamQuery{text: firstWords(texts[j%len(texts)], 8), vec: v}
	}
	return qs
}

// loadSQLite writes the documents with their vectors into a new store, 64
// documents a transaction as Cairn's writer commits at most, and brings
// the in-memory vector and keyword indexes up: what Cairn does before its
// first hybrid search. It returns the seconds all that took.
func loadSQLite(ctx context.Context, path string, docs []teamDoc, gen *vectorGen, dim int) (*store.DB, *vecindex.Index, *bm25.Index, float64, error) {
	removeDB(path)
	db, err := store.Open(path, store.Options{})
	if err != nil {
		return nil, nil, nil, 0, err
	}
	fail := func(err error) (*store.DB, *vecindex.Index, *bm25.Index, float64, error) {
		db.Close()
		return nil, nil, nil, 0, err
	}
	if _, err := db.SetVectorModel(ctx, "synthetic-clustered", dim); err != nil {
		return fail(err)
	}
	folder, err := db.AddFolder(ctx, "/bench")
	if err != nil {
		return fail(err)
	}
	t := time.Now()
	for start := 0; start < len(docs); start += 64 {
		err := db.Update(ctx, func(tx *store.Tx) error {
			for _, d := range docs[start:min(len(docs), start+64)] {
				doc := store.Document{FolderID: folder.ID, Path: "/bench/" + d.path, Hash: "h", Format: "text"}
				if _, _, err := tx.PutDocument(doc, d.chunks(), d.vectors(gen)); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			return fail(err)
		}
	}
	ix := vecindex.New(db)
	if err := ix.Sync(ctx); err != nil {
		return fail(err)
	}
	kix := bm25.New(db)
	if err := kix.Sync(ctx); err != nil {
		kix.Close()
		return fail(err)
	}
	return db, ix, kix, time.Since(t).Seconds(), nil
}

// loadTeam writes the documents into the cluster, opt.Writers at once, as
// a team's indexers would: each through PutDocument (chunk batches of 100,
// then the fingerprint).
func loadTeam(ctx context.Context, ts *teamstore.Store, docs []teamDoc, gen *vectorGen, opt TeamOptions, log io.Writer) error {
	work := make(chan teamDoc)
	errc := make(chan error, opt.Writers)
	var wg sync.WaitGroup
	var mu sync.Mutex
	done, t := 0, time.Now()
	for range opt.Writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for d := range work {
				doc := teamstore.Document{Folder: "/bench", Path: d.path, Hash: "h", Format: "text", IndexedBy: "cairn bench team"}
				if err := ts.PutDocument(ctx, doc, d.chunks(), d.vectors(gen)); err != nil {
					errc <- err
					return
				}
				mu.Lock()
				done += len(d.texts)
				if done%(20*100) == 0 {
					fmt.Fprintf(log, "team: %d chunks in the cluster, %.0f/s\n", done, float64(done)/time.Since(t).Seconds())
				}
				mu.Unlock()
			}
		}()
	}
	var err error
feed:
	for _, d := range docs {
		select {
		case work <- d:
		case err = <-errc:
			break feed
		case <-ctx.Done():
			err = ctx.Err()
			break feed
		}
	}
	close(work)
	wg.Wait()
	if err == nil {
		select {
		case err = <-errc:
		default:
		}
	}
	return err
}

// querySet is one side's queries and what its runs measured.
type querySet struct {
	what  string
	query func(context.Context, teamQuery) (int, error)
	runs  []eval.Latency
	empty int // queries that found nothing, over all runs
}

// latency is the median over the runs of each run's p50 and p95.
func (s *querySet) latency() TeamLatency {
	var p50s, p95s []time.Duration
	for _, l := range s.runs {
		p50s, p95s = append(p50s, l.P50), append(p95s, l.P95)
	}
	return TeamLatency{P50: stats.MedianDuration(p50s), P95: stats.MedianDuration(p95s), Runs: s.runs}
}

// runQueries runs the queries one at a time on each set, after a warm-up
// pass of ten: runs rounds, each a full run of every set in turn, so that
// a burst of the machine's other load falls on all of them alike.
func runQueries(ctx context.Context, qs []teamQuery, runs int, sets []*querySet, errs *errorLog, log io.Writer) {
	for _, set := range sets {
		for _, q := range qs[:min(10, len(qs))] {
			set.query(ctx, q) // warm-up; its errors show again in the runs
		}
	}
	for r := range runs {
		for _, set := range sets {
			var lat []time.Duration
			for _, q := range qs {
				t := time.Now()
				n, err := set.query(ctx, q)
				if err != nil {
					errs.add(fmt.Sprintf("%s: query %q: %v", set.what, q.text, err))
					continue
				}
				lat = append(lat, time.Since(t))
				if n == 0 {
					set.empty++
				}
			}
			l := eval.Percentiles(lat)
			set.runs = append(set.runs, l)
			fmt.Fprintf(log, "team: %s, run %d: %s\n", set.what, r+1, l)
		}
	}
}

// phase notes the load average now and returns the function that notes
// it at the phase's end.
func (rep *TeamReport) phase(name string) func() {
	start, t := LoadAverage(), time.Now()
	return func() {
		rep.Load = append(rep.Load, TeamLoad{Phase: name, Start: start, End: LoadAverage(), Seconds: time.Since(t).Seconds()})
	}
}

type errorLog struct {
	n       int
	samples []string
}

func (e *errorLog) add(s string) {
	e.n++
	if len(e.samples) < 5 && !slices.Contains(e.samples, s) {
		e.samples = append(e.samples, s)
	}
}

func latencyRatio(a, b time.Duration) float64 {
	if b <= 0 {
		return 0
	}
	return float64(a) / float64(b)
}

// footprint measures each running node: the disk its data folder takes
// (allocated blocks, as du counts) and its memory from /proc.
func footprint(nodes []*teamtest.Node) []TeamNode {
	var out []TeamNode
	for _, n := range nodes {
		out = append(out, TeamNode{Name: n.Name, DiskMB: duMB(n.DataDir), RSSMB: procMemMB(n.PID(), "VmRSS"), HWMMB: procMemMB(n.PID(), "VmHWM")})
	}
	return out
}

// duMB is the disk the files under dir take, in MB, as `du -s` counts it.
func duMB(dir string) float64 {
	var blocks int64
	filepath.WalkDir(dir, func(_ string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		if fi, err := d.Info(); err == nil {
			if st, ok := fi.Sys().(*syscall.Stat_t); ok {
				blocks += st.Blocks
			}
		}
		return nil
	})
	return float64(blocks*512) / (1 << 20)
}

// procMemMB reads a field of /proc/pid/status (VmRSS, VmHWM) in MB; 0 if
// the process is gone.
func procMemMB(pid int, field string) float64 {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil || pid == 0 {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		if rest, ok := strings.CutPrefix(line, field+":"); ok {
			f := strings.Fields(rest)
			if len(f) > 0 {
				kb, _ := strconv.ParseFloat(f[0], 64)
				return kb / 1024
			}
		}
	}
	return 0
}

func fileSize(path string) float64 {
	if fi, err := os.Stat(path); err == nil {
		return float64(fi.Size())
	}
	return 0
}

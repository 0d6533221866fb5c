package bench

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"time"

	"cairn/core"
	"cairn/core/eval"
	"cairn/serve"
)

// ServeOptions configure ServeBench.
type ServeOptions struct {
	Corpus    ManCorpus
	Work      string        // scratch folder
	Chunks    int           // the knowledge base holds at least this many chunks
	Clients   int           // concurrent clients
	Duration  time.Duration // each of the four phases
	ChunkSize int           // characters per chunk; 0: Cairn's default
	Version   string        // Cairn's version, for the service
}

// ServeReport holds ServeBench's figures.
type ServeReport struct {
	Files       int        `json:"files"` // in the knowledge base before the phases
	Chunks      int        `json:"chunks"`
	BuildSec    float64    `json:"build_seconds"` // indexing them, nobody searching
	Clients     int        `json:"clients"`
	Seconds     float64    `json:"seconds_per_phase"`
	After       ServeAfter `json:"right_after_indexing"`
	Idle        ServePair  `json:"idle"`
	Indexing    ServePair  `json:"while_indexing"`
	IndexRuns   int        `json:"index_runs"` // completed through POST /api/index during the two indexing phases
	IndexChunks int        `json:"index_chunks_per_run"`
	IndexSec    []float64  `json:"index_seconds"`
	IndexErrors int        `json:"index_errors"`
	Errors      []string   `json:"errors,omitempty"`   // the first few, verbatim
	Problems    []string   `json:"problems,omitempty"` // store.Check afterwards; must be empty
}

// ServeAfter is what the clients saw right after the knowledge base was
// built: searches through HTTP for the phase's duration from the run's
// end, and on until the keyword index had caught up with it.
type ServeAfter struct {
	CatchUpSec float64    `json:"catch_up_seconds"` // from the run's end until the keyword index was in step
	HTTP       ServePhase `json:"http"`
}

// afterLimit bounds the searches made while the keyword index catches up,
// should it never do so.
func afterLimit(phase time.Duration) time.Duration { return max(4*phase, time.Minute) }

// ServePair is the same searches made in process and through HTTP.
type ServePair struct {
	InProcess ServePhase `json:"in_process"`
	HTTP      ServePhase `json:"http"`
}

// ServePhase is what the clients of one phase saw.
type ServePhase struct {
	Seconds  float64      `json:"seconds"`
	Searches int          `json:"searches"`
	PerSec   float64      `json:"searches_per_sec"`
	Errors   int          `json:"errors"`
	Empty    int          `json:"empty"` // searches that returned nothing
	Found    float64      `json:"found"` // share of searches with the known item among the results
	Latency  eval.Latency `json:"latency"`
}

// serveSlice is how long one way of searching runs before the other's turn.
const serveSlice = 15 * time.Second

func servePhase(p searchPhase) ServePhase {
	return ServePhase{Seconds: p.seconds, Searches: len(p.lat), PerSec: float64(len(p.lat)) / p.seconds, Errors: len(p.errs),
		Empty: len(p.empty), Found: p.foundShare(), Latency: eval.Percentiles(p.lat)}
}

// ServeBench measures the local service under load. It builds a knowledge
// base of at least opt.Chunks chunks from the man-page corpus (BM25 only;
// hard links to its pages, and further copies of them if the corpus is
// smaller), serves it on 127.0.0.1 as `cairn serve` does (token, guards,
// request log), and runs opt.Clients clients making the known-item
// searches for opt.Duration four times: in process (Engine.Search) and
// through GET /api/search (taking turns every serveSlice), first with
// nothing else going on, then while the service indexes a second copy of
// the pages over and over. The index
// runs are started through POST /api/index and followed through GET
// /api/index, as a user of the service would: the served engine is the
// writer and its keyword index follows its own commits. The API has no
// call to remove a folder, so between runs the bench removes the copy
// through the same engine (a write too), so that every run indexes from
// scratch and the knowledge base never holds less than the opt.Chunks.
func ServeBench(ctx context.Context, opt ServeOptions, log io.Writer) (ServeReport, error) {
	rep := ServeReport{Clients: opt.Clients, Seconds: opt.Duration.Seconds()}
	qs, err := readQueryList(opt.Corpus.Queries)
	if err != nil {
		return rep, err
	}
	home, err := filepath.Abs(filepath.Join(opt.Work, "serve"))
	if err != nil {
		return rep, err
	}
	if err := os.RemoveAll(home); err != nil {
		return rep, err
	}
	defer os.RemoveAll(home)

	e, err := openKeywordEngine(ctx, home, "serve", opt.ChunkSize)
	if err != nil {
		return rep, err
	}
	defer e.Close()
	e.WarmKeywordIndex() // as `cairn serve` does

	token, err := randomToken()
	if err != nil {
		return rep, err
	}
	ln, err := serve.Listen(0)
	if err != nil {
		return rep, err
	}
	sctx, stopServing := context.WithCancel(ctx)
	defer stopServing()
	served := make(chan error, 1)
	// The request log is formatted as `cairn serve` writes it, then
	// dropped: its cost is part of the figure, its lines are not wanted.
	reqLog := slog.New(slog.NewTextHandler(io.Discard, &slog.HandlerOptions{Level: slog.LevelInfo}))
	go func() {
		served <- serve.New(e, serve.Options{Token: token, Version: opt.Version, Log: reqLog}).Serve(sctx, ln)
	}()
	api := &apiClient{base: "http://" + ln.Addr().String(), token: token,
		http: &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: opt.Clients + 1}, Timeout: time.Minute}}

	pages := filepath.Join(home, "pages")
	t := time.Now()
	used, err := fillKnowledgeBase(ctx, e, opt.Corpus.Dir, pages, opt.Chunks, e.Config().Chunking.Size, log)
	if err != nil {
		return rep, err
	}
	built := time.Now()
	rep.BuildSec = built.Sub(t).Seconds()
	st, err := e.Status(ctx)
	if err != nil {
		return rep, err
	}
	rep.Files, rep.Chunks = st.Documents, st.Chunks
	qs = slices.DeleteFunc(qs, func(q knownItem) bool { return !used[q.file] })
	if len(qs) == 0 {
		return rep, fmt.Errorf("no query of %s names a page in the knowledge base", opt.Corpus.Queries)
	}
	fmt.Fprintf(log, "serve: %d files, %d chunks in %.0f s; %d known-item queries\n", rep.Files, rep.Chunks, rep.BuildSec, len(qs))

	// Right after the run, the keyword index catches up with its commits in
	// the background, and until it has, searches go to FTS5: the clients
	// search through HTTP for opt.Duration from the run's end, and on until
	// it is in step if it takes longer.
	caught := make(chan struct{})
	go func() {
		defer close(caught)
		if err := e.SyncKeywordIndex(ctx); err == nil {
			rep.After.CatchUpSec = time.Since(built).Seconds()
		}
	}()
	fmt.Fprintf(log, "serve: %d clients through HTTP right after the run, %s and until the keyword index is in step…\n", opt.Clients, opt.Duration)
	after := runSearchers(ctx, api.search, qs, opt.Clients, opt.Duration)
	select {
	case <-caught:
	default:
		after.add(runSearchersUntil(ctx, api.search, qs, opt.Clients, afterLimit(opt.Duration), caught))
	}
	rep.After.HTTP = servePhase(after)
	rep.Errors = append(rep.Errors, after.errs[:min(len(after.errs), 3)]...)
	<-caught
	fmt.Fprintf(log, "serve: keyword index in step %.1f s after the run; through HTTP in %.0f s from the run's end: %d searches, %s\n",
		rep.After.CatchUpSec, after.seconds, rep.After.HTTP.Searches, rep.After.HTTP.Latency)

	mirror := filepath.Join(home, "mirror")
	if err := linkTree(pages, mirror); err != nil {
		return rep, fmt.Errorf("second copy of the pages: %w", err)
	}

	// The two ways take turns in slices of at most serveSlice, so that both
	// meet the same background: the writer's stages (scanning, inserting,
	// removing the copy) and whatever else the computer runs.
	pair := func(name string) ServePair {
		fmt.Fprintf(log, "serve: %d clients %s, %s in process and %s through HTTP, taking turns…\n", opt.Clients, name, opt.Duration, opt.Duration)
		var in, web searchPhase
		for left := opt.Duration; left > 0 && ctx.Err() == nil; left -= serveSlice {
			in.add(runSearchers(ctx, engineSearch(e), qs, opt.Clients, min(left, serveSlice)))
			web.add(runSearchers(ctx, api.search, qs, opt.Clients, min(left, serveSlice)))
		}
		sp := ServePair{InProcess: servePhase(in), HTTP: servePhase(web)}
		for _, p := range []searchPhase{in, web} {
			rep.Errors = append(rep.Errors, p.errs[:min(len(p.errs), 3)]...)
		}
		fmt.Fprintf(log, "serve: in process: %d searches, %.1f/s, %d errors, %s\n", sp.InProcess.Searches, sp.InProcess.PerSec, sp.InProcess.Errors, sp.InProcess.Latency)
		fmt.Fprintf(log, "serve: through HTTP: %d searches, %.1f/s, %d errors, %s\n", sp.HTTP.Searches, sp.HTTP.PerSec, sp.HTTP.Errors, sp.HTTP.Latency)
		return sp
	}
	rep.Idle = pair("with nothing else going on")

	wctx, stopWriter := context.WithCancel(ctx)
	writerDone := make(chan []string, 1)
	go func() {
		var errs []string
		for wctx.Err() == nil {
			t := time.Now()
			st, err := api.index(wctx, mirror)
			if wctx.Err() != nil {
				break // the phase ended during this run
			}
			if err != nil {
				errs = append(errs, fmt.Sprintf("index run %d: %v", rep.IndexRuns+1, err))
				break
			}
			rep.IndexRuns++
			rep.IndexChunks = st.Chunks
			rep.IndexSec = append(rep.IndexSec, time.Since(t).Seconds())
			fmt.Fprintf(log, "serve: index run %d through the API: %d chunks in %.0f s\n", rep.IndexRuns, st.Chunks, time.Since(t).Seconds())
			if _, err := e.RemoveFolder(wctx, mirror, nil); err != nil {
				if wctx.Err() == nil {
					errs = append(errs, fmt.Sprintf("removing the copy: %v", err))
				}
				break
			}
		}
		writerDone <- errs
	}()
	rep.Indexing = pair("while the service indexes")
	stopWriter()
	werrs := <-writerDone
	// The run under way is cancelled with DELETE /api/index, as a user
	// would stop it.
	if err := api.cancelIndex(ctx); err != nil {
		werrs = append(werrs, err.Error())
	}
	rep.IndexErrors = len(werrs)
	rep.Errors = append(werrs, rep.Errors...)
	stopServing()
	if err := <-served; err != nil {
		return rep, err
	}
	// Whatever the cancelled last run left must be a sound knowledge base.
	if rep.Problems, err = e.Check(ctx); err != nil {
		return rep, err
	}
	return rep, nil
}

// fillKnowledgeBase links pages of the corpus into folder and indexes it,
// round after round, until the knowledge base holds at least want chunks:
// a first round with a quarter of them by the chunk size, then rounds
// that add the pages the bytes per chunk so far say are missing; a run
// indexes only the pages new to the folder. Past the corpus's end, pages
// are linked again into copy2/, copy3/… It returns the base names linked.
func fillKnowledgeBase(ctx context.Context, e *core.Engine, corpus, folder string, want, chunkSize int, log io.Writer) (map[string]bool, error) {
	ents, err := os.ReadDir(corpus)
	if err != nil {
		return nil, err
	}
	var files []os.DirEntry
	for _, de := range ents {
		if de.Type().IsRegular() {
			files = append(files, de)
		}
	}
	if len(files) == 0 {
		return nil, fmt.Errorf("no pages in %s", corpus)
	}
	used := map[string]bool{}
	bytesPerChunk := float64(chunkSize)
	var linked int64
	next := 0
	for {
		st, err := e.Status(ctx)
		if err != nil {
			return nil, err
		}
		if st.Chunks >= want {
			return used, nil
		}
		if st.Chunks > 0 {
			bytesPerChunk = float64(linked) / float64(st.Chunks)
		}
		missing := float64(want - st.Chunks)
		if st.Chunks == 0 {
			missing /= 4 // a first round to learn the bytes per chunk from
		}
		goal := linked + int64(missing*bytesPerChunk) + 1
		for linked < goal {
			de := files[next%len(files)]
			dir := folder
			if c := next / len(files); c > 0 {
				dir = filepath.Join(folder, fmt.Sprintf("copy%d", c+1))
			}
			if err := os.MkdirAll(dir, 0o755); err != nil {
				return nil, err
			}
			src := filepath.Join(corpus, de.Name())
			if err := linkTree(src, filepath.Join(dir, de.Name())); err != nil {
				return nil, err
			}
			fi, err := de.Info()
			if err != nil {
				return nil, err
			}
			linked += max(fi.Size(), 1)
			used[de.Name()] = true
			next++
		}
		fmt.Fprintf(log, "serve: indexing %d pages (%d chunks so far, %d wanted)…\n", next, st.Chunks, want)
		run, err := e.IndexFolder(ctx, folder, nil)
		if err != nil {
			return nil, err
		}
		if run.FilesFailed > 0 {
			return nil, fmt.Errorf("indexing %s: %d files failed", folder, run.FilesFailed)
		}
	}
}

// apiClient is a client of the service's HTTP API with its token.
type apiClient struct {
	base, token string
	http        *http.Client
}

func (c *apiClient) do(ctx context.Context, method, path string, body any, out any) error {
	var rd io.Reader
	if body != nil {
		b, _ := json.Marshal(body)
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(ctx, method, c.base+path, rd)
	if err != nil {
		return err
	}
	req.Header.Set("Authorization", "Bearer "+c.token)
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := c.http.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		return err
	}
	if resp.StatusCode/100 != 2 {
		return &statusError{status: resp.StatusCode, msg: fmt.Sprintf("%s %s: status %d: %.200s", method, path, resp.StatusCode, b)}
	}
	if out != nil {
		return json.Unmarshal(b, out)
	}
	return nil
}

// search is GET /api/search, decoding the results as a client would.
func (c *apiClient) search(ctx context.Context, q string) ([]string, error) {
	var rep struct {
		Results []struct {
			Path string `json:"path"`
		} `json:"results"`
	}
	if err := c.do(ctx, "GET", "/api/search?q="+url.QueryEscape(q), nil, &rep); err != nil {
		return nil, err
	}
	paths := make([]string, len(rep.Results))
	for i, r := range rep.Results {
		paths[i] = r.Path
	}
	return paths, nil
}

// index starts an index run of folder with POST /api/index and follows it
// with GET /api/index until it is over.
func (c *apiClient) index(ctx context.Context, folder string) (serve.IndexState, error) {
	var st serve.IndexState
	if err := c.do(ctx, "POST", "/api/index", map[string]string{"folder": folder}, &st); err != nil {
		return st, err
	}
	tick := time.NewTicker(250 * time.Millisecond)
	defer tick.Stop()
	for st.Running {
		select {
		case <-ctx.Done():
			return st, ctx.Err()
		case <-tick.C:
		}
		if err := c.do(ctx, "GET", "/api/index", nil, &st); err != nil {
			return st, err
		}
	}
	switch {
	case st.Error != "":
		return st, errors.New(st.Error)
	case st.Cancelled:
		return st, errors.New("the run was cancelled")
	case st.Failed > 0:
		return st, fmt.Errorf("%d files failed", st.Failed)
	}
	return st, nil
}

// cancelIndex is DELETE /api/index; no run to cancel (409) is no error.
func (c *apiClient) cancelIndex(ctx context.Context) error {
	err := c.do(ctx, "DELETE", "/api/index", nil, nil)
	if se := (*statusError)(nil); errors.As(err, &se) && se.status == http.StatusConflict {
		return nil
	}
	return err
}

type statusError struct {
	status int
	msg    string
}

func (e *statusError) Error() string { return e.msg }

func randomToken() (string, error) {
	b := make([]byte, 32)
	if _, err := rand.Read(b); err != nil {
		return "", err
	}
	return hex.EncodeToString(b), nil
}

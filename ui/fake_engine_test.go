package ui

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"image"
	"image/png"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"cairn/core/answer"
	"cairn/core/config"
	"cairn/core/domain"
	"cairn/core/kb"
	"cairn/core/llm/models"
	"cairn/core/preview"
	"cairn/core/search"
	"cairn/core/watch"
)

// fakeEngine stands in for core.Engine behind the Engine interface: every
// search finds the same four passages, answers stream a fixed text, and
// indexing runs a script. Gates let a test hold a question or a run in the
// middle, to look at the window while it works.
type fakeEngine struct {
	mu         sync.Mutex
	cfg        config.Config // the settings as the setters leave them; the mode is status.NetworkMode
	cands      func() *search.Candidates
	tokens     []string
	askGate    chan struct{} // Ask waits here after the first token (or for ctx)
	notCovered bool          // Ask says the documents do not cover the question
	// beyond, when set, is a passage Ask quotes from beyond the listed
	// results, as an extractive answer may (a passage the per-document cap
	// keeps out of the list): the answer's last source, cited.
	beyond       *search.Passage
	asks         []search.Request
	askCancelled int
	// newSubject: AskInThread begins a new conversation for a question
	// that is not a follow-up, as the engine does for one on another
	// subject.
	newSubject    bool
	indexFiles    []domain.FileEvent
	indexGate     chan struct{} // IndexFolder waits here after the first file (or for ctx)
	indexErr      error         // IndexFolder fails with it after the files
	indexed       []string
	retried       []string // folders RetryFailed indexed
	cancelledRun  int
	folders       []domain.Folder
	watched       []string // what SetWatchedFolders recorded, as the knowledge base would
	issues        []domain.Issue
	judgments     []domain.Judgment
	searches      int
	status        kb.Status
	closed        bool
	netErr        error                   // SetNetworkMode fails with it when set
	netSwitches   []string                // modes SetNetworkMode was asked for
	answering     []config.Answer         // what SetAnswering was given
	modelUses     []string                // "chat:PATH" or "embedding:PATH" per model switch
	modelErr      error                   // model switches fail with it when set
	deviceUses    []string                // settings UseDevice was asked for
	removeGate    chan struct{}           // RemoveFolder waits here (or for ctx) when set
	removeSteps   []domain.Removal        // RemoveFolder reports these before its gate, as a cluster's removal does
	previews      []int64                 // chunk ids Preview was asked for
	previewErr    error                   // Preview fails with it when set
	threads       map[int64][]domain.Turn // saved conversations by id
	lastThread    int64
	threadFolders map[int64][]string // each conversation's folders, as SetThreadFolders kept them
}

// Passages of the fake corpus. BM25 ranks A, B, C; vectors rank C, D, B.
// C covers the question ("reset the router") whole: only it passes a
// min_score of 0.98.
// Under RRF (both lists count) the order is C, B, A, D at rrf_k 60 and
// C, A, B, D at rrf_k 0.
var (
	passA = &search.Passage{ChunkID: 1, DocumentID: 1, Path: "/docs/a.md", Title: "Alpha notes", Text: "Alpha: the router manual says reset.",
		LineStart: 3, LineEnd: 5, Snippet: "the router manual says reset", Highlights: []search.Span{{Start: 4, End: 10}}, Matched: []string{"router"}, Coverage: 0.5}
	passB = &search.Passage{ChunkID: 2, DocumentID: 2, Path: "/docs/b.md", Title: "Bravo guide", Text: "Bravo: hold the pin ten seconds.",
		LineStart: 10, LineEnd: 12, Snippet: "hold the pin ten seconds", Highlights: []search.Span{{Start: 9, End: 12}}, Matched: []string{"pin"}, Coverage: 0.3}
	passC = &search.Passage{ChunkID: 3, DocumentID: 3, Path: "/docs/c.pdf", Title: "Charlie manual", Text: "Charlie: reset the router with the pin.",
		UnitKind: "page", Page: 7, Label: "vii", Snippet: "reset the router with the pin", Highlights: []search.Span{{Start: 0, End: 5}, {Start: 10, End: 16}}, Matched: []string{"reset", "router"}, Coverage: 1}
	passD = &search.Passage{ChunkID: 4, DocumentID: 4, Path: "/docs/d.html", Title: "Delta page", Text: "Delta: network lights.",
		LineStart: 1, LineEnd: 1, Snippet: "network lights", Coverage: 0.2}
)

func fakeCandidates() *search.Candidates {
	return &search.Candidates{
		Mode:     search.ModeHybrid,
		BM25:     []search.Hit{{ChunkID: 1, Score: 9}, {ChunkID: 2, Score: 7}, {ChunkID: 3, Score: 5}},
		Vector:   []search.Hit{{ChunkID: 3, Score: 0.9}, {ChunkID: 4, Score: 0.8}, {ChunkID: 2, Score: 0.7}},
		Passages: map[int64]*search.Passage{1: passA, 2: passB, 3: passC, 4: passD},
	}
}

func newFakeEngine(dataDir string) *fakeEngine {
	cfg := config.Default("desktop")
	cfg.Paths.DataDir, cfg.Paths.ModelsDir, cfg.Paths.KB = dataDir, dataDir+"/models", "default"
	cfg.Retrieval.Mode = "hybrid"
	return &fakeEngine{
		cfg:    cfg,
		cands:  fakeCandidates,
		tokens: []string{"Reset the router ", "with the pin [1]. ", "Hold it ten seconds [2]."},
		indexFiles: []domain.FileEvent{
			{Path: "/docs/a.md", Status: domain.StatusIndexed, Chunks: 2, Bytes: 100},
			{Path: "/docs/scan.png", Status: domain.StatusSkipped, Reason: "image without OCR"},
			{Path: "/docs/broken.pdf", Status: domain.StatusFailed, Reason: "pdf: bad xref table"},
			{Path: "/docs/b.md", Status: domain.StatusUnchanged, Unchanged: true},
		},
		status: kb.Status{Stats: domain.Stats{Path: dataDir + "/kb/default.db", Documents: 4, Chunks: 4, Bytes: 3 << 20}, NetworkMode: "offline", Store: "SQLite"},
	}
}

// Config is a snapshot of the settings, as core.Engine's.
func (f *fakeEngine) Config() config.Config {
	f.mu.Lock()
	defer f.mu.Unlock()
	c := f.cfg
	c.Network.Mode = f.status.NetworkMode
	return c
}

func (f *fakeEngine) Close() error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.closed = true
	return nil
}

func (f *fakeEngine) RetryFailed(ctx context.Context, folder string, progress chan<- domain.Progress) (domain.Run, error) {
	f.mu.Lock()
	f.retried = append(f.retried, folder)
	f.mu.Unlock()
	return f.IndexFolder(ctx, folder, progress)
}

func (f *fakeEngine) IndexFolder(ctx context.Context, folder string, progress chan<- domain.Progress) (domain.Run, error) {
	defer close(progress)
	f.mu.Lock()
	files, gate := f.indexFiles, f.indexGate
	f.indexed = append(f.indexed, folder)
	f.mu.Unlock()
	run := domain.Run{ID: 1, Folder: folder, StartedAt: time.Now(), FilesSeen: len(files)}
	p := domain.Progress{Folder: folder, Phase: domain.PhaseScanning, FilesSeen: len(files)}
	progress <- p
	p.Phase, p.FilesTotal, p.BytesTotal = domain.PhaseIndexing, len(files)-1, 400
	progress <- p
	for i, ev := range files {
		if i == 1 && gate != nil {
			select {
			case <-gate:
			case <-ctx.Done():
				f.mu.Lock()
				f.cancelledRun++
				f.mu.Unlock()
				// As index.Indexer: the last report carries the cancelled run.
				run.Status, run.FinishedAt = domain.RunCancelled, time.Now()
				p.Phase, p.File, p.Current, p.Run = domain.PhaseDone, nil, "", &run
				progress <- p
				return run, fmt.Errorf("indexing %s: %w", folder, ctx.Err())
			}
		}
		ev := ev
		switch ev.Status {
		case domain.StatusIndexed:
			p.Indexed++
			run.FilesIndexed++
		case domain.StatusSkipped:
			p.Skipped++
			run.FilesSkipped++
		case domain.StatusFailed:
			p.Failed++
			run.FilesFailed++
		case domain.StatusUnchanged:
			p.Unchanged++
			run.FilesUnchanged++
		}
		if !ev.Unchanged {
			p.FilesDone++
			p.Bytes += 100
		}
		p.Chunks += ev.Chunks
		p.Current, p.File, p.ETA = ev.Path, &ev, 42*time.Second
		progress <- p
	}
	run.Status, run.FinishedAt, run.Chunks = domain.RunDone, time.Now(), p.Chunks
	p.Phase, p.File, p.Run = domain.PhaseDone, nil, &run
	progress <- p
	f.mu.Lock()
	if err := f.indexErr; err != nil {
		f.mu.Unlock()
		run.Status = domain.RunFailed
		return run, err
	}
	f.folders = slices.DeleteFunc(f.folders, func(fo domain.Folder) bool { return fo.Path == folder })
	f.folders = append(f.folders, domain.Folder{ID: int64(len(f.folders) + 1), Path: folder, Documents: 1, Chunks: 2, Issues: 2, LastRun: &run})
	f.mu.Unlock()
	return run, nil
}

func (f *fakeEngine) EnsureStarterKB(ctx context.Context, progress chan<- domain.Progress) (bool, error) {
	close(progress)
	return false, nil
}

func (f *fakeEngine) Folders(context.Context) ([]domain.Folder, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]domain.Folder(nil), f.folders...), nil
}

func (f *fakeEngine) RemoveFolder(ctx context.Context, path string, progress func(domain.Removal)) (domain.Removal, error) {
	f.mu.Lock()
	gate, steps := f.removeGate, f.removeSteps
	f.mu.Unlock()
	for _, r := range steps {
		progress(r)
	}
	if gate != nil {
		select {
		case <-gate:
		case <-ctx.Done():
			return domain.Removal{}, ctx.Err()
		}
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	for i, fo := range f.folders {
		if fo.Path == path {
			f.folders = append(f.folders[:i], f.folders[i+1:]...)
			size := domain.FolderSize{Folder: path, Files: fo.Documents, Chunks: fo.Chunks}
			return domain.Removal{FolderSize: size, FilesRemoved: size.Files, ChunksRemoved: size.Chunks}, nil
		}
	}
	return domain.Removal{}, errors.New("no such folder")
}

func (f *fakeEngine) WatchedFolders(context.Context) ([]string, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return slices.Clone(f.watched), nil
}

func (f *fakeEngine) SetWatchedFolders(_ context.Context, folders []string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.watched = slices.Clone(folders)
	return nil
}

// Watch follows folder with the real watcher (hidden files skipped), as
// core.Engine does.
func (f *fakeEngine) Watch(ctx context.Context, folder string, debounce time.Duration, changed func([]string)) error {
	skip := func(p string, _ bool) bool { return strings.HasPrefix(filepath.Base(p), ".") }
	batches := make(chan []string)
	errc := make(chan error, 1)
	go func() { errc <- watch.Watch(ctx, folder, watch.Options{Debounce: debounce, Skip: skip}, batches) }()
	for {
		select {
		case b := <-batches:
			changed(b)
		case err := <-errc:
			return err
		}
	}
}

func (f *fakeEngine) Issues(context.Context) ([]domain.Issue, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]domain.Issue(nil), f.issues...), nil
}

func (f *fakeEngine) Search(ctx context.Context, req search.Request) (*search.Response, error) {
	if strings.TrimSpace(req.Query) == "" {
		return nil, errors.New("empty question")
	}
	f.mu.Lock()
	f.searches++
	f.mu.Unlock()
	c := f.cands()
	c.Query = req.Query
	if req.Mode == search.ModeBM25 {
		c.Mode = search.ModeBM25
		c.Notes = append(c.Notes, "ranked by keywords only")
	}
	return &search.Response{Results: search.Fuse(c, req.Params), Candidates: c, Timing: search.Timing{Total: 3 * time.Millisecond}}, nil
}

func (f *fakeEngine) Ask(ctx context.Context, req search.Request, onToken func(string)) (*answer.Answer, error) {
	f.mu.Lock()
	f.asks = append(f.asks, req)
	tokens, gate, notCovered, beyond := f.tokens, f.askGate, f.notCovered, f.beyond
	f.mu.Unlock()
	resp, err := f.Search(ctx, req)
	if err != nil {
		return nil, err
	}
	if notCovered {
		a := &answer.Answer{Question: req.Query, Mode: answer.ModeExtractive, Search: resp, Verdict: answer.VerdictNone,
			Refused: true, Closest: true, Text: answer.NotCovered}
		for i, r := range resp.Results[:min(3, len(resp.Results))] {
			a.Sources = append(a.Sources, answer.Source{N: i + 1, Result: r})
		}
		onToken(a.Text)
		return a, nil
	}
	a := &answer.Answer{Question: req.Query, Mode: answer.ModeExtractive, Search: resp, Verdict: answer.VerdictPartial,
		Timing: answer.Timing{Retrieval: 12 * time.Millisecond, Total: 15 * time.Millisecond}}
	for i, r := range resp.Results {
		a.Sources = append(a.Sources, answer.Source{N: i + 1, Result: r})
	}
	for i, tok := range tokens {
		if i == 1 && gate != nil {
			select {
			case <-gate:
			case <-ctx.Done():
				f.mu.Lock()
				f.askCancelled++
				f.mu.Unlock()
				return nil, fmt.Errorf("generate: %w", ctx.Err())
			}
		}
		onToken(tok)
		a.Text += tok
	}
	if beyond != nil {
		n := len(a.Sources) + 1
		a.Sources = append(a.Sources, answer.Source{N: n, Result: search.Result{Passage: beyond}})
		a.Citations = append(a.Citations, answer.Citation{N: n, ChunkID: beyond.ChunkID, Path: beyond.Path, Title: beyond.Title, Quote: beyond.Text})
	}
	// The [n] of the text are its citations, as the answerer's are.
	seen := map[int]bool{}
	for _, m := range citationMarks.FindAllStringSubmatch(a.Text, -1) {
		n, _ := strconv.Atoi(m[1])
		if n >= 1 && n <= len(a.Sources) && !seen[n] {
			seen[n] = true
			s := a.Sources[n-1]
			a.Citations = append(a.Citations, answer.Citation{N: n, ChunkID: s.ChunkID, Path: s.Path, Title: s.Title,
				Unit: s.UnitKind, Page: s.Page, Line: s.LineStart, Quote: s.Text})
		}
	}
	a.Claims = []answer.Claim{
		{Text: "Reset the router with the pin [1].", Citations: []int{1}, Supported: true, Support: 1},
		{Text: "Hold it ten seconds [2].", Citations: []int{2}, Supported: false, Support: 0.4, Reason: "\"ten seconds\" is not in source [2]"},
	}
	return a, nil
}

// citationMarks finds the [n] of an answer's text.
var citationMarks = regexp.MustCompile(`\[(\d+)\]`)

func (f *fakeEngine) Status(context.Context) (kb.Status, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.status, nil
}

func (f *fakeEngine) NetworkMode() string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.status.NetworkMode
}

// SetNetworkMode switches the mode the status reports, as the engine's
// gate would.
func (f *fakeEngine) SetNetworkMode(mode string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.netSwitches = append(f.netSwitches, mode)
	if f.netErr != nil {
		return f.netErr
	}
	f.status.NetworkMode = mode
	return nil
}

// SetAnswering records the answer settings, refusing a verify mode the
// engine would refuse.
func (f *fakeEngine) SetAnswering(a config.Answer) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if a.Verify != "off" && a.Verify != "warn" && a.Verify != "block" {
		return fmt.Errorf("answer.verify %q: use off, warn or block", a.Verify)
	}
	f.answering = append(f.answering, a)
	f.cfg.Answer = a
	return nil
}

// SetServing records serve.enabled, as the engine does.
func (f *fakeEngine) SetServing(on bool) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.cfg.Serve.Enabled = on
	return nil
}

// SetKnob sets a knob, refusing what Validate refuses, as the engine does.
func (f *fakeEngine) SetKnob(key string, v float64) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	k, ok := config.KnobByKey(key)
	if !ok {
		return fmt.Errorf("no knob %q", key)
	}
	c := f.cfg
	k.Set(&c, v)
	if err := c.Validate(); err != nil {
		return err
	}
	f.cfg = c
	return nil
}

func (f *fakeEngine) SetRetrieval(r config.Retrieval) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.cfg.Retrieval = r
	return nil
}

func (f *fakeEngine) SetProfile(name string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	c, err := f.cfg.WithProfile(name)
	f.cfg = c
	return err
}

// useModel records a model switch and, unless modelErr is set, the new
// setting, as core.Engine does.
func (f *fakeEngine) useModel(kind, path string, setting *string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.modelUses = append(f.modelUses, kind+":"+path)
	if f.modelErr != nil {
		return f.modelErr
	}
	if path == "" {
		path = models.None
	}
	*setting = path
	return nil
}

func (f *fakeEngine) UseChatModel(_ context.Context, path string) error {
	return f.useModel("chat", path, &f.cfg.Generation.Model)
}

func (f *fakeEngine) UseReranker(_ context.Context, path string) error {
	return f.useModel("reranker", path, &f.cfg.Rerank.Model)
}

// ModelOffers: the fake has no catalogue (the Models dialog is tested on
// a real engine and a catalogue served from 127.0.0.1).
func (f *fakeEngine) ModelOffers() []domain.ModelOffer { return nil }

func (f *fakeEngine) PullModel(context.Context, string, string, func(done, total int64)) (domain.ModelPull, error) {
	return domain.ModelPull{}, errors.New("the fake engine has no catalogue")
}

// Devices are a computer with one GPU, as core.Engine lists them.
func (f *fakeEngine) Devices() ([]domain.DeviceChoice, string) {
	return []domain.DeviceChoice{{Setting: "auto", Label: "auto"}, {Setting: "cpu", Label: "CPU"},
		{Setting: "Vulkan0", Label: "GPU: Test GPU (Vulkan0)"}}, ""
}

// UseDevice records the switch; a device that is not listed is refused,
// as core.Engine refuses it.
func (f *fakeEngine) UseDevice(setting string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.deviceUses = append(f.deviceUses, setting)
	if setting != "auto" && setting != "cpu" && setting != "Vulkan0" {
		return fmt.Errorf("device %q is not here: use auto, cpu, Vulkan0 (Test GPU)", setting)
	}
	f.cfg.LLM.Device = setting
	return nil
}

func (f *fakeEngine) UseEmbeddingModel(_ context.Context, path string, progress chan<- domain.Progress) error {
	defer close(progress)
	return f.useModel("embedding", path, &f.cfg.Embedding.Model)
}

// Judge keeps one judgment per question and file, as the store does.
func (f *fakeEngine) Judge(_ context.Context, q, path string, chunkID int64) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	for i, j := range f.judgments {
		if j.Query == q && j.Path == path {
			f.judgments[i].ChunkID = chunkID
			return nil
		}
	}
	f.judgments = append(f.judgments, domain.Judgment{ID: int64(len(f.judgments) + 1), Query: q, Path: path, ChunkID: chunkID})
	return nil
}

func (f *fakeEngine) Unjudge(_ context.Context, q, path string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	for i, j := range f.judgments {
		if j.Query == q && j.Path == path {
			f.judgments = append(f.judgments[:i], f.judgments[i+1:]...)
			break
		}
	}
	return nil
}

func (f *fakeEngine) Judgments(context.Context) ([]domain.Judgment, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]domain.Judgment(nil), f.judgments...), nil
}

// lastAnswerSources are the sources of the last answer, numbered as the
// answer cites them (the fake's answers list every result in rank order).
func (f *fakeEngine) lastAnswerSources() []answer.Source {
	f.mu.Lock()
	req := f.asks[len(f.asks)-1]
	f.mu.Unlock()
	resp, _ := f.Search(context.Background(), req)
	var out []answer.Source
	for i, r := range resp.Results {
		out = append(out, answer.Source{N: i + 1, Result: r})
	}
	return out
}

// mustThreads lists the conversations.
func (f *fakeEngine) mustThreads(t *testing.T) []domain.Thread {
	t.Helper()
	ts, err := f.Threads(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return ts
}

// locked runs fn with the engine's lock held, to read what it recorded.
func (f *fakeEngine) locked(fn func()) {
	f.mu.Lock()
	defer f.mu.Unlock()
	fn()
}

func (f *fakeEngine) GuideDir() string { return f.Config().Paths.DataDir + "/guide" }

// Preview shows the passage between a line before and a line after it.
func (f *fakeEngine) Preview(_ context.Context, p *search.Passage) (preview.Preview, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.previews = append(f.previews, p.ChunkID)
	if f.previewErr != nil {
		return preview.Preview{}, f.previewErr
	}
	text := "before\n" + p.Text + "\nafter"
	return preview.Preview{Path: p.Path, Page: p.Page, Text: text, Start: 7, End: 7 + len(p.Text), Found: true, FirstLine: max(1, p.LineStart-1)}, nil
}

// RenderPage draws a blank page.
func (f *fakeEngine) RenderPage(_ context.Context, path string, page, width int) ([]byte, error) {
	var b bytes.Buffer
	if err := png.Encode(&b, image.NewGray(image.Rect(0, 0, width, width*3/2))); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// AskInThread answers as Ask and keeps the conversation in memory; a
// follow-up (answer.IsFollowUp) is searched as answer.Standalone makes it.
func (f *fakeEngine) AskInThread(ctx context.Context, thread int64, req search.Request, onToken func(string)) (*answer.Answer, error) {
	f.mu.Lock()
	turns, ok := f.threads[thread]
	if thread != 0 && !ok {
		f.mu.Unlock()
		return nil, fmt.Errorf("conversation %d: %w", thread, domain.ErrNoThread)
	}
	f.mu.Unlock()
	question := req.Query
	query := ""
	var follow *answer.FollowUp
	if n := len(turns); n > 0 && answer.IsFollowUp(question) {
		query = answer.Standalone(answer.Turn{Question: turns[n-1].Question, Query: turns[n-1].Query}, question)
		req.Query = query
		follow = &answer.FollowUp{Of: turns[n-1].Question, Searched: query}
	}
	a, err := f.Ask(ctx, req, onToken)
	if err != nil {
		return nil, err
	}
	a.Question, a.Query, a.FollowUp = question, query, follow
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.newSubject && follow == nil {
		thread = 0 // as the engine does for a question on another subject
	}
	if thread == 0 {
		if f.threads == nil {
			f.threads = map[int64][]domain.Turn{}
		}
		f.lastThread++
		thread = f.lastThread
	}
	var cited []domain.TurnSource
	for _, c := range a.Citations {
		cited = append(cited, domain.TurnSource{N: c.N, ChunkID: c.ChunkID, Path: c.Path})
	}
	f.threads[thread] = append(f.threads[thread], domain.Turn{Question: question, Query: query, Answer: a.Text, Sources: cited})
	a.Thread = thread
	return a, nil
}

// AnswerAgain answers the latest question again in its place.
func (f *fakeEngine) AnswerAgain(ctx context.Context, thread int64, req search.Request, onToken func(string)) (*answer.Answer, error) {
	f.mu.Lock()
	turns := f.threads[thread]
	n := len(turns)
	if n == 0 || turns[n-1].Question != req.Query {
		f.mu.Unlock()
		return f.AskInThread(ctx, thread, req, onToken)
	}
	f.threads[thread] = turns[:n-1]
	f.mu.Unlock()
	return f.AskInThread(ctx, thread, req, onToken)
}

// Threads lists the conversations, the newest first.
func (f *fakeEngine) Threads(context.Context) ([]domain.Thread, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []domain.Thread
	for id := f.lastThread; id > 0; id-- {
		if ts, ok := f.threads[id]; ok {
			out = append(out, domain.Thread{ID: id, Title: ts[0].Question, Turns: len(ts), Folders: slices.Clone(f.threadFolders[id])})
		}
	}
	return out, nil
}

// SetThreadFolders keeps a conversation's folders, as the store does.
func (f *fakeEngine) SetThreadFolders(_ context.Context, thread int64, folders []string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if _, ok := f.threads[thread]; !ok {
		return fmt.Errorf("conversation %d: %w", thread, domain.ErrNoThread)
	}
	if f.threadFolders == nil {
		f.threadFolders = map[int64][]string{}
	}
	f.threadFolders[thread] = slices.Clone(folders)
	return nil
}

// Passage finds one of the fake corpus's passages by its chunk id.
func (f *fakeEngine) Passage(_ context.Context, id int64) (domain.ChunkInfo, error) {
	p, ok := fakeCandidates().Passages[id]
	if !ok {
		return domain.ChunkInfo{}, fmt.Errorf("no passage %d in the knowledge base", id)
	}
	return domain.ChunkInfo{ID: p.ChunkID, DocumentID: p.DocumentID, Path: p.Path, Title: p.Title, Format: p.Format, Text: p.Text,
		UnitKind: p.UnitKind, Page: p.Page, Label: p.Label, LineStart: p.LineStart, LineEnd: p.LineEnd}, nil
}

func (f *fakeEngine) ThreadTurns(_ context.Context, thread int64) ([]domain.Turn, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	ts, ok := f.threads[thread]
	if !ok {
		return nil, fmt.Errorf("conversation %d: %w", thread, domain.ErrNoThread)
	}
	return slices.Clone(ts), nil
}

func (f *fakeEngine) DeleteThread(_ context.Context, thread int64) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if _, ok := f.threads[thread]; !ok {
		return fmt.Errorf("conversation %d: %w", thread, domain.ErrNoThread)
	}
	delete(f.threads, thread)
	return nil
}

// Package ingest keeps a knowledge base in step with a folder: it walks the
// folder, skips unchanged files, extracts, chunks and embeds the rest, writes
// each file in one transaction, and removes files that vanished.
//
// Work is pipelined: extraction workers, an optional embedding stage and a
// single writer are joined by small bounded channels, so reading the next
// files overlaps with writing the last ones and memory stays bounded. A run
// that is cancelled or killed leaves every file either fully indexed or not
// at all; the next run picks up where it stopped.
package ingest

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"golang.org/x/sync/semaphore"

	"cairn/core/chunk"
	"cairn/core/domain"
	"cairn/core/extract"
	"cairn/core/fault"
	"cairn/core/invisible"
	"cairn/core/store"
)

// Options configure indexing.
type Options struct {
	Chunk         chunk.Params
	MaxFileBytes  int64 // larger files are skipped; default 64 MB
	Workers       int   // extraction workers; default the number of CPUs
	IncludeHidden bool  // index files and folders whose name starts with "."
	// FollowLinksOut follows symbolic links to files and folders outside
	// the indexed folder too; never into /proc, /sys, /dev or the home
	// folder's folders of secrets (scope.go).
	FollowLinksOut bool
	Ignore         []string // base-name patterns never indexed (filepath.Match syntax)
	Embedder       Embedder // nil: keyword search only
	EmbedBatch     int      // chunks per embedding call; default 32
	// EmbedBudget caps the estimated memory of one embedding call (text,
	// token ids, vectors; see passageCost); default 16 MB.
	EmbedBudget int64
	// Interest, when not nil, says which documents and folders a person
	// is looking at; their chunks are embedded first (embedQueue).
	Interest func() Interest
	Log      *slog.Logger // nil: no log
}

// DefaultEmbedBudget is Options.EmbedBudget's default.
const DefaultEmbedBudget = 16 << 20

// Indexer indexes folders into one knowledge base.
type Indexer struct {
	db  *store.DB
	reg *extract.Registry
	opt Options
}

// New returns an Indexer writing to db with extractors from reg.
func New(db *store.DB, reg *extract.Registry, opt Options) *Indexer {
	if opt.Workers <= 0 {
		opt.Workers = runtime.GOMAXPROCS(0)
	}
	if opt.MaxFileBytes <= 0 {
		opt.MaxFileBytes = 64 << 20
	}
	if opt.EmbedBatch <= 0 {
		opt.EmbedBatch = 32
	}
	if opt.EmbedBudget <= 0 {
		opt.EmbedBudget = DefaultEmbedBudget
	}
	if opt.Log == nil {
		opt.Log = slog.New(slog.DiscardHandler)
	}
	return &Indexer{db: db, reg: reg, opt: opt}
}

// job is a file to read; result is what a worker made of it.
type job struct {
	entry
	prev store.FileState
	had  bool // prev is valid
	// storedHash is the content hash of the version the store holds, ""
	// when it holds none: a file touched but not changed needs no
	// extraction.
	storedHash string
}

type result struct {
	job
	status domain.Status
	reason string
	// transient marks a failure that may not happen again: a timeout, a
	// read error (result.retry).
	transient bool
	// known marks a file touched but not changed whose recorded issue
	// stands: it was not read again.
	known   bool
	hash    string
	doc     *extract.Document
	chunks  []chunk.Chunk
	vectors [][]float32
	queued  int64 // bytes held in the writer's queue
}

// bytes estimates the memory a result holds: its text and its chunks'.
func (r result) bytes() int64 {
	if r.doc == nil {
		return 0
	}
	n := len(r.doc.Text)
	for _, c := range r.chunks {
		n += len(c.Text) + len(c.Heading)
	}
	return int64(n)
}

// Run indexes folder (added to the knowledge base if new) and reports on
// progress, which receives every event and is closed when Run returns;
// progress may be nil. The returned Run summarises what happened; the error
// is non-nil only when the run could not complete (cancelled, folder
// unreadable, database failure), never for a bad file.
func (ix *Indexer) Run(ctx context.Context, folder string, progress chan<- domain.Progress) (domain.Run, error) {
	return ix.runFolder(ctx, folder, false, progress)
}

// RetryFailed is Run that first forgets why the folder's files were not
// indexed, so every file skipped or failed before is read again, changed
// or not (`cairn index --retry-failed`, the window's Retry button).
func (ix *Indexer) RetryFailed(ctx context.Context, folder string, progress chan<- domain.Progress) (domain.Run, error) {
	return ix.runFolder(ctx, folder, true, progress)
}

func (ix *Indexer) runFolder(ctx context.Context, folder string, retry bool, progress chan<- domain.Progress) (domain.Run, error) {
	rep := newReporter(progress)
	defer rep.close()
	if strings.TrimSpace(folder) == "" {
		// filepath.Abs would make it the working folder.
		return domain.Run{}, errors.New("no folder to index: the path is empty")
	}
	abs, err := filepath.Abs(folder)
	if err != nil {
		return domain.Run{}, fmt.Errorf("folder %s: %w", folder, err)
	}
	unlock, err := ix.db.LockIndexing()
	if err != nil {
		return domain.Run{}, err
	}
	defer unlock()
	if err := ix.resetIssuesIfLimitsChanged(ctx); err != nil {
		return domain.Run{}, err
	}
	if err := ix.rereadIfExtractorsChanged(ctx); err != nil {
		return domain.Run{}, err
	}
	if err := ix.rereadInvisible(ctx); err != nil {
		return domain.Run{}, err
	}
	if ix.opt.Embedder != nil {
		if _, err := ix.db.SetVectorModel(ctx, ix.opt.Embedder.ModelID(), ix.opt.Embedder.Dim()); err != nil {
			return domain.Run{}, err
		}
	}
	f, err := ix.db.AddFolder(ctx, abs)
	if err != nil {
		return domain.Run{}, err
	}
	if retry {
		if err := ix.db.ClearFolderIssues(ctx, f.ID); err != nil {
			return domain.Run{}, err
		}
	}
	runID, err := ix.db.StartRun(ctx, abs)
	if err != nil {
		return domain.Run{}, err
	}
	run := domain.Run{ID: runID, Folder: abs, StartedAt: time.Now(), Status: domain.RunRunning}
	ix.opt.Log.Info("index run started", "run", runID, "folder", abs)
	rep.start(abs)
	err = ix.run(ctx, f, &run, rep)
	rep.fill(&run)
	switch {
	case err == nil:
		run.Status = domain.RunDone
	case errors.Is(err, context.Canceled) || ctx.Err() != nil:
		// An interrupted SQLite statement reports its own error; the cause
		// is still the cancel.
		err = context.Canceled
		run.Status = domain.RunCancelled
		run.Error = "cancelled"
	default:
		run.Status = domain.RunFailed
		run.Error = err.Error()
	}
	// Record the outcome even when ctx is cancelled.
	if ferr := ix.db.FinishRun(context.WithoutCancel(ctx), run); ferr != nil && err == nil {
		err = ferr
	}
	run.FinishedAt = time.Now()
	ix.opt.Log.Info("index run finished", "run", run.ID, "status", string(run.Status), "seen", run.FilesSeen,
		"indexed", run.FilesIndexed, "unchanged", run.FilesUnchanged, "skipped", run.FilesSkipped, "failed", run.FilesFailed,
		"removed", run.FilesRemoved, "chunks", run.Chunks, "bytes", run.Bytes, "ms", run.FinishedAt.Sub(run.StartedAt).Milliseconds())
	if err != nil && run.Status == domain.RunFailed {
		ix.opt.Log.Error("index run failed", "run", run.ID, "code", string(fault.CodeOf(err)), "err", err)
	}
	rep.finish(run)
	return run, err
}

func (ix *Indexer) run(ctx context.Context, f domain.Folder, run *domain.Run, rep *reporter) error {
	rep.phase(domain.PhaseScanning)
	entries, err := walk(ctx, f.Path, ix.opt, func(n int) { rep.scanned(n) })
	if err != nil {
		return err
	}
	states, err := ix.db.FileStates(ctx, f.ID)
	if err != nil {
		return err
	}
	// Classify: unchanged files cost nothing more than the stat above.
	var jobs []job
	var early []result // skipped or unreadable before reading
	var bytesTotal int64
	seen := make(map[string]bool, len(entries))
	for _, e := range entries {
		seen[e.path] = true
		prev, had := states[e.path]
		switch {
		case e.err != nil:
			early = append(early, result{job: job{entry: e}, status: domain.StatusFailed, reason: e.err.Error()})
		case e.skip != "" && had && prev.DocumentID == 0 && prev.Reason == e.skip && prev.Size == e.size && prev.MTimeNS == e.mtimeNS:
			rep.file(domain.FileEvent{Path: e.path, Status: domain.StatusSkipped, Reason: e.skip, Unchanged: true})
		case e.skip != "":
			// A document indexed before, a link that now leads out of the
			// folder among them, is removed with the skip's record.
			early = append(early, result{job: job{entry: e}, status: domain.StatusSkipped, reason: e.skip})
		case had && prev.Size == e.size && prev.MTimeNS == e.mtimeNS && !prev.Retry:
			// A file skipped or failed for a reason that stays while the
			// file does (a bomb, a broken file, a crash of its extractor)
			// waits, as an unchanged file does, until it changes, a limit
			// that decided it changes (resetIssuesIfLimitsChanged) or the
			// person asks (RetryFailed); one that failed in a way that may
			// not happen again (a timeout, a read error) is read again,
			// once (result.retry).
			st, reason := domain.StatusUnchanged, ""
			if prev.Issue != "" {
				st, reason = domain.Status(prev.Issue), prev.Reason
			}
			rep.file(domain.FileEvent{Path: e.path, Status: st, Reason: reason, Unchanged: true})
		default:
			j := job{entry: e, prev: prev, had: had}
			if had && (prev.DocumentID != 0 || !prev.Retry) {
				// A file touched but not changed needs no extraction: the
				// document, or the issue, it had stands.
				j.storedHash = prev.Hash
			}
			jobs = append(jobs, j)
			bytesTotal += e.size
		}
	}
	rep.planned(len(entries), len(jobs), bytesTotal)
	for i := 0; i < len(early); i += maxBatchFiles * 8 {
		if err := ix.writeBatch(ctx, f, run, early[i:min(i+maxBatchFiles*8, len(early))], rep); err != nil {
			return err
		}
	}
	var gone []string
	for p := range states {
		if !seen[p] {
			gone = append(gone, p)
		}
	}
	if len(gone) > 0 {
		rep.phase(domain.PhaseRemoving)
		for i := 0; i < len(gone); i += 500 {
			var events []domain.FileEvent
			for _, p := range gone[i:min(i+500, len(gone))] {
				events = append(events, domain.FileEvent{Path: p, Status: domain.StatusRemoved})
			}
			err := ix.db.Update(ctx, func(tx *store.Tx) error {
				for _, ev := range events {
					if err := tx.DeletePath(ev.Path); err != nil {
						return err
					}
				}
				return ix.recordProgress(tx, run, rep, events)
			})
			if err != nil {
				return err
			}
			for _, ev := range events {
				rep.file(ev)
			}
		}
	}
	if len(jobs) > 0 {
		rep.phase(domain.PhaseIndexing)
		write := func(ctx context.Context, batch []result) error { return ix.writeBatch(ctx, f, run, batch, rep) }
		// Files are written without vectors, searchable by keyword the
		// moment they commit; their embeddings come after, most wanted
		// first. Embedding is hundreds of times slower than the rest
		// (docs/performance.md): inline, it held every file back.
		if err := ix.pipeline(ctx, jobs, rep, false, write); err != nil {
			return err
		}
	}
	if ix.opt.Embedder != nil {
		// This run's chunks, those stored before this model was chosen,
		// and those whose embedding failed get their vectors now.
		return ix.reembed(ctx, rep)
	}
	return nil
}

// pipeline runs workers -> (embedder, when embed and a model is loaded) ->
// writer over jobs; write stores a group of results (a SQLite transaction,
// or a team cluster's writes) and reports them. An error from write stops
// the run.
func (ix *Indexer) pipeline(ctx context.Context, jobs []job, rep *reporter, embed bool, write func(context.Context, []result) error) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	// Results wait for the writer in a queue bounded by their size rather
	// than their number: while the writer commits, the workers run ahead,
	// so the next transaction takes many files at once (fewer commits and
	// FTS5 segments: 18K man pages indexed 30% faster than with a queue of
	// two), yet a few large documents cannot pile up in memory.
	queue := semaphore.NewWeighted(queueBytes)
	// Extractions at once are bounded by their files' sizes too: a large
	// file's extraction holds several copies of its text (the extractor's
	// output, pages, the cleaned text, chunks), so one runs alone instead
	// of beside another large one.
	extracting := semaphore.NewWeighted(extractBytes)
	extracted := make(chan result, maxBatchFiles)
	weight := func(j job) int64 { return min(max(j.size, 1), extractBytes) }
	isLarge := func(j job) bool { return 2*weight(j) > extractBytes }
	rep.plan(jobs, ix.opt.Workers, isLarge)
	// Large files (two of which exceed the bound) go through a lane of
	// their own, one after another, and the other workers take the small
	// files: a worker holding a large file while it waits for room would
	// stall the small ones queued behind it (a semaphore's waiter blocks
	// later acquirers), and four large files in a row would stall them
	// all.
	large, small := make(chan job), make(chan job)
	feed := func(to chan<- job, large bool) {
		defer close(to)
		for _, j := range jobs {
			if isLarge(j) != large {
				continue
			}
			select {
			case to <- j:
			case <-ctx.Done():
				return
			}
		}
	}
	go feed(large, true)
	go feed(small, false)
	// work processes one job; false stops its worker (the run ends).
	work := func(j job) bool {
		w := weight(j)
		if extracting.Acquire(ctx, w) != nil {
			return false
		}
		rep.current(j.path)
		r := ix.process(ctx, j)
		rep.read(j.path)
		extracting.Release(w)
		r.queued = min(r.bytes(), queueBytes)
		if queue.Acquire(ctx, r.queued) != nil {
			return false
		}
		select {
		case extracted <- r:
			return true
		case <-ctx.Done():
			return false
		}
	}
	var wg sync.WaitGroup
	wg.Add(ix.opt.Workers)
	go func() { // the large files' lane, then a worker like the others
		defer wg.Done()
		for j := range large {
			if !work(j) {
				return
			}
		}
		for j := range small {
			if !work(j) {
				return
			}
		}
	}()
	for range ix.opt.Workers - 1 {
		go func() {
			defer wg.Done()
			for j := range small {
				if !work(j) {
					return
				}
			}
		}()
	}
	go func() { wg.Wait(); close(extracted) }()

	toWrite := (<-chan result)(extracted)
	embedErr := make(chan error, 1)
	if embed && ix.opt.Embedder != nil {
		embedded := make(chan result, ix.opt.Workers)
		go func() {
			defer close(embedded)
			embedErr <- ix.embedStage(ctx, extracted, embedded)
		}()
		toWrite = embedded
	} else {
		embedErr <- nil
	}
	var werr error
	for r := range toWrite {
		if werr != nil {
			queue.Release(r.queued)
			continue // drain so the stages above can exit
		}
		// Group commit: whatever else is ready joins this transaction. Each
		// file is still all in or all out; fewer commits mean fewer FTS5
		// segments to write and merge.
		batch, chunks := []result{r}, len(r.chunks)
	more:
		for len(batch) < maxBatchFiles && chunks < maxBatchChunks {
			select {
			case r, ok := <-toWrite:
				if !ok {
					break more
				}
				batch = append(batch, r)
				chunks += len(r.chunks)
			default:
				break more
			}
		}
		began := time.Now()
		werr = write(ctx, batch)
		rep.wrote(batch, time.Since(began))
		for _, r := range batch {
			queue.Release(r.queued)
		}
		if werr != nil {
			cancel()
		}
	}
	if err := <-embedErr; err != nil && werr == nil {
		werr = err
	}
	if werr != nil {
		return werr
	}
	return ctx.Err()
}

// process reads, hashes, extracts and chunks one file. Bad files become a
// result with status skipped or failed; process never returns an error.
func (ix *Indexer) process(ctx context.Context, j job) result {
	r := result{job: j}
	if ctx.Err() != nil {
		r.status, r.reason = domain.StatusFailed, "cancelled"
		return r
	}
	fh, err := extract.OpenRegular(j.path)
	if errors.Is(err, extract.ErrNotRegular) {
		r.status, r.reason = domain.StatusSkipped, err.Error()
		return r
	}
	if err != nil {
		r.status, r.reason, r.transient = domain.StatusFailed, "cannot open: "+unwrapPath(err).Error(), true
		return r
	}
	defer fh.Close()
	if j.scope != nil {
		if err := j.scope.opened(fh, j.path); err != nil {
			r.status, r.reason = domain.StatusSkipped, err.Error()
			return r
		}
	}
	// Small files are read once into memory and hashed there; large ones are
	// hashed as a stream and handed to the extractor as the open file.
	var src io.ReaderAt = fh
	h := sha256.New()
	if j.size <= 8<<20 {
		b, err := io.ReadAll(io.TeeReader(io.LimitReader(fh, ix.opt.MaxFileBytes+1), h))
		if err != nil {
			r.status, r.reason, r.transient = domain.StatusFailed, "cannot read: "+unwrapPath(err).Error(), true
			return r
		}
		src = bytes.NewReader(b)
		j.size = int64(len(b))
	} else if _, err := io.Copy(h, fh); err != nil {
		r.status, r.reason, r.transient = domain.StatusFailed, "cannot read: "+unwrapPath(err).Error(), true
		return r
	}
	r.hash = hex.EncodeToString(h.Sum(nil))
	r.size = j.size
	if j.storedHash != "" && j.storedHash == r.hash {
		// Touched: same content, new mtime. A team run's jobs carry the
		// cluster's hash but no local record (prev): the cluster holds
		// documents only, so theirs are unchanged too.
		if j.prev.DocumentID != 0 || j.prev.Issue == "" {
			r.status = domain.StatusUnchanged
		} else {
			r.status, r.reason, r.known = domain.Status(j.prev.Issue), j.prev.Reason, true
		}
		return r
	}
	doc, err := ix.reg.Extract(ctx, extract.File{Name: j.path, Size: j.size, R: src})
	switch {
	case err == nil:
	case extract.IsSkip(err):
		r.status, r.reason = domain.StatusSkipped, reasonOf(err)
		return r
	default:
		r.status, r.reason = domain.StatusFailed, reasonOf(err)
		r.transient = fault.CodeOf(err) == fault.ExtractTimeout
		return r
	}
	r.doc = doc
	r.chunks = chunk.Split(doc, ix.opt.Chunk)
	if len(r.chunks) == 0 {
		r.status, r.reason = domain.StatusSkipped, "no text to index"
		return r
	}
	r.status = domain.StatusIndexed
	return r
}

// retry reports whether the next run reads the file of a failed result
// again although it does not change: a failure that may not happen again
// (a timeout under load, a read error of a disk that comes back), and
// only when the same content did not fail that way the run before, so a
// file that times out every time is not read at every run for ever.
func (r result) retry() bool {
	if r.status != domain.StatusFailed || !r.transient {
		return false
	}
	again := r.had && r.prev.DocumentID == 0 && r.prev.Issue == string(domain.StatusFailed) && r.prev.Retry && r.prev.Hash == r.hash
	return !again
}

// reasonOf is the recorded reason a file is not indexed: the error, and its
// fix when it has one, so the file list and `cairn status --issues` say
// what to do.
func reasonOf(err error) string {
	if fix := fault.FixLine(err); fix != "" {
		return err.Error() + " (fix: " + fix + ")"
	}
	return err.Error()
}

// Limits of one group commit, and of the results waiting for it.
const (
	maxBatchFiles  = 64
	maxBatchChunks = 2000
	queueBytes     = 32 << 20
	extractBytes   = 8 << 20 // of the files being extracted at once
)

// writeBatch stores results in one transaction and, once it is committed,
// reports each file.
func (ix *Indexer) writeBatch(ctx context.Context, f domain.Folder, run *domain.Run, batch []result, rep *reporter) error {
	events := make([]domain.FileEvent, 0, len(batch))
	err := ix.db.Update(ctx, func(tx *store.Tx) error {
		events = events[:0]
		for _, r := range batch {
			ev := domain.FileEvent{Path: r.path, Status: r.status, Reason: r.reason, Bytes: r.size}
			switch r.status {
			case domain.StatusUnchanged:
				if err := tx.TouchDocument(r.prev.DocumentID, r.size, r.mtimeNS); err != nil {
					return err
				}
			case domain.StatusSkipped, domain.StatusFailed:
				if ctx.Err() != nil {
					return ctx.Err() // a file interrupted by cancel is not a bad file
				}
				ev.Unchanged, ev.Retry = r.known, r.retry()
				err := tx.RecordIssue(f.ID, domain.Issue{Path: r.path, Kind: string(r.status), Reason: r.reason,
					Size: r.size, MTimeNS: r.mtimeNS, Hash: r.hash, Retry: ev.Retry, RunID: run.ID})
				if err != nil {
					return err
				}
			case domain.StatusIndexed:
				title := strings.TrimSpace(r.doc.Title)
				if title == "" {
					title = baseTitle(r.path)
				}
				kind, units := unitSummary(r.doc)
				d := store.Document{FolderID: f.ID, Path: r.path, Size: r.size, MTimeNS: r.mtimeNS, Hash: r.hash,
					Title: title, Format: r.doc.Format, UnitKind: kind, Units: units, Chars: len(r.doc.Text), Warnings: r.doc.Warnings}
				if _, _, err := tx.PutDocument(d, r.chunks, r.vectors); err != nil {
					return fmt.Errorf("store %s: %w", r.path, err)
				}
				ev.Chunks = len(r.chunks)
				if len(r.doc.Warnings) > 0 {
					ev.Reason = strings.Join(r.doc.Warnings, "; ")
				}
			}
			events = append(events, ev)
		}
		return ix.recordProgress(tx, run, rep, events)
	})
	if err != nil {
		return err
	}
	for _, ev := range events {
		if ev.Status == domain.StatusSkipped || ev.Status == domain.StatusFailed {
			logNotIndexed(ix.opt.Log, ev.Path, ev.Status, ev.Reason)
		}
		rep.file(ev)
	}
	return nil
}

// logNotIndexed logs a file that was skipped or failed. A reason may quote
// the document (a mail header, an attachment's name), and the log at info
// holds no word of the documents: info gets the path, the status and the
// fault's code; the reason itself goes to debug (and to the knowledge
// base, where `cairn status --issues` shows it).
func logNotIndexed(log *slog.Logger, path string, st domain.Status, reason string) {
	log.Info("file not indexed", "path", path, "status", string(st), "code", reasonCode(reason))
	log.Debug("file not indexed: reason", "path", path, "reason", reason)
}

// reasonCode is the fault code a reason ends with (reasonOf's
// "... [EXTRACT-003])"), or "": only a code's shape is taken, never other
// text in brackets.
func reasonCode(reason string) string {
	m := faultCode.FindStringSubmatch(reason)
	if m == nil {
		return ""
	}
	return m[1]
}

var faultCode = regexp.MustCompile(`\[([A-Z]+-[0-9]{3})\]\)$`)

// recordProgress records in tx the run's counts once events, the files tx
// writes, are counted, so a run that dies shows what it committed.
func (ix *Indexer) recordProgress(tx *store.Tx, run *domain.Run, rep *reporter, events []domain.FileEvent) error {
	r := *run
	rep.fillWith(&r, events)
	return tx.RecordRunProgress(r)
}

// baseTitle is the title of a document without one: its file name.
func baseTitle(path string) string {
	return strings.TrimSuffix(filepath.Base(path), filepath.Ext(path))
}

// unitSummary names what a document's units count and how many there are.
func unitSummary(doc *extract.Document) (string, int) {
	if len(doc.Units) == 0 {
		return "", 0
	}
	kind := doc.Units[0].Kind
	n := 0
	for _, u := range doc.Units {
		if u.Kind == kind {
			n++
		}
	}
	return string(kind), n
}

// metaLimits records what decided the issues recorded so far: the
// extensions the extractors read, the size limit (index.max_file_mb), the
// time a file may go without progress (index.timeout_sec), whether OCR
// is available and which PDF reader reads PDFs (poppler, or the pure-Go
// one where poppler is missing). When any of them changes, e.g. an upgrade
// adds formats, the limit is raised, Tesseract or poppler-utils is
// installed, the recorded issues are forgotten so those files are tried
// again. The key's name predates the
// limits.
const metaLimits = "extract_formats"

func (ix *Indexer) resetIssuesIfLimitsChanged(ctx context.Context) error {
	exts := ix.reg.Extensions()
	slices.Sort(exts)
	sig := strings.Join(exts, " ")
	sig += fmt.Sprintf("; max_file_bytes=%d; ocr=%t; timeout=%s; pdf=%s", ix.opt.MaxFileBytes, ix.reg.HasOCR(), ix.reg.Limits().Timeout, ix.reg.PDFEngineName())
	old, ok, err := ix.db.Meta(ctx, metaLimits)
	if err != nil {
		return err
	}
	if ok && old == sig {
		return nil
	}
	if ok {
		if err := ix.db.ClearIssues(ctx); err != nil {
			return err
		}
	}
	return ix.db.SetMeta(ctx, metaLimits, sig)
}

// metaInvisible marks a knowledge base whose documents were read with
// their default-ignorable characters removed (extract.finish, since issue
// 43): those indexed before with such characters in their text are read
// again, once.
const metaInvisible = "invisible_removed"

func (ix *Indexer) rereadInvisible(ctx context.Context) error {
	if _, done, err := ix.db.Meta(ctx, metaInvisible); err != nil || done {
		return err
	}
	n, err := ix.db.ForgetContentHolding(ctx, func(text string) bool { return invisible.Next(text, 0) >= 0 })
	if err != nil {
		return fmt.Errorf("mark documents holding invisible characters: %w", err)
	}
	if n > 0 {
		ix.opt.Log.Info("documents holding invisible characters are read again", "documents", n)
	}
	return ix.db.SetMeta(ctx, metaInvisible, "1")
}

// ExtractorsMeta is the meta key (a knowledge base's, a cluster folder's)
// that records the extractor versions the stored documents were read with
// (extract.Version), as "format=version" pairs, and the version of the
// chunker that cut them (chunk.Version) as "chunker=N"; without a pair,
// version 1 read or cut them.
const ExtractorsMeta = "extractor_versions"

// metaExtractors is ExtractorsMeta in a knowledge base's meta table.
const metaExtractors = ExtractorsMeta

// chunkerKey names the chunker's pair in an ExtractorsMeta value.
const chunkerKey = "chunker"

// Stale lists the formats whose documents must be read again; AllFormats
// stands for every document (the chunker changed).
type Stale []string

// AllFormats in a Stale list: every document, whatever its format.
const AllFormats = "*"

// Has reports whether the documents of format must be read again.
func (s Stale) Has(format string) bool {
	return slices.Contains(s, AllFormats) || slices.Contains(s, format)
}

// ExtractorChanges compares the versions recorded in was (an
// ExtractorsMeta value, "" for none) with this build's: the formats whose
// documents must be read again (every one when the chunker changed), and
// the value to record once they are.
func ExtractorChanges(was string) (changed Stale, now string) {
	cur := extract.Versions()
	cur[chunkerKey] = chunk.Version
	old := map[string]int{}
	for _, kv := range strings.Fields(was) {
		if f, v, ok := strings.Cut(kv, "="); ok {
			n, _ := strconv.Atoi(v)
			old[f] = n
		}
	}
	version := func(m map[string]int, f string) int {
		if v, ok := m[f]; ok {
			return v
		}
		return 1
	}
	var pairs []string
	for f := range cur {
		pairs = append(pairs, fmt.Sprintf("%s=%d", f, cur[f]))
	}
	for f := range old {
		if _, ok := cur[f]; !ok {
			cur[f] = 1 // back to version 1: read again too
		}
	}
	for f := range cur {
		if version(old, f) != cur[f] {
			changed = append(changed, f)
		}
	}
	slices.Sort(pairs)
	now = strings.Join(pairs, " ")
	if slices.Contains(changed, chunkerKey) {
		return Stale{AllFormats}, now
	}
	slices.Sort(changed)
	return changed, now
}

// rereadIfExtractorsChanged makes the documents of every format whose
// extractor changed since they were read (all of them when the chunker
// did) look changed, so this run reads them again (an upgrade that, say,
// drops Markdown's ## from the text takes effect without the person
// touching each file). The documents are marked
// before the new versions are recorded: a crash in between marks them
// again, harmlessly.
func (ix *Indexer) rereadIfExtractorsChanged(ctx context.Context) error {
	old, _, err := ix.db.Meta(ctx, metaExtractors)
	if err != nil {
		return err
	}
	changed, sig := ExtractorChanges(old)
	if len(changed) == 0 && old == sig {
		return nil
	}
	if n, err := ix.db.ForgetContent(ctx, changed); err != nil {
		return fmt.Errorf("mark documents read by an older extractor: %w", err)
	} else if n > 0 {
		ix.opt.Log.Info("extractors changed: their documents are read again", "formats", changed, "documents", n)
	}
	if len(changed) > 0 {
		// A file a changed extractor refused may be read now; an issue
		// does not record its format, so every one is tried again.
		if err := ix.db.ClearIssues(ctx); err != nil {
			return err
		}
	}
	return ix.db.SetMeta(ctx, metaExtractors, sig)
}

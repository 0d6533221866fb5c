package ui

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"cairn/core/config"
	"cairn/core/domain"
	"cairn/core/fault"
	"cairn/core/netgate"
	"cairn/panels"
)

// indexWorker owns everything behind the index panel: one indexing run at a
// time with a queue behind it, removing folders, the folder picker, and the
// folder watches that re-index on change. Like every worker, its loop only
// routes: engine calls and watches run in jobs that report back to it.
type indexWorker struct {
	eng      Engine
	requests <-chan panels.IndexRequest
	events   chan<- panels.IndexEvent
	pick     func(context.Context) (path string, ok bool, err error)
	starter  bool                   // index the bundled user guide into an empty knowledge base first
	debounce time.Duration          // quiet time before a watched folder is re-indexed
	onWatch  func(folders []string) // the watched folders were recorded in the knowledge base
	onRun    func()                 // a run ended (the status bar refreshes)

	running string             // folder being indexed; "" when idle
	stopRun context.CancelFunc // cancels it
	queue   []string
	retry   map[string]bool // folders whose next run reads their files not indexed again
	watches map[string]context.CancelFunc

	runDone chan runResult
	changed chan string // a watched folder changed
	// outside says the knowledge base changed, perhaps by another process
	// (the status worker noticed): the folder list is read again.
	outside chan struct{}
	stopped chan watchStop
	notices chan panels.IndexEvent
	jobs
}

type runResult struct {
	folder string
	run    domain.Run
	err    error
	none   bool // the user guide was not needed: the knowledge base has documents
}

type watchStop struct {
	folder string
	err    error
}

func newIndexWorker(eng Engine, requests <-chan panels.IndexRequest, events chan<- panels.IndexEvent) *indexWorker {
	return &indexWorker{
		eng: eng, requests: requests, events: events,
		pick:    func(context.Context) (string, bool, error) { return "", false, nil },
		onWatch: func([]string) {}, onRun: func() {},
		watches: map[string]context.CancelFunc{}, retry: map[string]bool{},
		runDone: make(chan runResult), changed: make(chan string),
		stopped: make(chan watchStop), notices: make(chan panels.IndexEvent), outside: make(chan struct{}, 1),
	}
}

// run is the worker's loop; it returns when ctx ends, after its jobs. It
// watches the folders the knowledge base records as watched, and those of
// legacy (the list an older Cairn kept in the window's preferences).
func (w *indexWorker) run(ctx context.Context, legacy []string) {
	defer w.jobs.wait()
	w.emit(ctx, panels.IndexReady{})
	if w.starter {
		w.start(ctx, "")
	}
	watched, err := w.eng.WatchedFolders(ctx)
	if err != nil {
		w.emit(ctx, panels.IndexNotice{Text: "Could not read which folders are watched: " + err.Error(), Err: true})
	}
	for _, f := range slices.Concat(watched, legacy) {
		w.follow(ctx, f)
	}
	if len(legacy) > 0 {
		w.remember(ctx) // the preferences' list, into the knowledge base
	}
	w.list(ctx)
	for {
		select {
		case <-ctx.Done():
			return
		case r := <-w.requests:
			w.handle(ctx, r)
		case res := <-w.runDone:
			w.finished(ctx, res)
		case folder := <-w.changed:
			w.enqueue(ctx, folder)
		case s := <-w.stopped:
			w.unwatched(ctx, s)
		case <-w.outside:
			if w.running == "" { // this window's own run lists them when it ends
				w.list(ctx)
			}
		case ev := <-w.notices:
			w.emit(ctx, ev)
		}
	}
}

func (w *indexWorker) emit(ctx context.Context, ev panels.IndexEvent) { send(ctx, w.events, ev) }

func (w *indexWorker) handle(ctx context.Context, r panels.IndexRequest) {
	switch r := r.(type) {
	case panels.ChooseFolder:
		w.jobs.spawn(func() {
			path, ok, err := w.pick(ctx)
			switch {
			case err != nil:
				send(ctx, w.notices, panels.IndexEvent(panels.IndexNotice{Text: "The folder picker failed: " + err.Error(), Err: true}))
			case !ok:
				send(ctx, w.notices, panels.IndexEvent(panels.ShowFolderDialog(r)))
			default:
				send(ctx, w.notices, panels.IndexEvent(panels.FolderChosen{Path: path, Start: r.Start}))
			}
		})
	case panels.IndexFolder:
		path, err := folderPath(r.Path)
		if err != nil {
			w.emit(ctx, panels.IndexNotice{Text: err.Error(), Err: true})
			return
		}
		if r.Retry {
			w.retry[path] = true
		}
		w.enqueue(ctx, path)
	case panels.CancelIndex:
		if w.stopRun != nil {
			w.stopRun()
		}
		if len(w.queue) > 0 {
			w.emit(ctx, panels.IndexNotice{Text: fmt.Sprintf("Also dropped %s waiting to be indexed.", strings.Join(w.queue, ", "))})
			w.queue = nil
		}
	case panels.RemoveFolder:
		if w.running != "" {
			w.emit(ctx, panels.FolderRemoved{Path: r.Path, Err: errors.New("an indexing run is in progress: wait for it to end (or cancel it), then remove the folder")})
			return
		}
		w.unwatch(ctx, r.Path)
		watching := w.watchingSet()
		w.jobs.spawn(func() {
			removed, err := w.eng.RemoveFolder(ctx, r.Path, func(p domain.Removal) {
				send(ctx, w.notices, panels.IndexEvent(panels.RemoveProgressed{Path: r.Path, Removal: p}))
			})
			send(ctx, w.notices, panels.IndexEvent(panels.FolderRemoved{Path: r.Path, Removal: removed, Err: err}))
			if err == nil {
				w.onRun() // the status bar's counts and size on disk, at once
				w.listWith(ctx, watching)
			}
		})
	case panels.WatchFolder:
		if r.On {
			w.watch(ctx, r.Path)
		} else {
			w.unwatch(ctx, r.Path)
		}
		w.list(ctx)
	}
}

// folderPath checks that p names a folder and makes it absolute.
func folderPath(p string) (string, error) {
	p = strings.TrimSpace(p)
	if p == "~" || strings.HasPrefix(p, "~/") {
		if home, err := os.UserHomeDir(); err == nil {
			p = filepath.Join(home, p[1:])
		}
	}
	abs, err := filepath.Abs(p)
	if err != nil {
		return "", fmt.Errorf("%s is not a usable folder path: %w", p, err)
	}
	fi, err := os.Stat(abs)
	switch {
	case err != nil:
		return "", fmt.Errorf("cannot index %s: %w; check the path", abs, err)
	case !fi.IsDir():
		return "", fmt.Errorf("%s is a file; choose the folder that holds it", abs)
	}
	return abs, nil
}

// enqueue indexes folder now, or after the running run.
func (w *indexWorker) enqueue(ctx context.Context, folder string) {
	switch {
	case w.running == "":
		w.start(ctx, folder)
	case folder == w.running || slices.Contains(w.queue, folder):
		// The running run or a queued one already covers it; a change
		// during the run re-runs it after, though.
		if folder == w.running && !slices.Contains(w.queue, folder) && w.watches[folder] != nil {
			w.queue = append(w.queue, folder)
		}
	default:
		w.queue = append(w.queue, folder)
		w.emit(ctx, panels.IndexQueued{Path: folder})
	}
}

// start runs the indexer over folder ("" for the bundled user guide); its
// progress goes straight to the panel and its end back to the loop.
func (w *indexWorker) start(ctx context.Context, folder string) {
	rctx, stop := context.WithCancel(ctx)
	w.running, w.stopRun = folder, stop
	if folder == "" {
		w.running = "the user guide"
	}
	index := w.eng.IndexFolder
	if w.retry[folder] {
		index = w.eng.RetryFailed
		delete(w.retry, folder)
	}
	w.jobs.spawn(func() {
		progress := make(chan domain.Progress, 64)
		type outcome struct {
			run     domain.Run
			err     error
			indexed bool
		}
		done := make(chan outcome, 1)
		go func() { // ends when the indexer returns; the loop below waits for it
			o := outcome{indexed: true}
			if folder == "" {
				o.indexed, o.err = w.eng.EnsureStarterKB(rctx, progress)
			} else {
				o.run, o.err = index(rctx, folder, progress)
			}
			done <- o
		}()
		var last *domain.Run
		for p := range progress { // closed by the indexer when it returns
			if p.Run != nil {
				last = p.Run
			}
			send(ctx, w.events, panels.IndexEvent(panels.Progressed{Progress: p}))
		}
		o := <-done
		if folder == "" && last != nil {
			o.run = *last // EnsureStarterKB says only whether it indexed; its final progress has the run
		}
		send(ctx, w.runDone, runResult{folder: folder, run: o.run, err: o.err, none: !o.indexed && o.err == nil})
	})
}

func (w *indexWorker) finished(ctx context.Context, res runResult) {
	w.stopRun()
	w.running, w.stopRun = "", nil
	cancelled := errors.Is(res.err, context.Canceled)
	name := res.folder
	if name == "" {
		name = "the user guide"
	}
	ev := panels.IndexFinished{Path: name, Run: res.run, Err: res.err, Cancelled: cancelled}
	if cancelled {
		ev.Err = nil
	}
	if errors.Is(res.err, domain.ErrIndexing) {
		ev.Err = fault.New(fault.StoreBusy, "another Cairn (a window or `cairn index`) is indexing this knowledge base",
			"try again when it is done, or cancel it there", nil)
	}
	if !res.none { // no run to report when the guide was not needed
		w.emit(ctx, ev)
	}
	w.onRun()
	w.list(ctx)
	if len(w.queue) > 0 {
		next := w.queue[0]
		w.queue = w.queue[1:]
		w.start(ctx, next)
	}
}

// changedOutside tells the worker that the knowledge base changed, perhaps
// by another process; it never blocks.
func (w *indexWorker) changedOutside() {
	select {
	case w.outside <- struct{}{}:
	default: // one is pending already
	}
}

// list sends the folders and the files not indexed, in a job.
func (w *indexWorker) list(ctx context.Context) {
	watching := w.watchingSet()
	w.jobs.spawn(func() { w.listWith(ctx, watching) })
}

func (w *indexWorker) watchingSet() map[string]bool {
	watching := map[string]bool{}
	for f := range w.watches {
		watching[f] = true
	}
	return watching
}

func (w *indexWorker) listWith(ctx context.Context, watching map[string]bool) {
	folders, err := w.eng.Folders(ctx)
	if err != nil {
		send(ctx, w.notices, panels.IndexEvent(panels.IndexNotice{Text: "Could not list the folders: " + panels.ErrorText(err), Err: true}))
		return
	}
	issues, err := w.eng.Issues(ctx)
	if err != nil {
		send(ctx, w.notices, panels.IndexEvent(panels.IndexNotice{Text: "Could not list the files not indexed: " + panels.ErrorText(err), Err: true}))
		return
	}
	listed := panels.FoldersListed{Folders: folders, Watching: watching, GuideDir: w.eng.GuideDir()}
	if st := w.eng.Config().Store; st.Backend == config.BackendWeaviate {
		listed.Cluster = "the team cluster at " + netgate.RedactURL(st.URL)
	}
	if len(folders) == 1 && filepath.Clean(folders[0].Path) == filepath.Clean(w.eng.GuideDir()) {
		listed.Guide = &folders[0]
	}
	send(ctx, w.notices, panels.IndexEvent(listed))
	send(ctx, w.notices, panels.IndexEvent(panels.IssuesListed{Issues: issues}))
}

// watch starts re-indexing folder when its files change.
func (w *indexWorker) watch(ctx context.Context, folder string) {
	if w.follow(ctx, folder) {
		w.remember(ctx)
	}
}

// follow starts folder's watch, unless it runs already (false).
func (w *indexWorker) follow(ctx context.Context, folder string) bool {
	if w.watches[folder] != nil {
		return false
	}
	wctx, stop := context.WithCancel(ctx)
	w.watches[folder] = stop
	w.jobs.spawn(func() {
		err := w.eng.Watch(wctx, folder, w.debounce, func([]string) {
			select {
			case w.changed <- folder:
			case <-wctx.Done():
			}
		})
		send(ctx, w.stopped, watchStop{folder: folder, err: err})
	})
	return true
}

func (w *indexWorker) unwatch(ctx context.Context, folder string) {
	if stop := w.watches[folder]; stop != nil {
		stop()
		delete(w.watches, folder)
		w.remember(ctx)
	}
}

// remember records the watched folders in the knowledge base. Watches
// that end with the window (ctx done) are not unwatched: they start again
// with it.
func (w *indexWorker) remember(ctx context.Context) {
	fs := w.watchedFolders()
	if err := w.eng.SetWatchedFolders(ctx, fs); err != nil {
		if ctx.Err() == nil {
			w.emit(ctx, panels.IndexNotice{Text: "Could not remember the watched folders: " + err.Error(), Err: true})
		}
		return
	}
	w.onWatch(fs)
}

func (w *indexWorker) unwatched(ctx context.Context, s watchStop) {
	if s.err == nil || errors.Is(s.err, context.Canceled) {
		return
	}
	w.unwatch(ctx, s.folder)
	w.emit(ctx, panels.IndexNotice{Text: "Stopped watching " + s.folder + ": " + s.err.Error(), Err: true})
	w.list(ctx)
}

func (w *indexWorker) watchedFolders() []string {
	var fs []string
	for f := range w.watches {
		fs = append(fs, f)
	}
	slices.Sort(fs)
	return fs
}

// debounce is how long a watched folder must be quiet before it is
// re-indexed.
const debounce = 2 * time.Second

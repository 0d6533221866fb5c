// Package ui is Cairn's window: the application and its menus, shortcuts,
// window state and drag and drop, and the workers that drive the engine.
//
// Threading: workers are goroutines that own the engine; panels send them
// typed requests on channels, and their events come back through pumps that
// apply them inside fyne.Do. Every goroutine stops when its context ends and
// is waited for by whoever started it.
package ui

import (
	"context"
	"fmt"
	"log/slog"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/app"
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/widget"

	"cairn/core/config"
	"cairn/core/doctor/health"
	"cairn/panels"
	"cairn/resources"
	cairntheme "cairn/theme"
	"cairn/ui/desktop"
	_ "cairn/ui/localefix" // before Fyne initialises; see the package
)

// AppID is the application's identifier, as in FyneApp.toml.
const AppID = "io.cairn.app"

// Options configure the window.
type Options struct {
	Config  config.Config
	Dirs    config.Dirs
	Open    Opener // opens a knowledge base by name
	KB      string // knowledge base to open; "" for the configured one
	Version string
	// Log is Cairn's log file, for the local service's request log; nil:
	// none.
	Log *slog.Logger
	// SettingsErr is why the settings file could not be loaded; the window
	// then runs on config.Fallback and says so (Fallback is never saved, so
	// the person's file is not overwritten).
	SettingsErr error

	// Doctor runs the health checks of knowledge base kb (`cairn doctor`)
	// with the current settings cfg; nil leaves Help > Check health out.
	Doctor func(ctx context.Context, kb string, cfg config.Config) []health.Check

	// Bench, when set, runs a measurement scenario in the live window and
	// quits; see bench.go.
	Bench *BenchSpec
}

// Run opens the window and returns when it is closed. The window appears at
// once; the knowledge base opens in the background, and the panels become
// functional when it is ready.
func Run(ctx context.Context, opt Options) error {
	a := app.NewWithID(AppID)
	a.SetIcon(fyne.NewStaticResource("icon.png", resources.IconPNG()))
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	win := newWindow(ctx, a, opt, desktopEnv(opt))
	win.lowerOthers = func() {
		if err := lowerOtherThreads(otherThreadsNice); err != nil && opt.Log != nil {
			opt.Log.Warn("could not lower the priority of the threads behind the window", "err", err)
		}
	}
	stopped := make(chan struct{})
	var quitter sync.WaitGroup
	quitter.Add(1)
	go func() { // quit when the caller's context ends (Ctrl+C in the terminal)
		defer quitter.Done()
		select {
		case <-ctx.Done():
			fyne.Do(a.Quit)
		case <-stopped:
		}
	}()
	win.w.ShowAndRun()
	close(stopped)
	cancel()
	quitter.Wait()
	win.close()
	return win.benchErr()
}

// windowEnv is how the window reaches the world outside Fyne: the real
// desktop in the app, fakes in tests.
type windowEnv struct {
	do     func(func()) // runs on the window's goroutine without waiting
	open   func(context.Context, panels.OpenSource) error
	folder func(ctx context.Context, path string) error // shows a file in the file manager
	pick   func(context.Context) (string, bool, error)
	save   saveFunc
	// screen is the work area of the monitor at a point; nil: unknown,
	// the window keeps the size it remembers.
	screen        screenFunc
	statusEvery   time.Duration // 0: statusEvery
	watchDebounce time.Duration // 0: debounce
	// afterFirstFrame holds the first knowledge base back until the
	// window's first frame is drawn (Fyne's OnStarted, which ShowAndRun
	// calls after Show painted it); tests, with no frame loop, open it at
	// once.
	afterFirstFrame bool
}

func desktopEnv(opt Options) windowEnv {
	return windowEnv{
		do: fyne.Do,
		open: func(ctx context.Context, o panels.OpenSource) error {
			return desktop.Open(ctx, o.Path, o.Page)
		},
		folder: desktop.ShowInFolder,
		pick: func(ctx context.Context) (string, bool, error) {
			return desktop.PickFolder(ctx, "Choose a folder to index")
		},
		save:            func(base, c config.Config) error { return config.Update(opt.Dirs, base, c) },
		screen:          desktop.WorkArea,
		afterFirstFrame: true,
	}
}

// window is the main window and what it shows: the current shell, and the
// knowledge-base worker that opens and closes engines for it.
type window struct {
	app   fyne.App
	w     fyne.Window
	opt   Options
	prefs fyne.Preferences
	env   windowEnv
	ctx   context.Context // the window's lifetime, for the shells its menus open

	shell  *shell // current; touched on the window's goroutine only
	kb     string
	kbs    *kbWorker // opens the knowledge bases; the current settings come from it
	kbReqs chan kbSwitch
	kbDone sync.WaitGroup
	// healthDone waits for a health check still running when the window
	// closes (its context ends with the window's).
	healthDone sync.WaitGroup

	started time.Time
	framed  bool // the first frame is drawn: new shells show every tab at once
	bench   *benchRun
	// lowerOthers puts the process's other threads below the window's
	// (lowerOtherThreads), once the first knowledge base is ready: until
	// then they open it, after the first frame, and at nice +10 beside
	// busy programs at 0 that took 39 s (`cairn bench paint`, two busy
	// loops). nil: done, or tests.
	lowerOthers func()

	guide         fyne.Window      // the last user guide window, for tests
	guidePage     *widget.RichText // its page, for tests
	aboutView     *fyne.Container  // the last About dialog's lines, for tests
	healthView    *widget.RichText // the last health dialog's text, for tests
	healthItem    *fyne.MenuItem   // Help > Check health, disabled while a check runs
	healthRunning bool
}

func newWindow(ctx context.Context, a fyne.App, opt Options, env windowEnv) *window {
	win := &window{app: a, opt: opt, prefs: a.Preferences(), env: env, ctx: ctx, kbReqs: make(chan kbSwitch, 4), started: time.Now()}
	a.Settings().SetTheme(cairntheme.New(cairntheme.ParseChoice(win.prefs.String(prefTheme))))
	win.w = a.NewWindow("Cairn")
	win.w.SetMaster()
	win.restoreSize()
	win.w.SetMainMenu(win.menu())
	win.addShortcuts()
	win.w.SetOnDropped(win.dropped)
	win.w.SetCloseIntercept(func() {
		win.saveState()
		win.w.Close()
	})
	// What runs once the window is shown, its first frame drawn.
	started := []func(){}
	if opt.Bench != nil {
		win.startBench(opt.Bench) // before the first shell, which reports to it
		started = append(started, win.bench.shown)
	}
	started = append(started, win.fitToScreen)

	win.kbs = &kbWorker{open: opt.Open, requests: win.kbReqs, cfg: opt.Config}
	win.kbDone.Add(1)
	go func() {
		defer win.kbDone.Done()
		win.kbs.run(ctx)
	}()
	kb := opt.KB
	if kb == "" {
		kb = opt.Config.Paths.KB
	}
	// The panels are in the first frame; what can wait comes after it, so
	// as not to take the cores from it: opening the knowledge base (SQLite's
	// compiled module), the guide's indexing on a first start, the
	// watchers, the models.
	open := win.showKB(kb, kb == opt.Config.Paths.KB)
	// The tabs behind Ask wait for the first frame too, after the request
	// that opens the knowledge base, which they would hold up.
	behind := func() { win.framed = true; win.shell.showBehind() }
	if env.afterFirstFrame {
		started = append(started, open, behind)
	} else {
		win.framed = true
		win.shell.showBehind()
		open()
	}
	a.Lifecycle().SetOnStarted(func() {
		for _, f := range started {
			f()
		}
	})
	if opt.SettingsErr != nil {
		d := dialog.NewInformation("Settings not loaded",
			"Cairn started with the default settings, because "+panels.ErrorText(opt.SettingsErr)+
				"\n\nChanges are not saved until the file is fixed; `cairn doctor` checks it.", win.w)
		panels.DialogKeys(d, win.w)
		d.Show()
	}
	return win
}

// openKB replaces the shell with a new one for knowledge base kb; the
// knowledge-base worker stops the old one and opens kb in the background.
func (win *window) openKB(kb string, starter bool) { win.showKB(kb, starter)() }

// showKB is openKB in two steps: it shows the new shell, and returns the
// call that has the knowledge-base worker open kb.
func (win *window) showKB(kb string, starter bool) (open func()) {
	s := newShell(win.ctx, win.shellDeps(kb))
	if win.framed { // another knowledge base, in a window already drawn
		s.showBehind()
	}
	win.shell, win.kb = s, kb
	win.w.SetContent(s.content)
	// Typing right after start goes into the question box.
	win.w.Canvas().Focus(s.Query.Question)
	win.w.SetTitle("Cairn — " + kb)
	return func() { win.kbReqs <- kbSwitch{name: kb, shell: s, starter: starter} }
}

func (win *window) shellDeps(kb string) shellDeps {
	var observe func(any)
	if win.bench != nil {
		observe = win.bench.observe
	}
	return shellDeps{
		observe:       observe,
		win:           win.w,
		clip:          win.app.Clipboard(),
		do:            win.env.do,
		open:          win.env.open,
		folder:        win.env.folder,
		pick:          win.env.pick,
		save:          win.env.save,
		statusEvery:   win.env.statusEvery,
		watchDebounce: win.env.watchDebounce,
		// An older Cairn kept the watched folders in the preferences; the
		// knowledge base records them now, so the old list is dropped once
		// the worker has recorded it there.
		watched:   splitList(win.prefs.String(prefWatched + kb)),
		onWatch:   func([]string) { win.prefs.RemoveValue(prefWatched + kb) },
		onReady:   win.ready,
		addFolder: win.addFolder,
		configDir: win.opt.Dirs.Config,
		version:   win.opt.Version,
		log:       win.opt.Log,
	}
}

// ready runs when the panels of the current shell work.
func (win *window) ready() {
	if win.lowerOthers != nil {
		win.lowerOthers()
		win.lowerOthers = nil
	}
	if win.bench != nil {
		win.bench.interactive(time.Since(win.started))
	}
}

// dropped indexes the folders dropped on the window.
func (win *window) dropped(_ fyne.Position, uris []fyne.URI) {
	s := win.shell
	var files []string
	for _, u := range uris {
		if u.Scheme() != "file" {
			continue
		}
		if _, err := folderPath(u.Path()); err != nil {
			files = append(files, filepath.Base(u.Path()))
			continue
		}
		s.IndexTab.IndexPath(u.Path())
	}
	s.showTab(tabIndex)
	if len(files) > 0 {
		s.IndexTab.Apply(panels.IndexNotice{Text: fmt.Sprintf("Drop folders, not files (%s): Cairn indexes whole folders.", strings.Join(files, ", "))})
	}
}

// close stops the knowledge-base worker, which stops the shell and closes
// the engine. It runs after the window's loop has ended.
func (win *window) close() {
	win.kbDone.Wait()
	win.healthDone.Wait()
}

func splitList(s string) []string {
	var out []string
	for _, l := range strings.Split(s, "\n") {
		if l = strings.TrimSpace(l); l != "" {
			out = append(out, l)
		}
	}
	return out
}

// Preference keys.
const (
	prefTheme   = "theme"
	prefWidth   = "window.width"
	prefHeight  = "window.height"
	prefX       = "window.x"
	prefY       = "window.y"
	prefWatched = "watched." // + knowledge base name; read once, from older versions
)

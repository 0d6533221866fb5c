package ui

import (
	"context"
	"sync"
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/widget"

	"cairn/core/config"
	"cairn/panels"
)

// loop stands in for the window's goroutine: pumps post functions to it and
// the test goroutine runs them, so that, as in the app, one goroutine alone
// touches the widgets (and the race detector can tell if anything else does).
type loop struct{ fns chan func() }

func newLoop() *loop { return &loop{fns: make(chan func(), 4096)} }

func (l *loop) do(fn func()) { l.fns <- fn }

// until runs posted functions until cond holds. It also looks again every
// few milliseconds: a condition set off the window's goroutine (a worker
// stopping) posts nothing to wake it. The deadline only catches a hang: an
// index run of the test corpus under the race detector took 32 s on CI's
// two busy cores, past the 30 s this once allowed.
func (l *loop) until(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.NewTimer(3 * time.Minute)
	defer deadline.Stop()
	poll := time.NewTicker(5 * time.Millisecond)
	defer poll.Stop()
	for !cond() {
		select {
		case fn := <-l.fns:
			fn()
		case <-poll.C:
		case <-deadline.C:
			t.Fatalf("timed out waiting for %s", what)
		}
	}
}

// settle runs what is posted for d (the status bar posts every 50 ms, so
// waiting for quiet would never end).
func (l *loop) settle(d time.Duration) {
	end := time.After(d)
	for {
		select {
		case fn := <-l.fns:
			fn()
		case <-end:
			return
		}
	}
}

// harness is the window on the Fyne test driver, driving an engine through
// the real workers, with the desktop (viewer, picker, settings file) faked.
type harness struct {
	t    *testing.T
	loop *loop
	app  fyne.App
	win  *window

	mu     sync.Mutex
	opened []panels.OpenSource
	// openErr is what the fake viewer fails with; nil: it opens.
	openErr error
	folders []string // files shown in the file manager
	saved   []config.Config
	// saveFile writes the settings file after the save is recorded.
	saveFile saveFunc
	picked   string // what the fake native picker returns; "" means none installed
}

func newHarness(t *testing.T, eng Engine) *harness {
	t.Helper()
	return newHarnessWith(t, func(context.Context, string, config.Config) (Engine, error) { return eng, nil }, eng.Config())
}

func newHarnessWith(t *testing.T, open Opener, cfg config.Config) *harness {
	t.Helper()
	h := startHarness(t, open, cfg)
	h.until("the panels to work", func() bool { return h.shell().ready == 3 })
	return h
}

// startHarness opens the window without waiting for the knowledge base;
// with options adjust the window's Options.
func startHarness(t *testing.T, open Opener, cfg config.Config, options ...func(*Options)) *harness {
	t.Helper()
	return startHarnessEnv(t, open, cfg, nil, options...)
}

// startHarnessEnv is startHarness with tweak adjusting the window's
// environment.
func startHarnessEnv(t *testing.T, open Opener, cfg config.Config, tweak func(*windowEnv), options ...func(*Options)) *harness {
	t.Helper()
	h := &harness{t: t, loop: newLoop(), app: test.NewTempApp(t)}
	ctx, cancel := context.WithCancel(context.Background())
	env := windowEnv{
		do: h.loop.do,
		open: func(_ context.Context, o panels.OpenSource) error {
			h.mu.Lock()
			defer h.mu.Unlock()
			h.opened = append(h.opened, o)
			return h.openErr
		},
		folder: func(_ context.Context, path string) error {
			h.mu.Lock()
			defer h.mu.Unlock()
			h.folders = append(h.folders, path)
			return nil
		},
		pick: func(context.Context) (string, bool, error) {
			h.mu.Lock()
			defer h.mu.Unlock()
			return h.picked, h.picked != "", nil
		},
		save: func(base, c config.Config) error {
			h.mu.Lock()
			h.saved = append(h.saved, c)
			h.mu.Unlock()
			return h.saveFile(base, c)
		},
		statusEvery:   50 * time.Millisecond,
		watchDebounce: 100 * time.Millisecond,
	}
	dirs := config.Dirs{Config: t.TempDir(), Data: cfg.Paths.DataDir, State: t.TempDir()}
	opt := Options{Config: cfg, Dirs: dirs, Open: open, Version: "test"}
	for _, o := range options {
		o(&opt)
	}
	h.saveFile = desktopEnv(opt).save // the real writer, into the test's config folder
	if tweak != nil {
		tweak(&env)
	}
	h.win = newWindow(ctx, h.app, opt, env)
	if env.screen == nil { // a test of a screen keeps the size the window chose
		h.win.w.Resize(fyne.NewSize(1100, 760))
	}
	t.Cleanup(func() {
		cancel()
		h.win.close() // stops the workers and waits for every goroutine
	})
	return h
}

func (h *harness) shell() *shell { return h.win.shell }

// frame lays the window out again, as the desktop driver does before each
// frame it draws; the test driver lays out only on resize.
func (h *harness) frame() {
	size := h.win.w.Canvas().Size()
	h.win.w.Resize(size.AddWidthHeight(1, 1))
	h.win.w.Resize(size)
}

func (h *harness) until(what string, cond func() bool) {
	h.t.Helper()
	h.loop.until(h.t, what, cond)
}

// settle runs what the workers post for d.
func (h *harness) settle(d time.Duration) { h.loop.settle(d) }

func (h *harness) openedSources() []panels.OpenSource {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]panels.OpenSource(nil), h.opened...)
}

func (h *harness) shownFolders() []string {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]string(nil), h.folders...)
}

func (h *harness) savedConfigs() []config.Config {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]config.Config(nil), h.saved...)
}

// ask types a question into the entry and presses Enter, as a person would.
func (h *harness) ask(q string) {
	h.t.Helper()
	e := h.shell().Query.Question
	e.SetText("")
	test.Type(e, q)
	e.TypedKey(&fyne.KeyEvent{Name: fyne.KeyReturn})
}

// titles are the visible source rows' titles, best first.
func titles(q *panels.Query) []string {
	var out []string
	for _, r := range q.Rows() {
		out = append(out, r.Title.Text)
	}
	return out
}

// find returns the objects under root (through containers and widget
// renderers, visible ones only) for which match is true.
func find(root fyne.CanvasObject, match func(fyne.CanvasObject) bool) []fyne.CanvasObject {
	var out []fyne.CanvasObject
	var walk func(o fyne.CanvasObject)
	walk = func(o fyne.CanvasObject) {
		if o == nil || !o.Visible() {
			return
		}
		if match(o) {
			out = append(out, o)
		}
		switch o := o.(type) {
		case *fyne.Container:
			for _, c := range o.Objects {
				walk(c)
			}
		case fyne.Widget:
			for _, c := range test.WidgetRenderer(o).Objects() {
				walk(c)
			}
		}
	}
	walk(root)
	return out
}

// button finds the visible button labelled text under root: Fyne's own
// (in its dialogs) or Cairn's (panels.Button, its embedded button).
func button(t *testing.T, root fyne.CanvasObject, text string) *widget.Button {
	t.Helper()
	for _, o := range find(root, func(fyne.CanvasObject) bool { return true }) {
		switch b := o.(type) {
		case *widget.Button:
			if b.Text == text {
				return b
			}
		case *panels.Button:
			if b.Text == text {
				return &b.Button
			}
		}
	}
	t.Fatalf("no %q button", text)
	return nil
}

// overlay is the top overlay (dialog) of the window.
func (h *harness) overlay() fyne.CanvasObject {
	h.t.Helper()
	top := h.win.w.Canvas().Overlays().Top()
	if top == nil {
		h.t.Fatal("no dialog is shown")
	}
	return top
}

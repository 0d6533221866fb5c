package ui

import (
	"context"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"cairn/core/config"
	"cairn/core/domain"
	"cairn/panels"
)

// menuBarHeight is the height of the menu bar that Fyne's GLFW driver draws
// above the content on Linux and Windows (a menu title's text plus the
// inner padding, internal/driver/glfw's menuBarItemRenderer); the test
// driver draws none.
func menuBarHeight() float32 {
	return fyne.MeasureText("File", theme.TextSize(), fyne.TextStyle{}).Height + theme.InnerPadding()
}

// windowMinSize is the smallest size of the real window around w's
// content, as Fyne's GLFW driver sets it (its canvasSize): the content's
// minimum, the window's padding around it and the menu bar above it. Under
// Xvfb, `xprop WM_NORMAL_HINTS` of a fresh start read 913 by 513 where this
// gave 912.75 by 512.7.
func windowMinSize(w fyne.Window) fyne.Size {
	return w.Content().MinSize().AddWidthHeight(2*theme.Padding(), 2*theme.Padding()+menuBarHeight())
}

// smallestCanvas is what the smallest window leaves its canvas under the
// menu bar: the size to give the test driver's window, which has none.
func smallestCanvas() fyne.Size {
	return smallestWindow.SubtractWidthHeight(0, menuBarHeight())
}

// fitsTheSmallestWindow fails the test if the real window could not be made
// as small as smallestWindow in the state described by what.
func fitsTheSmallestWindow(t *testing.T, h *harness, what string) {
	t.Helper()
	if min := windowMinSize(h.win.w); min.Width > smallestWindow.Width || min.Height > smallestWindow.Height {
		t.Errorf("%s: the window needs %v, more than %v", what, min, smallestWindow)
	}
}

// With the preview pane open the window still fits the smallest size the
// docs name (926x520): the answer's verdict, timing and mode lines, each
// one unwrapped line, made the answer column 640 px wide at the least and
// the window 938 px with the pane beside it.
func TestThePreviewFitsTheSmallestWindow(t *testing.T) {
	h := newHarness(t, newFakeEngine(t.TempDir()))
	q := askedAndRanked(t, h)
	test.Tap(q.Rows()[0].Open)
	h.until("the preview", q.Preview.Visible)
	h.win.w.Resize(smallestCanvas())
	h.frame()
	h.frame()
	fitsTheSmallestWindow(t, h, "with the preview open")
	for _, l := range []string{q.Answer.Mode.Text, q.Answer.Timing.Text, q.Answer.Verdict.Text} {
		if l == "" {
			t.Fatal("the answer has no verdict, timing or mode line: the test needs them")
		}
	}
}

// The whole window, menu bar included, fits 926x520 (a 1024x600 screen
// less a panel and a title bar) with the local service on, in every state
// that adds lines: after an index run, while one goes on (its counts and
// the file being read), with the filter row, a conversation and the
// preview pane open. The Index tab made the window 552 px tall after a
// run of the test corpus (a tester measured 571 with more folders) and 591
// while a run went on: the counts, the file being read, the file list's
// summary and each list's heading each took a line of their own.
func TestTheWindowFitsTheSmallestScreen(t *testing.T) {
	cfg, open := realEngine(t)
	cfg.Serve.Port, cfg.Serve.Enabled = 0, true
	h := newHarnessWith(t, open, cfg)
	s := h.shell()
	h.until("the status bar to show the API", func() bool { return s.Status.API.Visible() && s.Status.Counts.Text != "" })
	fitsTheSmallestWindow(t, h, "at start")

	corpus := copyCorpusTo(t, t.TempDir())
	startIndexing(h, corpus)
	h.until("the run", func() bool { return strings.HasPrefix(s.IndexTab.State.Text, "Indexed "+corpus+".") })
	fitsTheSmallestWindow(t, h, "after an index run")

	// A run under way, as its progress reports show it.
	s.IndexTab.Apply(panels.Progressed{Progress: domain.Progress{Folder: corpus, Phase: domain.PhaseIndexing,
		FilesSeen: 683, FilesTotal: 683, FilesDone: 21, Indexed: 21, Chunks: 412, Bytes: 1 << 20, BytesTotal: 90 << 20,
		Current: corpus + "/manuals/router-admin-guide.pdf"}})
	h.frame()
	if !s.IndexTab.Progress.Visible() || !s.IndexTab.Current.Visible() {
		t.Fatal("the run's counts and current file are not shown: the test needs them")
	}
	fitsTheSmallestWindow(t, h, "while a run goes on")

	q := s.Query
	h.ask("how do I reset the router")
	h.until("the answer", func() bool { return strings.HasPrefix(q.State.Text, "Answered") && len(q.Rows()) > 1 })
	h.ask("and to factory settings")
	h.until("the follow-up", func() bool { return strings.HasPrefix(q.State.Text, "Answered") && len(q.Turns()) == 2 })
	test.Tap(q.Filter.Toggle)
	test.Tap(q.Rows()[0].Open)
	h.until("the preview", q.Preview.Visible)
	h.frame()
	fitsTheSmallestWindow(t, h, "with a conversation, the filter row and the preview open")
}

// At the default width, with the local service on, the status bar says
// everything without an ellipsis for a collection of 18,003 documents and
// 113,296 chunks, 999 MB of memory and no model: "Models: none (BM25 only, extractive
// answ…" was cut there.
func TestTheStatusBarWithTheAPIIsWholeAtTheDefaultWidth(t *testing.T) {
	cfg, open := realEngine(t)
	cfg.Serve.Port, cfg.Serve.Enabled = 0, true
	h := newHarnessWith(t, open, cfg)
	s := h.shell().Status
	h.until("the status bar to show the API", func() bool { return s.API.Visible() && s.Counts.Text != "" })
	// Applied on the window's goroutine, between the status worker's reports.
	s.Apply(panels.StatusReport{KB: "/home/me/.local/share/cairn/default.db", Documents: 18003, Chunks: 113296,
		Bytes: 412 << 20, NetworkMode: "offline", Memory: 999 << 20, API: "127.0.0.1:8765"})
	h.win.w.Resize(defaultSize)
	h.frame()
	for _, l := range []*widget.Label{s.KB, s.Counts, s.Models, s.API, s.Memory} {
		if !notCut(l) {
			t.Errorf("%q is cut at %v wide: %v", l.Text, defaultSize.Width, l.Size().Width)
		}
	}
}

// The first knowledge base opens once the window's first frame is drawn
// (Fyne's OnStarted, which ShowAndRun calls after Show painted it), so
// that nothing that can wait (SQLite's module, the guide's indexing, the
// watchers, the models, the tabs behind Ask) takes a core from the first
// frame.
func TestTheKnowledgeBaseOpensAfterTheFirstFrame(t *testing.T) {
	eng := newFakeEngine(t.TempDir())
	var opened atomic.Int32
	open := func(context.Context, string, config.Config) (Engine, error) { opened.Add(1); return eng, nil }
	h := startHarnessEnv(t, open, eng.Config(), func(e *windowEnv) { e.afterFirstFrame = true })
	// Nothing opens it before the frame: give a wrongly started worker
	// time to show itself.
	time.Sleep(300 * time.Millisecond)
	if n := opened.Load(); n != 0 {
		t.Fatalf("the knowledge base was opened %d times before the first frame", n)
	}
	started, ok := h.app.Lifecycle().(interface{ OnStarted() func() })
	if !ok || started.OnStarted() == nil {
		t.Fatal("the window set no OnStarted")
	}
	// The tabs behind Ask are laid out after the first frame too: the
	// Engineering tab's cards and knobs took half the window's setup.
	s := h.shell()
	if s.Tabs.Items[tabIndex].Content == s.IndexTab.Content() || s.Tabs.Items[tabEngineering].Content == s.Tuning.Content() {
		t.Error("the Index or the Engineering tab was laid out before the first frame")
	}
	started.OnStarted()()
	if s.Tabs.Items[tabIndex].Content != s.IndexTab.Content() || s.Tabs.Items[tabEngineering].Content != s.Tuning.Content() {
		t.Error("the Index or the Engineering tab has no panel after the first frame")
	}
	h.until("the knowledge base to open after the first frame", func() bool { return opened.Load() == 1 })
	h.until("the panels to work", func() bool { return h.shell().ready == 3 })
}

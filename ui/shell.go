package ui

import (
	"context"
	"log/slog"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/theme"

	"cairn/core/fault"
	"cairn/panels"
)

// shellDeps is what a shell needs from the window around it.
type shellDeps struct {
	win           fyne.Window
	clip          fyne.Clipboard
	do            func(func()) // runs on the window's goroutine, without waiting
	open          func(context.Context, panels.OpenSource) error
	folder        func(ctx context.Context, path string) error
	pick          func(context.Context) (string, bool, error)
	save          saveFunc
	watched       []string       // folders to watch from the start, besides those the knowledge base records
	onWatch       func([]string) // the watched folders were recorded in the knowledge base
	onReady       func()         // on the window's goroutine, once every panel works
	addFolder     func()         // the window's Add folder (File menu, Ctrl+O)
	observe       func(any)      // if set, sees every event after its panel applied it
	configDir     string         // holds the local service's token file
	version       string         // for the local service's /api/health
	log           *slog.Logger   // the local service's request log; nil: none
	statusEvery   time.Duration
	watchDebounce time.Duration
}

// shell is one knowledge base in the window: the panels, and the workers
// and pumps that connect them to its engine. It is built (on the window's
// goroutine) while the knowledge base opens, attached to the engine once it
// is open, and stopped when the window switches to another knowledge base
// or closes.
type shell struct {
	Query    *panels.Query
	IndexTab *panels.IndexTab
	Status   *panels.StatusBar
	Tuning   *panels.Engineering
	Tabs     *container.AppTabs
	content  fyne.CanvasObject

	deps shellDeps
	// The panels' requests to the workers: posting never blocks the window.
	queryReqs    *mailbox[panels.QueryRequest]
	indexReqs    *mailbox[panels.IndexRequest]
	settingsReqs *mailbox[panels.SettingsRequest]
	serveReqs    *mailbox[bool] // the local service on or off, from the settings worker

	ctx     context.Context
	cancel  context.CancelFunc
	running jobs   // the workers and pumps
	eng     Engine // set by attach, before the pumps that lead to panelReady start
	ready   int    // panels that became functional; on the window's goroutine
}

// keywordWarmer is an engine with an in-memory keyword index to build in
// the background (core.Engine).
type keywordWarmer interface{ WarmKeywordIndex() }

// progressEvery spaces the index panel's updates: five a second keep a
// progress bar moving, and each costs the window a full repaint that
// input waits behind (under software rendering, about 10 ms of the
// window's thread and as much of the rasterizer's, `cairn bench gui`).
const progressEvery = 200 * time.Millisecond

// Tabs of the window, in order.
const (
	tabAsk = iota
	tabIndex
	tabEngineering
)

// newShell builds the panels, disabled until attach; call it on the window's
// goroutine.
func newShell(parent context.Context, d shellDeps) *shell {
	if d.statusEvery <= 0 {
		d.statusEvery = statusEvery
	}
	if d.watchDebounce <= 0 {
		d.watchDebounce = debounce
	}
	s := &shell{
		deps:         d,
		queryReqs:    newMailbox[panels.QueryRequest](),
		indexReqs:    newMailbox[panels.IndexRequest](),
		settingsReqs: newMailbox[panels.SettingsRequest](),
		serveReqs:    newMailbox[bool](),
	}
	s.ctx, s.cancel = context.WithCancel(parent)
	s.Query = panels.NewQuery(d.win, d.clip, s.queryReqs.post)
	s.Query.OnAddFolder = d.addFolder
	s.IndexTab = panels.NewIndexTab(d.win, d.clip, s.indexReqs.post)
	s.Status = panels.NewStatusBar()
	s.Tuning = panels.NewEngineering(d.win, s.queryReqs.post, s.settingsReqs.post)
	// The tabs behind Ask get their panels once the first frame is drawn
	// (showBehind): laying out the Engineering tab's cards and knobs, and
	// the Index tab's lists, took half of the window's setup before it.
	s.Tabs = container.NewAppTabs(
		container.NewTabItemWithIcon("Ask", theme.SearchIcon(), s.Query.Content()),
		container.NewTabItemWithIcon("Index", theme.FolderIcon(), container.NewStack()),
		container.NewTabItemWithIcon("Engineering", theme.SettingsIcon(), container.NewStack()),
	)
	s.themeTabs(fyne.CurrentApp().Settings())
	s.content = container.NewBorder(nil, s.Status.Content(), nil, nil, s.Tabs)
	return s
}

// showBehind puts the panels of the tabs behind Ask in place; call it on
// the window's goroutine, once the window's first frame is drawn.
func (s *shell) showBehind() {
	behind := map[int]fyne.CanvasObject{tabIndex: s.IndexTab.Content(), tabEngineering: s.Tuning.Content()}
	changed := false
	for i, c := range behind {
		if s.Tabs.Items[i].Content != c {
			s.Tabs.Items[i].Content = c
			changed = true
		}
	}
	if changed {
		s.Tabs.Refresh()
	}
}

// attach starts the workers that drive eng, and the pumps that bring their
// events to the panels. With starter, an empty knowledge base first gets
// the bundled user guide. Call it from any goroutine but the window's.
func (s *shell) attach(eng Engine, starter bool) {
	ctx := s.ctx
	queryEv := make(chan panels.QueryEvent)
	indexEv := make(chan panels.IndexEvent)
	tuneEv := make(chan panels.EngineeringEvent)
	statusEv := make(chan panels.StatusReport)
	poke := make(chan struct{}, 1)

	s.eng = eng

	qw := newQueryWorker(eng, s.queryReqs.out, queryEv, tuneEv, s.deps.open)
	if s.deps.folder != nil {
		qw.folder = s.deps.folder
	}
	iw := newIndexWorker(eng, s.indexReqs.out, indexEv)
	iw.pick, iw.starter = s.deps.pick, starter
	iw.debounce = s.deps.watchDebounce
	if s.deps.onWatch != nil {
		iw.onWatch = s.deps.onWatch
	}
	pokeStatus := func() {
		select {
		case poke <- struct{}{}:
		default:
		}
	}
	iw.onRun = pokeStatus
	sw := newSettingsWorker(eng, s.deps.save, s.settingsReqs.out, tuneEv, indexEv)
	sw.onNetwork = pokeStatus // the status bar shows the new mode at once
	sv := newServeWorker(eng, s.deps.configDir, s.deps.version, s.serveReqs.out, tuneEv)
	sv.saveMode, sv.onChange, sv.log = sw.saveModeFunc(ctx), pokeStatus, s.deps.log
	sw.onServe = s.serveReqs.post
	stw := &statusWorker{eng: eng, events: statusEv, poke: poke, every: s.deps.statusEvery, api: sv.API, changed: iw.changedOutside}

	s.running.spawn(func() {
		pump(ctx, s.deps.do, queryEv, func(evs []panels.QueryEvent) {
			s.Query.Apply(evs...)
			for _, ev := range evs {
				if _, ok := ev.(panels.QueryReady); ok {
					s.panelReady()
				}
				s.observed(ev)
			}
		}, 0)
	})
	s.running.spawn(func() {
		pump(ctx, s.deps.do, indexEv, func(evs []panels.IndexEvent) {
			s.IndexTab.Apply(evs...)
			for _, ev := range evs {
				if l, ok := ev.(panels.FoldersListed); ok {
					s.Query.ShowGuideOnly(l.Guide)
					s.Query.SetFolders(l.Folders, l.GuideDir)
				}
				if _, ok := ev.(panels.IndexReady); ok {
					s.panelReady()
				}
				s.observed(ev)
			}
			s.observed(indexUpdate{})
		}, progressEvery)
	})
	s.running.spawn(func() {
		pump(ctx, s.deps.do, tuneEv, func(evs []panels.EngineeringEvent) {
			s.Tuning.Apply(evs...)
			for _, ev := range evs {
				if _, ok := ev.(panels.TuningLoaded); ok && s.ready < 3 {
					s.panelReady()
				}
				s.observed(ev)
			}
		}, 0)
	})
	s.running.spawn(func() {
		pump(ctx, s.deps.do, statusEv, func(rs []panels.StatusReport) {
			s.Status.Apply(rs[len(rs)-1])
			s.observed(rs[len(rs)-1])
		}, 0)
	})
	s.running.spawn(func() { s.queryReqs.run(ctx) })
	s.running.spawn(func() { s.indexReqs.run(ctx) })
	s.running.spawn(func() { s.settingsReqs.run(ctx) })
	s.running.spawn(func() { s.serveReqs.run(ctx) })
	s.running.spawn(func() { qw.run(ctx) })
	s.running.spawn(func() { iw.run(ctx, s.deps.watched) })
	s.running.spawn(func() { sw.run(ctx) })
	s.running.spawn(func() { stw.run(ctx) })
	s.running.spawn(func() { sv.run(ctx) }) // stops the server, waiting for its requests
}

// panelReady counts panels that became functional; runs on the window's
// goroutine.
func (s *shell) panelReady() {
	s.ready++
	if s.ready != 3 {
		return
	}
	// Only now: building it takes a core for a few seconds, which the
	// window's start should not wait for.
	if w, ok := s.eng.(keywordWarmer); ok {
		w.WarmKeywordIndex()
	}
	if s.deps.onReady != nil {
		s.deps.onReady()
	}
}

// indexUpdate is observed after each batch of events the index panel
// applied: the bench counts the panel's updates.
type indexUpdate struct{}

func (s *shell) observed(ev any) {
	if s.deps.observe != nil {
		s.deps.observe(ev)
	}
}

// failed tells the panels that the knowledge base could not be opened.
func (s *shell) failed(err error) {
	msg := "Could not open the knowledge base: " + panels.ErrorText(err)
	if fault.FixLine(err) != "" {
		msg += "\nOr choose File > Open knowledge base, or File > New knowledge base."
	} else {
		msg += ". Choose File > Open knowledge base, or File > New knowledge base."
	}
	s.deps.do(func() {
		s.Query.Apply(panels.QueryNotice{Text: msg, Err: true})
		s.IndexTab.Apply(panels.IndexNotice{Text: msg, Err: true})
		s.Status.Apply(panels.StatusReport{Err: err})
	})
}

// stop cancels the workers and waits for them and their jobs. Call it from
// any goroutine but the window's: a job inside the engine may take a moment
// to notice the cancellation, and the window must not freeze meanwhile.
func (s *shell) stop() {
	s.cancel()
	s.running.wait()
	// A shell that never attached has no forwarders to close its mailboxes.
	s.queryReqs.close()
	s.indexReqs.close()
	s.settingsReqs.close()
	s.serveReqs.close()
}

// showTab brings a tab to the front.
func (s *shell) showTab(i int) {
	s.showBehind()
	s.Tabs.SelectIndex(i)
}

// themeTabs gives each tab the current theme when it comes to the front.
// Fyne themes only the tab in front when the theme changes (AppTabs lists
// only that tab's content among its objects), so the tabs behind kept the
// old theme's colours and icons: in the light theme, file paths stayed in
// the dark theme's white. Setting the same theme again themes the new tab
// in front, the way Fyne themes a window; it runs only for a tab last shown
// under another theme.
func (s *shell) themeTabs(set fyne.Settings) {
	type look struct {
		theme   fyne.Theme
		variant fyne.ThemeVariant
	}
	now := func() look { return look{set.Theme(), set.ThemeVariant()} }
	shownWith := map[*container.TabItem]look{}
	for _, it := range s.Tabs.Items {
		shownWith[it] = now()
	}
	s.Tabs.OnSelected = func(it *container.TabItem) {
		if l := now(); shownWith[it] != l {
			shownWith[it] = l
			set.SetTheme(l.theme)
		}
	}
}

package ui

import (
	"bytes"
	"context"
	"errors"
	"image/color"
	"log"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"cairn/core/config"
	"cairn/core/doctor/health"
	"cairn/core/domain"
	"cairn/core/fault"
	"cairn/panels"
	cairntheme "cairn/theme"
)

func shortcut(h *harness, s fyne.Shortcut) {
	h.win.w.Canvas().(fyne.Shortcutable).TypedShortcut(s)
}

func TestMainMenu(t *testing.T) {
	h := newHarness(t, newFakeEngine(t.TempDir()))
	var got []string
	for _, m := range h.win.w.MainMenu().Items {
		var items []string
		for _, it := range m.Items {
			if !it.IsSeparator {
				items = append(items, it.Label)
			}
		}
		got = append(got, m.Label+": "+strings.Join(items, ", "))
	}
	want := []string{
		"File: Add folder…, Open knowledge base…, New knowledge base…, Quit",
		"View: Ask a question, New conversation, Theme",
		"Help: User guide, About Cairn",
	}
	if !slices.Equal(got, want) {
		t.Errorf("menu\n%q\nwant\n%q ", got, want)
	}
	if it := h.win.w.MainMenu().Items[0].Items[0]; it.Shortcut == nil || it.Shortcut.ShortcutName() != shortcutAddFolder.ShortcutName() {
		t.Errorf("Add folder has no Ctrl+O shortcut")
	}
}

func TestCtrlLFocusesTheQuestion(t *testing.T) {
	h := newHarness(t, newFakeEngine(t.TempDir()))
	h.shell().showTab(tabEngineering)
	shortcut(h, shortcutQuestion)
	if h.shell().Tabs.SelectedIndex() != tabAsk {
		t.Error("Ctrl+L did not show the Ask tab")
	}
	if h.win.w.Canvas().Focused() != h.shell().Query.Question {
		t.Errorf("focused %v, want the question entry", h.win.w.Canvas().Focused())
	}
}

func TestCtrlOChoosesAFolderAndIndexesIt(t *testing.T) {
	eng := newFakeEngine(t.TempDir())
	h := newHarness(t, eng)
	dir := t.TempDir()
	h.mu.Lock()
	h.picked = dir
	h.mu.Unlock()
	shortcut(h, shortcutAddFolder)
	if h.shell().Tabs.SelectedIndex() != tabIndex {
		t.Error("Ctrl+O did not show the Index tab")
	}
	h.until("the chosen folder's run", func() bool {
		var got []string
		eng.locked(func() { got = eng.indexed })
		return slices.Equal(got, []string{dir})
	})
}

func TestEscapeCancelsTheVisibleTabsWork(t *testing.T) {
	eng := newFakeEngine(t.TempDir())
	eng.askGate = make(chan struct{})
	eng.indexGate = make(chan struct{})
	h := newHarness(t, eng)
	q, p := h.shell().Query, h.shell().IndexTab
	h.ask("how do I reset the router")
	startIndexing(h, t.TempDir())
	h.until("both to run", func() bool { return !q.CancelButton.Disabled() && !p.CancelButton.Disabled() })
	h.win.w.Canvas().Unfocus()
	esc := &fyne.KeyEvent{Name: fyne.KeyEscape}

	h.shell().showTab(tabIndex)
	h.win.w.Canvas().OnTypedKey()(esc)
	h.until("indexing to stop", func() bool { return strings.HasPrefix(p.State.Text, "Cancelled") })
	if q.CancelButton.Disabled() {
		t.Fatal("Escape on the Index tab also cancelled the question")
	}
	h.shell().showTab(tabAsk)
	h.win.w.Canvas().OnTypedKey()(esc)
	h.until("the question to stop", func() bool { return strings.HasPrefix(q.State.Text, "Cancelled") })
}

func TestThemeMenuSwitchesAndRemembers(t *testing.T) {
	h := newHarness(t, newFakeEngine(t.TempDir()))
	view := h.win.w.MainMenu().Items[1]
	themes := view.Items[2].ChildMenu.Items
	if got := []string{themes[0].Label, themes[1].Label, themes[2].Label}; !slices.Equal(got, []string{"Follow the system", "Light", "Dark"}) {
		t.Fatalf("theme choices %q", got)
	}
	if !themes[0].Checked {
		t.Error("the theme does not follow the system by default")
	}
	themes[2].Action()
	if h.win.prefs.String(prefTheme) != "dark" || !themes[2].Checked || themes[0].Checked {
		t.Errorf("dark: pref %q, checked %v %v", h.win.prefs.String(prefTheme), themes[0].Checked, themes[2].Checked)
	}
	bg := h.app.Settings().Theme().Color(theme.ColorNameBackground, theme.VariantLight)
	if want := cairntheme.New(cairntheme.Dark).Color(theme.ColorNameBackground, theme.VariantDark); bg != want {
		t.Errorf("background %v, want the dark one %v even when the system is light", bg, want)
	}
}

func TestWindowSizeIsRemembered(t *testing.T) {
	h := newHarness(t, newFakeEngine(t.TempDir()))
	h.win.w.Resize(fyne.NewSize(900, 640))
	h.win.saveState()
	other := &window{w: h.app.NewWindow("again"), prefs: h.win.prefs}
	other.restoreSize()
	if got := other.w.Canvas().Size(); got != fyne.NewSize(900, 640) {
		t.Errorf("restored size %v, want 900x640", got)
	}
}

func TestOpenAnotherKnowledgeBaseClosesTheFirst(t *testing.T) {
	var mu sync.Mutex
	engines := map[string]*fakeEngine{}
	var opened []string
	dataDir := t.TempDir()
	open := func(_ context.Context, kb string, _ config.Config) (Engine, error) {
		mu.Lock()
		defer mu.Unlock()
		opened = append(opened, kb)
		e := newFakeEngine(dataDir)
		e.status.Path = dataDir + "/kb/" + kb + ".db"
		engines[kb] = e
		return e, nil
	}
	h := newHarnessWith(t, open, newFakeEngine(dataDir).Config())
	h.win.openKB("work", false)
	h.until("the new knowledge base", func() bool { return h.shell().ready == 3 && h.shell().Status.KB.Text == "work" })
	mu.Lock()
	defer mu.Unlock()
	if !slices.Equal(opened, []string{"default", "work"}) {
		t.Errorf("opened %q", opened)
	}
	engines["default"].locked(func() {
		if !engines["default"].closed {
			t.Error("the first knowledge base was not closed")
		}
	})
	if h.win.w.Title() != "Cairn — work" {
		t.Errorf("title %q", h.win.w.Title())
	}
}

func TestAKnowledgeBaseThatCannotOpenSaysWhatToDo(t *testing.T) {
	dataDir := t.TempDir()
	open := func(context.Context, string, config.Config) (Engine, error) {
		return nil, errors.New("database disk image is malformed")
	}
	h := startHarness(t, open, newFakeEngine(dataDir).Config())
	q := h.shell().Query
	h.until("the error", func() bool {
		return strings.HasPrefix(q.State.Text, "Could not open the knowledge base: database disk image is malformed. Choose File > Open knowledge base")
	})
	if !q.AskButton.Disabled() || !h.shell().IndexTab.ChooseButton.Disabled() {
		t.Error("the panels work without a knowledge base")
	}
}

func TestAKnowledgeBaseThatCannotOpenShowsTheFix(t *testing.T) {
	dataDir := t.TempDir()
	open := func(context.Context, string, config.Config) (Engine, error) {
		return nil, fault.New(fault.StoreCorrupt, "the knowledge base /kb/default.db is damaged", "run `cairn doctor`, then `cairn restore BACKUP.db`",
			errors.New("sqlite3: database disk image is malformed"))
	}
	h := startHarness(t, open, newFakeEngine(dataDir).Config())
	want := "Could not open the knowledge base: the knowledge base /kb/default.db is damaged: sqlite3: database disk image is malformed\n" +
		"Fix: run `cairn doctor`, then `cairn restore BACKUP.db` [STORE-003]\n" +
		"Or choose File > Open knowledge base, or File > New knowledge base."
	h.until("the error with its fix", func() bool { return h.shell().Query.State.Text == want && h.shell().IndexTab.State.Text == want })
}

func TestAFailedRunShowsTheFix(t *testing.T) {
	eng := newFakeEngine(t.TempDir())
	eng.indexErr = fault.New(fault.StoreFull, "the disk is full: could not write to /kb/default.db", "free space on the disk that holds /kb", nil)
	h := newHarness(t, eng)
	dir := t.TempDir()
	p := startIndexing(h, dir)
	want := "Indexing " + dir + " failed: the disk is full: could not write to /kb/default.db\nFix: free space on the disk that holds /kb [STORE-004]"
	h.until("the failure with its fix", func() bool { return p.State.Text == want })
}

func TestBrokenSettingsStartOnTheDefaultsAndSaySo(t *testing.T) {
	eng := newFakeEngine(t.TempDir())
	settingsErr := fault.New(fault.ConfigUnreadable, "settings /home/ann/.config/cairn/settings.json",
		"fix the file or delete it", errors.New(`json: unknown field "top_kk"`))
	h := startHarness(t, func(context.Context, string, config.Config) (Engine, error) { return eng, nil }, eng.Config(),
		func(o *Options) { o.SettingsErr = settingsErr })
	want := `Cairn started with the default settings, because settings /home/ann/.config/cairn/settings.json: json: unknown field "top_kk"` +
		"\nFix: fix the file or delete it [CONF-001]"
	labels := find(h.overlay(), func(o fyne.CanvasObject) bool {
		l, ok := o.(*widget.Label)
		return ok && strings.HasPrefix(l.Text, want)
	})
	if len(labels) != 1 {
		t.Errorf("the dialog does not say why the settings did not load")
	}
	h.until("the panels to work", func() bool { return h.shell().ready == 3 })
}

func TestHealthChecksFromTheHelpMenu(t *testing.T) {
	var asked []string
	var mu sync.Mutex
	eng := newFakeEngine(t.TempDir())
	h := startHarness(t, func(context.Context, string, config.Config) (Engine, error) { return eng, nil }, eng.Config(), func(o *Options) {
		o.KB = "work"
		o.Doctor = func(_ context.Context, kb string, _ config.Config) []health.Check {
			mu.Lock()
			asked = append(asked, kb)
			mu.Unlock()
			return []health.Check{
				{Verdict: health.Pass, Name: "integrity", Detail: "ok"},
				{Verdict: health.Fail, Name: "chat model", Detail: "/m/broken_model.gguf: not a GGUF file", Fix: "download it again", Code: fault.ModelNotGGUF},
			}
		}
	})
	help := h.win.w.MainMenu().Items[2]
	if help.Items[1].Label != "Check health…" {
		t.Fatalf("Help menu %q", help.Items[1].Label)
	}
	help.Items[1].Action()
	h.until("the checks", func() bool {
		return h.win.healthView != nil && strings.Contains(h.win.healthView.String(), "1 of 2 checks failed")
	})
	want := []string{"1 of 2 checks failed. The fixes say what to do.", "PASS integrity: ok",
		"FAIL chat model: /m/broken_model.gguf: not a GGUF file", "fix: download it again [MODEL-002]"}
	if got := richLines(h.win.healthView); !slices.Equal(got, want) {
		t.Errorf("dialog lines\n%q\nwant\n%q", got, want)
	}
	mu.Lock()
	defer mu.Unlock()
	if !slices.Equal(asked, []string{"work"}) {
		t.Errorf("checked %q, want the open knowledge base", asked)
	}
}

// Closing the health dialog stops its check, and the menu item does
// nothing while a check runs.
func TestHealthCheckRunsOnceAndStopsWithItsDialog(t *testing.T) {
	var calls atomic.Int32
	stopped := make(chan struct{})
	eng := newFakeEngine(t.TempDir())
	h := startHarness(t, func(context.Context, string, config.Config) (Engine, error) { return eng, nil }, eng.Config(), func(o *Options) {
		o.Doctor = func(ctx context.Context, _ string, _ config.Config) []health.Check {
			calls.Add(1)
			<-ctx.Done() // a check that takes as long as it is allowed to
			close(stopped)
			return nil
		}
	})
	item := h.win.w.MainMenu().Items[2].Items[1]
	item.Action()
	if !item.Disabled {
		t.Error("Check health is enabled while a check runs")
	}
	item.Action() // as if clicked again before the menu showed it disabled
	h.loop.settle(100 * time.Millisecond)
	if n := calls.Load(); n != 1 {
		t.Errorf("%d checks running, want 1", n)
	}
	test.Tap(button(t, h.overlay(), "Close"))
	select {
	case <-stopped:
	case <-time.After(10 * time.Second):
		t.Fatal("closing the dialog did not stop the check")
	}
	h.until("the menu item to come back", func() bool { return !item.Disabled })
}

// richLines is a rich text's paragraphs: inline segments join the next.
func richLines(rt *widget.RichText) []string {
	var out []string
	var line strings.Builder
	for _, seg := range rt.Segments {
		line.WriteString(seg.Textual())
		if ts, ok := seg.(*widget.TextSegment); ok && ts.Style.Inline {
			continue
		}
		out = append(out, line.String())
		line.Reset()
	}
	return out
}

// Every menu action has a working shortcut, shown in the menu.
func TestCtrlQQuits(t *testing.T) {
	h := newHarness(t, newFakeEngine(t.TempDir()))
	file := h.win.w.MainMenu().Items[0]
	quit := file.Items[len(file.Items)-1]
	if quit.Label != "Quit" || !quit.IsQuit || quit.Shortcut == nil || quit.Shortcut.ShortcutName() != shortcutQuit.ShortcutName() {
		t.Errorf("File's last item %q (quit %v, shortcut %v), want Quit with Ctrl+Q", quit.Label, quit.IsQuit, quit.Shortcut)
	}
	h.win.w.Resize(fyne.NewSize(1000, 700))
	shortcut(h, shortcutQuit)
	// The test app's Quit does nothing; what quitting saves first shows it ran.
	if w := h.app.Preferences().Int(prefWidth); w != 1000 {
		t.Errorf("Ctrl+Q did not quit through the window (saved width %d)", w)
	}
}

// The Remove-folder dialog answers Enter (remove) and Escape (keep), and
// the window's own Escape works again once it is closed.
func TestDialogsAnswerEnterAndEscape(t *testing.T) {
	eng := newFakeEngine(t.TempDir())
	h := newHarness(t, eng)
	p, _ := indexedFolder(h)
	h.win.w.Canvas().Unfocus()
	key := func(name fyne.KeyName) { h.win.w.Canvas().OnTypedKey()(&fyne.KeyEvent{Name: name}) }

	test.Tap(p.Remove)
	h.overlay()
	key(fyne.KeyEscape)
	if h.win.w.Canvas().Overlays().Top() != nil {
		t.Fatal("Escape left the Remove dialog open")
	}
	if p.Folders.Length() != 1 {
		t.Fatal("Escape removed the folder")
	}
	test.Tap(p.Remove)
	h.overlay()
	key(fyne.KeyReturn)
	h.until("the folder to go", func() bool { return p.Folders.Length() == 0 })
	if h.win.w.Canvas().Overlays().Top() != nil {
		t.Error("Enter left the Remove dialog open")
	}

	h.win.showAbout()
	h.overlay()
	key(fyne.KeyEscape)
	if h.win.w.Canvas().Overlays().Top() != nil {
		t.Error("Escape left About open")
	}

	// The folder picker (Fyne's, when the desktop has none) closes with Escape.
	h.shell().IndexTab.Apply(panels.ShowFolderDialog{})
	h.overlay()
	key(fyne.KeyEscape)
	if h.win.w.Canvas().Overlays().Top() != nil {
		t.Error("Escape left the folder picker open")
	}

	// The guide window closes with Escape and with Ctrl+W.
	for _, close := range []func(fyne.Window){
		func(w fyne.Window) { w.Canvas().OnTypedKey()(&fyne.KeyEvent{Name: fyne.KeyEscape}) },
		func(w fyne.Window) { w.Canvas().(fyne.Shortcutable).TypedShortcut(shortcutClose) },
	} {
		h.win.showGuide()
		g := h.win.guide
		closed := false
		g.SetOnClosed(func() { closed = true })
		close(g)
		if !closed {
			t.Error("the guide window stayed open")
		}
	}
}

// With only the bundled guide indexed, the Ask tab says what its documents
// are and offers Add folder; once a folder of one's own is in, it stops.
func TestFirstStartOffersAddFolder(t *testing.T) {
	eng := newFakeEngine(t.TempDir())
	eng.folders = []domain.Folder{{ID: 1, Path: eng.GuideDir(), Documents: 8, Chunks: 40}}
	h := newHarness(t, eng)
	q := h.shell().Query
	h.until("the guide to be named", func() bool { return q.AddFolder.Visible() })
	if !strings.HasPrefix(q.State.Text, "Ready. The 8 documents here are Cairn's own user guide") {
		t.Errorf("state %q", q.State.Text)
	}
	dir := t.TempDir()
	h.mu.Lock()
	h.picked = dir
	h.mu.Unlock()
	test.Tap(q.AddFolder)
	if h.shell().Tabs.SelectedIndex() != tabIndex {
		t.Error("Add folder did not show the Index tab")
	}
	h.until("the folder to be indexed and the offer to go", func() bool { return !q.AddFolder.Visible() })
	if q.State.Text != "Ready. Ask a question; answers cite the file and page they come from." {
		t.Errorf("state after adding a folder %q", q.State.Text)
	}
}

// About shows each fact on its own line.
func TestAboutHasOneLineEach(t *testing.T) {
	h := newHarness(t, newFakeEngine(t.TempDir()))
	h.win.showAbout()
	var got []string
	for _, o := range h.win.aboutView.Objects {
		got = append(got, o.(*widget.Label).Text)
	}
	if len(got) != 6 || got[0] != "Cairn test" || !strings.HasPrefix(got[3], "Knowledge base: default") || !strings.HasPrefix(got[4], "Data folder: ") || !strings.HasPrefix(got[5], "Settings: ") {
		t.Errorf("About lines %q", got)
	}
}

// The guide shows citation marks whole: Fyne's Markdown made "[1], [2]"
// into "[ 1], [ 2 ]" with line breaks between the pieces.
func TestGuideShowsCitationMarksWhole(t *testing.T) {
	h := newHarness(t, newFakeEngine(t.TempDir()))
	h.win.showGuide()
	var marks []string
	for _, seg := range h.win.guidePage.Segments {
		text := seg.Textual()
		if strings.Contains(text, "[ ") {
			t.Errorf("segment %q splits a citation mark", text)
		}
		if text == "[1]" || text == "[2]" {
			marks = append(marks, text)
		}
	}
	if !slices.Equal(marks, []string{"[1]", "[2]"}) {
		t.Errorf("citation marks %q, want [1] and [2] as they appear in an answer", marks)
	}
}

// Every tab fits the smallest window, and there the Ask tab shows two
// sources, not one: a source's buttons sit on its head line when the row
// is wide enough, under it when the preview pane leaves too little room.
func TestSmallestWindowShowsTwoSources(t *testing.T) {
	h := newHarness(t, newFakeEngine(t.TempDir()))
	q := h.shell().Query
	h.ask("how do I reset the router")
	h.until("the sources", func() bool { return len(q.Rows()) == 4 })
	h.until("the answer", func() bool { return strings.HasPrefix(q.State.Text, "Answered") })
	if min := windowMinSize(h.win.w); min.Width > smallestWindow.Width || min.Height > smallestWindow.Height {
		t.Errorf("the window needs %v, more than %v", min, smallestWindow)
	}
	h.win.w.Resize(smallestCanvas())
	h.frame()
	h.frame() // a row's height follows its width one layout later, as a wrapped text's does
	d := fyne.CurrentApp().Driver()
	view := d.AbsolutePositionForObject(q.SourceScroll).Y + q.SourceScroll.Size().Height
	for i, r := range q.Rows()[:2] {
		title, open := d.AbsolutePositionForObject(r.Title), d.AbsolutePositionForObject(r.Open)
		if title.Y+r.Title.Size().Height > view {
			t.Errorf("source %d's name is below the visible list (%v > %v)", i+1, title.Y+r.Title.Size().Height, view)
		}
		if open.Y != title.Y {
			t.Errorf("source %d: Open at y %v, not on the head line at %v", i+1, open.Y, title.Y)
		}
	}

	// With the preview open the row is narrow: the buttons go under the head,
	// whose file name stays whole.
	test.Tap(q.Rows()[0].Open)
	h.until("the preview", q.Preview.Visible)
	h.frame()
	h.frame()
	r := q.Rows()[0]
	if d.AbsolutePositionForObject(r.Open).Y <= d.AbsolutePositionForObject(r.Title).Y {
		t.Error("with the preview open, Open stays on the head line")
	}
	if need := fyne.MeasureText(r.Title.Text, theme.TextSize(), r.Title.TextStyle).Width + 2*theme.InnerPadding(); r.Title.Size().Width < need {
		t.Errorf("the file name %q is cut: %v wide, needs %v", r.Title.Text, r.Title.Size().Width, need)
	}
}

// Every action in the menus has a shortcut, shown in the menu, and the
// shortcut does what the item does.
func TestEveryMenuActionHasAWorkingShortcut(t *testing.T) {
	eng := newFakeEngine(t.TempDir())
	h := startHarness(t, func(context.Context, string, config.Config) (Engine, error) { return eng, nil }, eng.Config(), func(o *Options) {
		o.Doctor = func(context.Context, string, config.Config) []health.Check {
			return []health.Check{{Verdict: health.Pass, Name: "integrity", Detail: "ok"}}
		}
	})
	h.until("the panels to work", func() bool { return h.shell().ready == 3 })
	closeOverlay := func() {
		for h.win.w.Canvas().Overlays().Top() != nil {
			h.win.w.Canvas().Overlays().Top().Hide()
			h.win.w.Canvas().Overlays().Remove(h.win.w.Canvas().Overlays().Top())
		}
	}
	dialog := func() bool { return h.win.w.Canvas().Overlays().Top() != nil }
	effects := map[string]func() bool{
		"Add folder…":          func() bool { return h.shell().Tabs.SelectedIndex() == tabIndex },
		"Open knowledge base…": dialog,
		"New knowledge base…":  dialog,
		"Ask a question":       func() bool { return h.win.w.Canvas().Focused() == h.shell().Query.Question },
		"New conversation": func() bool {
			return h.shell().Tabs.SelectedIndex() == tabAsk && strings.HasPrefix(h.shell().Query.State.Text, "New conversation")
		},
		"Follow the system": func() bool { return h.win.prefs.String(prefTheme) == "system" },
		"Light":             func() bool { return h.win.prefs.String(prefTheme) == "light" },
		"Dark":              func() bool { return h.win.prefs.String(prefTheme) == "dark" },
		"User guide":        func() bool { return h.win.guide != nil },
		"Check health…":     func() bool { return h.win.healthView != nil },
		"About Cairn":       func() bool { return h.win.aboutView != nil },
	}
	var walk func(items []*fyne.MenuItem)
	walk = func(items []*fyne.MenuItem) {
		for _, it := range items {
			if it.ChildMenu != nil {
				walk(it.ChildMenu.Items)
				continue
			}
			if it.IsSeparator || it.IsQuit { // Quit: TestCtrlQQuits
				continue
			}
			if it.Shortcut == nil {
				t.Errorf("%q has no shortcut", it.Label)
				continue
			}
			done, ok := effects[it.Label]
			if !ok {
				t.Errorf("%q: no effect to check; add it to this test", it.Label)
				continue
			}
			h.shell().showTab(tabEngineering)
			h.win.w.Canvas().Unfocus()
			shortcut(h, it.Shortcut)
			h.until(it.Label+" by its shortcut", done)
			closeOverlay()
		}
	}
	// Start from a theme no shortcut below sets first.
	h.win.prefs.SetString(prefTheme, "none")
	for _, m := range h.win.w.MainMenu().Items {
		walk(m.Items)
	}
}

// Without a desktop picker, Ctrl+O asks for a path that can be typed or
// pasted, a hidden folder too, and Enter indexes it.
func TestCtrlOWithoutADesktopPickerTakesATypedPath(t *testing.T) {
	eng := newFakeEngine(t.TempDir())
	h := newHarness(t, eng)
	hidden := filepath.Join(t.TempDir(), ".notes")
	if err := os.Mkdir(hidden, 0o755); err != nil {
		t.Fatal(err)
	}
	shortcut(h, shortcutAddFolder) // h.picked is empty: no desktop picker
	p := h.shell().IndexTab
	h.until("Cairn's folder picker", func() bool { return p.FolderDialog != nil })
	f := p.FolderDialog
	if h.win.w.Canvas().Focused() != f.Path {
		t.Errorf("focused %v, want the path box", h.win.w.Canvas().Focused())
	}
	if f.Browse.Hidden {
		t.Error("no Browse… beside the path box")
	}
	f.Path.SetText("")
	test.Type(f.Path, hidden)
	f.Path.TypedKey(&fyne.KeyEvent{Name: fyne.KeyReturn})
	h.until("the typed folder's run", func() bool {
		var got []string
		eng.locked(func() { got = eng.indexed })
		return slices.Equal(got, []string{hidden})
	})
	if h.win.w.Canvas().Overlays().Top() != nil {
		t.Error("the picker stayed open")
	}
}

// Browse… opens Fyne's folder dialog, which looks up the XDG folders of its
// sidebar (Desktop … Videos) and logs an error for each one the computer
// does not define or lacks; none of that reaches Cairn's log, and none of
// those folders is created.
func TestBrowseLogsNothingForMissingXDGFolders(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(home, ".config"))
	var logged bytes.Buffer
	prev, flags := log.Writer(), log.Flags()
	log.SetOutput(&logged)
	t.Cleanup(func() { log.SetOutput(prev); log.SetFlags(flags) })

	h := newHarness(t, newFakeEngine(t.TempDir()))
	shortcut(h, shortcutAddFolder)
	p := h.shell().IndexTab
	h.until("Cairn's folder picker", func() bool { return p.FolderDialog != nil })
	before := h.win.w.Canvas().Overlays().List()
	test.Tap(p.FolderDialog.Browse)
	h.until("Fyne's folder dialog", func() bool { return len(h.win.w.Canvas().Overlays().List()) > len(before) })
	log.Print("a later line") // lines after the dialog's still pass

	if strings.Contains(logged.String(), "favorite") || strings.Contains(logged.String(), "VIDEOS") {
		t.Errorf("logged Fyne's favourite-folder lookup:\n%s", logged.String())
	}
	if !strings.Contains(logged.String(), "a later line") {
		t.Errorf("the log lost a later line:\n%q", logged.String())
	}
	for _, name := range []string{"Desktop", "Documents", "Downloads", "Music", "Pictures", "Videos"} {
		if _, err := os.Stat(filepath.Join(home, name)); err == nil {
			t.Errorf("%s was created in the home folder", name)
		}
	}
}

// A theme chosen while another tab is in front reaches the tabs behind it:
// Fyne themes only the tab in front, and the Index tab's file paths and
// folder details stayed in the dark theme's white on the light theme's
// white.
func TestThemeReachesTheTabsBehind(t *testing.T) {
	h := newHarness(t, newFakeEngine(t.TempDir()))
	s := h.shell()
	choose := func(label string) {
		for _, m := range h.win.w.MainMenu().Items {
			for _, it := range m.Items {
				if it.ChildMenu == nil {
					continue
				}
				for _, c := range it.ChildMenu.Items {
					if c.Label == label {
						c.Action()
					}
				}
			}
		}
	}
	texts := func(root fyne.CanvasObject) []*canvas.Text {
		var out []*canvas.Text
		for _, o := range find(root, func(o fyne.CanvasObject) bool { _, ok := o.(*canvas.Text); return ok }) {
			if tx := o.(*canvas.Text); strings.TrimSpace(tx.Text) != "" {
				out = append(out, tx)
			}
		}
		return out
	}
	darkFG := cairntheme.New(cairntheme.Dark).Color(theme.ColorNameForeground, theme.VariantDark)
	inFront := func(fg color.Color) bool {
		for _, tx := range texts(s.Query.State) {
			if tx.Color != fg {
				return false
			}
		}
		return true
	}

	choose("Dark")
	h.until("the dark theme", func() bool { return inFront(darkFG) })
	p, _ := indexedFolder(h)
	s.showTab(tabIndex)
	h.frame()
	h.until("the file list", func() bool { return len(p.Files.Shown()) > 0 })
	h.frame()
	s.showTab(tabAsk)
	h.frame()
	choose("Light")
	h.until("the light theme on the tab in front", func() bool {
		return inFront(cairntheme.New(cairntheme.Light).Color(theme.ColorNameForeground, theme.VariantLight))
	})
	s.showTab(tabIndex)
	h.frame()
	for _, tx := range texts(p.Content()) {
		if tx.Color == darkFG {
			t.Errorf("%q is drawn in the dark theme's foreground on the light theme", tx.Text)
		}
	}
}

// Every dialog answers Enter and Escape, beyond those of
// TestDialogsAnswerEnterAndEscape: the network switch (Escape stays,
// Enter switches), the health report, the knowledge-base dialogs, Cairn's
// folder picker and the notice that the settings were not loaded.
func TestEveryOtherDialogAnswersEnterAndEscape(t *testing.T) {
	eng := newFakeEngine(t.TempDir())
	settingsErr := fault.New(fault.ConfigUnreadable, "settings /home/ann/.config/cairn/settings.json",
		"fix the file or delete it", errors.New(`json: unknown field "top_kk"`))
	h := startHarness(t, func(context.Context, string, config.Config) (Engine, error) { return eng, nil }, eng.Config(), func(o *Options) {
		o.SettingsErr = settingsErr
		o.Doctor = func(context.Context, string, config.Config) []health.Check {
			return []health.Check{{Verdict: health.Pass, Name: "integrity", Detail: "ok"}}
		}
	})
	key := func(name fyne.KeyName) { h.win.w.Canvas().OnTypedKey()(&fyne.KeyEvent{Name: name}) }
	open := func() bool { return h.win.w.Canvas().Overlays().Top() != nil }

	if !hasLabel(h.overlay(), "Cairn started with the default settings") {
		t.Fatal("no notice that the settings were not loaded")
	}
	key(fyne.KeyEscape)
	if open() {
		t.Fatal("Escape left the settings notice open")
	}
	h.until("the panels to work", func() bool { return h.shell().ready == 3 })
	h.win.w.Canvas().Unfocus()

	e := h.shell().Tuning
	e.Gate.SetSelected("online")
	h.overlay()
	key(fyne.KeyEscape)
	if open() || e.Gate.Selected != "offline" {
		t.Errorf("Escape in the network switch: dialog open %v, picker %q; want it closed, offline", open(), e.Gate.Selected)
	}
	e.Gate.SetSelected("online")
	h.overlay()
	key(fyne.KeyReturn)
	h.until("Enter to switch to online", func() bool { return slices.Equal(eng.switches(), []string{"online"}) })
	if open() {
		t.Error("Enter left the network switch open")
	}

	h.win.showHealth()
	h.until("the health report", func() bool { return strings.Contains(h.win.healthView.String(), "integrity") })
	key(fyne.KeyEscape)
	if open() {
		t.Error("Escape left the health report open")
	}

	h.win.showOpenKB() // no knowledge base file yet: a notice
	h.overlay()
	key(fyne.KeyReturn)
	if open() {
		t.Error("Enter left the notice that there is no knowledge base open")
	}
	kbDir := filepath.Join(eng.Config().Paths.DataDir, "kb")
	for _, name := range []string{"default", "work"} {
		if err := os.MkdirAll(kbDir, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(kbDir, name+".db"), nil, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	h.win.showOpenKB()
	h.overlay()
	key(fyne.KeyEscape)
	if open() || h.win.kb != "default" {
		t.Errorf("Escape in Open knowledge base: dialog open %v, knowledge base %q", open(), h.win.kb)
	}
	h.win.showNewKB()
	h.overlay()
	h.win.w.Canvas().Unfocus()
	key(fyne.KeyEscape)
	if open() || h.win.kb != "default" {
		t.Errorf("Escape in New knowledge base: dialog open %v, knowledge base %q", open(), h.win.kb)
	}

	h.shell().IndexTab.Apply(panels.ShowFolderDialog{}) // Cairn's picker: a path box and Browse…
	h.overlay()
	h.win.w.Canvas().Unfocus()
	key(fyne.KeyEscape)
	if open() {
		t.Error("Escape left Cairn's folder picker open")
	}

	// The window's own keys work again: Escape cancels the Index tab's run.
	eng.indexGate = make(chan struct{})
	p := startIndexing(h, t.TempDir())
	h.until("the run", func() bool { return !p.CancelButton.Disabled() })
	h.shell().showTab(tabIndex)
	h.win.w.Canvas().Unfocus()
	key(fyne.KeyEscape)
	h.until("Escape to cancel the run", func() bool { return strings.HasPrefix(p.State.Text, "Cancelled") })
}

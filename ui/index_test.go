package ui

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/storage"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"cairn/core/config"
	"cairn/core/domain"
	"cairn/panels"
)

// startIndexing types folder into the panel and presses Start.
func startIndexing(h *harness, folder string) *panels.IndexTab {
	p := h.shell().IndexTab
	p.Folder.SetText("")
	test.Type(p.Folder, folder)
	test.Tap(p.StartButton)
	return p
}

// indexedFolder indexes a new folder through the panel, waits for the run
// and the folder list, and selects the folder.
func indexedFolder(h *harness) (*panels.IndexTab, string) {
	h.t.Helper()
	dir := h.t.TempDir()
	p := startIndexing(h, dir)
	h.until("the folder list", func() bool { return p.Folders.Length() == 1 && strings.HasPrefix(p.State.Text, "Indexed") })
	p.Folders.Select(0)
	return p, dir
}

func fileRows(p *panels.IndexTab) []string {
	var out []string
	for _, r := range p.Files.Shown() {
		out = append(out, r.String())
	}
	return out
}

func TestIndexingShowsProgressAndDisablesWhatCannotRun(t *testing.T) {
	eng := newFakeEngine(t.TempDir())
	eng.indexGate = make(chan struct{})
	h := newHarness(t, eng)
	dir := t.TempDir()
	p := startIndexing(h, dir)

	h.until("the first file", func() bool { return len(p.Files.Shown()) == 1 })
	if got, want := p.Progress.Text, "1 / 3 files · 2 chunks · 100 B / 400 B · about 0:42 left"; got != want {
		t.Errorf("progress %q, want %q", got, want)
	}
	if p.Bar.Value != 0.25 {
		t.Errorf("progress bar at %v, want 0.25 (100 of 400 bytes)", p.Bar.Value)
	}
	if p.Current.Text != "/docs/a.md" {
		t.Errorf("current file %q", p.Current.Text)
	}
	if !p.StartButton.Disabled() || p.CancelButton.Disabled() || !p.Reindex.Disabled() || !p.Remove.Disabled() {
		t.Errorf("while running: Start disabled %v, Cancel disabled %v, Re-index disabled %v, Remove disabled %v",
			p.StartButton.Disabled(), p.CancelButton.Disabled(), p.Reindex.Disabled(), p.Remove.Disabled())
	}

	close(eng.indexGate)
	h.until("the end of the run", func() bool { return strings.HasPrefix(p.State.Text, "Indexed ") })
	want := "Indexed " + dir + ". 4 files seen: 1 indexed, 1 unchanged, 1 skipped, 1 failed, 0 removed; 2 chunks in 0:00." +
		" See why in the file list (filter: not indexed)."
	if p.State.Text != want {
		t.Errorf("state %q\nwant  %q", p.State.Text, want)
	}
	if p.Bar.Value != 1 || !p.StartButton.Disabled() == true && p.CancelButton.Disabled() != true {
		t.Errorf("after the run: bar %v, Cancel disabled %v", p.Bar.Value, p.CancelButton.Disabled())
	}
	if p.StartButton.Disabled() || !p.CancelButton.Disabled() {
		t.Errorf("after the run: Start disabled %v, Cancel disabled %v", p.StartButton.Disabled(), p.CancelButton.Disabled())
	}
	if got := fileRows(p); !slices.Equal(got, []string{
		"indexed\t/docs/a.md\t", "skipped\t/docs/scan.png\timage without OCR",
		"failed\t/docs/broken.pdf\tpdf: bad xref table", "unchanged\t/docs/b.md\t"}) {
		t.Errorf("file list %q", got)
	}

	p.Files.Filter.SetSelected(panels.FilterProblems)
	want2 := []string{"skipped\t/docs/scan.png\timage without OCR", "failed\t/docs/broken.pdf\tpdf: bad xref table"}
	if got := fileRows(p); !slices.Equal(got, want2) {
		t.Errorf("not indexed: %q", got)
	}
	test.Tap(p.Files.Copy)
	if got := h.app.Clipboard().Content(); got != strings.Join(want2, "\n")+"\n" {
		t.Errorf("copied %q", got)
	}
	test.Type(p.Files.Search, "xref")
	if got := fileRows(p); !slices.Equal(got, want2[1:]) {
		t.Errorf("filtered by text: %q", got)
	}

	h.until("the folder list", func() bool { return p.Folders.Length() == 1 })
	h.shell().showTab(tabIndex)
	h.frame()
	infos := find(p.Folders, func(o fyne.CanvasObject) bool {
		l, ok := o.(*widget.Label)
		return ok && strings.Contains(l.Text, "chunks")
	})
	if len(infos) != 1 || infos[0].(*widget.Label).Text != "1 document · 2 chunks · 2 files not indexed · last run done just now" {
		var texts []string
		for _, o := range infos {
			texts = append(texts, o.(*widget.Label).Text)
		}
		t.Errorf("folder row %q", texts)
	}
}

func TestCancelStopsIndexing(t *testing.T) {
	eng := newFakeEngine(t.TempDir())
	eng.indexGate = make(chan struct{}) // never opened: only Cancel ends the run
	h := newHarness(t, eng)
	dir := t.TempDir()
	p := startIndexing(h, dir)
	h.until("the run to start", func() bool { return !p.CancelButton.Disabled() })
	test.Tap(p.CancelButton)
	h.until("the cancellation", func() bool { return strings.HasPrefix(p.State.Text, "Cancelled "+dir) })
	eng.locked(func() {
		if eng.cancelledRun != 1 {
			t.Errorf("the engine's Index saw %d cancellations, want 1", eng.cancelledRun)
		}
	})
	if p.StartButton.Disabled() || !p.CancelButton.Disabled() {
		t.Errorf("after cancel: Start disabled %v, Cancel disabled %v", p.StartButton.Disabled(), p.CancelButton.Disabled())
	}
	// Where it stopped, not a finished run: 1 of 3 files, 100 of 400 bytes
	// read when Cancel came. The bar reads by bytes, as while it ran; it
	// read by files (1/3) after a cancel.
	if p.Bar.Value != 0.25 {
		t.Errorf("bar at %v after a cancel at 100 of 400 bytes, want 0.25", p.Bar.Value)
	}
	if want := "Stopped at 1 of 3 files, 100 B of 400 B read (25 % of the bytes)"; !strings.HasPrefix(p.Progress.Text, want) || !strings.Contains(p.Progress.Text, "Resume continues it") {
		t.Errorf("progress line %q, want it to start %q and say Resume continues it", p.Progress.Text, want)
	}
	if p.Folder.Text != dir || p.StartButton.Text != "Resume" {
		t.Errorf("folder box %q, button %q; want %q and Resume", p.Folder.Text, p.StartButton.Text, dir)
	}
	// The line and the button name the same word: the line said "Start
	// again" beside a button that read Resume.
	for _, l := range []string{p.Progress.Text, p.State.Text} {
		if strings.Contains(l, "Start") || !strings.Contains(l, "Resume") {
			t.Errorf("%q names another word than the button's Resume", l)
		}
	}
	// Read whole, across the line: it was cut at "2,735 c…" in half of it.
	h.shell().showTab(tabIndex)
	h.win.w.Resize(smallestCanvas())
	h.frame()
	if p.Progress.Truncation != fyne.TextTruncateOff || p.Progress.Wrapping != fyne.TextWrapWord || p.Current.Visible() ||
		p.Progress.Size().Width < p.Bar.Size().Width-1 {
		t.Errorf("the stopped run's line is cut (truncation %v, wrapping %v) or %v wide of the bar's %v", p.Progress.Truncation,
			p.Progress.Wrapping, p.Progress.Size().Width, p.Bar.Size().Width)
	}

	test.Tap(p.StartButton)
	h.until("the run to resume", func() bool { return !p.CancelButton.Disabled() })
	eng.locked(func() {
		if !slices.Equal(eng.indexed, []string{dir, dir}) {
			t.Errorf("indexed %q, want %s twice", eng.indexed, dir)
		}
	})
	if p.StartButton.Text != "Start" && p.StartButton.Text != "Resume" {
		t.Errorf("button %q", p.StartButton.Text)
	}
}

func TestIndexingAFileOrAMissingFolderSaysWhy(t *testing.T) {
	h := newHarness(t, newFakeEngine(t.TempDir()))
	file := filepath.Join(t.TempDir(), "notes.txt")
	os.WriteFile(file, []byte("x"), 0o600)
	p := startIndexing(h, file)
	h.until("the refusal", func() bool { return p.State.Text == file+" is a file; choose the folder that holds it" })
	startIndexing(h, "/no/such/folder")
	h.until("the refusal", func() bool { return strings.HasPrefix(p.State.Text, "cannot index /no/such/folder") })
}

func TestRemoveFolderAsksFirst(t *testing.T) {
	h := newHarness(t, newFakeEngine(t.TempDir()))
	p, dir := indexedFolder(h)
	if p.Remove.Disabled() || p.Reindex.Disabled() {
		t.Fatalf("with a folder selected: Remove disabled %v, Re-index disabled %v", p.Remove.Disabled(), p.Reindex.Disabled())
	}
	test.Tap(p.Remove)
	test.Tap(button(t, h.overlay(), "Yes"))
	h.until("the folder to go", func() bool { return p.Folders.Length() == 0 })
	if !strings.HasPrefix(p.State.Text, "Removed "+dir) {
		t.Errorf("state %q", p.State.Text)
	}
}

// With store.backend weaviate, Remove says that the folder leaves the team
// cluster for everyone, with its files and chunks, before it asks; the bar
// then follows the removal's rounds, and the end says what was removed.
func TestRemovingAFolderFromTheTeamClusterSaysSoAndShowsProgress(t *testing.T) {
	eng := newFakeEngine(t.TempDir())
	eng.cfg.Store = config.Store{Backend: config.BackendWeaviate, URL: "http://team.example:8080"}
	eng.removeGate = make(chan struct{})
	h := newHarness(t, eng)
	p, dir := indexedFolder(h)
	size := domain.FolderSize{Folder: dir, Files: 1, Chunks: 2}
	eng.locked(func() {
		eng.removeSteps = []domain.Removal{{FolderSize: size}, {FolderSize: size, FilesRemoved: 1, ChunksRemoved: 1}}
	})

	test.Tap(p.Remove)
	var texts []string
	for _, o := range find(h.overlay(), func(o fyne.CanvasObject) bool { _, ok := o.(*widget.Label); return ok }) {
		texts = append(texts, o.(*widget.Label).Text)
	}
	want := "Remove " + dir + " from the team cluster at http://team.example:8080?\n" +
		"Its 1 file and 2 chunks are removed for everyone who searches the cluster.\nThe files themselves are not touched."
	if !slices.Contains(texts, want) || !slices.Contains(texts, "Remove folder from the team cluster?") {
		t.Fatalf("the dialog says %q, want %q", texts, want)
	}
	test.Tap(button(t, h.overlay(), "Yes"))
	h.until("the removal's progress", func() bool {
		return p.State.Text == "Removing "+dir+" from the team cluster at http://team.example:8080: 1 of 2 chunks removed…"
	})
	if p.Busy.Visible() || !p.Bar.Visible() || p.Bar.Value != 2.0/3 {
		t.Errorf("while removing: busy bar %v, bar %v at %v; want the bar at 2/3 (1 file and 1 chunk of 3 objects)", p.Busy.Visible(), p.Bar.Visible(), p.Bar.Value)
	}
	close(eng.removeGate)
	h.until("the folder to go", func() bool { return p.Folders.Length() == 0 })
	if want := "Removed " + dir + " from the team cluster at http://team.example:8080: 1 file and 2 chunks, for everyone who searches it; " +
		"the files themselves are untouched."; p.State.Text != want {
		t.Errorf("after: %q, want %q", p.State.Text, want)
	}
}

// A removed folder leaves nothing a click could index again by accident,
// and the seconds a large removal takes show as work in progress.
func TestRemovedFolderLeavesNoTrace(t *testing.T) {
	eng := newFakeEngine(t.TempDir())
	eng.removeGate = make(chan struct{})
	other := "/elsewhere/kept.md"
	h := newHarness(t, eng)
	dir := t.TempDir()
	eng.locked(func() {
		eng.indexFiles = []domain.FileEvent{
			{Path: filepath.Join(dir, "a.md"), Status: domain.StatusIndexed, Chunks: 2, Bytes: 100},
			{Path: other, Status: domain.StatusFailed, Reason: "broken"},
		}
	})
	p := startIndexing(h, dir)
	h.until("the folder list", func() bool { return p.Folders.Length() == 1 && strings.HasPrefix(p.State.Text, "Indexed") })
	p.Folders.Select(0)
	if p.Folder.Text != dir || len(p.Files.Shown()) != 2 {
		t.Fatalf("before: folder box %q, %d files listed", p.Folder.Text, len(p.Files.Shown()))
	}

	test.Tap(p.Remove)
	test.Tap(button(t, h.overlay(), "Yes"))
	if !p.Busy.Visible() || !p.Remove.Disabled() || !p.StartButton.Disabled() || !p.Reindex.Disabled() {
		t.Errorf("while removing: busy bar %v, Remove disabled %v, Start disabled %v, Re-index disabled %v",
			p.Busy.Visible(), p.Remove.Disabled(), p.StartButton.Disabled(), p.Reindex.Disabled())
	}
	if want := "Removing " + dir + " and its 2 chunks"; !strings.HasPrefix(p.State.Text, want) {
		t.Errorf("state %q, want it to start %q", p.State.Text, want)
	}
	close(eng.removeGate)
	h.until("the folder to go", func() bool { return p.Folders.Length() == 0 })
	if !strings.HasPrefix(p.State.Text, "Removed "+dir) || p.Busy.Visible() {
		t.Errorf("after: state %q, busy bar %v", p.State.Text, p.Busy.Visible())
	}
	if p.Folder.Text != "" || !p.StartButton.Disabled() {
		t.Errorf("after: folder box %q, Start disabled %v; want empty and disabled", p.Folder.Text, p.StartButton.Disabled())
	}
	if rows := p.Files.Shown(); len(rows) != 1 || rows[0].Path != other {
		t.Errorf("after: files listed %v, want only %s", fileRows(p), other)
	}
}

func TestReindexSelectedFolder(t *testing.T) {
	eng := newFakeEngine(t.TempDir())
	h := newHarness(t, eng)
	p, _ := indexedFolder(h)
	test.Tap(p.Reindex)
	h.until("a second run", func() bool {
		n := 0
		eng.locked(func() { n = len(eng.indexed) })
		return n == 2
	})
}

// TestRetryFailedReadsTheFilesNotIndexedAgain: a folder with files not
// indexed has Retry failed, which runs it through Engine.RetryFailed (the
// files that wait for a change are read now); Re-index does not (issue 43,
// item 4).
func TestRetryFailedReadsTheFilesNotIndexedAgain(t *testing.T) {
	eng := newFakeEngine(t.TempDir())
	h := newHarness(t, eng)
	p, dir := indexedFolder(h)
	if p.Retry.Disabled() {
		t.Fatal("Retry failed is disabled for a folder with 2 files not indexed")
	}
	// The retrying run waits after its first file until the window shows
	// it running, so that "Indexed" below is its end, not the first run's.
	gate := make(chan struct{})
	eng.locked(func() { eng.indexGate = gate })
	test.Tap(p.Retry)
	h.until("a run that retries", func() bool {
		n := 0
		eng.locked(func() { n = len(eng.retried) })
		return n == 1
	})
	h.until("the retrying run shown", func() bool { return !p.CancelButton.Disabled() && p.Retry.Disabled() })
	close(gate)
	h.until("the run's end", func() bool { return strings.HasPrefix(p.State.Text, "Indexed") && !p.Retry.Disabled() })
	test.Tap(p.Reindex)
	h.until("a third run", func() bool {
		n := 0
		eng.locked(func() { n = len(eng.indexed) })
		return n == 3
	})
	eng.locked(func() {
		if !slices.Equal(eng.retried, []string{dir}) {
			t.Errorf("retried %v, want only %s once", eng.retried, dir)
		}
	})
}

func TestChooseUsesTheNativePickerElseFynesDialog(t *testing.T) {
	h := newHarness(t, newFakeEngine(t.TempDir()))
	p := h.shell().IndexTab
	dir := t.TempDir()
	h.mu.Lock()
	h.picked = dir
	h.mu.Unlock()
	test.Tap(p.ChooseButton)
	h.until("the chosen folder", func() bool { return p.Folder.Text == dir })

	h.mu.Lock()
	h.picked = "" // no zenity or kdialog
	h.mu.Unlock()
	test.Tap(p.ChooseButton)
	h.until("Fyne's folder dialog", func() bool { return h.win.w.Canvas().Overlays().Top() != nil })
}

func TestWatchedFolderIsReindexedWhenAFileChanges(t *testing.T) {
	eng := newFakeEngine(t.TempDir())
	h := newHarness(t, eng)
	p, dir := indexedFolder(h)
	runs := func() int {
		n := 0
		eng.locked(func() { n = len(eng.indexed) })
		return n
	}
	watched := func() (w []string) {
		eng.locked(func() { w = slices.Clone(eng.watched) })
		return w
	}
	test.Tap(p.Watch)
	h.until("the watch, recorded in the knowledge base", func() bool { return p.Watch.Checked && slices.Equal(watched(), []string{dir}) })
	time.Sleep(100 * time.Millisecond) // let the watch be set up
	os.WriteFile(filepath.Join(dir, "new.md"), []byte("# new"), 0o600)
	h.until("a run after the change", func() bool { return runs() == 2 })

	h.until("the run to end", func() bool { return strings.HasPrefix(p.State.Text, "Indexed") && p.Folders.Length() == 1 })
	p.Folders.Select(0)
	// The tap toggles what the box shows: wait until it shows the folder
	// as watched (a folder list still in flight can show it later), or the
	// tap would turn the watch on instead.
	h.until("the folder shown as watched", func() bool { return p.Watch.Checked && p.Watch.Visible() })
	h.loop.settle(100 * time.Millisecond)
	test.Tap(p.Watch) // off
	h.until("the watch to stop", func() bool { return !p.Watch.Checked && len(watched()) == 0 })
	os.WriteFile(filepath.Join(dir, "later.md"), []byte("# later"), 0o600)
	h.loop.settle(500 * time.Millisecond)
	if n := runs(); n != 2 {
		t.Errorf("%d runs after the watch was turned off, want 2", n)
	}
}

// TestWatchedFoldersComeFromTheKnowledgeBase: the window watches what the
// knowledge base records as watched (a list another window, or an earlier
// session, left there), and a list an older Cairn kept in the window's
// preferences is moved into the knowledge base and dropped from them.
func TestWatchedFoldersComeFromTheKnowledgeBase(t *testing.T) {
	eng := newFakeEngine(t.TempDir())
	recorded, legacy := t.TempDir(), t.TempDir()
	eng.watched = []string{recorded}
	open := func(context.Context, string, config.Config) (Engine, error) { return eng, nil }
	h := startHarnessEnv(t, open, eng.Config(), func(*windowEnv) {
		fyne.CurrentApp().Preferences().SetString(prefWatched+"default", legacy) // the test app newWindow gets
	})
	h.until("the panels to work", func() bool { return h.shell().ready == 3 })
	want := []string{recorded, legacy}
	slices.Sort(want)
	h.until("both folders watched and recorded", func() bool {
		var w []string
		eng.locked(func() { w = slices.Clone(eng.watched) })
		return slices.Equal(w, want)
	})
	h.until("the preferences' old list dropped", func() bool { return h.win.prefs.String(prefWatched+"default") == "" })
	runs := func() (n int) {
		eng.locked(func() { n = len(eng.indexed) })
		return n
	}
	before := runs()
	time.Sleep(100 * time.Millisecond) // let the watches be set up
	os.WriteFile(filepath.Join(recorded, "new.md"), []byte("# new"), 0o600)
	h.until("a run of the recorded folder after a change", func() bool { return runs() > before })
}

func TestIssuesOfEarlierRunsAreListed(t *testing.T) {
	eng := newFakeEngine(t.TempDir())
	eng.issues = []domain.Issue{{Path: "/docs/secret.pdf", Kind: "failed", Reason: "encrypted PDF: needs a password", At: time.Date(2026, 11, 2, 9, 30, 0, 0, time.Local)}}
	h := newHarness(t, eng)
	p := h.shell().IndexTab
	h.until("the issue", func() bool { return len(p.Files.Shown()) == 1 })
	if got := fileRows(p)[0]; got != "failed\t/docs/secret.pdf\tencrypted PDF: needs a password (2 Nov 09:30)" {
		t.Errorf("row %q", got)
	}
}

func TestDroppedFolderIsIndexed(t *testing.T) {
	eng := newFakeEngine(t.TempDir())
	h := newHarness(t, eng)
	dir := t.TempDir()
	file := filepath.Join(t.TempDir(), "report.pdf")
	os.WriteFile(file, []byte("%PDF"), 0o600)
	h.win.dropped(fyne.NewPos(10, 10), []fyne.URI{storage.NewFileURI(dir), storage.NewFileURI(file)})
	if h.shell().Tabs.SelectedIndex() != tabIndex {
		t.Error("dropping did not show the Index tab")
	}
	h.until("the dropped folder's run", func() bool {
		var got []string
		eng.locked(func() { got = eng.indexed })
		return slices.Equal(got, []string{dir})
	})
	p := h.shell().IndexTab
	h.until("the end of the run", func() bool { return strings.HasPrefix(p.State.Text, "Indexed") })
}

// The Files filter shows its longest choice whole at the smallest window,
// where Fyne's Select alone cut it to "Not indexe…".
func TestFileFilterShowsItsLongestChoiceAtTheSmallestWindow(t *testing.T) {
	h := newHarness(t, newFakeEngine(t.TempDir()))
	f := h.shell().IndexTab.Files.Filter
	f.SetSelected(panels.FilterProblems)
	h.win.w.Resize(smallestCanvas())
	h.frame()
	need := fyne.MeasureText(panels.FilterProblems, theme.TextSize(), fyne.TextStyle{}).Width +
		theme.IconInlineSize() + theme.InnerPadding() + 4*theme.Padding()
	if f.Size().Width < need {
		t.Errorf("the filter is %v wide, %q needs %v", f.Size().Width, f.Selected, need)
	}
}

// Opening a knowledge base that already has documents does not report a
// run of the user guide: it said "Indexed the user guide. 0 files seen"
// under a full bar at every start.
func TestAKnowledgeBaseWithDocumentsReportsNoGuideRun(t *testing.T) {
	h := newHarness(t, newFakeEngine(t.TempDir())) // EnsureStarterKB: not empty, nothing indexed
	p := h.shell().IndexTab
	h.until("the panels to work", func() bool { return h.shell().ready == 3 })
	h.settle(100 * time.Millisecond)
	if strings.Contains(p.State.Text, "user guide") || p.Bar.Value != 0 {
		t.Errorf("state %q, bar %v; want no run reported", p.State.Text, p.Bar.Value)
	}
}

// The folder list follows a run of another process (`cairn index DIR` in a
// terminal): the status bar counted the new folder at once, but the list
// showed it only after an index run in the window, 20 s and more later.
func TestTheFolderListFollowsAnotherProcesssRun(t *testing.T) {
	cfg, open := realEngine(t)
	h := newHarnessWith(t, open, cfg)
	p := h.shell().IndexTab
	h.until("the user guide", func() bool { return strings.HasPrefix(p.State.Text, "Indexed the user guide") })
	h.until("its folder", func() bool { return p.Folders.Length() == 1 })

	other, err := open(context.Background(), cfg.Paths.KB, cfg) // as another process would
	if err != nil {
		t.Fatal(err)
	}
	corpus := copyCorpus(t)
	if _, err := other.IndexFolder(context.Background(), corpus, nil); err != nil {
		t.Fatal(err)
	}
	other.Close()
	h.until("the other run's folder in the list", func() bool { return p.Folders.Length() == 2 })
	if f := p.Folders; f.Length() != 2 {
		t.Errorf("%d folders listed", f.Length())
	}
}

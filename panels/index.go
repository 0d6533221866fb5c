package panels

import (
	"cairn/core/domain"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"
)

// IndexTab is the indexing panel: a folder picker with Start and Cancel, the
// knowledge base's folders with Re-index, Retry failed, Remove and Watch, a progress bar
// with files, chunks, MB, rate and time left, and the per-file status list.
type IndexTab struct {
	Folder       *Entry
	ChooseButton *Button
	StartButton  *Button
	CancelButton *Button
	Folders      *List
	Reindex      *Button
	Retry        *Button // re-index the selected folder, reading again the files it could not index
	Remove       *Button
	Watch        *widget.Check
	Bar          *widget.ProgressBar
	Busy         *widget.ProgressBarInfinite // while a folder is removed: one transaction, no steps to count
	Progress     *widget.Label               // files, chunks, MB, rate, time left
	Current      *widget.Label               // the file being read
	State        *widget.Label               // what happened last
	Files        *fileLog
	FolderDialog *FolderDialog // the last folder picker of Cairn's own

	win     fyne.Window
	post    func(IndexRequest)
	content fyne.CanvasObject

	ready    bool
	running  string // folder being indexed; "" when idle
	folders  []domain.Folder
	watching map[string]bool
	ranOnce  bool   // a run was shown in the file list
	selected string // folder selected in the list
	filling  bool   // code is setting Watch; not a click
	// resumable is the folder whose run was cancelled: Start, then named
	// Resume, resumes it.
	resumable string
	removing  string // folder being removed; "" when none
	// cluster names the team cluster the folders are in ("the team
	// cluster at URL"); "" for the knowledge base file.
	cluster string
	// currentAge counts the updates since the file being read was last
	// shown; see showProgress.
	currentAge int
}

// currentEvery is how many progress updates show one file being read:
// about one a second, which can be read, where five a second flicker; and
// each new text is drawn anew, the largest part of an update's cost.
const currentEvery = 5

// NewIndexTab builds the index panel. It hands its requests to post, which
// must not block (the window's goroutine calls it), and stays disabled
// until an IndexReady event arrives.
func NewIndexTab(w fyne.Window, clip fyne.Clipboard, post func(IndexRequest)) *IndexTab {
	p := &IndexTab{win: w, post: post, watching: map[string]bool{}}
	p.Folder = NewEntry()
	p.Folder.SetPlaceHolder("Folder to index, e.g. " + filepath.Join("~", "Documents"))
	p.Folder.OnChanged = func(string) { p.sync() }
	p.Folder.OnSubmitted = func(string) { p.Start() }
	p.ChooseButton = NewButtonWithIcon("Choose…", theme.FolderOpenIcon(), func() { p.Choose(false) })
	p.StartButton = NewButtonWithIcon("Start", theme.MediaPlayIcon(), p.Start)
	p.StartButton.Importance = widget.HighImportance
	p.CancelButton = NewButtonWithIcon("Cancel", theme.CancelIcon(), p.Cancel)

	p.Folders = NewList(
		func() int { return len(p.folders) },
		func() fyne.CanvasObject {
			path := widget.NewLabel("")
			path.TextStyle.Bold = true
			path.Truncation = fyne.TextTruncateEllipsis
			info := widget.NewLabel("")
			return container.NewBorder(nil, nil, nil, info, path)
		},
		func(id widget.ListItemID, o fyne.CanvasObject) {
			if id >= len(p.folders) {
				return
			}
			f := p.folders[id]
			c := o.(*fyne.Container)
			setText(c.Objects[0].(*widget.Label), f.Path)
			setText(c.Objects[1].(*widget.Label), folderInfo(f, p.watching[f.Path], time.Now()))
		})
	p.Folders.OnSelected = func(id widget.ListItemID) {
		if id < len(p.folders) {
			p.selected = p.folders[id].Path
		}
		p.sync()
	}
	p.Folders.OnUnselected = func(widget.ListItemID) { p.selected = ""; p.sync() }
	p.Reindex = NewButtonWithIcon("Re-index", theme.ViewRefreshIcon(), func() {
		if p.selected != "" {
			p.post(IndexFolder{Path: p.selected})
		}
	})
	p.Retry = NewButtonWithIcon("Retry failed", theme.MediaReplayIcon(), func() {
		if p.selected != "" {
			p.post(IndexFolder{Path: p.selected, Retry: true})
		}
	})
	p.Remove = NewButtonWithIcon("Remove", theme.DeleteIcon(), p.confirmRemove)
	p.Watch = widget.NewCheck("Re-index when files change", func(on bool) {
		if !p.filling && p.selected != "" {
			p.post(WatchFolder{Path: p.selected, On: on})
		}
	})

	p.Bar = widget.NewProgressBar()
	p.Busy = widget.NewProgressBarInfinite()
	p.Busy.Stop()
	p.Busy.Hide()
	p.Progress = widget.NewLabel("")
	// Labels that change at every progress update are cut, not sized to
	// their text: a label whose width follows its text changes the panel's
	// minimum size, and Fyne then lays out the whole window again and
	// draws a second frame, for each update.
	p.Progress.Truncation = fyne.TextTruncateEllipsis
	p.Current = widget.NewLabel("")
	p.Current.Truncation = fyne.TextTruncateEllipsis
	p.Current.TextStyle.Italic = true
	p.Current.Hide()
	p.Progress.Hide()
	p.State = widget.NewLabel("Opening the knowledge base…")
	p.State.Wrapping = fyne.TextWrapWord
	p.Files = newFileLog(clip, func(s string) { p.State.SetText(s) })

	picker := container.NewBorder(nil, nil, widget.NewLabel("Folder"),
		container.NewHBox(p.ChooseButton, p.StartButton, p.CancelButton), p.Folder)
	// The counts and the file being read share a line, the folder list's
	// buttons the heading's, and the file list's summary its heading's (in
	// fileLog): the tab fits the smallest window while a run goes on.
	run := container.NewVBox(picker, p.Bar, p.Busy, container.New(runLine{}, p.Progress, p.Current), p.State)
	folders := container.NewBorder(
		container.NewBorder(nil, nil,
			widget.NewLabelWithStyle("Folders in this knowledge base", fyne.TextAlignLeading, fyne.TextStyle{Bold: true}),
			container.NewHBox(p.Reindex, p.Retry, p.Remove, p.Watch)),
		nil, nil, nil, p.Folders)
	files := p.Files.content
	split := container.NewVSplit(folders, files)
	split.Offset = 0.35
	p.content = container.NewBorder(run, nil, nil, nil, split)
	p.sync()
	return p
}

// Content is the panel's root object.
func (p *IndexTab) Content() fyne.CanvasObject { return p.content }

// Choose opens the folder picker; with start, the chosen folder is indexed.
func (p *IndexTab) Choose(start bool) {
	if p.ready {
		p.post(ChooseFolder{Start: start})
	}
}

// Start indexes the folder in the entry.
func (p *IndexTab) Start() {
	path := strings.TrimSpace(p.Folder.Text)
	if !p.ready || p.running != "" || path == "" {
		return
	}
	p.post(IndexFolder{Path: path})
}

// Cancel stops the running run.
func (p *IndexTab) Cancel() {
	if p.running != "" {
		p.post(CancelIndex{})
	}
}

// IndexPath indexes path, e.g. a folder dropped on the window.
func (p *IndexTab) IndexPath(path string) {
	if p.ready {
		p.post(IndexFolder{Path: path})
	}
}

func (p *IndexTab) confirmRemove() {
	path := p.selected
	if path == "" {
		return
	}
	title, text := "Remove folder?", fmt.Sprintf("Forget %s and everything indexed from it?\nThe files themselves are not touched.", path)
	if p.cluster != "" {
		f := p.folder(path)
		title = "Remove folder from the team cluster?"
		text = fmt.Sprintf("Remove %s from %s?\nIts %s and %s are removed for everyone who searches the cluster.\nThe files themselves are not touched.",
			path, p.cluster, plural(f.Documents, "file", "files"), plural(f.Chunks, "chunk", "chunks"))
	}
	ShowConfirm(title, text,
		func(ok bool) {
			if ok {
				p.removeStarted(path)
				p.post(RemoveFolder{Path: path})
			}
		}, p.win)
}

// Apply shows the worker's events; call it on the window's goroutine.
func (p *IndexTab) Apply(events ...IndexEvent) {
	var last *domain.Progress
	files := false
	for _, ev := range events {
		switch ev := ev.(type) {
		case IndexReady:
			p.ready = true
			p.State.SetText("Choose a folder and press Start, or drop a folder on the window.")
		case FoldersListed:
			p.folders, p.watching, p.cluster = ev.Folders, ev.Watching, ev.Cluster
			p.Folders.Refresh()
			p.reselect()
		case IssuesListed:
			// Until a run is shown, the list holds the files that earlier
			// runs could not index; after, it keeps the last run's files.
			if p.running == "" && !p.ranOnce {
				p.Files.reset()
				p.Files.addIssues(ev.Issues)
			}
		case Progressed:
			pr := ev.Progress
			if p.running == "" || pr.Folder != "" && pr.Folder != p.running {
				p.running, p.ranOnce = pr.Folder, true
				p.Files.reset()
			}
			if pr.File != nil {
				p.Files.addEvent(pr.File)
				files = true
			}
			last = &pr
		case IndexQueued:
			p.State.SetText(fmt.Sprintf("%s will be indexed when the current run ends.", ev.Path))
		case IndexFinished:
			if last != nil { // the run's last report, shown before the outcome
				p.showProgress(*last)
				last = nil
			}
			if files {
				p.Files.update()
				files = false
			}
			p.Files.flush()
			p.running = ""
			p.Current.SetText("")
			p.Current.Hide()
			p.State.SetText(finishedText(ev))
			p.resumable = ""
			if ev.Cancelled && ev.Run.Folder != "" {
				// Resume continues it: the folder goes back in the box.
				p.resumable = ev.Run.Folder
				p.Folder.SetText(ev.Run.Folder)
			}
			if ev.Err == nil && !ev.Cancelled {
				p.Bar.SetValue(1)
			}
		case RemoveProgressed:
			p.removeProgressed(ev)
		case FolderRemoved:
			p.removeEnded(ev)
		case FolderChosen:
			if ev.Path != "" {
				p.Folder.SetText(ev.Path)
				if ev.Start {
					p.Start()
				}
			}
		case ShowFolderDialog:
			p.showDialog(ev.Start)
		case IndexNotice:
			p.State.SetText(ev.Text)
		}
	}
	if last != nil {
		p.showProgress(*last)
	}
	if files {
		p.Files.update()
	}
	p.sync()
}

// showProgress shows a run's progress report on the bar and under it.
func (p *IndexTab) showProgress(pr domain.Progress) {
	if f := progressFraction(pr); p.Bar.Value != f {
		p.Bar.SetValue(f)
	}
	// While a run goes on the counts are cut to their half of the line
	// (see NewIndexTab); where it ended, the line is read once and whole:
	// a stopped run's was cut at "2,735 c…".
	fitProgress(p.Progress, pr.Phase == domain.PhaseDone)
	setText(p.Progress, progressText(pr))
	p.Progress.Show()
	if p.running != "" && pr.Phase != domain.PhaseDone {
		if p.currentAge++; p.Current.Text == "" || p.currentAge >= currentEvery {
			setText(p.Current, pr.Current)
			p.currentAge = 0
		}
		p.Current.Show()
		setText(p.State, "Indexing "+p.running+"…")
	}
}

// fitProgress cuts the progress line to its place while a run goes on
// (its width then never changes the window's layout), and wraps it whole
// once the run has ended.
func fitProgress(l *widget.Label, ended bool) {
	wrap, cut := fyne.TextWrapOff, fyne.TextTruncateEllipsis
	if ended {
		wrap, cut = fyne.TextWrapWord, fyne.TextTruncateOff
	}
	if l.Wrapping != wrap || l.Truncation != cut {
		l.Wrapping, l.Truncation = wrap, cut
		l.Refresh()
	}
}

// runLine lays the run's counts and the file being read side by side,
// half the line each, while a run goes on; the counts alone, as after a
// run, take the whole line.
type runLine struct{}

func (runLine) visible(objs []fyne.CanvasObject) []fyne.CanvasObject {
	var out []fyne.CanvasObject
	for _, o := range objs {
		if o.Visible() {
			out = append(out, o)
		}
	}
	return out
}

func (l runLine) MinSize(objs []fyne.CanvasObject) fyne.Size {
	var s fyne.Size
	for i, o := range l.visible(objs) {
		m := o.MinSize()
		if i > 0 {
			s.Width += theme.Padding()
		}
		s.Width += m.Width
		s.Height = max(s.Height, m.Height)
	}
	return s
}

func (l runLine) Layout(objs []fyne.CanvasObject, size fyne.Size) {
	vis := l.visible(objs)
	if len(vis) == 0 {
		return
	}
	w := (size.Width - theme.Padding()*float32(len(vis)-1)) / float32(len(vis))
	for i, o := range vis {
		o.Move(fyne.NewPos(float32(i)*(w+theme.Padding()), 0))
		o.Resize(fyne.NewSize(w, size.Height))
	}
}

// folder is the listed folder at path; a zero one when none is.
func (p *IndexTab) folder(path string) domain.Folder {
	for _, f := range p.folders {
		if f.Path == path {
			return f
		}
	}
	return domain.Folder{}
}

// removeStarted shows that path is being removed: from a knowledge base
// file, a removal is one transaction that takes seconds for a large
// folder, with no steps to count, so the bar moves without a measure and
// the state names its size; from a team cluster, the bar then follows the
// rounds (removeProgressed).
func (p *IndexTab) removeStarted(path string) {
	p.removing = path
	where := "the knowledge base"
	if p.cluster != "" {
		where = p.cluster
	}
	p.State.SetText(fmt.Sprintf("Removing %s and its %s from %s…", path, plural(p.folder(path).Chunks, "chunk", "chunks"), where))
	p.Bar.Hide()
	p.Busy.Show()
	p.Busy.Start()
	p.sync()
}

// removeProgressed shows how far a removal from a team cluster has gone:
// the files' fingerprints go first, then the chunks.
func (p *IndexTab) removeProgressed(ev RemoveProgressed) {
	r := ev.Removal
	if p.removing != ev.Path || r.Files+r.Chunks == 0 {
		return
	}
	p.Busy.Stop()
	p.Busy.Hide()
	p.Bar.SetValue(float64(r.FilesRemoved+r.ChunksRemoved) / float64(r.Files+r.Chunks))
	p.Bar.Show()
	setText(p.State, fmt.Sprintf("Removing %s from %s: %s of %s removed…", ev.Path, p.cluster,
		formatCount(r.ChunksRemoved), plural(r.Chunks, "chunk", "chunks")))
}

// removeEnded shows the outcome of a removal. A removed folder leaves no
// trace that a click could index again by accident: its path leaves the
// Folder box (so Start is off) and its files leave the file list.
func (p *IndexTab) removeEnded(ev FolderRemoved) {
	p.removing = ""
	p.Busy.Stop()
	p.Busy.Hide()
	p.Bar.Show()
	if ev.Err != nil {
		p.State.SetText("Could not remove " + ev.Path + ": " + ErrorText(ev.Err))
		return
	}
	if p.cluster != "" {
		r := ev.Removal
		p.State.SetText(fmt.Sprintf("Removed %s from %s: %s and %s, for everyone who searches it; the files themselves are untouched.",
			ev.Path, p.cluster, plural(r.FilesRemoved, "file", "files"), plural(r.ChunksRemoved, "chunk", "chunks")))
	} else {
		p.State.SetText("Removed " + ev.Path + " from the knowledge base; the files themselves are untouched.")
	}
	if within(strings.TrimSpace(p.Folder.Text), ev.Path) {
		p.Folder.SetText("")
	}
	if within(p.resumable, ev.Path) {
		p.resumable = ""
	}
	p.Files.dropUnder(ev.Path)
	p.Bar.SetValue(0)
	p.Progress.Hide()
}

// within says whether path is folder or inside it.
func within(path, folder string) bool {
	if path == "" {
		return false
	}
	path, folder = filepath.Clean(path), filepath.Clean(folder)
	return path == folder || strings.HasPrefix(path, folder+string(filepath.Separator))
}

// reselect keeps the selected folder selected when the list changes.
func (p *IndexTab) reselect() {
	for i, f := range p.folders {
		if f.Path == p.selected {
			p.Folders.Select(i)
			return
		}
	}
	p.selected = ""
	p.Folders.UnselectAll()
}

func (p *IndexTab) showDialog(start bool) {
	p.FolderDialog = showFolderDialog(p.win, p.Folder.Text, start, func(path string) {
		p.Apply(FolderChosen{Path: path, Start: start})
	})
}

func finishedText(ev IndexFinished) string {
	r := ev.Run
	took := r.FinishedAt.Sub(r.StartedAt)
	if r.FinishedAt.IsZero() {
		took = 0
	}
	sum := runSummary(r.FilesSeen, r.FilesIndexed, r.FilesUnchanged, r.FilesSkipped, r.FilesFailed, r.FilesRemoved, r.Chunks, took)
	switch {
	case ev.Cancelled:
		return "Cancelled " + ev.Path + ". What was indexed stays; Resume continues where it stopped. " + sum
	case ev.Err != nil:
		return "Indexing " + ev.Path + " failed: " + ErrorText(ev.Err)
	default:
		s := "Indexed " + ev.Path + ". " + sum
		if n := r.FilesSkipped + r.FilesFailed; n > 0 {
			s += " See why in the file list (filter: not indexed)."
		}
		return s
	}
}

// folderInfo is a folder's one-line summary.
func folderInfo(f domain.Folder, watching bool, now time.Time) string {
	parts := []string{plural(f.Documents, "document", "documents"), plural(f.Chunks, "chunk", "chunks")}
	if f.Issues > 0 {
		parts = append(parts, plural(f.Issues, "file not indexed", "files not indexed"))
	}
	if r := f.LastRun; r != nil {
		at := r.FinishedAt
		if at.IsZero() {
			at = r.StartedAt
		}
		parts = append(parts, "last run "+r.Status+" "+formatAgo(at, now))
	} else {
		parts = append(parts, "never indexed")
	}
	if watching {
		parts = append(parts, "watching")
	}
	return strings.Join(parts, " · ")
}

// sync enables the controls that make sense now.
func (p *IndexTab) sync() {
	idle := p.ready && p.running == "" && p.removing == ""
	enable(p.ChooseButton, p.ready)
	enable(p.StartButton, idle && strings.TrimSpace(p.Folder.Text) != "")
	start := "Start"
	if p.resumable != "" && strings.TrimSpace(p.Folder.Text) == p.resumable {
		start = "Resume"
	}
	if p.StartButton.Text != start {
		p.StartButton.SetText(start)
	}
	enable(p.CancelButton, p.running != "")
	enable(p.Reindex, idle && p.selected != "")
	// Files skipped or failed for a reason that stays while they do are
	// not read again until they change: this reads them now.
	enable(p.Retry, idle && p.selected != "" && p.folder(p.selected).Issues > 0)
	enable(p.Remove, idle && p.selected != "")
	enable(p.Watch, p.ready && p.selected != "")
	p.filling = true
	p.Watch.SetChecked(p.watching[p.selected])
	p.filling = false
}

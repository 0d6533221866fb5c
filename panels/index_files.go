package panels

import (
	"cairn/core/domain"
	"fmt"
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"
)

// FileRow is one file's outcome in the file list.
type FileRow struct {
	Path   string
	Status string // indexed, unchanged, skipped, failed, removed
	Reason string
}

// String is the row as copied: status, path and reason, tab-separated.
func (r FileRow) String() string { return r.Status + "\t" + r.Path + "\t" + r.Reason }

// File list filters.
const (
	FilterAll      = "All files"
	FilterProblems = "Not indexed (skipped or failed)"
)

var fileFilters = []string{FilterAll, FilterProblems,
	string(domain.StatusIndexed), string(domain.StatusUnchanged), string(domain.StatusSkipped),
	string(domain.StatusFailed), string(domain.StatusRemoved)}

// fileLog is the per-file status list: every file a run looked at, with
// what happened to it and why, filterable by status and text, copyable.
type fileLog struct {
	List    *List
	Filter  *widget.Select
	Search  *Entry
	Copy    *Button
	Summary *widget.Label

	rows    []FileRow
	shown   []int // indexes into rows that pass the filter
	checked int   // rows[:checked] have been run through the filter
	counts  map[string]int
	content fyne.CanvasObject
	// listed is the length the list shows: len(shown) when it was last
	// refreshed. Fyne reads a list's length at every frame to size its
	// scroller, so the list shows rows added since only when refreshed.
	listed int
	// behind counts the updates since the list was last refreshed whose
	// rows were not shown: they fell below the part in view, or outside
	// the filter; see update.
	behind int
	rowH   float32 // a row's height, measured once
}

// listCatchUp is how many updates the list may fall behind while a run
// adds rows below the part in view: about a second at the window's five
// updates a second, so its scroll bar still follows the run.
const listCatchUp = 5

func newFileLog(clip fyne.Clipboard, notify func(string)) *fileLog {
	l := &fileLog{counts: map[string]int{}}
	l.List = NewList(
		func() int { return l.listed },
		func() fyne.CanvasObject {
			status := widget.NewLabel("unchanged")
			status.TextStyle.Bold = true
			path := widget.NewLabel("")
			path.Truncation = fyne.TextTruncateEllipsis
			return container.NewBorder(nil, nil, status, nil, path)
		},
		func(id widget.ListItemID, o fyne.CanvasObject) {
			if id >= len(l.shown) {
				return
			}
			r := l.rows[l.shown[id]]
			c := o.(*fyne.Container)
			path, status := c.Objects[0].(*widget.Label), c.Objects[1].(*widget.Label)
			// The list refreshes its visible rows on every update; a label
			// whose text is unchanged is left alone, or it would lay its
			// text out again each time.
			if imp := statusImportance(r.Status); status.Text != r.Status || status.Importance != imp {
				status.Importance = imp
				status.SetText(r.Status)
			}
			text := r.Path
			if r.Reason != "" {
				text += "  —  " + r.Reason
			}
			setText(path, text)
		})
	l.Filter = widget.NewSelect(fileFilters, func(string) { l.refilter() })
	l.Filter.Selected = FilterAll
	l.Search = NewEntry()
	l.Search.SetPlaceHolder("Filter by path or reason")
	l.Search.OnChanged = func(string) { l.refilter() }
	l.Copy = NewButtonWithIcon("Copy list", theme.ContentCopyIcon(), func() {
		clip.SetContent(l.Text())
		notify(fmt.Sprintf("Copied %s to the clipboard (status, path, reason; tab-separated).", plural(len(l.shown), "row", "rows")))
	})
	l.Summary = widget.NewLabel("No indexing run yet.")
	l.Summary.TextStyle.Italic = true
	l.Summary.Truncation = fyne.TextTruncateEllipsis // its counts change during a run; see Index.Progress
	bar := container.NewBorder(nil, nil, wideSelect(l.Filter), l.Copy, l.Search)
	// The summary shares the heading's line: a line less for the smallest window.
	head := container.NewBorder(nil, nil, widget.NewLabelWithStyle("Files", fyne.TextAlignLeading, fyne.TextStyle{Bold: true}), nil, l.Summary)
	l.content = container.NewBorder(container.NewVBox(head, bar), nil, nil, nil, l.List)
	return l
}

func statusImportance(s string) widget.Importance {
	switch domain.Status(s) {
	case domain.StatusIndexed:
		return widget.SuccessImportance
	case domain.StatusSkipped:
		return widget.WarningImportance
	case domain.StatusFailed:
		return widget.DangerImportance
	default:
		return widget.LowImportance
	}
}

// reset empties the list for a new run.
func (l *fileLog) reset() {
	l.rows = nil
	clear(l.counts)
	l.refilter()
}

// dropUnder takes the files of folder (a removed folder) off the list.
func (l *fileLog) dropUnder(folder string) {
	kept := l.rows[:0]
	for _, r := range l.rows {
		if within(r.Path, folder) {
			l.counts[r.Status]--
			continue
		}
		kept = append(kept, r)
	}
	l.rows = kept
	l.refilter()
}

// addIssues lists files that earlier runs could not index.
func (l *fileLog) addIssues(issues []domain.Issue) {
	for _, is := range issues {
		l.add(FileRow{Path: is.Path, Status: is.Kind, Reason: is.Reason + " (" + is.At.Format("2 Jan 15:04") + ")"})
	}
	l.refilter()
}

// addEvent records one file's outcome; call update after a batch.
func (l *fileLog) addEvent(ev *domain.FileEvent) {
	l.add(FileRow{Path: ev.Path, Status: string(ev.Status), Reason: ev.Reason})
}

func (l *fileLog) add(r FileRow) {
	l.rows = append(l.rows, r)
	l.counts[r.Status]++
}

// matches reports whether r passes the status filter and contains q (lower
// case).
func (l *fileLog) matches(r FileRow, q string) bool {
	switch f := l.Filter.Selected; f {
	case FilterAll, "":
	case FilterProblems:
		if r.Status != string(domain.StatusSkipped) && r.Status != string(domain.StatusFailed) {
			return false
		}
	default:
		if r.Status != f {
			return false
		}
	}
	return q == "" || strings.Contains(strings.ToLower(r.Path), q) || strings.Contains(strings.ToLower(r.Reason), q)
}

// refilter runs every row through the filter again (the filter changed).
func (l *fileLog) refilter() {
	l.shown, l.checked = l.shown[:0], 0
	l.listed = -1 // other rows, maybe as many: update refreshes the list
	l.update()
}

// update filters the rows added since the last update: a run of 20,000
// files costs each batch only its own rows, so the window keeps up. The
// list and its counts are refreshed only when a new row can be in view,
// to catch up every listCatchUp updates, and by flush: refreshing a list
// whose length changed makes Fyne lay out its scroller again in the next
// frame and draw a second frame for it, and each new text of the counts is
// drawn anew, so that every update cost the window two full repaints for
// rows no one could see.
func (l *fileLog) update() {
	added := l.checked < len(l.rows)
	q := strings.ToLower(strings.TrimSpace(l.Search.Text))
	for i := l.checked; i < len(l.rows); i++ {
		if l.matches(l.rows[i], q) {
			l.shown = append(l.shown, i)
		}
	}
	l.checked = len(l.rows)
	switch {
	case l.listed < 0: // filtered again
		l.refreshList()
	case !added:
	case l.listed != len(l.shown) && l.listed <= l.lastInView(), l.behind+1 >= listCatchUp:
		l.refreshList()
	default:
		l.behind++
	}
}

// flush refreshes a list that fell behind (a run ended).
func (l *fileLog) flush() {
	if l.behind > 0 || l.listed != len(l.shown) {
		l.refreshList()
	}
}

// refreshList shows the rows and their counts as they are now; the
// counts change with the list, not between its refreshes.
func (l *fileLog) refreshList() {
	l.listed, l.behind = len(l.shown), 0
	l.List.Refresh()
	l.summarize()
}

// lastInView is the index of the last row the list can show at its size
// and scroll offset; it errs high, which only refreshes more often.
func (l *fileLog) lastInView() int {
	if l.rowH == 0 {
		l.rowH = widget.NewLabel("unchanged").MinSize().Height
	}
	return int((l.List.GetScrollOffset()+l.List.Size().Height)/l.rowH) + 1
}

// summarize counts the rows by status under the list's filter bar.
func (l *fileLog) summarize() {
	if len(l.rows) == 0 {
		setText(l.Summary, "No files yet.")
		return
	}
	var parts []string
	for _, s := range []domain.Status{domain.StatusIndexed, domain.StatusUnchanged, domain.StatusSkipped, domain.StatusFailed, domain.StatusRemoved} {
		if n := l.counts[string(s)]; n > 0 {
			parts = append(parts, fmt.Sprintf("%s %s", formatCount(n), s))
		}
	}
	setText(l.Summary, fmt.Sprintf("%s (%s); showing %s.", plural(len(l.rows), "file", "files"),
		strings.Join(parts, ", "), formatCount(len(l.shown))))
}

// Shown returns the rows that pass the filter, in order.
func (l *fileLog) Shown() []FileRow {
	out := make([]FileRow, len(l.shown))
	for i, j := range l.shown {
		out[i] = l.rows[j]
	}
	return out
}

// Text is the shown rows as tab-separated lines, for the clipboard.
func (l *fileLog) Text() string {
	var b strings.Builder
	for _, r := range l.Shown() {
		b.WriteString(r.String())
		b.WriteByte('\n')
	}
	return b.String()
}

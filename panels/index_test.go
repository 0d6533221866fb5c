package panels

import (
	"cairn/core/domain"
	"fmt"
	"strings"
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/widget"
)

// newTestIndex is the index panel in a window of the default size, ready.
func newTestIndex(t *testing.T) *IndexTab {
	t.Helper()
	app := test.NewTempApp(t)
	w := test.NewWindow(nil)
	t.Cleanup(w.Close)
	p := NewIndexTab(w, app.Clipboard(), func(IndexRequest) {})
	w.SetContent(p.Content())
	w.Resize(fyne.NewSize(1100, 760))
	p.Apply(IndexReady{})
	return p
}

// filesRead is one progress update of a run over /docs that read files
// [from, from+n) of total.
func filesRead(from, n, total int) []IndexEvent {
	var evs []IndexEvent
	for i := from; i < from+n; i++ {
		evs = append(evs, Progressed{Progress: domain.Progress{
			Folder: "/docs", Phase: domain.PhaseIndexing, FilesTotal: total, FilesDone: i + 1,
			Chunks: 7 * (i + 1), Bytes: int64(i+1) << 12, BytesTotal: int64(total) << 12,
			Elapsed: time.Duration(i+1) * 40 * time.Millisecond, ETA: time.Duration(total-i) * 40 * time.Millisecond,
			Current: fmt.Sprintf("/docs/%s/page-%d.txt", strings.Repeat("sub", i%9), i),
			File:    &domain.FileEvent{Path: fmt.Sprintf("/docs/page-%d.txt", i), Status: domain.StatusIndexed},
		}})
	}
	return evs
}

// The labels a run rewrites at every update keep their minimum size: a
// label sized to its text changes the panel's, and Fyne then lays the
// whole window out again and draws it twice for each update.
func TestProgressUpdatesKeepTheirLabelsMinimumSize(t *testing.T) {
	p := newTestIndex(t)
	p.Apply(filesRead(0, 1, 18036)...)
	labels := map[string]*widget.Label{"progress": p.Progress, "file being read": p.Current, "file counts": p.Files.Summary}
	first := map[string]fyne.Size{}
	for name, l := range labels {
		first[name] = l.MinSize()
	}
	for _, n := range []int{1, 9, 90, 900, 9000} {
		p.Apply(filesRead(n, 1, 18036)...)
		for name, l := range labels {
			if got := l.MinSize(); got != first[name] {
				t.Errorf("after %d files the %s label (%q) needs %v, after the first %v", n+1, name, l.Text, got, first[name])
			}
		}
	}
	if !strings.HasPrefix(p.Progress.Text, "9,001 / 18,036 files · 63,007 chunks") {
		t.Errorf("progress %q", p.Progress.Text)
	}
}

// New files in view are listed at once; files below the rows in view
// are listed every listCatchUp updates, and all of them when the run ends.
func TestFileListListsFilesInViewAtOnceAndTheRestWhenTheRunEnds(t *testing.T) {
	p := newTestIndex(t)
	listed := func() int { return p.Files.List.Length() }

	p.Apply(filesRead(0, 2, 500)...)
	if listed() != 2 {
		t.Fatalf("after 2 files the list shows %d rows", listed())
	}
	p.Apply(filesRead(2, 100, 500)...) // the 3rd row is in view: listed at once
	if listed() != 102 {
		t.Fatalf("after 102 files the list shows %d rows", listed())
	}
	next := 102
	for i := 1; i < listCatchUp; i++ { // rows below the view wait
		p.Apply(filesRead(next, 10, 500)...)
		next += 10
		if listed() != 102 {
			t.Fatalf("update %d below the view: the list shows %d rows, want the 102 of before", i, listed())
		}
	}
	p.Apply(filesRead(next, 10, 500)...) // catches up
	next += 10
	if listed() != next {
		t.Fatalf("after %d updates the list shows %d rows, want %d", listCatchUp, listed(), next)
	}
	if got := len(p.Files.Shown()); got != next {
		t.Fatalf("%d files shown (copied), want every file read: %d", got, next)
	}

	p.Files.List.ScrollToBottom() // someone watching the newest files
	p.Apply(filesRead(next, 5, 500)...)
	next += 5
	if listed() != next {
		t.Errorf("scrolled to the end, the list shows %d rows, want %d", listed(), next)
	}

	p.Files.List.ScrollToTop()
	p.Apply(filesRead(next, 3, 500)...)
	next += 3
	p.Apply(IndexFinished{Path: "/docs", Run: domain.Run{Folder: "/docs", Status: domain.RunDone, FilesSeen: next, FilesIndexed: next}})
	if listed() != next {
		t.Errorf("after the run the list shows %d rows, want all %d", listed(), next)
	}
	if got := p.Files.Summary.Text; got != fmt.Sprintf("%d files (%d indexed); showing %d.", next, next, next) {
		t.Errorf("summary %q", got)
	}
}

// While a filter hides a run's files, the counts over the list still
// follow the run, and say at its end how many files it read.
func TestFileCountsFollowARunTheFilterHides(t *testing.T) {
	p := newTestIndex(t)
	p.Files.Filter.SetSelected(FilterProblems)
	next := 0
	for range listCatchUp {
		p.Apply(filesRead(next, 10, 500)...)
		next += 10
	}
	if got, want := p.Files.Summary.Text, fmt.Sprintf("%d files (%d indexed); showing 0.", next, next); got != want {
		t.Errorf("after %d updates: %q, want %q", listCatchUp, got, want)
	}
	p.Apply(filesRead(next, 3, 500)...)
	next += 3
	p.Apply(IndexFinished{Path: "/docs", Run: domain.Run{Folder: "/docs", Status: domain.RunDone, FilesSeen: next, FilesIndexed: next}})
	if got, want := p.Files.Summary.Text, fmt.Sprintf("%d files (%d indexed); showing 0.", next, next); got != want {
		t.Errorf("after the run: %q, want %q", got, want)
	}
}

// The file being read changes once a second, five updates, not at every
// update: it can be read, and each new text costs the window a drawing.
func TestTheFileBeingReadIsShownOnceASecond(t *testing.T) {
	p := newTestIndex(t)
	p.Apply(filesRead(0, 1, 500)...)
	first := p.Current.Text
	if first != "/docs//page-0.txt" {
		t.Fatalf("first file being read %q", first)
	}
	for i := 1; i < currentEvery; i++ {
		p.Apply(filesRead(i, 1, 500)...)
		if p.Current.Text != first {
			t.Fatalf("update %d shows %q; the first file stays a second", i+1, p.Current.Text)
		}
	}
	p.Apply(filesRead(currentEvery, 1, 500)...)
	if want := fmt.Sprintf("/docs/%s/page-%d.txt", strings.Repeat("sub", currentEvery%9), currentEvery); p.Current.Text != want {
		t.Errorf("after a second: %q, want %q", p.Current.Text, want)
	}
	p.Apply(IndexFinished{Path: "/docs", Run: domain.Run{Folder: "/docs", Status: domain.RunDone}})
	p.Apply(filesRead(0, 1, 500)...) // the next run shows its first file at once
	if p.Current.Text != first {
		t.Errorf("the next run's first update shows %q", p.Current.Text)
	}
}

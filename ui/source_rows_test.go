package ui

import (
	"testing"

	"fyne.io/fyne/v2"

	"cairn/core/search"
)

// With the preview open, at every width, no source's folder is drawn over
// its place ("lines 3-5"), and every row puts its buttons the same way:
// all beside the head or all under it. A row with a long file name had its
// buttons under the head while the others had them beside theirs, and its
// folder, squeezed to less than a letter and an ellipsis, was drawn over
// the place beside it.
func TestSourceRowsAgreeAndKeepTheirFolderInPlace(t *testing.T) {
	eng := newFakeEngine(t.TempDir())
	long := *passA
	long.Path = "/home/someone/Documents/manuals/networking/the-x200-router-administration-and-reset-guide-second-edition.md"
	eng.cands = func() *search.Candidates {
		c := fakeCandidates()
		c.Passages[1] = &long
		return c
	}
	h := newHarness(t, eng)
	q := askedAndRanked(t, h)
	q.Rows()[0].Open.Tapped(&fyne.PointEvent{})
	h.until("the preview", func() bool { return q.Preview.Visible() })
	d := fyne.CurrentApp().Driver()
	for _, width := range []float32{926, 1100, 1300, 1580} {
		h.win.w.Resize(fyne.NewSize(width, 760))
		h.frame()
		h.frame()
		var beside []bool
		for _, r := range q.Rows() {
			if r.Folder.Visible() {
				end := d.AbsolutePositionForObject(r.Folder).X + r.Folder.MinSize().Width
				if where := d.AbsolutePositionForObject(r.Where).X; end > where+1 {
					t.Errorf("at %v px: %s's folder %q ends at %v, over its place %q at %v", width, r.Title.Text, r.Folder.Text, end, r.Where.Text, where)
				}
			}
			beside = append(beside, d.AbsolutePositionForObject(r.Open).Y < d.AbsolutePositionForObject(r.Title).Y+r.Title.Size().Height)
		}
		for i := range beside {
			if beside[i] != beside[0] {
				t.Errorf("at %v px: buttons beside the head %v, rows %q", width, beside, titles(q))
				break
			}
		}
	}
}

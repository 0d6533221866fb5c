package panels

import (
	"strings"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/widget"

	"cairn/core/config"
	"cairn/core/search"
)

// A knob's row keeps its height when its help becomes "cannot change the
// order now: …" (longer, so more lines): the rows below it moved while a
// slider was dragged, and the drag landed on the next slider.
func TestKnobRowsKeepTheirHeightWhenAHelpChanges(t *testing.T) {
	test.NewTempApp(t)
	e := NewEngineering(test.NewTempWindow(t, nil), func(QueryRequest) {}, func(SettingsRequest) {})
	e.Apply(TuningLoaded{Settings: config.Default("desktop")})
	w := test.NewTempWindow(t, e.Content())
	w.Resize(fyne.NewSize(926, 900))
	layout := func() { // as a frame of the desktop driver does
		w.Content().Refresh()
		w.Resize(fyne.NewSize(927, 900))
		w.Resize(fyne.NewSize(926, 900))
	}
	live := func(inert map[string]string) {
		e.Apply(LiveRanking{Inert: inert})
		layout()
	}
	rrfk, pool := e.Knob("retrieval.rrf_k"), e.Knob("retrieval.bm25_pool")
	live(nil)
	y := func() float32 { return fyne.CurrentApp().Driver().AbsolutePositionForObject(pool.Slider).Y }
	before, helpBefore := y(), rrfk.Help.Size().Height
	why := "one ranked list (bm25 only): rrf_k cannot change the order of these sources"
	live(map[string]string{search.KnobRRFK: why})
	if !strings.HasPrefix(rrfk.Help.Text, "cannot change the order now: one ranked list") {
		t.Fatalf("rrf_k's help %q", rrfk.Help.Text)
	}
	if rrfk.Help.MinSize().Height <= textHeight(rrfk.Knob.Help, rrfk.Help.Size().Width) {
		t.Fatalf("the reason takes no more lines than the help (%v): the test needs a narrower column", rrfk.Help.MinSize().Height)
	}
	if after := y(); after != before {
		t.Errorf("the BM25 pool's slider moved from y %v to %v when rrf_k's help changed", before, after)
	}
	live(nil)
	if after := y(); after != before || rrfk.Help.Size().Height != helpBefore {
		t.Errorf("back to its help: the slider below is at y %v (was %v), the row %v high (was %v)", after, before,
			rrfk.Help.Size().Height, helpBefore)
	}
}

// textHeight is the height of a wrapped label of text, width wide.
func textHeight(text string, width float32) float32 {
	l := widget.NewLabel(text)
	l.Wrapping = fyne.TextWrapWord
	l.Resize(fyne.NewSize(width, l.MinSize().Height))
	return l.MinSize().Height
}

package panels

import (
	"strings"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/widget"

	"cairn/core/search"
)

// rowTexts lists the rows the RichText draws: its pieces of text joined
// by their height on the widget.
func rowTexts(rt *widget.RichText) []string {
	var out []string
	lastY := float32(-1)
	for _, o := range test.WidgetRenderer(rt).Objects() {
		t, ok := o.(*canvas.Text)
		if !ok || t.Text == "" {
			continue
		}
		if y := t.Position().Y; y != lastY || len(out) == 0 {
			out = append(out, "")
			lastY = y
		}
		out[len(out)-1] += t.Text
	}
	return out
}

// A highlighted word that starts near the end of a row goes whole to the
// next row, at every width: Fyne 2.7 alone drew "R", "E", "S", "E", "T" one
// per row at some widths (seen in the Ask tab's smallest screenshot).
func TestAHighlightedWordIsNeverBrokenIntoLetters(t *testing.T) {
	test.NewTempApp(t)
	text := "Router X200 user manual Getting started Connect the X200 to your modem with the supplied Ethernet cable. " +
		"To reset the device to its factory settings, press and hold the RESET button on the back panel for ten seconds."
	var spans []search.Span
	for _, w := range []string{"Router", "reset", "factory settings", "RESET"} {
		i := strings.Index(text, w)
		spans = append(spans, search.Span{Start: i, End: i + len(w)})
	}
	rt := widget.NewRichText()
	rt.Wrapping = fyne.TextWrapWord
	wrap, box := newSoftWrap(rt)
	wrap.set(highlighted(text, spans))
	for width := float32(120); width <= 900; width += 3 {
		box.Resize(fyne.NewSize(width, 400))
		if got := rt.String(); got != text {
			t.Fatalf("width %.0f: the text reads %q", width, got)
		}
		for _, piece := range rowTexts(rt) {
			if p := strings.TrimSpace(piece); len(p) == 1 {
				t.Fatalf("width %.0f: a row holds the letter %q alone: %q", width, p, rowTexts(rt))
			}
		}
	}
}

// breakRows ends a row before the word that does not fit, cutting the
// segment there, and leaves the text as it was.
func TestBreakRowsEndsARowBeforeTheWordThatDoesNotFit(t *testing.T) {
	test.NewTempApp(t)
	segs := highlighted("press and hold the RESET button", []search.Span{{Start: 19, End: 24}})
	avail := fyne.MeasureText("press and hold the", fyne.CurrentApp().Settings().Theme().Size("text"), fyne.TextStyle{}).Width + 2
	out := breakRows(segs, avail)
	var parts []string
	for _, s := range out {
		ts := s.(*widget.TextSegment)
		mark := ""
		if !ts.Style.Inline {
			mark = "|"
		}
		parts = append(parts, ts.Text+mark)
	}
	if got := strings.Join(parts, ""); got != "press and hold the |RESET button|" {
		t.Errorf("rows %q", got)
	}
	if got := breakRows(segs, 0); len(got) != len(segs) {
		t.Errorf("not laid out yet: %d segments, want the %d given", len(got), len(segs))
	}
}

package panels

import (
	"strings"
	"unicode"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"
)

// softWrap keeps every row of a RichText within its width by ending rows
// itself, between words, before Fyne has to. Fyne 2.7's word wrap breaks a
// styled piece (a highlighted term, an [n] link's neighbour) that starts
// near a row's end into one letter per row (fyne-io/fyne#4303, fixed in
// 2.8, which the module proxy here does not serve). Rows that already fit
// never reach that code.
//
// The segments are split only at row ends, so the RichText's String() is
// the same at every width.
type softWrap struct {
	rt    *widget.RichText
	segs  []widget.RichTextSegment // the text as laid out for any width
	width float32
}

// newSoftWrap returns rt's wrapper and the container to place instead of
// rt.
func newSoftWrap(rt *widget.RichText) (*softWrap, *fyne.Container) {
	w := &softWrap{rt: rt}
	return w, container.New(w, rt)
}

// set shows segs, broken into rows for the current width.
func (w *softWrap) set(segs []widget.RichTextSegment) {
	w.segs = segs
	w.apply()
}

func (w *softWrap) apply() {
	avail := w.width - 2*theme.InnerPadding() - softWrapSlack
	w.rt.Segments = breakRows(w.segs, avail)
	w.rt.Refresh()
}

// softWrapSlack keeps a row a few pixels short of the width, against
// rounding between this measure and Fyne's.
const softWrapSlack = 4

// Layout breaks the rows again when the width changes.
func (w *softWrap) Layout(objs []fyne.CanvasObject, size fyne.Size) {
	if size.Width != w.width {
		w.width = size.Width
		w.apply()
	}
	for _, o := range objs {
		o.Move(fyne.NewPos(0, 0))
		o.Resize(size)
	}
}

// MinSize is the RichText's, which follows the rows of the last layout.
func (w *softWrap) MinSize([]fyne.CanvasObject) fyne.Size { return w.rt.MinSize() }

// breakRows returns segs with a row ended before each word that would go
// past avail (no change for avail <= 0: not laid out yet). A row ends after
// a segment that is not inline: a text segment is cut at the word and its
// first part made a block; after a link, an empty block follows it.
func breakRows(segs []widget.RichTextSegment, avail float32) []widget.RichTextSegment {
	if avail <= 0 {
		return segs
	}
	out := make([]widget.RichTextSegment, 0, len(segs))
	var x float32
	endRow := func() {
		if n := len(out); n > 0 {
			if ts, ok := out[n-1].(*widget.TextSegment); ok {
				ts.Style.Inline = false
				x = 0
				return
			}
		}
		out = append(out, &widget.TextSegment{Style: widget.RichTextStyleParagraph})
		x = 0
	}
	for _, s := range segs {
		ts, ok := s.(*widget.TextSegment)
		if !ok {
			if s.Inline() {
				if w := s.Visual().MinSize().Width; x > 0 && x+w > avail {
					endRow()
				} else {
					x += w
				}
			}
			out = append(out, s)
			if !s.Inline() {
				x = 0
			}
			continue
		}
		size := theme.TextSize()
		if ts.Style.SizeName != "" {
			size = theme.Size(ts.Style.SizeName)
		}
		measure := func(t string) float32 { return fyne.MeasureText(t, size, ts.Style.TextStyle).Width }
		text, start := ts.Text, 0
		for _, w := range words(text) {
			word := strings.TrimRightFunc(text[w[0]:w[1]], unicode.IsSpace)
			if ww := measure(word); x > 0 && x+ww > avail {
				if w[0] > start {
					part := *ts
					part.Text = text[start:w[0]]
					out = append(out, &part)
					start = w[0]
				}
				endRow()
			}
			x += measure(text[w[0]:w[1]])
		}
		rest := *ts
		rest.Text = text[start:]
		out = append(out, &rest)
		if !ts.Style.Inline {
			x = 0
		}
	}
	return out
}

// words returns the [start, end) of each word of t with the spaces after
// it; leading spaces belong to the first.
func words(t string) [][2]int {
	var out [][2]int
	start, inSpace := 0, false
	for i, r := range t {
		space := unicode.IsSpace(r)
		if !space && inSpace && i > start {
			out = append(out, [2]int{start, i})
			start = i
		}
		inSpace = space
	}
	if start < len(t) {
		out = append(out, [2]int{start, len(t)})
	}
	return out
}

package panels

import (
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"
)

// formGrid lays out objects in rows of three: a name column as wide as the
// widest name, a control column taking the free width, and a help column.
// It keeps sliders of different knobs aligned, which a grid of equal
// columns would not.
//
// A wrapped help label reports one glyph as its smallest width, so sizing
// the help column by the labels' minimum drew a column of wrapped helps one
// letter per line, hundreds of pixels tall. The column is instead as wide as
// the widest one-line help, and when a help wraps, at least helpShare of the
// width left after the names (never narrower than its longest word), so long
// helps wrap into a few lines beside their sliders.
//
// A row keeps its height when its help changes: alts, when set, gives a
// help's other texts (a knob's "cannot change the order now: …"), and each
// row is as tall as the tallest of them at the help's width, so that a
// slider below does not move while another is dragged.
type formGrid struct {
	alts    func(help fyne.CanvasObject) []string
	heights map[altKey]float32 // measured alternatives
}

type altKey struct {
	text  string
	width float32
}

// helpShare is the part of the width after the name column that wrapped
// helps get; the control keeps the rest (and at least controlMin).
const (
	helpShare  = 0.45
	controlMin = 160
)

func newFormGrid() fyne.Layout { return &formGrid{} }

// newSteadyFormGrid is a formGrid whose rows keep their height through the
// texts alts gives for each help.
func newSteadyFormGrid(alts func(help fyne.CanvasObject) []string) fyne.Layout {
	return &formGrid{alts: alts, heights: map[altKey]float32{}}
}

// rowHeight is the height of the row of name, control and help with the
// help width wide: the tallest of the three, and of the help's other texts.
func (g *formGrid) rowHeight(name, control, help fyne.CanvasObject, width float32) float32 {
	h := max(name.MinSize().Height, control.MinSize().Height, help.MinSize().Height)
	l, ok := help.(*widget.Label)
	if g.alts == nil || !ok || width <= 0 {
		return h
	}
	for _, t := range g.alts(help) {
		k := altKey{t, width}
		ah, ok := g.heights[k]
		if !ok {
			scratch := widget.NewLabel(t)
			scratch.Wrapping, scratch.TextStyle, scratch.SizeName = l.Wrapping, l.TextStyle, l.SizeName
			scratch.Resize(fyne.NewSize(width, scratch.MinSize().Height))
			ah = scratch.MinSize().Height
			if len(g.heights) > 512 { // widths change as the window is resized
				clear(g.heights)
			}
			g.heights[k] = ah
		}
		h = max(h, ah)
	}
	return h
}

// columns measures the visible cells: the name column's width, the widest
// one-line help, the widest word of wrapped helps (0 when none wraps) and
// the widest control.
func (*formGrid) columns(objs []fyne.CanvasObject) (name, help, word, control float32) {
	for i, o := range objs {
		if !o.Visible() {
			continue
		}
		switch i % 3 {
		case 0:
			name = max(name, o.MinSize().Width)
		case 1:
			control = max(control, o.MinSize().Width)
		case 2:
			if w := wrappedWordWidth(o); w > 0 {
				word = max(word, w)
			} else {
				help = max(help, o.MinSize().Width)
			}
		}
	}
	return name, help, word, max(control, controlMin)
}

// wrappedWordWidth is the width a wrapped label needs for its longest word,
// padding included; 0 for anything else.
func wrappedWordWidth(o fyne.CanvasObject) float32 {
	l, ok := o.(*widget.Label)
	if !ok || l.Wrapping == fyne.TextWrapOff {
		return 0
	}
	size := theme.TextSize()
	if l.SizeName != "" {
		size = theme.Size(l.SizeName)
	}
	var w float32
	for _, f := range strings.Fields(l.Text) {
		w = max(w, fyne.MeasureText(f, size, l.TextStyle).Width)
	}
	return w + 2*theme.InnerPadding()
}

// helpWidth is the help column's width in a grid width wide.
func (g *formGrid) helpWidth(objs []fyne.CanvasObject, width float32) (name, help float32) {
	pad := theme.Padding()
	name, help, word, control := g.columns(objs)
	if word == 0 {
		return name, help
	}
	free := width - name - 2*pad
	share := min(free*helpShare, free-control)
	return name, max(help, word, share)
}

func (g *formGrid) Layout(objs []fyne.CanvasObject, size fyne.Size) {
	pad := theme.Padding()
	name, help := g.helpWidth(objs, size.Width)
	control := max(size.Width-name-help-2*pad, 0)
	y := float32(0)
	for i := 0; i+2 < len(objs); i += 3 {
		// The help is laid out at its width first: a wrapped label's height
		// follows from it.
		objs[i+2].Resize(fyne.NewSize(help, objs[i+2].Size().Height))
		h := g.rowHeight(objs[i], objs[i+1], objs[i+2], help)
		objs[i].Move(fyne.NewPos(0, y))
		objs[i].Resize(fyne.NewSize(name, h))
		// The control keeps its own height, centred, when its help wraps
		// to more lines than it needs: a stretched picker looks like a box.
		ch := objs[i+1].MinSize().Height
		objs[i+1].Move(fyne.NewPos(name+pad, y+(h-ch)/2))
		objs[i+1].Resize(fyne.NewSize(control, ch))
		objs[i+2].Move(fyne.NewPos(name+control+2*pad, y))
		objs[i+2].Resize(fyne.NewSize(help, h))
		y += h + pad
	}
}

func (g *formGrid) MinSize(objs []fyne.CanvasObject) fyne.Size {
	pad := theme.Padding()
	name, help, word, control := g.columns(objs)
	var h float32
	for i := 0; i+2 < len(objs); i += 3 {
		h += g.rowHeight(objs[i], objs[i+1], objs[i+2], objs[i+2].Size().Width) + pad
	}
	return fyne.NewSize(name+control+max(help, word)+2*pad, max(h-pad, 0))
}

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
type formGrid struct{}

// helpShare is the part of the width after the name column that wrapped
// helps get; the control keeps the rest (and at least controlMin).
const (
	helpShare  = 0.45
	controlMin = 160
)

func newFormGrid() fyne.Layout { return formGrid{} }

// columns measures the visible cells: the name column's width, the widest
// one-line help, the widest word of wrapped helps (0 when none wraps) and
// the widest control.
func (formGrid) columns(objs []fyne.CanvasObject) (name, help, word, control float32) {
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
func (g formGrid) helpWidth(objs []fyne.CanvasObject, width float32) (name, help float32) {
	pad := theme.Padding()
	name, help, word, control := g.columns(objs)
	if word == 0 {
		return name, help
	}
	free := width - name - 2*pad
	share := min(free*helpShare, free-control)
	return name, max(help, word, share)
}

func (g formGrid) Layout(objs []fyne.CanvasObject, size fyne.Size) {
	pad := theme.Padding()
	name, help := g.helpWidth(objs, size.Width)
	control := max(size.Width-name-help-2*pad, 0)
	y := float32(0)
	for i := 0; i+2 < len(objs); i += 3 {
		// The help is laid out at its width first: a wrapped label's height
		// follows from it.
		objs[i+2].Resize(fyne.NewSize(help, objs[i+2].Size().Height))
		h := max(objs[i].MinSize().Height, objs[i+1].MinSize().Height, objs[i+2].MinSize().Height)
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

func (g formGrid) MinSize(objs []fyne.CanvasObject) fyne.Size {
	pad := theme.Padding()
	name, help, word, control := g.columns(objs)
	var h float32
	for i := 0; i+2 < len(objs); i += 3 {
		h += max(objs[i].MinSize().Height, objs[i+1].MinSize().Height, objs[i+2].MinSize().Height) + pad
	}
	return fyne.NewSize(name+control+max(help, word)+2*pad, max(h-pad, 0))
}

package panels

import (
	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/theme"
)

// formGrid lays out objects in rows of three: a name column as wide as the
// widest name, a control column taking the free width, and a help column
// as wide as the widest help text. It keeps sliders of different knobs
// aligned, which a grid of equal columns would not.
type formGrid struct{}

func newFormGrid() fyne.Layout { return formGrid{} }

func (formGrid) widths(objs []fyne.CanvasObject) (name, help float32) {
	for i, o := range objs {
		if !o.Visible() {
			continue
		}
		switch i % 3 {
		case 0:
			name = max(name, o.MinSize().Width)
		case 2:
			help = max(help, o.MinSize().Width)
		}
	}
	return name, help
}

func (g formGrid) Layout(objs []fyne.CanvasObject, size fyne.Size) {
	pad := theme.Padding()
	name, help := g.widths(objs)
	control := max(size.Width-name-help-2*pad, 0)
	y := float32(0)
	for i := 0; i+2 < len(objs); i += 3 {
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
	name, help := g.widths(objs)
	var h, control float32
	for i := 0; i+2 < len(objs); i += 3 {
		h += max(objs[i].MinSize().Height, objs[i+1].MinSize().Height, objs[i+2].MinSize().Height) + pad
		control = max(control, objs[i+1].MinSize().Width)
	}
	return fyne.NewSize(name+max(control, 160)+help+2*pad, max(h-pad, 0))
}

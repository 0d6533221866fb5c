package panels

import (
	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"
)

// wideSelect places sel so that it is never narrower than its longest
// option: Fyne sizes a Select by its placeholder and cuts the chosen
// option with an ellipsis ("Not indexe…").
func wideSelect(sel *widget.Select) fyne.CanvasObject {
	return container.New(optionsWidth{sel}, sel)
}

type optionsWidth struct{ sel *widget.Select }

func (o optionsWidth) MinSize([]fyne.CanvasObject) fyne.Size {
	min := o.sel.MinSize()
	var text float32
	for _, opt := range o.sel.Options {
		text = max(text, fyne.MeasureText(opt, theme.TextSize(), fyne.TextStyle{}).Width)
	}
	// The label's padding either side, and the drop-down icon with its own.
	chrome := 4*theme.InnerPadding() + theme.IconInlineSize()
	return fyne.NewSize(max(min.Width, text+chrome), min.Height)
}

func (o optionsWidth) Layout(objs []fyne.CanvasObject, size fyne.Size) {
	for _, c := range objs {
		c.Move(fyne.NewPos(0, 0))
		c.Resize(size)
	}
}

package panels

import (
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/widget"
)

// A control keeps its own height, centred in its row, when the row's help
// wraps to more lines.
func TestFormGridKeepsAControlsHeight(t *testing.T) {
	test.NewTempApp(t)
	sel := widget.NewSelect([]string{"auto", "bm25"}, nil)
	help := widget.NewLabel("which retrievers run (new search); auto: hybrid when an embedding model is loaded")
	help.Wrapping = fyne.TextWrapWord
	grid := container.New(newFormGrid(), widget.NewLabel("retrieval"), sel, help)
	grid.Resize(fyne.NewSize(420, grid.MinSize().Height))
	help.Resize(fyne.NewSize(help.Size().Width, help.MinSize().Height))
	grid.Resize(fyne.NewSize(420, grid.MinSize().Height+1))
	if help.MinSize().Height <= sel.MinSize().Height {
		t.Fatalf("the help does not wrap (%v high): the test needs a narrower grid", help.MinSize().Height)
	}
	if sel.Size().Height != sel.MinSize().Height {
		t.Errorf("the picker is %v high, its own height is %v", sel.Size().Height, sel.MinSize().Height)
	}
	if mid, row := sel.Position().Y+sel.Size().Height/2, help.Size().Height/2; mid < row-1 || mid > row+1 {
		t.Errorf("the picker's middle is at %v, the row's at %v", mid, row)
	}
}

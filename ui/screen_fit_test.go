package ui

import (
	"context"
	"fmt"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/widget"

	"cairn/core/config"
	"cairn/panels"
	"cairn/ui/desktop"
)

// screenOf is a screen of w by h pixels, all of it a work area.
func screenOf(w, h int) screenFunc {
	return func(int, int) (desktop.Rect, bool) { return desktop.Rect{W: w, H: h}, true }
}

// The first window and a restored one fit the screen they open on, and
// at that size every control of every tab and the status bar are on it:
// on a 1024x600 screen the window opened at 1100x760, Add folder, Filter
// and the whole status bar beyond its edges, and a size remembered on a
// 1920x1080 screen came back unchanged on a 1366x768 one.
func TestTheWindowFitsTheScreenItOpensOn(t *testing.T) {
	for _, tc := range []struct {
		name          string
		screenW, scrH int
		stored        fyne.Size // a size remembered from an earlier start; zero: a first start
	}{
		{"first start at 1024x600", 1024, 600, fyne.Size{}},
		{"a size from a 1920x1080 screen at 1366x768", 1366, 768, fyne.NewSize(1900, 1040)},
		{"a size from a 1920x1080 screen at 1024x600", 1024, 600, fyne.NewSize(1900, 1040)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			eng := newFakeEngine(t.TempDir())
			open := func(context.Context, string, config.Config) (Engine, error) { return eng, nil }
			h := startHarnessEnv(t, open, eng.Config(), func(e *windowEnv) {
				e.screen = screenOf(tc.screenW, tc.scrH)
				if tc.stored != (fyne.Size{}) {
					p := fyne.CurrentApp().Preferences()
					p.SetFloat(prefWidth, float64(tc.stored.Width))
					p.SetFloat(prefHeight, float64(tc.stored.Height))
				}
			})
			h.until("the panels to work", func() bool { return h.shell().ready == 3 })
			size := h.win.w.Canvas().Size()
			if size.Width > float32(tc.screenW) || size.Height+float32(decorations.top) > float32(tc.scrH) {
				t.Fatalf("the window is %v with a title bar of %d px on a %dx%d screen", size, decorations.top, tc.screenW, tc.scrH)
			}
			if min := windowMinSize(h.win.w); min.Width > size.Width || min.Height > size.Height {
				t.Fatalf("the window needs %v, more than the %v it has", min, size)
			}
			// The test driver draws no menu bar: its canvas is what the
			// real window leaves under it.
			h.win.w.Resize(size.SubtractWidthHeight(0, menuBarHeight()))
			s := h.shell()
			s.Query.Filter.Toggle.Tapped(nil) // the filter row too
			s.Query.AddFolder.Show()          // as on a first start
			for i, tab := range s.Tabs.Items {
				s.showTab(i)
				h.frame()
				h.frame()
				if off := offCanvas(h.win.w.Canvas(), h.win.w.Content()); len(off) > 0 {
					t.Errorf("%s tab at %v: off the window %q", tab.Text, h.win.w.Canvas().Size(), off)
				}
			}
		})
	}
}

// offCanvas names the controls and status bar labels under root that do
// not lie whole on the canvas; what is inside a scroll container is left
// to it (the container itself must be on the canvas).
func offCanvas(c fyne.Canvas, root fyne.CanvasObject) []string {
	var out []string
	size := c.Size()
	d := fyne.CurrentApp().Driver()
	check := func(o fyne.CanvasObject, name string) {
		p, s := d.AbsolutePositionForObject(o), o.Size()
		if p.X < -0.5 || p.Y < -0.5 || p.X+s.Width > size.Width+0.5 || p.Y+s.Height > size.Height+0.5 {
			out = append(out, fmt.Sprintf("%s at %v %v", name, p, s))
		}
	}
	var walk func(o fyne.CanvasObject)
	walk = func(o fyne.CanvasObject) {
		if o == nil || !o.Visible() {
			return
		}
		switch o := o.(type) {
		case *container.Scroll:
			check(o, "a scrolled list")
			return
		case *panels.Button:
			check(o, "button "+o.Text)
		case *widget.Button:
			check(o, "button "+o.Text)
		case *widget.Select:
			check(o, "picker "+o.PlaceHolder)
		case *widget.Check:
			check(o, "box "+o.Text)
		case *panels.Entry:
			check(o, "entry "+o.PlaceHolder)
		case *panels.HistoryEntry:
			check(o, "entry "+o.PlaceHolder)
		case *widget.Label:
			check(o, "label "+o.Text)
		}
		switch o := o.(type) {
		case *fyne.Container:
			for _, k := range o.Objects {
				walk(k)
			}
		case fyne.Widget:
			for _, k := range test.WidgetRenderer(o).Objects() {
				walk(k)
			}
		}
	}
	walk(root)
	return out
}

// A window remembered at a place the screen no longer has (a monitor
// unplugged, a smaller screen) comes back whole on it, moved the least.
func TestFitPositionKeepsTheFrameOnTheWorkArea(t *testing.T) {
	area := desktop.Rect{X: 0, Y: 24, W: 1366, H: 744} // under a 24-pixel panel
	for _, tc := range []struct{ x, y, w, h, wantX, wantY int }{
		{100, 100, 800, 600, 100, 100},   // fits: stays
		{1800, 900, 800, 600, 566, 168},  // from a 1920x1080 screen
		{-50, 0, 800, 600, 0, 24},        // above the panel, left of the edge
		{300, 300, 1500, 900, 0, 24},     // larger than the area: its corner in it
		{2500, 100, 1024, 600, 342, 100}, // on a monitor to the right that is gone
	} {
		if x, y := fitPosition(tc.x, tc.y, tc.w, tc.h, area); x != tc.wantX || y != tc.wantY {
			t.Errorf("frame %dx%d at %d,%d placed at %d,%d, want %d,%d", tc.w, tc.h, tc.x, tc.y, x, y, tc.wantX, tc.wantY)
		}
	}
	if got := fitSize(fyne.NewSize(1900, 1040), area, frame{left: 2, right: 2, top: 30, bottom: 2}, 2); got != fyne.NewSize(681, 356) {
		t.Errorf("at scale 2: %v", got)
	}
}

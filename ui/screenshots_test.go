package ui

import (
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/test"

	cairntheme "cairn/theme"

	"cairn/internal/skip"
)

// TestScreenshots renders the window's tabs into PNGs for the README with
// the test driver's software painter, on a real knowledge base of the test
// corpus: `make screenshots` runs it with CAIRN_SCREENSHOTS set to the
// output folder.
func TestScreenshots(t *testing.T) {
	out := os.Getenv("CAIRN_SCREENSHOTS")
	if out == "" {
		skip.Because(t, "on demand: make screenshots sets CAIRN_SCREENSHOTS to the folder to render into")
	}
	if err := os.MkdirAll(out, 0o755); err != nil {
		t.Fatal(err)
	}
	// Short, readable paths in the pictures.
	home := filepath.Join(os.TempDir(), "cairn-demo")
	os.RemoveAll(home)
	t.Cleanup(func() { os.RemoveAll(home) })
	cfg, open := realEngineIn(home)
	h := newHarnessWith(t, open, cfg)
	s := h.shell()
	p, q := s.IndexTab, s.Query
	h.until("the user guide", func() bool { return strings.HasPrefix(p.State.Text, "Indexed the user guide") })
	corpus := copyCorpusTo(t, filepath.Join(home, "Documents"))
	startIndexing(h, corpus)
	h.until("the corpus", func() bool { return strings.HasPrefix(p.State.Text, "Indexed "+corpus+".") })
	h.until("the status bar", func() bool { return strings.Contains(s.Status.Counts.Text, "chunks") })

	// A conversation of two questions, the second read as a follow-up.
	h.ask("how do I reset the router x200")
	h.until("the answer", func() bool { return strings.HasPrefix(q.State.Text, "Answered") && len(q.Rows()) > 1 })
	h.ask("and to factory settings?")
	h.until("the answer", func() bool {
		return strings.HasPrefix(q.State.Text, "Answered") && len(q.Turns()) == 2 && len(q.Rows()) > 1
	})
	test.Tap(q.Rows()[0].Explain)
	test.Tap(q.Rows()[0].Right)
	h.until("the test set", func() bool { return strings.Contains(s.Tuning.Metrics.Text, "1 question judged") })
	h.until("the status bar", func() bool { return s.Status.Memory.Text != "" })

	shoot := func(name string, choice cairntheme.Choice, tab int, size fyne.Size) {
		s.showTab(tab)
		// Fyne applies a theme in the background: wait for it, or a picture
		// can show the previous theme's colours.
		test.ApplyTheme(t, cairntheme.New(choice))
		h.win.w.Resize(size)
		h.frame()
		img := h.win.w.Canvas().Capture()
		f, err := os.Create(filepath.Join(out, name))
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		if err := png.Encode(f, img); err != nil {
			t.Fatal(err)
		}
		t.Logf("wrote %s", f.Name())
	}
	shoot("ask-light.png", cairntheme.Light, tabAsk, defaultSize)
	shoot("ask-dark.png", cairntheme.Dark, tabAsk, defaultSize)
	shoot("index-light.png", cairntheme.Light, tabIndex, defaultSize)
	shoot("index-dark.png", cairntheme.Dark, tabIndex, defaultSize)
	shoot("engineering-light.png", cairntheme.Light, tabEngineering, defaultSize)
	shoot("engineering-dark.png", cairntheme.Dark, tabEngineering, defaultSize)
	// The whole tab: its knobs scrolled to the end, the answer knobs that
	// were once drawn one letter per line out of the first picture.
	knobs := find(s.Tuning.Content(), func(o fyne.CanvasObject) bool { _, ok := o.(*container.Scroll); return ok })[0].(*container.Scroll)
	knobs.ScrollToBottom()
	shoot("engineering-answers-light.png", cairntheme.Light, tabEngineering, defaultSize)
	shoot("engineering-answers-dark.png", cairntheme.Dark, tabEngineering, defaultSize)
	knobs.ScrollToTop()
	// At the smallest size, the sources as they first appear (Why closed).
	smallest := smallestCanvas()
	test.Tap(q.Rows()[0].Explain)
	shoot("ask-smallest-light.png", cairntheme.Light, tabAsk, smallest)
	shoot("ask-smallest-dark.png", cairntheme.Dark, tabAsk, smallest)
	shoot("index-smallest-light.png", cairntheme.Light, tabIndex, smallest)
	shoot("index-smallest-dark.png", cairntheme.Dark, tabIndex, smallest)
	shoot("engineering-smallest-light.png", cairntheme.Light, tabEngineering, smallest)
	shoot("engineering-smallest-dark.png", cairntheme.Dark, tabEngineering, smallest)
}

package ui

import (
	"io/fs"
	"regexp"
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/widget"

	"cairn/resources"
)

// showGuide opens the bundled user guide in its own window: chapters on
// the left, the chapter's Markdown on the right. It needs no network and
// no knowledge base.
func (win *window) showGuide() {
	g := resources.Guide()
	files, _ := fs.Glob(g, "*.md")
	titles := make([]string, len(files))
	for i, f := range files {
		titles[i] = chapterTitle(g, f)
	}
	page := widget.NewRichTextFromMarkdown("")
	page.Wrapping = fyne.TextWrapWord
	list := widget.NewList(
		func() int { return len(files) },
		func() fyne.CanvasObject { return widget.NewLabel("Troubleshooting and more") },
		func(id widget.ListItemID, o fyne.CanvasObject) { o.(*widget.Label).SetText(titles[id]) })
	list.OnSelected = func(id widget.ListItemID) {
		b, _ := fs.ReadFile(g, files[id])
		page.ParseMarkdown(citationsAsCode(string(b)))
		page.Segments = joinRuns(page.Segments)
		page.Refresh()
	}
	split := container.NewHSplit(list, container.NewVScroll(page))
	split.Offset = 0.25
	w := win.app.NewWindow("Cairn user guide")
	w.SetContent(split)
	// Escape and Ctrl+W close it, as any secondary window.
	w.Canvas().SetOnTypedKey(func(k *fyne.KeyEvent) {
		if k.Name == fyne.KeyEscape {
			w.Close()
		}
	})
	w.Canvas().AddShortcut(shortcutClose, func(fyne.Shortcut) { w.Close() })
	win.guide, win.guidePage = w, page
	w.Resize(fyne.NewSize(900, 640))
	if len(files) > 0 {
		list.Select(0)
	}
	w.Show()
}

// chapterTitle is the first heading of a guide file.
func chapterTitle(g fs.FS, name string) string {
	b, _ := fs.ReadFile(g, name)
	for _, line := range strings.Split(string(b), "\n") {
		if t, ok := strings.CutPrefix(line, "# "); ok {
			return t
		}
	}
	return name
}

// joinRuns merges neighbouring inline text segments of one style. Fyne's
// Markdown makes a segment of each source line (the guide is wrapped at
// about 88 columns for reading as text) and splits words at underscores
// (index.include_hidden), and its rich text moves a segment that does not
// fit to a new line whole: a page showed stray line breaks mid-sentence
// ("…is installed, Cairn" / "also writes…") and inside setting names.
func joinRuns(segs []widget.RichTextSegment) []widget.RichTextSegment {
	out := make([]widget.RichTextSegment, 0, len(segs))
	for _, seg := range segs {
		switch s := seg.(type) {
		case *widget.ListSegment:
			s.Items = joinRuns(s.Items)
		case *widget.ParagraphSegment:
			s.Texts = joinRuns(s.Texts)
		case *widget.TextSegment:
			if n := len(out); n > 0 {
				if prev, ok := out[n-1].(*widget.TextSegment); ok && prev.Style.Inline && s.Style.Inline && prev.Style == s.Style {
					prev.Text += s.Text
					continue
				}
			}
		}
		out = append(out, seg)
	}
	return out
}

// citation is an answer's citation mark written in the guide: [1], [n].
var citation = regexp.MustCompile("(^|[^`])(\\[(?:[0-9]+|n)\\])")

// citationsAsCode writes the guide's citation marks as code spans: Fyne's
// Markdown renderer reads "[1]" as a link that is not one and splits it into
// pieces with spaces and line breaks between them ("[ 1], [ 2 ]").
func citationsAsCode(md string) string {
	return citation.ReplaceAllString(md, "$1`$2`")
}

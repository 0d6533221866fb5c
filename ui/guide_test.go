package ui

import (
	"io/fs"
	"strings"
	"testing"

	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/widget"

	"cairn/resources"
)

// softBreaks are the places where a paragraph's text is cut into two
// segments of the same style: a source line's end, which Fyne's rich text
// may show as a line break mid-sentence when the next segment does not fit.
func softBreaks(segs []widget.RichTextSegment) []string {
	var out []string
	for i, s := range segs {
		switch s := s.(type) {
		case *widget.ListSegment:
			out = append(out, softBreaks(s.Items)...)
		case *widget.ParagraphSegment:
			out = append(out, softBreaks(s.Texts)...)
		case *widget.TextSegment:
			if i+1 < len(segs) {
				if next, ok := segs[i+1].(*widget.TextSegment); ok && s.Style.Inline && next.Style.Inline && s.Style == next.Style {
					out = append(out, s.Text+"|"+next.Text)
				}
			}
		}
	}
	return out
}

// The guide's pages show each paragraph as one run of text, without the
// stray line breaks of its source lines ("…is installed, Cairn" / "also
// writes…") or of its setting names (index.include_hidden), and say what a citation does: it shows the passage in the
// preview pane, not "opens the file at that page".
func TestGuideParagraphsHaveNoStrayLineBreaks(t *testing.T) {
	h := newHarness(t, newFakeEngine(t.TempDir()))
	h.win.showGuide()
	if b := softBreaks(h.win.guidePage.Segments); len(b) > 0 {
		t.Errorf("the first chapter is cut at its source lines: %q", b)
	}
	var text strings.Builder
	for _, seg := range h.win.guidePage.Segments {
		text.WriteString(seg.Textual() + " ")
	}
	if got := text.String(); strings.Contains(got, "open the file at that page") || !strings.Contains(got, "preview pane") {
		t.Errorf("the first chapter says of a citation: %q", got)
	}

	g := resources.Guide()
	files, _ := fs.Glob(g, "*.md")
	if len(files) < 5 {
		t.Fatalf("%d chapters", len(files))
	}
	test.NewTempApp(t)
	for _, f := range files {
		b, _ := fs.ReadFile(g, f)
		page := widget.NewRichTextFromMarkdown(citationsAsCode(string(b)))
		page.Segments = joinRuns(page.Segments)
		if br := softBreaks(page.Segments); len(br) > 0 {
			t.Errorf("%s is cut at its source lines: %q", f, br)
		}
		// Indented code keeps its own lines.
		if strings.Contains(string(b), "\n    cairn ") && !strings.Contains(page.String(), "cairn ") {
			t.Errorf("%s lost its commands", f)
		}
	}
}

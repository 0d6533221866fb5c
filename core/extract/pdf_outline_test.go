package extract

import (
	"context"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"
)

// guidePDF has a two-level outline whose destinations are written in the
// three ways producers use; its section 1.1 starts in the middle of page 2,
// with its title hyphenated across a line break.
func guidePDF() TestPDF {
	return TestPDF{
		Pages: [][]string{
			{"User Guide", "This guide explains how to install the tool and where to look when it fails.", "", "1 Getting Started", "Install the tool first."},
			{"The installer asks a few questions and finishes quickly on most machines.", "", "1.1 Con-", "figuring the network", "Set the proxy address before the first run."},
			{"Reference & <Index>", "Every option is listed here."},
		},
		Outline: []TestBookmark{
			{Title: "Getting Started", Page: 1, Kids: []TestBookmark{{Title: "Configuring the Network", Page: 2, How: "goto"}}},
			{Title: "Reference & <Index>", Page: 3, How: "named"}, // XML's special characters survive pdftohtml -xml
			{Title: "Appendix: Licence", Page: 3},                 // not printed on its page
		},
	}
}

// headingsAt lists headings as "level text @ the first two words of the
// line at the offset" (poppler and the pure-Go reader break lines apart).
func headingsAt(d *Document) []string {
	var out []string
	for _, h := range d.Headings {
		line, _, _ := strings.Cut(d.Text[h.Offset:], "\n")
		words := strings.Fields(line)
		out = append(out, strconv.Itoa(h.Level)+" "+h.Text+" @ "+strings.Join(words[:min(2, len(words))], " "))
	}
	return out
}

// outlineEngines are the PDF readers the outline tests run with: both, as
// pdfEngines; poppler's reads the outline with pdftohtml.
func outlineEngines(t *testing.T) []PDFEngine {
	for _, tool := range []string{"pdftotext", "pdftohtml"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Fatalf("%s not found: install poppler-utils (make deps)", tool)
		}
	}
	return []PDFEngine{PDFPoppler, PDFPureGo}
}

func TestPDFOutlineGivesHeadings(t *testing.T) {
	for _, e := range outlineEngines(t) {
		t.Run(string(e), func(t *testing.T) {
			b := guidePDF().Bytes()
			d, err := NewRegistry(DefaultLimits(), WithPDFEngine(e)).Extract(context.Background(), fileOf("guide.pdf", b))
			if err != nil {
				t.Fatal(err)
			}
			checkDocument(t, d)
			equalStrings(t, "headings", headingsAt(d), []string{
				"1 Getting Started @ 1 Getting",
				"2 Configuring the Network @ 1.1 Configuring",
				"1 Reference & <Index> @ Reference &",
				"1 Appendix: Licence @ Reference &", // not found: after the page's previous entry
			})
			if p := pageAt(d, d.Headings[1].Offset); p != 2 {
				t.Errorf("section 1.1 lands on page %d, want 2", p)
			}
			if len(d.Warnings) != 0 {
				t.Errorf("warnings %q", d.Warnings)
			}
		})
	}
}

func pageAt(d *Document, off int) int {
	for _, u := range d.Units {
		if off >= u.Start && off <= u.End {
			return u.Number
		}
	}
	return 0
}

// Damaged outlines cost the headings, never the text, and never hang.
func TestPDFBrokenOutlines(t *testing.T) {
	deep := TestBookmark{Title: "Leaf", Page: 1}
	for i := 0; i < maxOutlineDepth+2; i++ {
		deep = TestBookmark{Title: "Level", Page: 1, Kids: []TestBookmark{deep}}
	}
	pages := [][]string{{"Only page of text."}}
	huge := make([]TestBookmark, maxOutlineEntries+1)
	for i := range huge {
		huge[i] = TestBookmark{Title: "Section", Page: 1}
	}
	for _, tt := range []struct {
		name     string
		pdf      TestPDF
		headings []string
		warning  string
		poppler  bool // poppler's result is checked too (it reads a looping outline once through)
	}{
		{"huge", TestPDF{Pages: pages, Outline: huge}, nil, "outline (bookmarks) ignored", true},
		{"loop", TestPDF{Pages: pages, LoopNext: true, Outline: []TestBookmark{{Title: "A", Page: 1}, {Title: "B", Page: 1}}}, nil, "outline (bookmarks) ignored", false},
		{"too deep", TestPDF{Pages: pages, Outline: []TestBookmark{deep}}, nil, "outline (bookmarks) ignored", true},
		{"bad destination", TestPDF{Pages: pages, Outline: []TestBookmark{{Title: "Nowhere", Page: 1, How: "bad"}, {Title: "Only page", Page: 1}}},
			[]string{"1 Only page @ Only page"}, "1 of 2 outline entries (bookmarks) point nowhere", true},
	} {
		for _, e := range outlineEngines(t) {
			t.Run(tt.name+"/"+string(e), func(t *testing.T) {
				ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
				defer cancel()
				d, err := NewRegistry(DefaultLimits(), WithPDFEngine(e)).Extract(ctx, fileOf("broken.pdf", tt.pdf.Bytes()))
				if err != nil {
					t.Fatal(err)
				}
				if d.Text != "Only page of text." {
					t.Errorf("text %q", d.Text)
				}
				if e == PDFPureGo || tt.poppler {
					equalStrings(t, "headings", headingsAt(d), tt.headings)
					contains(t, "warnings", strings.Join(d.Warnings, "\n"), tt.warning)
				}
			})
		}
	}
}

func TestFindTitle(t *testing.T) {
	text := "Running title\n12\n3.2 Con\uFB01guring the\nNet-work\nBody mentions the network setup.\nA Copying Information\nNames and files"
	for _, tt := range []struct {
		title string
		top   bool
		want  string // the text at the offset found; "" for not found
	}{
		{"Configuring the Network", false, "3.2 Con"},
		{"3.2 Configuring the network", false, "3.2 Con"},
		{"Configuring the Network", true, "Running title"}, // the running header and page number belong to the section
		{"A Copying Information", false, "A Copying"},
		{"Copying Information", false, "A Copying"},
		{"Name", false, ""},                       // only inside "Names": not a whole word
		{"Network setup", false, "network setup"}, // several words in running text: taken
		{"Files", false, ""},                      // one word in running text: a mention
	} {
		text := unligature(text) // as the builder writes it
		got := findTitle(text, 0, len(text), tt.title, tt.top)
		at := ""
		if got >= 0 {
			at = text[got:]
		}
		if !strings.HasPrefix(at, tt.want) || (tt.want == "") != (got < 0) {
			t.Errorf("findTitle(%q) at %q, want %q", tt.title, at[:min(len(at), 20)], tt.want)
		}
	}
}

// An entry whose title its page does not print starts at the page's start;
// one whose page has no text, with the next page's text; one pointing past
// the text is dropped.
func TestOutlineHeadingsFallBackToThePage(t *testing.T) {
	text := "Cover\n\nPage two text.\n\nPage four text."
	units := []Unit{
		{Kind: UnitPage, Number: 1, Start: 0, End: 5},
		{Kind: UnitPage, Number: 2, Start: 7, End: 21},
		{Kind: UnitPage, Number: 4, Start: 23, End: 38},
	}
	hs, warnings := outlineHeadings(text, units, []OutlineEntry{
		{Title: "Overview", Level: 1, Page: 2},
		{Title: "Blank page", Level: 1, Page: 3},
		{Title: "Beyond", Level: 1, Page: 9},
		{Title: "Broken", Level: 1, Page: 0},
	})
	var got []string
	for _, h := range hs {
		got = append(got, h.Text+" @ "+strconv.Itoa(h.Offset))
	}
	equalStrings(t, "headings", got, []string{"Overview @ 7", "Blank page @ 23"})
	equalStrings(t, "warnings", warnings, []string{"pdf: 1 of 4 outline entries (bookmarks) point nowhere and were left out"})
}

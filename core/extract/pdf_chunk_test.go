package extract_test

import (
	"bytes"
	"context"
	"os/exec"
	"strconv"
	"strings"
	"testing"

	"cairn/core/chunk"
	"cairn/core/extract"
)

// A chunk that starts at a section heading in the middle of page 2 cites
// page 2 and carries the outline's trail; no chunk crosses a page.
func TestPDFSectionChunksCiteTheirPage(t *testing.T) {
	pdf := extract.TestPDF{
		Pages: [][]string{
			{"User Guide", "This guide explains how to install the tool and where to look when it fails.", "", "1 Getting Started", "Install the tool first."},
			{"The installer asks a few questions and finishes quickly on most machines.", "", "1.1 Configuring the network", "Set the proxy address before the first run."},
			{"Reference", "Every option is listed here."},
		},
		Outline: []extract.TestBookmark{
			{Title: "Getting Started", Page: 1, Kids: []extract.TestBookmark{{Title: "Configuring the Network", Page: 2}}},
			{Title: "Reference", Page: 3},
		},
	}
	if _, err := exec.LookPath("pdftohtml"); err != nil {
		t.Fatalf("pdftohtml not found: install poppler-utils (make deps)")
	}
	for _, e := range []extract.PDFEngine{extract.PDFPureGo, extract.PDFPoppler} {
		t.Run(string(e), func(t *testing.T) {
			b := pdf.Bytes()
			doc, err := extract.NewRegistry(extract.DefaultLimits(), extract.WithPDFEngine(e)).
				Extract(context.Background(), extract.File{Name: "guide.pdf", Size: int64(len(b)), R: bytes.NewReader(b)})
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, c := range chunk.Split(doc, chunk.Params{Size: 100, Overlap: 0}) {
				first, _, _ := strings.Cut(c.Text, "\n")
				got = append(got, strings.Join([]string{strconv.Itoa(c.Page), c.Heading, first}, " | "))
				u := doc.Units[c.Page-1]
				if c.Start < u.Start || c.End > u.End {
					t.Errorf("chunk %q [%d:%d] crosses page %d [%d:%d]", first, c.Start, c.End, c.Page, u.Start, u.End)
				}
			}
			want := []string{
				"1 |  | User Guide",
				"1 | Getting Started | 1 Getting Started",
				"2 | Getting Started | The installer asks a few questions and finishes quickly on most machines.",
				"2 | Getting Started > Configuring the Network | 1.1 Configuring the network",
				"3 | Reference | Reference",
			}
			if strings.Join(got, "\n") != strings.Join(want, "\n") {
				t.Errorf("chunks (page | heading | first line):\n got %q\nwant %q", got, want)
			}
		})
	}
}

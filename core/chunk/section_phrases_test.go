package chunk

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"cairn/core/extract"
	"cairn/internal/skip"
)

// TestSectionPhrases writes, for each PDF named in CAIRN_SECTION_PDFS
// (separated by colons), ten phrases of eight words taken from the middle
// of sections of its outline, spread over the document, to the TSV file
// CAIRN_SECTION_OUT: file, page, section title, phrase. `cairn search
// --json` is then asked each phrase and its first hit's heading compared
// with the title (docs/structure.md). It also reports how many of the
// chunks holding each phrase are headed by its section, as this package
// splits the text. Sections are placed independently of the extractor
// (entryStarts); a section shorter than 400 bytes gives no phrase.
func TestSectionPhrases(t *testing.T) {
	list, out := os.Getenv("CAIRN_SECTION_PDFS"), os.Getenv("CAIRN_SECTION_OUT")
	if list == "" || out == "" {
		skip.Because(t, "on demand: set CAIRN_SECTION_PDFS and CAIRN_SECTION_OUT")
	}
	reg := extract.NewRegistry(extract.DefaultLimits())
	var tsv strings.Builder
	right, all := 0, 0
	for _, path := range strings.Split(list, ":") {
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		f := extract.File{Name: path, Size: int64(len(b)), R: bytes.NewReader(b)}
		outline, err := extract.PDFOutline(context.Background(), f, "")
		if err != nil || len(outline) == 0 {
			t.Fatalf("%s: no outline (%v)", path, err)
		}
		doc, err := reg.Extract(context.Background(), f)
		if err != nil {
			t.Fatal(err)
		}
		starts, _ := entryStarts(doc, outline)
		type sec struct {
			title, phrase string
			page          int
		}
		var secs []sec
		for i, s := range starts {
			end := len(doc.Text)
			if i+1 < len(starts) {
				end = starts[i+1].off
			}
			if end-s.off < 400 {
				continue
			}
			mid := s.off + (end-s.off)/2
			words := strings.Fields(doc.Text[mid:min(end, mid+400)])
			if len(words) < 10 {
				continue
			}
			phrase := strings.Join(words[1:9], " ") // the first may be cut
			if strings.Count(doc.Text, phrase) != 1 {
				continue
			}
			page := 0
			for _, u := range doc.Units {
				if u.Start <= mid && mid < u.End {
					page = u.Number
				}
			}
			secs = append(secs, sec{s.title, phrase, page})
		}
		cs := Split(doc, DefaultParams())
		for k := range 10 {
			s := secs[k*len(secs)/10]
			fmt.Fprintf(&tsv, "%s\t%d\t%s\t%s\n", filepath.Base(path), s.page, s.title, s.phrase)
			for _, c := range cs {
				if strings.Contains(c.Text, s.phrase) {
					all++
					if strings.HasSuffix(c.Heading, s.title) {
						right++
					}
				}
			}
		}
	}
	if err := os.WriteFile(out, []byte(tsv.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("%d of %d chunks holding a phrase are headed by its section", right, all)
}

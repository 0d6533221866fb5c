package chunk

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
	"unicode"

	"cairn/core/extract"
)

// TestOutlineCoverage measures, on real PDFs with an outline, the share of
// chunks whose heading trail ends with the title of the innermost outline
// entry that starts before the chunk. It runs only when CAIRN_OUTLINE_PDFS
// names a folder of PDFs (CAIRN_OUTLINE_ENGINE=go|poppler picks the
// reader, default: poppler when installed), e.g.
//
//	CAIRN_OUTLINE_PDFS=/tmp/pdfs go test -run TestOutlineCoverage ./core/chunk/ -v
//
// Where each entry starts is worked out here independently of the
// extractor, more strictly: on its destination page, at the first line
// that begins with its title (case, spacing, leading punctuation and a
// section number aside), else at the first line that contains it, else at
// the page's start. docs/structure.md
// records the figures.
func TestOutlineCoverage(t *testing.T) {
	dir := os.Getenv("CAIRN_OUTLINE_PDFS")
	if dir == "" {
		t.Skip("set CAIRN_OUTLINE_PDFS to a folder of PDFs with outlines")
	}
	engine := extract.PDFEngine(os.Getenv("CAIRN_OUTLINE_ENGINE"))
	paths, _ := filepath.Glob(filepath.Join(dir, "*.pdf"))
	sort.Strings(paths)
	reg := extract.NewRegistry(extract.DefaultLimits(), extract.WithPDFEngine(engine))
	var allGood, allChunks, pdfs int
	for _, path := range paths {
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		f := extract.File{Name: path, Size: int64(len(b)), R: bytes.NewReader(b)}
		ctx := context.Background()
		outline, err := extract.PDFOutline(ctx, f, engine)
		if err != nil || len(outline) == 0 {
			t.Logf("%-28s no outline (%v)", filepath.Base(path), err)
			continue
		}
		doc, err := reg.Extract(ctx, f)
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		starts, found := entryStarts(doc, outline)
		good := 0
		var bad []string
		cs := Split(doc, DefaultParams())
		for _, c := range cs {
			want := ""
			for _, s := range starts {
				if s.off <= c.Start {
					want = s.title
				}
			}
			if strings.HasSuffix(c.Heading, want) && (want != "" || c.Heading == "") {
				good++
			} else if len(bad) < 3 {
				bad = append(bad, "p."+strconv.Itoa(c.Page)+" "+c.Heading+" | want "+want)
			}
		}
		pdfs++
		allGood += good
		allChunks += len(cs)
		t.Logf("%-28s %4d entries (%3.0f%% titles on their page) %5d chunks %6.1f%% under their outline section %q",
			filepath.Base(path), len(outline), 100*float64(found)/float64(len(outline)), len(cs), 100*float64(good)/float64(max(1, len(cs))), bad)
	}
	if allChunks > 0 {
		t.Logf("overall: %d PDFs, %d chunks, %.1f%% under their outline section", pdfs, allChunks, 100*float64(allGood)/float64(allChunks))
	}
}

type entryStart struct {
	off   int
	title string
}

// entryStarts places each outline entry on its page, sorted by offset, and
// counts the entries whose title was found there.
func entryStarts(doc *extract.Document, outline []extract.OutlineEntry) ([]entryStart, int) {
	pages := map[int]extract.Unit{}
	for _, u := range doc.Units {
		pages[u.Number] = u
	}
	var out []entryStart
	found, prevPage, prevOff := 0, 0, 0
	for _, e := range outline {
		u, ok := pages[e.Page]
		if !ok || e.Title == "" {
			continue
		}
		from := u.Start
		if e.Page == prevPage {
			from = prevOff
		}
		off, ok := findLine(doc.Text[from:u.End], e.Title, e.Page != prevPage)
		if ok {
			found++
		}
		off += from
		out = append(out, entryStart{off, e.Title})
		prevPage, prevOff = e.Page, off
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].off < out[j].off })
	return out, found
}

// findLine returns the offset of the line of page that begins with title
// (the title may wrap onto the next line), else of the first line that
// contains it; hyphens do not count, as PDF outlines often lose them. A
// title whose line has at most two short lines of page furniture above it
// (running header, page number) starts at the page's start, when it is
// the first entry of its page (top).
func findLine(page, title string, top bool) (int, bool) {
	norm := func(s string) string {
		s = strings.ToLower(strings.Join(strings.Fields(strings.ReplaceAll(s, "-", "")), " "))
		return strings.TrimLeftFunc(s, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) })
	}
	want := norm(title)
	lines := strings.SplitAfter(page, "\n")
	at := func(i, off int) (int, bool) {
		if before := strings.TrimSpace(page[:off]); top && len(before) <= 60 && strings.Count(before, "\n") <= 2 {
			return 0, true
		}
		return off, true
	}
	contains := -1
	off := 0
	for i, l := range lines {
		n := l
		if i+1 < len(lines) {
			n += " " + lines[i+1]
		}
		n = norm(n)
		rest := n
		for _, p := range []string{"chapter", "part", "appendix", "section"} {
			rest = norm(strings.TrimPrefix(rest, p))
		}
		rest = norm(strings.TrimLeft(rest, "0123456789.:IVX "))
		if strings.HasPrefix(n, want) || strings.HasPrefix(rest, want) {
			return at(i, off)
		}
		if contains < 0 && strings.Contains(n, want) {
			contains = off
		}
		off += len(l)
	}
	if contains >= 0 {
		return contains, true
	}
	return 0, false
}

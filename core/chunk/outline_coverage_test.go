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
	"time"
	"unicode"

	"cairn/core/extract"
	"cairn/internal/skip"
)

// TestOutlineCoverage measures, on real PDFs with an outline, the share of
// chunks whose heading trail ends with the title of the innermost outline
// entry that starts before the chunk. It runs only when CAIRN_OUTLINE_PDFS
// names a folder of PDFs (CAIRN_OUTLINE_ENGINE=go|poppler picks the
// reader, default: poppler when installed; CAIRN_OUTLINE_COMPARE=1 also
// compares the outlines both readers read, and their time), e.g.
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
		skip.Because(t, "on demand: set CAIRN_OUTLINE_PDFS to a folder of PDFs with outlines")
	}
	engine := extract.PDFEngine(os.Getenv("CAIRN_OUTLINE_ENGINE"))
	paths, _ := filepath.Glob(filepath.Join(dir, "*.pdf"))
	sort.Strings(paths)
	reg := extract.NewRegistry(extract.DefaultLimits(), extract.WithPDFEngine(engine))
	var allGood, allGuess, allChunks, pdfs int
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
		score := func(doc *extract.Document) (good int, cs []Chunk, bad []string) {
			cs = Split(doc, DefaultParams())
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
			return good, cs, bad
		}
		good, cs, bad := score(doc)
		// For comparison: the same text with headings guessed, as before
		// outlines were read.
		guessed := *doc
		guessed.Headings = nil
		guessGood, _, _ := score(&guessed)
		if os.Getenv("CAIRN_OUTLINE_COMPARE") != "" {
			compareOutlines(t, filepath.Base(path), f)
		}
		pdfs++
		allGood += good
		allChunks += len(cs)
		allGuess += guessGood
		t.Logf("%-28s %4d entries (%3.0f%% titles on their page) %5d chunks %6.1f%% under their outline section (guessed headings: %5.1f%%) %q",
			filepath.Base(path), len(outline), 100*float64(found)/float64(len(outline)), len(cs),
			100*float64(good)/float64(max(1, len(cs))), 100*float64(guessGood)/float64(max(1, len(cs))), bad)
	}
	if allChunks > 0 {
		t.Logf("overall: %d PDFs, %d chunks, %.1f%% under their outline section (guessed headings: %.1f%%)",
			pdfs, allChunks, 100*float64(allGood)/float64(allChunks), 100*float64(allGuess)/float64(allChunks))
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

// findLine returns the offset of the line of page that is the title (the
// title may wrap onto the next line), else of the first line that begins
// with it, else of the first line that contains it. Case, punctuation, quotes and hyphens do not count, nor
// numbering before the title ("2.1.12", "A.3", "Chapter 7:"). A title
// whose line has at most two short lines of page furniture above it
// (running header, page number) starts at the page's start, when it is
// the first entry of its page (top).
func findLine(page, title string, top bool) (int, bool) {
	norm := func(s string) string {
		s = strings.Map(func(r rune) rune {
			switch {
			case unicode.IsLetter(r) || unicode.IsDigit(r):
				return unicode.ToLower(r)
			case unicode.IsSpace(r):
				return ' '
			}
			return -1
		}, s)
		return strings.Join(strings.Fields(s), " ")
	}
	unnumbered := func(s string) string {
		f := strings.Fields(s)
		for len(f) > 1 && (strings.ContainsAny(f[0], "0123456789") || len(f[0]) == 1 ||
			f[0] == "chapter" || f[0] == "part" || f[0] == "appendix" || f[0] == "section") {
			f = f[1:]
		}
		return strings.Join(f, " ")
	}
	want := norm(title)
	lines := strings.SplitAfter(page, "\n")
	contains, prefix := -1, -1
	off := 0
	for i, l := range lines {
		if strings.TrimSpace(l) == "" {
			off += len(l)
			continue
		}
		n := l
		if i+1 < len(lines) {
			n += " " + lines[i+1]
		}
		n = norm(n)
		if one := norm(l); one == want || unnumbered(one) == unnumbered(want) || strings.HasPrefix(want, unnumbered(one)+" ") && strings.HasPrefix(unnumbered(n), unnumbered(want)) {
			// The line is the title, or its first part and the next line the rest.
			if before := strings.TrimSpace(page[:off]); top && len(before) <= 60 && strings.Count(before, "\n") <= 2 {
				return 0, true
			}
			return off, true
		}
		if prefix < 0 && (strings.HasPrefix(n, want) || strings.HasPrefix(unnumbered(n), unnumbered(want))) {
			prefix = off
		}
		if contains < 0 && strings.Contains(n, want) {
			contains = off
		}
		off += len(l)
	}
	for _, o := range []int{prefix, contains} {
		if o >= 0 {
			return o, true
		}
	}
	return 0, false
}

// compareOutlines reads f's outline with both readers and reports how many
// entries agree on title, level and page, and how long each took.
func compareOutlines(t *testing.T, name string, f extract.File) {
	read := func(e extract.PDFEngine) ([]extract.OutlineEntry, time.Duration) {
		start := time.Now()
		o, err := extract.PDFOutline(context.Background(), f, e)
		if err != nil {
			t.Logf("%s: %s: %v", name, e, err)
		}
		return o, time.Since(start)
	}
	pop, popTime := read(extract.PDFPoppler)
	gop, goTime := read(extract.PDFPureGo)
	same := 0
	for i := range min(len(pop), len(gop)) {
		if pop[i] == gop[i] {
			same++
		} else if same+5 > i {
			t.Logf("  differ: poppler %+v, go %+v", pop[i], gop[i])
		}
	}
	t.Logf("  %s: poppler %d entries (%v with the text), go %d entries (%v with the text), %d identical",
		name, len(pop), popTime.Round(time.Millisecond), len(gop), goTime.Round(time.Millisecond), same)
}

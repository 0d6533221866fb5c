package extract

import (
	"fmt"
	"regexp"
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"
)

// outlineHeadings turns a PDF's outline into headings of the extracted
// text: each entry lands on its destination page at the line where its
// title is printed, matched loosely (case, spacing, punctuation, hyphens
// and ligatures do not count, nor a section number that only one side
// carries), or at the page's start when the title is not printed there.
// The text of such a heading is the outline's title, which need not be
// the text at its offset: the outline is the authority on what a section
// is called.
//
// Entries on one page keep the outline's order: a title is looked for
// after the previous entry of the page, and one not found stays there.
// Entries whose destination is broken are left out and counted in the
// warning.
func outlineHeadings(text string, units []Unit, entries []OutlineEntry) ([]Heading, []string) {
	pages := map[int]Unit{}
	var numbers []int
	for _, u := range units {
		if u.Kind == UnitPage {
			pages[u.Number] = u
			numbers = append(numbers, u.Number)
		}
	}
	sort.Ints(numbers)
	var out []Heading
	lastPage, last := 0, 0 // the page of the previous entry and where it landed
	broken := 0
	for _, e := range entries {
		if e.Title == "" {
			continue
		}
		if e.Page <= 0 {
			broken++
			continue
		}
		u, ok := pages[e.Page]
		if !ok {
			// A page without text: the section starts with the next text.
			i := sort.SearchInts(numbers, e.Page)
			if i == len(numbers) {
				continue // past the text limit, or a destination beyond the last page
			}
			u = pages[numbers[i]]
		}
		from := u.Start
		if u.Number == lastPage {
			from = max(from, last)
		}
		off := findTitle(text, from, u.End, e.Title, u.Number != lastPage)
		if off < 0 {
			off = from
		}
		out = append(out, Heading{Offset: off, Level: max(1, e.Level), Text: e.Title})
		lastPage, last = u.Number, off
	}
	var warnings []string
	if broken > 0 {
		warnings = append(warnings, fmt.Sprintf("pdf: %d of %d outline entries (bookmarks) point nowhere and were left out", broken, len(entries)))
	}
	return out, warnings
}

// sectionNumber matches the numbering a title may carry on one side only:
// "3.2 ", "A.1 ", "IV. ", "Chapter 7: ", "Appendix B ".
var sectionNumber = regexp.MustCompile(`^(?i:(?:chapter|section|appendix|part|kapitel|chapitre)\s+)?(?:\d{1,3}|[A-Z]|[IVXLC]{1,6})(?:\.\d{1,3})*[.:]?\s+`)

// findTitle returns the offset of the line of text[from:to] where title is
// printed, or -1. The title must match whole words. A line that holds the
// title alone (after its numbering, perhaps wrapped onto the next line) is
// the heading; failing that, a line that starts with the title ("BLAS and
// LAPACK routines may be used..." comes before "A.3.1 BLAS" on its page);
// failing that, a match inside running text, only for titles of several
// words, since a one-word title there ("Name", "Files") is a mention.
//
// top says that from is the page's start, so page furniture before the
// title's line may be counted as the section's (see headingLineStart).
func findTitle(text string, from, to int, title string, top bool) int {
	page := foldText(text[from:to])
	for _, t := range []string{title, sectionNumber.ReplaceAllString(title, "")} {
		want := foldText(t).s
		if want == "" {
			continue
		}
		lineStart, inText := -1, -1
		for i := 0; ; {
			j := strings.Index(page.s[i:], want)
			if j < 0 {
				break
			}
			start, end := from+page.offs[i+j], from+page.offs[i+j+len(want)-1]
			i += j + 1
			if !wordEdges(text, start, end) {
				continue
			}
			ls, ok := headingLineStart(text, from, start, top)
			switch {
			case ok && aloneOnLine(text, end):
				return ls
			case ok && lineStart < 0:
				lineStart = ls
			case !ok && inText < 0 && len(strings.Fields(t)) > 1:
				inText = start
			}
		}
		if lineStart >= 0 {
			return lineStart
		}
		if inText >= 0 {
			return inText
		}
	}
	return -1
}

// aloneOnLine reports whether nothing but punctuation follows the rune at
// end on its line.
func aloneOnLine(text string, end int) bool {
	_, size := utf8.DecodeRuneInString(text[end:])
	rest := text[end+size:]
	if i := strings.IndexByte(rest, '\n'); i >= 0 {
		rest = rest[:i]
	}
	return strings.IndexFunc(rest, isWordRune) < 0
}

// wordEdges reports whether text[start] begins a word and the rune at end
// (the last matched byte's rune) ends one.
func wordEdges(text string, start, end int) bool {
	before, _ := utf8.DecodeLastRuneInString(text[:start])
	_, size := utf8.DecodeRuneInString(text[end:])
	after, _ := utf8.DecodeRuneInString(text[end+size:])
	return !isWordRune(before) && !isWordRune(after)
}

func isWordRune(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) }

// headingLineStart reports the start of off's line when only numbering
// ("3.2", "Chapter 7:", "Part I"), punctuation or a bullet stands before
// off on it. When only page furniture precedes that line on its page (at
// most two short lines: a running header, a page number), the page's
// start is returned instead: the page belongs to the section from its top.
func headingLineStart(text string, from, off int, top bool) (int, bool) {
	ls := strings.LastIndexByte(text[from:off], '\n') + 1 + from
	for _, w := range strings.Fields(text[ls:off]) {
		w = strings.TrimFunc(w, func(r rune) bool { return !isWordRune(r) })
		if w != "" && !numberingWord(w) {
			return 0, false
		}
	}
	if top && isFurniture(text[from:ls]) {
		return from, true
	}
	return ls, true
}

// isFurniture reports text that can only be a page's running header and
// number: at most two short lines, none ending a sentence.
func isFurniture(s string) bool {
	s = strings.TrimSpace(s)
	if len(s) > 60 {
		return false
	}
	lines := 0
	for _, l := range strings.Split(s, "\n") {
		if l = strings.TrimSpace(l); l == "" {
			continue
		}
		if lines++; lines > 2 || strings.ContainsAny(l[len(l)-1:], ".!?:;,") {
			return false
		}
	}
	return true
}

// numberingWord reports the words that number a heading rather than name it.
func numberingWord(w string) bool {
	switch strings.ToLower(w) {
	case "chapter", "section", "appendix", "part", "kapitel", "chapitre", "teil", "annexe", "anhang":
		return true
	}
	return sectionNumber.MatchString(w + " ")
}

// folded is text reduced to its lower-case letters and digits, with the
// byte offset in the original each of its bytes came from. Ligatures are
// spelled out in both the page text and the titles before they get here.
type folded struct {
	s    string
	offs []int
}

func foldText(s string) folded {
	var sb strings.Builder
	var offs []int
	for i, r := range s {
		if !isWordRune(r) {
			continue
		}
		n := sb.Len()
		sb.WriteRune(unicode.ToLower(r))
		for ; n < sb.Len(); n++ {
			offs = append(offs, i)
		}
	}
	return folded{sb.String(), offs}
}

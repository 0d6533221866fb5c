package extract

import (
	"fmt"
	"regexp"
	"sort"
	"strings"
	"unicode"
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
		off := findTitle(text, from, u.End, e.Title)
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
// printed, or -1. A match at the start of a line (after a section number)
// wins over one inside running text, which is a mention, not the heading.
func findTitle(text string, from, to int, title string) int {
	page := foldText(text[from:to])
	for _, t := range []string{title, sectionNumber.ReplaceAllString(title, "")} {
		want := foldText(t).s
		if want == "" {
			continue
		}
		first := -1
		for i := 0; ; {
			j := strings.Index(page.s[i:], want)
			if j < 0 {
				break
			}
			off := from + page.offs[i+j]
			if ls, ok := headingLineStart(text, from, off); ok {
				return ls
			}
			if first < 0 {
				first = off
			}
			i += j + 1
		}
		if first >= 0 {
			return first
		}
	}
	return -1
}

// headingLineStart reports the start of off's line when only a section
// number (or nothing) stands before off on it.
func headingLineStart(text string, from, off int) (int, bool) {
	ls := strings.LastIndexByte(text[from:off], '\n') + 1 + from
	prefix := text[ls:off]
	if strings.TrimSpace(prefix) == "" {
		return ls, true
	}
	if len(prefix) <= 24 && sectionNumber.MatchString(prefix+" ") && sectionNumber.ReplaceAllString(prefix+" ", "") == "" {
		return ls, true
	}
	return 0, false
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
		if !unicode.IsLetter(r) && !unicode.IsDigit(r) {
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

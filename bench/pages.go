package bench

import (
	"context"
	"fmt"
	"html"
	"maps"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode"

	"cairn/core/eval"
)

// OutlineEntry is one bookmark of a PDF: a section title and the page
// (1-based, physical) where the section starts.
type OutlineEntry struct {
	Title string
	Page  int
}

// outlineItem matches poppler's outline items: pdftohtml -xml prints each
// bookmark as <item page="N">title</item>; an item whose destination poppler
// cannot resolve has no page attribute and does not match.
var outlineItem = regexp.MustCompile(`<item page="(\d+)">([^<]*)</item>`)

// ReadOutline returns the bookmarks of a PDF as poppler reads them
// (`pdftohtml -xml -i -stdout`), the ground truth of the page set: it does
// not come from Cairn's own PDF reading.
func ReadOutline(ctx context.Context, pdf string) ([]OutlineEntry, error) {
	// -f 1 -l 1: the outline is printed whole; the pages' text is not needed.
	out, err := exec.CommandContext(ctx, "pdftohtml", "-xml", "-i", "-stdout", "-q", "-f", "1", "-l", "1", pdf).Output()
	if err != nil {
		return nil, fmt.Errorf("pdftohtml %s (Debian package poppler-utils): %w", pdf, err)
	}
	return ParseOutline(string(out)), nil
}

// ParseOutline reads the outline items of pdftohtml's XML output.
func ParseOutline(xml string) []OutlineEntry {
	var out []OutlineEntry
	for _, m := range outlineItem.FindAllStringSubmatch(xml, -1) {
		page, err := strconv.Atoi(m[1])
		if err != nil || page < 1 {
			continue
		}
		out = append(out, OutlineEntry{Title: strings.Join(strings.Fields(html.UnescapeString(m[2])), " "), Page: page})
	}
	return out
}

// PageQuery is a query of the page set: a section title, relevant only on
// the page where that section starts.
type PageQuery struct {
	ID    string `json:"id"`
	File  string `json:"file"`
	Page  int    `json:"page"`
	Title string `json:"title"` // the query: the bookmark's title without its section number
}

// sectionNumber is a leading "3.", "3.2.5.1", "A.1." or "Chapter 2." of a
// title: a person searching for the section would not type it.
var sectionNumber = regexp.MustCompile(`^((?i:chapter|appendix|part)\s+)?([0-9]+(\.[0-9]+)*\.?|[A-Z](\.[0-9]+)*\.)\s+`)

// PageQueries turns the outlines of PDFs (by path; pages is each PDF's page
// count) into the page set. The rule, fixed before the first run:
//   - a title's leading section number is removed;
//   - titles with fewer than two words holding a letter are too generic
//     ("Introduction", "Examples", "3.2") and left out;
//   - a title that occurs more than once (case-insensitive, across all the
//     PDFs) at different pages has no single right page and is left out;
//   - bookmarks pointing past the last page are left out.
func PageQueries(outlines map[string][]OutlineEntry, pages map[string]int) []PageQuery {
	type at struct {
		file string
		page int
	}
	byTitle := map[string][]at{}
	title := map[string]string{}
	files := slices.Sorted(maps.Keys(outlines))
	var order []string
	for _, f := range files {
		for _, e := range outlines[f] {
			t := strings.TrimSpace(sectionNumber.ReplaceAllString(e.Title, ""))
			if letterWords(t) < 2 || e.Page > pages[f] {
				continue
			}
			key := strings.ToLower(t)
			if _, ok := byTitle[key]; !ok {
				order = append(order, key)
				title[key] = t
			}
			byTitle[key] = append(byTitle[key], at{f, e.Page})
		}
	}
	var qs []PageQuery
	for _, key := range order {
		ats := byTitle[key]
		unique := true
		for _, a := range ats[1:] {
			unique = unique && a == ats[0]
		}
		if !unique {
			continue
		}
		qs = append(qs, PageQuery{ID: fmt.Sprintf("p%03d", len(qs)+1), File: ats[0].file, Page: ats[0].page, Title: title[key]})
	}
	return qs
}

func letterWords(s string) int {
	n := 0
	for _, w := range strings.Fields(s) {
		if strings.IndexFunc(w, unicode.IsLetter) >= 0 {
			n++
		}
	}
	return n
}

// PageHit is a ranked passage reduced to where it is: a file and a page.
type PageHit struct {
	Path string
	Page int
}

// PageKey names a page of a file in qrels and runs.
func PageKey(path string, page int) string {
	return filepath.Clean(path) + "#" + strconv.Itoa(page)
}

// CollapsePages turns a ranking of passages into a ranking of pages: a page
// takes the rank of its first (best) passage, later passages of the same
// page are dropped.
func CollapsePages(hits []PageHit) []string {
	seen := map[string]bool{}
	var out []string
	for _, h := range hits {
		k := PageKey(h.Path, h.Page)
		if !seen[k] {
			seen[k] = true
			out = append(out, k)
		}
	}
	return out
}

// PageQrels are the judgements of a page set: each query's one relevant page.
func PageQrels(qs []PageQuery) eval.Qrels {
	q := eval.Qrels{}
	for _, p := range qs {
		q[p.ID] = map[string]int{PageKey(p.File, p.Page): 1}
	}
	return q
}

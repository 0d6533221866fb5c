package extract

import (
	"context"
	"encoding/xml"
	"net/url"
	"sort"
	"strings"
)

// tocEntry is one entry of an EPUB's table of contents.
type tocEntry struct {
	file, fragment string // archive path of the chapter and the anchor id in it
	title          string
	depth          int // 1 = top level
}

// readTOC reads a table of contents in order and depth: a nav document's
// <nav epub:type="toc"> with nested <ol> of <a href> (EPUB 3; its other
// navs, landmarks and page lists, are no table of contents), or an NCX's
// nested <navPoint>, each a <text> label and a <content src> (EPUB 2). A
// broken part yields the entries read before the break.
func readTOC(ctx context.Context, a *zipArchive, part string, ncx bool) []tocEntry {
	s, c, err := a.xml(ctx, part)
	if err != nil {
		return nil
	}
	defer c.Close()
	var out []tocEntry
	add := func(href, title string, depth int) {
		title = collapseSpace(unligature(title))
		if href == "" || title == "" || depth < 1 || len(out) >= maxOutlineEntries {
			return
		}
		file, frag, _ := strings.Cut(href, "#")
		if f, err := url.PathUnescape(frag); err == nil {
			frag = f
		}
		out = append(out, tocEntry{file: resolvePart(part, urlPath(file)), fragment: frag, title: title, depth: min(depth, maxOutlineDepth)})
	}
	inTOC := false // inside the toc nav of a nav document
	depth := 0     // <ol> depth in a nav, <navPoint> depth in an NCX
	label := ""
	for {
		tok, err := s.next()
		if err != nil {
			return out
		}
		switch e := tok.(type) {
		case xml.StartElement:
			switch e.Name.Local {
			case "nav":
				inTOC = strings.Contains(" "+attr(e, "type")+" ", " toc ")
				depth = 0
			case "ol":
				depth++
			case "navPoint":
				depth++
				label = ""
			case "a":
				if !ncx && inTOC {
					href := attr(e, "href")
					t, err := s.text()
					if err != nil {
						return out
					}
					add(href, t, depth)
				}
			case "text":
				if ncx && depth > 0 {
					t, err := s.text()
					if err != nil {
						return out
					}
					label = t
				}
			case "content":
				if ncx {
					add(attr(e, "src"), label, depth)
				}
			}
		case xml.EndElement:
			switch e.Name.Local {
			case "nav":
				inTOC = false
			case "ol", "navPoint":
				depth = max(0, depth-1)
			}
		}
	}
}

// chapterHeadings merges a chapter's table-of-contents entries with the
// headings of its HTML, at offsets relative to the chapter's text. The
// table of contents names the sections, as a PDF's outline does: an entry
// lands on its anchor (the element with that id), else on the chapter's
// heading of the same title, else on the chapter's start, and replaces an
// HTML heading at the same place. The HTML headings the table of contents
// does not list (it often stops at the second level) stay, nested below
// the entry in force: a heading one level deeper than the HTML heading
// that entry replaced goes one level below the entry.
func chapterHeadings(d *Document, anchors map[string]int, toc []tocEntry) []Heading {
	if len(toc) == 0 {
		return d.Headings
	}
	type mark struct {
		off, depth int
		title      string
	}
	var marks []mark
	for _, e := range toc {
		off, ok := anchors[e.fragment]
		if e.fragment == "" || !ok {
			// No anchor: the chapter's heading of that title, else its start.
			off = 0
			for _, h := range d.Headings {
				if sameTitle(h.Text, e.title) {
					off = h.Offset
					break
				}
			}
		}
		marks = append(marks, mark{lineOf(d.Text, off), e.depth, e.title})
	}
	sort.SliceStable(marks, func(i, j int) bool { return marks[i].off < marks[j].off })
	var out []Heading
	replaced := map[int]int{} // mark index -> level of the HTML heading it replaced
	for _, m := range marks {
		out = append(out, Heading{Offset: m.off, Level: m.depth, Text: m.title})
	}
	for _, h := range d.Headings {
		// The entry in force at h: the last mark at or before it.
		i := sort.Search(len(marks), func(i int) bool { return marks[i].off > h.Offset }) - 1
		if i >= 0 && marks[i].off == h.Offset {
			if _, ok := replaced[i]; !ok {
				replaced[i] = h.Level
				continue
			}
		}
		if i >= 0 { // before the chapter's first entry, a heading keeps its level
			h.Level = marks[i].depth + max(1, h.Level-replaced[i])
		}
		out = append(out, h)
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Offset < out[j].Offset })
	return out
}

// lineOf returns the start of the line holding the text an anchor at off
// points to: past white space, back to the line's start (an id inside a
// paragraph starts its section with the paragraph's line).
func lineOf(s string, off int) int {
	off = min(max(off, 0), len(s))
	for off < len(s) && (s[off] == ' ' || s[off] == '\n' || s[off] == '\t' || s[off] == '\r') {
		off++
	}
	return strings.LastIndexByte(s[:off], '\n') + 1
}

// sameTitle compares titles on their letters and digits, as PDF outline
// titles are matched (foldText).
func sameTitle(a, b string) bool { return foldText(a).s == foldText(b).s }

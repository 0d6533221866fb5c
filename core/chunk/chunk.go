// Package chunk splits an extracted document into overlapping passages that
// each know where they came from: byte offsets, lines, page (or slide, sheet)
// and the heading they sit under.
package chunk

import (
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"

	"cairn/core/extract"
)

// Version numbers the chunker's output: raise it with any change to where
// passages begin and end or what they hold. A knowledge base (or a team
// cluster's folder) then reads and chunks every document again at its
// next index run (ingest.ExtractorChanges), instead of keeping passages
// cut the old way until each file changes.
//
// 2: windows begin at a sentence, paragraph or list-item start, and end
// before one (sentenceStart); no-break and other Unicode spaces are
// trimmed.
const Version = 2

// Params control the split. Sizes count characters (runes).
type Params struct {
	Size          int // window length; default 1200
	Overlap       int // characters repeated at the start of the next chunk; default 200
	MaxHeadingLen int // longer heading context is cut; default 160
}

// DefaultParams returns the defaults of HybridRAG3, which tuned them for
// all-MiniLM-L6-v2.
func DefaultParams() Params { return Params{Size: 1200, Overlap: 200, MaxHeadingLen: 160} }

func (p Params) normalized() Params {
	d := DefaultParams()
	switch {
	case p.Size <= 0:
		p.Size = d.Size
	case p.Size < 100:
		p.Size = 100
	}
	// Overlap must stay below half a window so every step advances.
	p.Overlap = max(0, min(p.Overlap, p.Size/2-1))
	if p.MaxHeadingLen <= 0 {
		p.MaxHeadingLen = d.MaxHeadingLen
	}
	return p
}

// Chunk is one passage of a document.
type Chunk struct {
	Ordinal   int    // 0-based position in the document
	Text      string // the passage, trimmed
	Heading   string // heading trail in force at Start, e.g. "Install > Linux"
	Start     int    // byte offset of Text in the document text
	End       int
	LineStart int // 1-based line of Start
	LineEnd   int // 1-based line of the last byte
	Unit      extract.UnitKind
	Page      int    // number of the unit (page, slide, sheet), 0 when the document has none
	Label     string // unit label: sheet name, attachment name
}

// Split cuts doc into chunks. Chunks never cross a unit boundary, so each
// cites one page, nor a heading the format marks (doc.Headings: a PDF's
// outline, HTML, Markdown, ODF and DOCX headings), so each holds the text
// of one section and is headed by it; within both, a window ends at the
// last paragraph break, else sentence end, else line break in its second
// half, else it is cut. Headings guessed from plain text do not cut: a
// wrong guess would only split a passage.
func Split(doc *extract.Document, p Params) []Chunk {
	p = p.normalized()
	text := doc.Text
	lines := newLineIndex(text)
	heads := headingTrail(text, doc.Headings, doc.Format, p.MaxHeadingLen)
	cuts := sectionCuts(doc.Headings)
	var out []Chunk
	for _, seg := range segments(doc) {
		for _, sec := range sections(text, seg.Start, seg.End, cuts) {
			for _, r := range windows(text, sec.start, sec.end, p) {
				out = append(out, Chunk{
					Ordinal:   len(out),
					Text:      text[r[0]:r[1]],
					Heading:   heads.at(max(r[0], sec.head)),
					Start:     r[0],
					End:       r[1],
					LineStart: lines.line(r[0]),
					LineEnd:   lines.line(r[1] - 1),
					Unit:      seg.Kind,
					Page:      seg.Number,
					Label:     seg.Label,
				})
			}
		}
	}
	return out
}

// cut is where a marked heading starts a section, and how long its title
// is (the titles of all headings at that offset).
type cut struct {
	off    int
	titles int // runes
}

// sectionCuts returns the offsets where doc's marked headings start, in
// order, one per offset.
func sectionCuts(hs []extract.Heading) []cut {
	var out []cut
	for _, h := range hs {
		out = append(out, cut{h.Offset, utf8.RuneCountInString(h.Text)})
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].off < out[j].off })
	merged := out[:0]
	for _, c := range out {
		if n := len(merged); n > 0 && merged[n-1].off == c.off {
			merged[n-1].titles += c.titles
			continue
		}
		merged = append(merged, c)
	}
	return merged
}

// section is text[start:end] of one unit under one heading; head is where
// the heading that names it starts (past start when headings with no text
// of their own were joined to it).
type section struct{ start, end, head int }

// headingOnlySlack is how much more than its titles a section may hold and
// still be a heading without text of its own: numbering, a running header
// and a page number, which a PDF page puts before its first heading.
const headingOnlySlack = 64

// sections cuts text[s:e] at the cuts inside it. A section that holds no
// more than its heading ("7 R Miscellanea" straight before "7.1 ...") is
// joined to the next one, so no chunk is a bare title; the joined chunk is
// headed by the innermost heading ("7 R Miscellanea > 7.1 ...").
func sections(text string, s, e int, cuts []cut) []section {
	i := sort.Search(len(cuts), func(i int) bool { return cuts[i].off >= s })
	var out []section
	open := false // bare headings wait in text[start:] for the next section
	start := s
	for from := s; from < e; {
		to, titles := e, -1
		if i < len(cuts) && cuts[i].off == from {
			titles = cuts[i].titles
			i++
		}
		if i < len(cuts) && cuts[i].off < e {
			to = cuts[i].off
		}
		if !open {
			start = from
		}
		body := strings.TrimSpace(text[from:to])
		switch {
		case body == "" && !open:
		case to < e && titles >= 0 && utf8.RuneCountInString(body) <= titles+headingOnlySlack:
			open = true
		default:
			out = append(out, section{start, to, from})
			open = false
		}
		from = to
	}
	if open { // bare headings at the end of the unit
		out = append(out, section{start, e, start})
	}
	return out
}

// segments returns the units of doc plus the text between them, so text
// outside every unit is still indexed.
func segments(doc *extract.Document) []extract.Unit {
	if len(doc.Units) == 0 {
		return []extract.Unit{{Start: 0, End: len(doc.Text)}}
	}
	units := append([]extract.Unit(nil), doc.Units...)
	sort.SliceStable(units, func(i, j int) bool { return units[i].Start < units[j].Start })
	var out []extract.Unit
	pos := 0
	for _, u := range units {
		if u.Start < pos {
			u.Start = pos // overlapping units: the earlier one keeps the text
		}
		if u.Start > pos && strings.TrimSpace(doc.Text[pos:u.Start]) != "" {
			out = append(out, extract.Unit{Start: pos, End: u.Start})
		}
		if u.End > u.Start {
			out = append(out, u)
			pos = u.End
		}
	}
	if pos < len(doc.Text) && strings.TrimSpace(doc.Text[pos:]) != "" {
		out = append(out, extract.Unit{Start: pos, End: len(doc.Text)})
	}
	return out
}

// windows returns [start, end) byte ranges of the chunks of text[s:e].
func windows(text string, s, e int, p Params) [][2]int {
	var out [][2]int
	pos := skipSpace(text, s, e)
	for pos < e {
		limit := advance(text, pos, e, p.Size)
		if limit >= e {
			if end := trimRight(text, pos, e); end > pos {
				out = append(out, [2]int{pos, end})
			}
			break
		}
		half := advance(text, pos, e, p.Size/2)
		cut := boundary(text, half, limit)
		if end := trimRight(text, pos, cut); end > pos {
			out = append(out, [2]int{pos, end})
		}
		next := nextStart(text, pos, cut, p.Overlap)
		if next <= pos { // cannot happen with Overlap < Size/2; guard against loops anyway
			next = cut
		}
		pos = skipSpace(text, next, e)
	}
	return out
}

// boundary picks where a window ending at limit should end, searching
// text[from:limit] for a paragraph break, then the start of a sentence or
// list item (sentenceStart), then a sentence end, then a line break; with
// none, the window is cut at the last space, else at limit.
func boundary(text string, from, limit int) int {
	w := text[from:limit]
	if i := strings.LastIndex(w, "\n\n"); i >= 0 {
		return from + i + 2
	}
	for i := limit; i > from; i-- {
		if sentenceStart(text, i) {
			return i
		}
	}
	if i := lastSentenceEnd(w); i >= 0 {
		return from + i
	}
	if i := strings.LastIndexByte(w, '\n'); i >= 0 {
		return from + i + 1
	}
	if i := strings.LastIndexByte(w, ' '); i >= 0 && i > len(w)/2 {
		return from + i + 1
	}
	return limit
}

// lastSentenceEnd returns the offset just past the last ". ", "! ", "? "
// (or the same before a newline) in w, or -1.
func lastSentenceEnd(w string) int {
	for i := len(w) - 2; i >= 0; i-- {
		switch w[i] {
		case '.', '!', '?', ';':
			if c := w[i+1]; c == ' ' || c == '\n' || c == '\t' {
				if w[i] == '.' && i > 0 && isAbbrevDot(w, i) {
					continue
				}
				return i + 1
			}
		}
	}
	return -1
}

// isAbbrevDot reports whether the dot at w[i] follows a single letter or a
// digit ("e.g. ", "Fig. 3" is not caught, "3. " is a list), which rarely
// ends a sentence.
func isAbbrevDot(w string, i int) bool {
	if i >= 1 && (i == 1 || isSpaceByte(w[i-2]) || w[i-2] == '.' || w[i-2] == '(') && unicode.IsLetter(rune(w[i-1])) {
		return true
	}
	return false
}

// advance returns the byte offset n runes after pos, at most e.
func advance(text string, pos, e, n int) int {
	for ; n > 0 && pos < e; n-- {
		if text[pos] < utf8.RuneSelf {
			pos++
			continue
		}
		_, size := utf8.DecodeRuneInString(text[pos:e])
		pos += size
	}
	return pos
}

// back returns the byte offset n runes before pos, at least lo.
func back(text string, pos, lo, n int) int {
	for ; n > 0 && pos > lo; n-- {
		_, size := utf8.DecodeLastRuneInString(text[lo:pos])
		pos -= size
	}
	return pos
}

// nextStart picks where the window after one that began at pos and ends
// at cut begins, repeating about overlap runes of the text before cut, so
// that a passage begins where a reader would: at the first paragraph or
// sentence start inside the overlap; else at the nearest one before it,
// reaching back at most overlap/2 runes further (a sentence longer than
// the overlap is repeated whole); else, as in code or a table, at the
// first line start inside the overlap, else at a word start.
func nextStart(text string, pos, cut, overlap int) int {
	from := back(text, cut, pos, overlap)
	for i := from; i < cut; i++ {
		if sentenceStart(text, i) {
			return i
		}
	}
	reach := back(text, from, pos+1, overlap/2)
	for i := from - 1; i >= reach; i-- {
		if sentenceStart(text, i) {
			return i
		}
	}
	for i := from; i < cut; i++ {
		if i > 0 && text[i-1] == '\n' {
			return i
		}
	}
	return wordStart(text, from, cut)
}

// sentenceStart reports whether a paragraph, a sentence or a list item
// begins at text[i]: the first letter after a blank line; after a ".",
// "!" or "?" (and any closing quote or bracket) and a space, unless the
// dot ends a one-letter abbreviation ("e.g.") or the word after it is in
// lower case; or at a line start after a line that ends in ":" or one
// that opens with a list mark ("- ", "* ", "• ", "1. ", "2) ").
func sentenceStart(text string, i int) bool {
	if i == 0 || i >= len(text) || isSpaceByte(text[i]) || !utf8.RuneStart(text[i]) || spaceWidth(text, i) > 0 {
		return false
	}
	j, newlines := i, 0
	for j > 0 && newlines < 2 {
		if i-j > maxGap {
			return true // a long run of blank space parts what it separates
		}
		if w := spaceWidthBefore(text, j); w > 0 {
			if text[j-1] == '\n' {
				newlines++
			}
			j -= w
			continue
		}
		break
	}
	switch {
	case j == i: // no space before: inside a word
		return false
	case j == 0 || newlines >= 2:
		return true
	case newlines == 1 && (text[j-1] == ':' || listItem(text[i:])):
		return true
	}
	// Closing quotes and brackets after the end mark: `ends." Next`.
	for j > 0 {
		r, size := utf8.DecodeLastRuneInString(text[:j])
		if !strings.ContainsRune(`)]"'’”»`, r) {
			break
		}
		j -= size
	}
	if j == 0 || strings.IndexByte(".!?", text[j-1]) < 0 {
		return false
	}
	if text[j-1] == '.' && isAbbrevDot(text[:j], j-1) {
		return false
	}
	r, _ := utf8.DecodeRuneInString(text[i:])
	return !unicode.IsLower(r)
}

// maxGap bounds how far sentenceStart reads back through blank space, so
// that a run of millions of spaces costs no more than a short one.
const maxGap = 256

// listItem reports whether s opens with a list mark and a space: "- ",
// "* ", "• ", or a number or single letter followed by "." or ")".
func listItem(s string) bool {
	for _, m := range []string{"- ", "* ", "• ", "+ "} {
		if strings.HasPrefix(s, m) {
			return true
		}
	}
	n := 0
	for n < len(s) && n < 3 && s[n] >= '0' && s[n] <= '9' {
		n++
	}
	if n == 0 && len(s) > 0 && s[0] >= 'a' && s[0] <= 'z' {
		n = 1
	}
	return n > 0 && len(s) > n+1 && (s[n] == '.' || s[n] == ')') && s[n+1] == ' '
}

// wordStart moves pos forward to the start of a word if it sits inside one,
// as long as that stays before limit.
func wordStart(text string, pos, limit int) int {
	if pos == 0 || isSpaceByte(text[pos-1]) {
		return pos
	}
	for i := pos; i < limit; i++ {
		if isSpaceByte(text[i]) {
			return i + 1
		}
	}
	return pos
}

// skipSpace moves pos past spaces, no-break spaces included (a text
// rendering indents with them) and any other Unicode space, up to e.
func skipSpace(text string, pos, e int) int {
	for pos < e {
		w := spaceWidth(text[:e], pos)
		if w == 0 {
			break
		}
		pos += w
	}
	return pos
}

// trimRight moves e back past spaces, down to s.
func trimRight(text string, s, e int) int {
	for e > s {
		w := spaceWidthBefore(text[s:], e-s)
		if w == 0 {
			break
		}
		e -= w
	}
	return e
}

func isSpaceByte(c byte) bool { return c == ' ' || c == '\n' || c == '\t' || c == '\r' || c == '\f' }

// spaceWidth is the length of the space at text[i] (an ASCII one, a
// no-break space or any other Unicode space), 0 when there is none.
func spaceWidth(text string, i int) int {
	if c := text[i]; c < utf8.RuneSelf {
		if isSpaceByte(c) || c == '\v' {
			return 1
		}
		return 0
	}
	if r, size := utf8.DecodeRuneInString(text[i:]); unicode.IsSpace(r) {
		return size
	}
	return 0
}

// spaceWidthBefore is the length of the space that ends at text[:i], 0
// when there is none.
func spaceWidthBefore(text string, i int) int {
	if c := text[i-1]; c < utf8.RuneSelf {
		if isSpaceByte(c) || c == '\v' {
			return 1
		}
		return 0
	}
	if r, size := utf8.DecodeLastRuneInString(text[:i]); unicode.IsSpace(r) {
		return size
	}
	return 0
}

// lineIndex maps byte offsets to 1-based line numbers.
type lineIndex []int // offsets of the first byte of each line after the first

func newLineIndex(text string) lineIndex {
	var idx lineIndex
	for i := 0; i < len(text); i++ {
		if text[i] == '\n' {
			idx = append(idx, i+1)
		}
	}
	return idx
}

func (l lineIndex) line(off int) int {
	return sort.SearchInts(l, off+1) + 1
}

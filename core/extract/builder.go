package extract

import (
	"strings"
	"unicode/utf8"
)

// builder assembles a Document's text while it records units and headings
// at the byte offsets they land on, so every extractor gets exact offsets
// without arithmetic of its own.
type builder struct {
	sb       strings.Builder
	units    []Unit
	headings []Heading
	open     bool // the last unit in units is still growing
	maxBytes int64
}

func newBuilder(lim Limits) *builder { return &builder{maxBytes: lim.MaxTextBytes} }

// full reports whether the text reached MaxTextBytes; extractors stop
// reading more input then instead of building text that finish would cut.
func (b *builder) full() bool {
	return b.maxBytes > 0 && int64(b.sb.Len()) >= b.maxBytes
}

// room is how many bytes more a block may write: past MaxTextBytes by one
// at most, so that full says so; without a limit, a table's bound.
func (b *builder) room() int {
	if b.maxBytes <= 0 {
		return maxTableText
	}
	return max(0, int(b.maxBytes)-b.sb.Len()+1)
}

// sep makes sure the text ends with n newlines (when it is not empty), so
// blocks are separated by exactly one blank line or line break.
func (b *builder) sep(n int) {
	s := b.sb.String()
	if len(s) == 0 {
		return
	}
	if b.open && len(b.units) > 0 && b.units[len(b.units)-1].Start == len(s) {
		return // nothing written in the unit yet
	}
	have := 0
	for i := len(s) - 1; i >= 0 && s[i] == '\n' && have < n; i-- {
		have++
	}
	for ; have < n; have++ {
		b.sb.WriteByte('\n')
	}
}

// startUnit closes the current unit and opens a new one at the next block.
func (b *builder) startUnit(kind UnitKind, number int, label string) {
	b.endUnit()
	b.sep(2)
	b.units = append(b.units, Unit{Kind: kind, Number: number, Label: label, Start: b.sb.Len(), End: b.sb.Len()})
	b.open = true
}

// endUnit closes the open unit at the end of its text, without trailing
// newlines.
func (b *builder) endUnit() {
	if !b.open {
		return
	}
	b.open = false
	u := &b.units[len(b.units)-1]
	end := len(strings.TrimRight(b.sb.String(), "\n"))
	u.End = max(end, u.Start)
	if u.End == u.Start {
		b.units = b.units[:len(b.units)-1] // an empty unit cites nothing
	}
}

// block writes s as a paragraph of its own.
func (b *builder) block(s string) {
	s = strings.TrimSpace(unligature(s))
	if s == "" {
		return
	}
	b.sep(2)
	b.write(s)
}

// line writes s on a line of its own, directly under the previous line.
func (b *builder) line(s string) {
	s = strings.TrimSpace(unligature(s))
	if s == "" {
		return
	}
	b.sep(1)
	b.write(s)
}

// heading writes s as a paragraph and records it as a heading.
func (b *builder) heading(level int, s string) {
	s = collapseSpace(unligature(s))
	if s == "" {
		return
	}
	b.sep(2)
	b.headings = append(b.headings, Heading{Offset: b.sb.Len(), Level: max(1, level), Text: s})
	b.write(s)
}

// embed appends another document's text as a block, shifting its headings.
// Units of the embedded document are not carried over: the caller decides
// what the embedded text is a part of.
func (b *builder) embed(d *Document) {
	if strings.IndexByte(d.Text, 0) >= 0 || !utf8.ValidString(d.Text) {
		// Cleaning shifts offsets; the headings cannot follow (rare).
		d = &Document{Text: unligature(d.Text)}
	}
	t := strings.TrimSpace(d.Text)
	if t == "" {
		return
	}
	lead := len(d.Text) - len(strings.TrimLeft(d.Text, " \t\r\n"))
	b.sep(2)
	base := b.sb.Len() - lead // d.Text[i] lands at base+i
	b.write(t)
	for _, h := range d.Headings {
		h.Offset += base
		if h.Offset >= base+lead && h.Offset <= b.sb.Len() {
			b.headings = append(b.headings, h)
		}
	}
}

func (b *builder) len() int { return b.sb.Len() }

// write appends s. The buffer doubles as it grows, which would take a text
// near MaxTextBytes to twice that, and three times while it is copied:
// once it holds an eighth of the limit, it is grown once to the limit
// instead (a 32 MB text peaked at 107 MB of heap before, at about 40 now).
func (b *builder) write(s string) {
	if limit := int(b.maxBytes); limit > 0 {
		if c := b.sb.Cap(); c >= limit/8 && c < limit && b.sb.Len()+len(s) > c {
			b.sb.Grow(max(len(s), limit-b.sb.Len()) + 64<<10)
		}
	}
	b.sb.WriteString(s)
}

// document returns the finished Document.
func (b *builder) document(format, title string) *Document {
	b.endUnit()
	text := b.sb.String()
	if b.sb.Cap()-len(text) > 1<<20+len(text)/4 {
		// The buffer doubled as it grew: a 32 MB text can hold 64 MB for
		// as long as the document is indexed. A copy of its size lets the
		// rest go now.
		text = strings.Clone(text)
		b.sb = strings.Builder{}
	}
	return &Document{Format: format, Title: collapseSpace(title), Text: text, Units: b.units, Headings: b.headings}
}

// collapseSpace trims s and turns every run of white space into one space.
func collapseSpace(s string) string {
	return strings.Join(strings.Fields(s), " ")
}

// tidyLines trims trailing blanks from every line and lets at most one
// blank line stand between paragraphs: e-mail bodies and OCR output come
// with runs of empty, space-only lines that would waste chunk room.
func tidyLines(s string) string {
	lines := strings.Split(s, "\n")
	out := lines[:0]
	blank := 0
	for _, l := range lines {
		l = strings.TrimRight(l, " \t\u00a0\r")
		if strings.TrimSpace(l) == "" {
			if blank++; blank > 1 {
				continue
			}
			l = ""
		} else {
			blank = 0
		}
		out = append(out, l)
	}
	return strings.TrimSpace(strings.Join(out, "\n"))
}

// unligature (every text write goes through it) spells out ligature characters (ﬁ, ﬂ, ﬀ, ...) and drops soft
// hyphens in every format, so a search for "office" finds "oﬃce": search
// tokenizers do not fold presentation forms.
//
// It also drops NUL bytes and replaces invalid UTF-8 here, as text is
// written, because finish would do it later and shift every offset.
func unligature(s string) string {
	if strings.IndexByte(s, 0) >= 0 || !utf8.ValidString(s) {
		s = strings.ToValidUTF8(strings.ReplaceAll(s, "\x00", ""), "\uFFFD")
	}
	if !strings.ContainsAny(s, "\uFB00\uFB01\uFB02\uFB03\uFB04\uFB05\uFB06\u00AD") {
		return s
	}
	return ligatures.Replace(s)
}

package extract

import (
	"context"
	"encoding/xml"
	"io"
	"regexp"
	"strconv"
	"strings"
)

// extractDOCX reads a Word document (also .docm, .dotx): paragraphs in
// order, headings from paragraph styles (or outline levels), tables as
// "Header: value" rows, text boxes, then footnotes and endnotes, then the
// page headers and footers once each. A DOCX has pages only as its last
// layout left them: Word records each page start it rendered as a
// w:lastRenderedPageBreak, and when those are present the body gets page
// units from them. (LibreOffice does not write them, so its files have no
// units; explicit page breaks alone would miscount the pages between.)
func (r *Registry) extractDOCX(ctx context.Context, f File, lim Limits) (*Document, error) {
	a, err := openZip(f, lim, "docx")
	if err != nil {
		return nil, err
	}
	main := ooxmlMainPart(ctx, a, "word/document.xml")
	if err := requirePart(a, main); err != nil {
		return nil, err
	}
	p := &docxParser{styles: map[string]int{}, noteNums: map[string]int{}}
	if rels, err := ooxmlRels(ctx, a, main); err == nil {
		for _, rel := range rels {
			switch rel.typ {
			case "styles":
				p.readStyles(ctx, a, rel.target)
			case "footnotes", "endnotes", "header", "footer":
				p.parts = append(p.parts, rel)
			}
		}
	}
	b := newBuilder(lim)
	s, c, err := a.xml(ctx, main)
	if err != nil {
		return nil, err
	}
	p.s = s
	blocks, err := p.blocks("")
	c.Close()
	if err != nil && err != io.EOF {
		return nil, err
	}
	writeDOCXPages(b, blocks)
	var warnings []string
	notes := map[string][]docxBlock{}
	var seenHF []string
	for _, rel := range p.parts {
		bl, err := p.part(ctx, a, rel)
		if err != nil {
			if IsSkip(err) || ctx.Err() != nil {
				return nil, err
			}
			warnings = append(warnings, err.Error())
			continue
		}
		switch rel.typ {
		case "footnotes", "endnotes":
			notes[rel.typ] = append(notes[rel.typ], bl...)
		default:
			text := blocksText(bl)
			if text != "" && !containsString(seenHF, text) {
				seenHF = append(seenHF, text)
			}
		}
	}
	for _, k := range []string{"footnotes", "endnotes"} {
		if len(notes[k]) > 0 {
			b.heading(1, strings.ToUpper(k[:1])+k[1:])
			writeDOCXBlocks(b, notes[k])
		}
	}
	if len(seenHF) > 0 {
		b.heading(1, "Headers and footers")
		for _, t := range seenHF {
			b.block(t)
		}
	}
	doc := b.document("docx", ooxmlTitle(ctx, a))
	doc.Warnings = warnings
	return doc, nil
}

type docxBlock struct {
	text  string
	level int // heading level; 0 for body text
	// Rendered page breaks (w:lastRenderedPageBreak) before the block's
	// first text, and inside it after that.
	pagesBefore, pagesInside int
}

// writeDOCXPages writes the body blocks, in page units when the file
// records where Word's layout broke the pages.
func writeDOCXPages(b *builder, blocks []docxBlock) {
	paged := false
	for _, bl := range blocks {
		paged = paged || bl.pagesBefore > 0 || bl.pagesInside > 0
	}
	if !paged {
		writeDOCXBlocks(b, blocks)
		return
	}
	page, pending := 1, 0
	b.startUnit(UnitPage, page, "")
	for _, bl := range blocks {
		if b.full() {
			break
		}
		if n := pending + bl.pagesBefore; n > 0 {
			page += n
			b.startUnit(UnitPage, page, "")
		}
		pending = bl.pagesInside // a block that runs onto the next page cites its first
		writeDOCXBlocks(b, []docxBlock{bl})
	}
	b.endUnit()
}

func writeDOCXBlocks(b *builder, blocks []docxBlock) {
	for _, bl := range blocks {
		if b.full() {
			return
		}
		if bl.level > 0 {
			b.heading(bl.level, bl.text)
		} else {
			b.block(bl.text)
		}
	}
}

func blocksText(bl []docxBlock) string {
	var parts []string
	for _, b := range bl {
		if t := strings.TrimSpace(b.text); t != "" {
			parts = append(parts, t)
		}
	}
	return strings.Join(parts, "\n")
}

func containsString(ss []string, s string) bool {
	for _, x := range ss {
		if x == s {
			return true
		}
	}
	return false
}

type docxParser struct {
	s      *xmlStream
	styles map[string]int // style id -> heading level (0: not a heading)
	parts  []ooxmlRel     // footnotes, endnotes, headers, footers
	// noteKind is "footnote" or "endnote" while reading those parts.
	noteKind string
	note     string // id of the footnote being read, in footnotes.xml
	// noteNums numbers footnotes and endnotes in order of reference, as
	// Word displays them; the ids in the file are internal and start at 2.
	noteNums map[string]int
}

// noteMark returns the displayed number of the note with the given id.
func (p *docxParser) noteMark(kind, id string) string {
	key := kind + id
	n, ok := p.noteNums[key]
	if !ok {
		n = 1
		for k := range p.noteNums {
			if strings.HasPrefix(k, kind) {
				n++
			}
		}
		p.noteNums[key] = n
	}
	return "[" + strconv.Itoa(n) + "]"
}

var headingStyleRE = regexp.MustCompile(`(?i)^(?:heading|titre|überschrift|rubrik|kop|titolo|encabezado|título)\s*([1-9])$`)

// readStyles maps paragraph style ids to heading levels: by the style's
// name ("heading 2", as Word and LibreOffice name them, whatever the UI
// language), by its outline level, or through the style it is based on.
func (p *docxParser) readStyles(ctx context.Context, a *zipArchive, part string) {
	s, c, err := a.xml(ctx, part)
	if err != nil {
		return
	}
	defer c.Close()
	type style struct {
		level   int
		basedOn string
	}
	all := map[string]*style{}
	var cur *style
	for {
		tok, err := s.next()
		if err != nil {
			break
		}
		e, ok := tok.(xml.StartElement)
		if !ok {
			continue
		}
		switch e.Name.Local {
		case "style":
			cur = &style{}
			all[attr(e, "styleId")] = cur
		case "name":
			if cur == nil {
				break
			}
			name := attr(e, "val")
			if m := headingStyleRE.FindStringSubmatch(name); m != nil {
				cur.level, _ = strconv.Atoi(m[1])
			} else if strings.EqualFold(name, "title") {
				cur.level = 1
			}
		case "outlineLvl":
			if cur != nil && cur.level == 0 {
				if n, err := strconv.Atoi(attr(e, "val")); err == nil && n < 9 {
					cur.level = n + 1
				}
			}
		case "basedOn":
			if cur != nil {
				cur.basedOn = attr(e, "val")
			}
		}
	}
	for id, st := range all {
		lvl, next := st.level, st.basedOn
		for hops := 0; lvl == 0 && next != "" && hops < 10; hops++ {
			b := all[next]
			if b == nil {
				break
			}
			lvl, next = b.level, b.basedOn
		}
		p.styles[id] = lvl
	}
}

// part reads a footnotes, endnotes, header or footer part.
func (p *docxParser) part(ctx context.Context, a *zipArchive, rel ooxmlRel) ([]docxBlock, error) {
	if !a.has(rel.target) {
		return nil, nil
	}
	s, c, err := a.xml(ctx, rel.target)
	if err != nil {
		return nil, err
	}
	defer c.Close()
	sub := &docxParser{s: s, styles: map[string]int{}, noteNums: p.noteNums, noteKind: strings.TrimSuffix(rel.typ, "s")}
	bl, err := sub.blocks("")
	if err == io.EOF {
		err = nil
	}
	for i := range bl {
		bl[i].level = 0 // a heading style in a footer is not a document heading
	}
	return bl, err
}

// blocks reads block-level content (paragraphs, tables) until the end tag
// of the element it was called inside (or the end of the part when end is
// ""). Elements it does not know are looked into, since Word wraps content
// in many transparent containers (sdt, customXml, ins, ...).
func (p *docxParser) blocks(end string) ([]docxBlock, error) {
	var out []docxBlock
	depth := 0
	carry := 0 // page breaks of empty blocks, for the next block
	for {
		tok, err := p.s.next()
		if err != nil {
			return out, err
		}
		switch e := tok.(type) {
		case xml.StartElement:
			switch e.Name.Local {
			case "p":
				bl, extra, err := p.paragraph()
				if err != nil {
					return out, err
				}
				if p.note != "" && bl.text != "" {
					bl.text = p.noteMark(p.noteKind, p.note) + " " + bl.text
					p.note = ""
				}
				bl.pagesBefore += carry
				carry = 0
				if bl.text == "" {
					carry = bl.pagesBefore + bl.pagesInside // an empty paragraph passes its breaks on
				} else {
					out = append(out, bl)
				}
				out = append(out, extra...)
			case "tbl":
				t, pages, err := p.table()
				if err != nil {
					return out, err
				}
				if t != "" {
					out = append(out, docxBlock{text: t, pagesBefore: carry, pagesInside: pages})
					carry = 0
				} else {
					carry += pages
				}
			case "footnote", "endnote":
				if typ := attr(e, "type"); typ == "separator" || typ == "continuationSeparator" || typ == "continuationNotice" {
					if err := p.s.skip(); err != nil {
						return out, err
					}
					continue
				}
				p.note = attr(e, "id")
				depth++
			case "del", "moveFrom", "Fallback", "sectPr", "tblPr", "bookmarkStart":
				if err := p.s.skip(); err != nil {
					return out, err
				}
			default:
				depth++
			}
		case xml.EndElement:
			if depth == 0 && end != "" {
				return out, nil
			}
			depth--
		}
	}
}

// paragraph reads a w:p: its text, its heading level, and the blocks of
// text boxes anchored in it (returned separately, to follow the paragraph).
func (p *docxParser) paragraph() (docxBlock, []docxBlock, error) {
	var sb strings.Builder
	var extra []docxBlock
	level, outline, list := 0, -1, false // outline: -1 unset, 0 body text, n heading level n
	before, inside := 0, 0
	depth := 0
	for {
		tok, err := p.s.next()
		if err != nil {
			return docxBlock{}, extra, err
		}
		switch e := tok.(type) {
		case xml.StartElement:
			switch e.Name.Local {
			case "pStyle":
				level = p.styles[attr(e, "val")]
				depth++
			case "outlineLvl":
				// A paragraph's own outline level overrides its style's,
				// as in Word: 0-8 make it a heading of level 1-9, 9 body text.
				if n, err := strconv.Atoi(attr(e, "val")); err == nil && n >= 0 {
					outline = 0
					if n < 9 {
						outline = n + 1
					}
				}
				depth++
			case "numPr":
				list = true
				depth++
			case "t":
				t, err := p.s.text()
				if err != nil {
					return docxBlock{}, extra, err
				}
				sb.WriteString(t)
			case "tab":
				sb.WriteByte('\t')
				depth++
			case "br", "cr":
				sb.WriteByte('\n')
				depth++
			case "noBreakHyphen":
				sb.WriteByte('-')
				depth++
			case "lastRenderedPageBreak":
				if strings.TrimSpace(sb.String()) == "" {
					before++
				} else {
					inside++
				}
				depth++
			case "footnoteReference", "endnoteReference":
				sb.WriteString(p.noteMark(strings.TrimSuffix(e.Name.Local, "Reference"), attr(e, "id")))
				depth++
			case "txbxContent":
				bl, err := p.blocks("txbxContent")
				if err != nil {
					return docxBlock{}, extra, err
				}
				extra = append(extra, bl...)
			case "rPr", "del", "moveFrom", "instrText", "delText", "Fallback", "tabs", "footnotePr", "endnotePr", "sectPr":
				if err := p.s.skip(); err != nil {
					return docxBlock{}, extra, err
				}
			default:
				depth++
			}
		case xml.EndElement:
			if depth == 0 {
				text := strings.TrimSpace(sb.String())
				if outline >= 0 {
					level = outline
				}
				if list && level == 0 && text != "" {
					text = "- " + text
				}
				if level > 0 {
					text = collapseSpace(text)
				}
				return docxBlock{text: text, level: level, pagesBefore: before, pagesInside: inside}, extra, nil
			}
			depth--
		}
	}
}

// table reads a w:tbl into "Header: value" lines. The header is the rows
// marked as repeating header rows (w:tblHeader), else the first row when
// the table's look turns on first-row formatting (w:tblLook firstRow, or
// bit 0x0020 of its older hex val), else nothing when the look turns it
// off, and only without any look the first row when it plainly labels the
// columns (splitHeader).
func (p *docxParser) table() (string, int, error) {
	var rows [][]string
	pages := 0 // rendered page breaks inside the table
	var header []string
	var row []string
	rowIsHeader := false
	look := -1 // first-row look: -1 unsaid, 0 off, 1 on
	depth := 0
	for {
		tok, err := p.s.next()
		if err != nil {
			return "", 0, err
		}
		switch e := tok.(type) {
		case xml.StartElement:
			switch e.Name.Local {
			case "tr":
				row, rowIsHeader = nil, false
				depth++
			case "tblHeader":
				if v := attr(e, "val"); v == "" || v == "1" || v == "true" || v == "on" {
					rowIsHeader = true
				}
				depth++
			case "tc":
				bl, err := p.blocks("tc")
				if err != nil {
					return "", 0, err
				}
				var parts []string
				for _, b := range bl {
					pages += b.pagesBefore + b.pagesInside
					if t := strings.TrimSpace(b.text); t != "" {
						parts = append(parts, strings.ReplaceAll(t, "\n", "; "))
					}
				}
				row = append(row, strings.Join(parts, " "))
			case "tblLook":
				if depth == 1 { // this table's look, in its w:tblPr
					look = docxFirstRowLook(e)
				}
				depth++
			case "tblGrid":
				if err := p.s.skip(); err != nil {
					return "", 0, err
				}
			default:
				depth++
			}
		case xml.EndElement:
			if depth == 0 {
				switch {
				case header != nil:
				case look == 1 && len(rows) >= 2:
					header, rows = rows[0], rows[1:]
				case look == -1:
					header, rows = splitHeader(rows)
				}
				return TableText(header, rows), pages, nil
			}
			depth--
			if e.Name.Local == "tr" && len(row) > 0 {
				if rowIsHeader && len(rows) == 0 {
					header = append(header, row...)
				} else {
					rows = append(rows, row)
				}
			}
		}
	}
}

// docxFirstRowLook reads w:tblLook: 1 when the table's style formats its
// first row as a header, 0 when the look turns that off, -1 when it does
// not say.
func docxFirstRowLook(e xml.StartElement) int {
	switch attr(e, "firstRow") {
	case "1", "true", "on":
		return 1
	case "0", "false", "off":
		return 0
	}
	if v, err := strconv.ParseUint(attr(e, "val"), 16, 16); err == nil {
		if v&0x0020 != 0 {
			return 1
		}
		return 0
	}
	return -1
}

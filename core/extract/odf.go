package extract

import (
	"context"
	"encoding/xml"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// OpenDocument (ODT text, ODS spreadsheets, ODP presentations) keep their
// content in content.xml and their title in meta.xml. One reader walks the
// three: text documents become headings and paragraphs (with page units
// when the file records where its pages break), spreadsheets a sheet unit
// per table, presentations a slide unit per page with its notes.

// maxRepeat caps how often a repeated ODF row or cell is materialised:
// LibreOffice writes a row's trailing empty columns as one cell repeated a
// thousand times, and a hostile file can ask for billions.
const maxRepeat = 256

func (r *Registry) extractODF(ctx context.Context, f File, lim Limits) (*Document, error) {
	format := strings.TrimPrefix(ext(f.Name), ".")
	if format == "" || format == "odf" {
		format = "odt"
	}
	a, err := openZip(f, lim, format)
	if err != nil {
		return nil, err
	}
	if err := odfEncrypted(ctx, a); err != nil {
		return nil, err
	}
	if err := requirePart(a, "content.xml"); err != nil {
		return nil, err
	}
	p := &odfParser{lim: lim, breakBefore: map[string]bool{}, breakAfter: map[string]bool{}, parent: map[string]string{}}
	if a.has("styles.xml") {
		if s, c, err := a.xml(ctx, "styles.xml"); err == nil {
			p.s = s
			err = p.readStyles()
			c.Close()
			if err != nil && (IsSkip(err) || ctx.Err() != nil) {
				return nil, err
			}
		}
	}
	s, c, err := a.xml(ctx, "content.xml")
	if err != nil {
		return nil, err
	}
	defer c.Close()
	p.s = s
	b := newBuilder(lim)
	doc, err := p.body(b)
	if err != nil {
		return nil, err
	}
	doc.Title = odfTitle(ctx, a)
	return doc, nil
}

// odfEncrypted reports password-protected ODF packages: their manifest
// lists encryption data for the parts.
func odfEncrypted(ctx context.Context, a *zipArchive) error {
	if a.anyElement(ctx, "META-INF/manifest.xml", "encryption-data", nil) {
		return fmt.Errorf("%w: %s: password-protected document", ErrEncrypted, a.format)
	}
	return nil
}

func odfTitle(ctx context.Context, a *zipArchive) string {
	return a.firstText(ctx, "meta.xml", "title")
}

type odfParser struct {
	s           *xmlStream
	lim         Limits
	breakBefore map[string]bool   // paragraph styles that start a new page
	breakAfter  map[string]bool   // ... or end one
	parent      map[string]string // style -> parent style
	notes       []string
	pending     int // page breaks seen that the next block starts after
	cells       int64
	warnings    []string
	numbering   map[string]map[int]odfNumbering // list style -> level -> numbering (odflists.go)
	lists       []odfList                       // open text:list elements, innermost last
}

// readStyles records which paragraph styles break pages (fo:break-before
// or fo:break-after = "page"), from styles.xml and the automatic styles of
// content.xml.
func (p *odfParser) readStyles() error {
	cur, list := "", ""
	for {
		tok, err := p.s.next()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
		e, ok := tok.(xml.StartElement)
		if !ok {
			continue
		}
		p.listStyleElement(e, &list)
		switch e.Name.Local {
		case "style":
			cur = attrNS(e, "style", "name")
			if par := attrNS(e, "style", "parent-style-name"); par != "" {
				p.parent[cur] = par
			}
		case "paragraph-properties":
			if attrNS(e, "xsl-fo-compatible", "break-before") == "page" || attr(e, "break-before") == "page" {
				p.breakBefore[cur] = true
			}
			if attrNS(e, "xsl-fo-compatible", "break-after") == "page" || attr(e, "break-after") == "page" {
				p.breakAfter[cur] = true
			}
		}
	}
}

func (p *odfParser) styleBreaks(m map[string]bool, style string) bool {
	for hops := 0; style != "" && hops < 10; hops++ {
		if m[style] {
			return true
		}
		style = p.parent[style]
	}
	return false
}

type odfBlock struct {
	text      string
	level     int  // heading level, 0 for text
	pageFirst int  // page breaks before this block
	pageAfter bool // the block ends its page
	listed    bool // the block is a list item's and carries its label
}

// body reads content.xml: the automatic styles, then the text,
// spreadsheet or presentation body.
func (p *odfParser) body(b *builder) (*Document, error) {
	for {
		tok, err := p.s.next()
		if err == io.EOF {
			return b.document("odt", ""), nil
		}
		if err != nil {
			return nil, err
		}
		e, ok := tok.(xml.StartElement)
		if !ok {
			continue
		}
		switch e.Name.Local {
		case "automatic-styles":
			if err := p.autoStyles(); err != nil {
				return nil, err
			}
		case "text":
			if e.Name.Space == "" || strings.Contains(e.Name.Space, ":office:") {
				return p.text(b)
			}
		case "spreadsheet":
			return p.spreadsheet(b)
		case "presentation", "drawing":
			return p.presentation(b)
		}
	}
}

// autoStyles reads content.xml's automatic styles up to their end tag.
func (p *odfParser) autoStyles() error {
	cur, list := "", ""
	for depth := 1; depth > 0; {
		tok, err := p.s.next()
		if err != nil {
			return err
		}
		switch e := tok.(type) {
		case xml.StartElement:
			depth++
			p.listStyleElement(e, &list)
			switch e.Name.Local {
			case "style":
				cur = attrNS(e, "style", "name")
				if par := attrNS(e, "style", "parent-style-name"); par != "" {
					p.parent[cur] = par
				}
			case "paragraph-properties":
				if attr(e, "break-before") == "page" {
					p.breakBefore[cur] = true
				}
				if attr(e, "break-after") == "page" {
					p.breakAfter[cur] = true
				}
			}
		case xml.EndElement:
			depth--
		}
	}
	return nil
}

// text writes an ODT body; page units appear when the file records page
// breaks (soft page breaks LibreOffice stores from its last layout, or
// paragraph styles that break pages).
func (p *odfParser) text(b *builder) (*Document, error) {
	blocks, err := p.blocks()
	if err != nil && err != io.EOF {
		return nil, err
	}
	paged := false
	for _, bl := range blocks {
		if bl.pageFirst > 0 || bl.pageAfter {
			paged = true
			break
		}
	}
	page := 1
	if paged {
		b.startUnit(UnitPage, page, "")
	}
	for i, bl := range blocks {
		if b.full() {
			break
		}
		if paged && bl.pageFirst > 0 && b.len() > 0 {
			page += bl.pageFirst
			b.startUnit(UnitPage, page, "")
		}
		if bl.level > 0 {
			b.heading(bl.level, bl.text)
		} else {
			b.block(bl.text)
		}
		if paged && bl.pageAfter && i+1 < len(blocks) {
			page++
			b.startUnit(UnitPage, page, "")
		}
	}
	b.endUnit()
	if len(p.notes) > 0 {
		b.heading(1, "Footnotes")
		for _, n := range p.notes {
			b.block(n)
		}
	}
	doc := b.document("odt", "")
	doc.Warnings = p.warnings
	return doc, nil
}

// blocks reads block content up to the end tag of the element it is called
// inside (or the end of the part).
func (p *odfParser) blocks() ([]odfBlock, error) {
	var out []odfBlock
	depth := 0
	for {
		tok, err := p.s.next()
		if err != nil {
			return out, err
		}
		switch e := tok.(type) {
		case xml.StartElement:
			switch e.Name.Local {
			case "h", "p":
				bl, extra, err := p.paragraph(e)
				if err != nil {
					return out, err
				}
				out = append(out, bl)
				out = append(out, extra...)
			case "list":
				p.openList(e)
				depth++
			case "list-item", "list-header":
				label := "-"
				if e.Name.Local == "list-item" {
					label = p.itemLabel(e)
				}
				items, err := p.blocks()
				if err != nil {
					return out, err
				}
				// The item's first paragraph carries its label; paragraphs of
				// nested lists carry their own.
				first := true
				for i := range items {
					if items[i].level == 0 && items[i].text != "" && !items[i].listed {
						if first || label == "-" {
							items[i].text = label + " " + items[i].text
						}
						items[i].listed, first = true, false
					}
				}
				out = append(out, items...)
			case "table":
				bl, err := p.table(e)
				if err != nil {
					return out, err
				}
				bl.pageFirst, p.pending = p.pending, 0
				out = append(out, bl)
			case "soft-page-break":
				p.pending++
				depth++
			case "tracked-changes", "annotation", "table-of-content", "sequence-decls", "variable-decls", "forms", "notes", "illustration-index", "alphabetical-index":
				if err := p.s.skip(); err != nil {
					return out, err
				}
			default:
				depth++
			}
		case xml.EndElement:
			if depth == 0 {
				return out, nil
			}
			if e.Name.Local == "list" && len(p.lists) > 0 {
				p.lists = p.lists[:len(p.lists)-1]
			}
			depth--
		}
	}
}

// paragraph reads a text:p or text:h whose start tag is e.
func (p *odfParser) paragraph(e xml.StartElement) (odfBlock, []odfBlock, error) {
	bl := odfBlock{pageFirst: p.pending}
	p.pending = 0
	style := attrNS(e, "text", "style-name")
	if p.styleBreaks(p.breakBefore, style) {
		bl.pageFirst++
	}
	bl.pageAfter = p.styleBreaks(p.breakAfter, style)
	if e.Name.Local == "h" {
		bl.level = 1
		if n, err := strconv.Atoi(attrNS(e, "text", "outline-level")); err == nil && n > 0 {
			bl.level = min(n, 9)
		}
	}
	var sb strings.Builder
	var extra []odfBlock
	depth := 0
	for {
		tok, err := p.s.next()
		if err != nil {
			return bl, extra, err
		}
		switch t := tok.(type) {
		case xml.CharData:
			sb.WriteString(strings.NewReplacer("\n", " ", "\r", " ", "\t", " ").Replace(string(t)))
		case xml.StartElement:
			switch t.Name.Local {
			case "s":
				n, err := strconv.Atoi(attrNS(t, "text", "c"))
				if err != nil || n < 1 {
					n = 1
				}
				sb.WriteString(strings.Repeat(" ", min(n, 64)))
				depth++
			case "tab":
				sb.WriteByte('\t')
				depth++
			case "line-break":
				sb.WriteByte('\n')
				depth++
			case "soft-page-break":
				p.pending++ // mid-paragraph: the next block starts on the new page
				depth++
			case "note":
				cit, body, err := p.note()
				if err != nil {
					return bl, extra, err
				}
				sb.WriteString("[" + cit + "]")
				if body != "" {
					p.notes = append(p.notes, "["+cit+"] "+body)
				}
			case "text-box":
				inner, err := p.blocks()
				if err != nil {
					return bl, extra, err
				}
				extra = append(extra, inner...)
			case "annotation", "tracked-changes", "deletion", "ruby-text":
				if err := p.s.skip(); err != nil {
					return bl, extra, err
				}
			default:
				depth++
			}
		case xml.EndElement:
			if depth == 0 {
				bl.text = strings.TrimSpace(sb.String())
				if bl.level > 0 {
					bl.text = collapseSpace(bl.text)
				}
				return bl, extra, nil
			}
			depth--
		}
	}
}

// note reads a text:note: its citation mark and its body text.
func (p *odfParser) note() (string, string, error) {
	cit := ""
	var body []string
	depth := 0
	for {
		tok, err := p.s.next()
		if err != nil {
			return cit, "", err
		}
		switch e := tok.(type) {
		case xml.StartElement:
			switch e.Name.Local {
			case "note-citation":
				t, err := p.s.text()
				if err != nil {
					return cit, "", err
				}
				cit = strings.TrimSpace(t)
			case "note-body":
				bls, err := p.blocks()
				if err != nil {
					return cit, "", err
				}
				for _, b := range bls {
					if b.text != "" {
						body = append(body, b.text)
					}
				}
			default:
				depth++
			}
		case xml.EndElement:
			if depth == 0 {
				return cit, strings.Join(body, " "), nil
			}
			depth--
		}
	}
}

// tableRows reads a table:table into rows of cell texts (header rows
// apart), expanding repeated rows and cells within maxRepeat and the cell
// limit.
func (p *odfParser) tableRows() (header, rows [][]string, styles []string, err error) {
	inHeader := false
	var row []string
	rowRepeat := 1
	rowStyle := ""
	depth := 0
	for {
		tok, err := p.s.next()
		if err != nil {
			return header, rows, styles, err
		}
		switch e := tok.(type) {
		case xml.StartElement:
			switch e.Name.Local {
			case "table-header-rows":
				inHeader = true
				depth++
			case "table-row":
				row = nil
				rowRepeat = 1
				rowStyle = attrNS(e, "table", "default-cell-style-name")
				if n, err := strconv.Atoi(attrNS(e, "table", "number-rows-repeated")); err == nil && n > 1 {
					rowRepeat = n
				}
				depth++
			case "table-cell", "covered-table-cell":
				rep := 1
				if n, err := strconv.Atoi(attrNS(e, "table", "number-columns-repeated")); err == nil && n > 1 {
					rep = n
				}
				if st := attrNS(e, "table", "style-name"); st != "" && len(row) == 0 {
					rowStyle = st
				}
				bls, err := p.blocks()
				if err != nil {
					return header, rows, styles, err
				}
				var parts []string
				for _, b := range bls {
					if b.text != "" {
						parts = append(parts, strings.ReplaceAll(b.text, "\n", "; "))
					}
				}
				cell := strings.Join(parts, " ")
				for range min(rep, maxRepeat) {
					row = append(row, cell)
				}
			case "table":
				// A nested table's text stays in its cell's blocks; here it
				// is skipped so its rows do not mix with ours.
				if err := p.s.skip(); err != nil {
					return header, rows, styles, err
				}
			default:
				depth++
			}
		case xml.EndElement:
			if depth == 0 {
				return header, rows, styles, nil
			}
			depth--
			switch e.Name.Local {
			case "table-header-rows":
				inHeader = false
			case "table-row":
				row = trimRow(row)
				if len(row) == 0 {
					break
				}
				for range min(rowRepeat, maxRepeat) {
					p.cells += int64(len(row))
					if p.lim.MaxCells > 0 && p.cells > p.lim.MaxCells {
						return header, rows, styles, fmt.Errorf("%w: more than %d cells", ErrTooLarge, p.lim.MaxCells)
					}
					if inHeader {
						header = append(header, row)
					} else {
						rows = append(rows, row)
						styles = append(styles, rowStyle)
					}
				}
			}
		}
	}
}

// table reads a table:table of a text or presentation. Its header is the
// table:table-header-rows, else the first row when the table uses its
// style's first-row formatting (table:use-first-row-styles) or the first
// row alone has a cell style of its own (how LibreOffice Impress writes a
// header row), else the first row only when it plainly labels the columns
// (splitHeader).
func (p *odfParser) table(e xml.StartElement) (odfBlock, error) {
	header, rows, styles, err := p.tableRows()
	if err != nil {
		return odfBlock{}, err
	}
	var h []string
	switch {
	case len(header) > 0:
		h = header[0]
		rows = append(header[1:], rows...)
	case attrNS(e, "table", "use-first-row-styles") == "true" && len(rows) >= 2, distinctFirstRow(styles):
		h, rows = rows[0], rows[1:]
	default:
		h, rows = splitHeader(rows)
	}
	return odfBlock{text: TableText(h, rows)}, nil
}

// spreadsheet writes each table:table as a sheet unit labelled with its
// name: title rows as text, then the rows, under a header when the sheet
// marks one (table-header-rows) or its first row plainly labels the
// columns (splitSheet).
func (p *odfParser) spreadsheet(b *builder) (*Document, error) {
	for n := 1; ; n++ {
		e, err := p.s.find("table")
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, err
		}
		name := attrNS(e, "table", "name")
		header, rows, _, err := p.tableRows()
		cut := false
		if err != nil {
			if !IsSkip(err) {
				return nil, err
			}
			cut = true
		}
		var titles, h []string
		if len(header) > 0 {
			h, rows = header[0], append(header[1:], rows...)
		} else {
			titles, h, rows = splitSheet(rows)
		}
		b.startUnit(UnitSheet, n, name)
		b.heading(1, name)
		for _, t := range titles {
			b.block(t)
		}
		b.block(TableText(h, rows))
		b.endUnit()
		if cut || b.full() {
			p.warnings = append(p.warnings, fmt.Sprintf("ods: sheet %q and the rest cut: more than %d cells or the text limit", name, p.lim.MaxCells))
			break
		}
	}
	doc := b.document("ods", "")
	doc.Warnings = p.warnings
	return doc, nil
}

// presentation writes each draw:page as a slide unit: the title frame as
// label and heading, the other frames' text, then the speaker notes.
func (p *odfParser) presentation(b *builder) (*Document, error) {
	for n := 1; ; n++ {
		if _, err := p.s.find("page"); err == io.EOF {
			break
		} else if err != nil {
			return nil, err
		}
		title, body, notes, err := p.slide()
		if err != nil {
			return nil, err
		}
		b.startUnit(UnitSlide, n, title)
		b.heading(1, title)
		for _, t := range body {
			b.block(t)
		}
		if len(notes) > 0 {
			b.block("Notes: " + strings.Join(notes, "\n"))
		}
		b.endUnit()
		if b.full() {
			break
		}
	}
	return b.document("odp", ""), nil
}

// slide reads one draw:page.
func (p *odfParser) slide() (title string, body, notes []string, err error) {
	depth := 0
	inNotes := 0
	class := ""
	for {
		tok, err := p.s.next()
		if err != nil {
			return title, body, notes, err
		}
		switch e := tok.(type) {
		case xml.StartElement:
			switch e.Name.Local {
			case "notes":
				inNotes = depth + 1
				depth++
			case "frame", "custom-shape", "rect":
				class = attrNS(e, "presentation", "class")
				depth++
			case "p", "h", "list", "text-box", "table":
				var text string
				switch e.Name.Local {
				case "table":
					bl, err := p.table(e)
					if err != nil {
						return title, body, notes, err
					}
					text = bl.text
				case "p", "h":
					// Shapes (custom-shape, rect) hold paragraphs directly.
					bl, _, err := p.paragraph(e)
					if err != nil {
						return title, body, notes, err
					}
					text = bl.text
				default:
					bls, err := p.blocks()
					if err != nil {
						return title, body, notes, err
					}
					var parts []string
					for _, b := range bls {
						if b.text != "" {
							parts = append(parts, b.text)
						}
					}
					text = strings.Join(parts, "\n")
				}
				switch {
				case text == "" || class == "page-number" || class == "footer" || class == "date-time" || class == "header":
				case inNotes > 0:
					notes = append(notes, text)
				case class == "title" && title == "":
					title = collapseSpace(text)
				default:
					body = append(body, text)
				}
			default:
				depth++
			}
		case xml.EndElement:
			if depth == 0 {
				return title, body, notes, nil
			}
			if e.Name.Local == "notes" && depth == inNotes {
				inNotes = 0
			}
			depth--
		}
	}
}

// distinctFirstRow reports whether the first of three or more rows has a
// cell style that no other row has: a header row formatted apart. (Two
// rows could be the two bands of a striped table.)
func distinctFirstRow(styles []string) bool {
	if len(styles) < 3 || styles[0] == "" {
		return false
	}
	for _, st := range styles[1:] {
		if st == styles[0] {
			return false
		}
	}
	return true
}

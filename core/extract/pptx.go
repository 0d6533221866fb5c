package extract

import (
	"context"
	"encoding/xml"
	"fmt"
	"io"
	"strings"
)

// extractPPTX reads a PowerPoint presentation (also .pptm, .ppsx, .potx):
// one slide unit per slide in presentation order, numbered from 1 and
// labelled with the slide's title; the title is also a heading, then come
// the body texts and tables, then the speaker notes.
func (r *Registry) extractPPTX(ctx context.Context, f File, lim Limits) (*Document, error) {
	a, err := openZip(f, lim, "pptx")
	if err != nil {
		return nil, err
	}
	main := ooxmlMainPart(ctx, a, "ppt/presentation.xml")
	if err := requirePart(a, main); err != nil {
		return nil, err
	}
	slides, err := pptxSlideOrder(ctx, a, main)
	if err != nil {
		return nil, err
	}
	b := newBuilder(lim)
	var warnings []string
	for i, slide := range slides {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		if b.full() {
			warnings = append(warnings, fmt.Sprintf("pptx: text limit reached at slide %d of %d", i+1, len(slides)))
			break
		}
		shapes, err := pptxShapes(ctx, a, slide)
		if err == nil {
			err = graphicsText(ctx, a, slide, shapes)
		}
		if err != nil {
			if IsSkip(err) || ctx.Err() != nil {
				return nil, err
			}
			warnings = append(warnings, fmt.Sprintf("slide %d: %v", i+1, err))
			continue
		}
		var notes []pptxShape
		if rels, err := ooxmlRels(ctx, a, slide); err == nil {
			for _, rel := range rels {
				if rel.typ == "notesSlide" && a.has(rel.target) {
					if notes, err = pptxShapes(ctx, a, rel.target); err != nil {
						warnings = append(warnings, fmt.Sprintf("slide %d notes: %v", i+1, err))
					}
				}
			}
		}
		title := ""
		for _, sh := range shapes {
			if sh.ph == "title" || sh.ph == "ctrTitle" {
				title = collapseSpace(strings.Join(sh.paras, " "))
				break
			}
		}
		b.startUnit(UnitSlide, i+1, title)
		b.heading(1, title)
		for _, sh := range shapes {
			if sh.ph == "title" || sh.ph == "ctrTitle" || isPPTXChrome(sh.ph) {
				continue
			}
			b.block(strings.Join(sh.paras, "\n"))
			b.block(sh.table)
		}
		var nt []string
		for _, sh := range notes {
			if sh.ph == "body" {
				if t := strings.TrimSpace(strings.Join(sh.paras, "\n")); t != "" {
					nt = append(nt, t)
				}
			}
		}
		if len(nt) > 0 {
			b.block("Notes: " + strings.Join(nt, "\n"))
		}
		b.endUnit()
	}
	doc := b.document("pptx", ooxmlTitle(ctx, a))
	doc.Warnings = warnings
	return doc, nil
}

// isPPTXChrome reports placeholders that repeat on every slide and say
// nothing: slide numbers, dates, footers.
func isPPTXChrome(ph string) bool {
	return ph == "sldNum" || ph == "dt" || ph == "ftr" || ph == "hdr" || ph == "sldImg"
}

// pptxSlideOrder lists the slide parts in presentation order (p:sldIdLst),
// which need not be the order of the slideN.xml names.
func pptxSlideOrder(ctx context.Context, a *zipArchive, main string) ([]string, error) {
	rels, err := ooxmlRels(ctx, a, main)
	if err != nil {
		return nil, err
	}
	byID := map[string]string{}
	for _, rel := range rels {
		if rel.typ == "slide" {
			byID[rel.id] = rel.target
		}
	}
	s, c, err := a.xml(ctx, main)
	if err != nil {
		return nil, err
	}
	defer c.Close()
	var slides []string
	for {
		e, err := s.find("sldId")
		if err == io.EOF {
			return slides, nil
		}
		if err != nil {
			return nil, err
		}
		if t, ok := byID[relID(e)]; ok && a.has(t) {
			slides = append(slides, t)
		}
	}
}

// relID returns the r:id attribute (the relationships namespace), which
// shares its local name with plain "id" attributes.
func relID(e xml.StartElement) string {
	for _, at := range e.Attr {
		if at.Name.Local == "id" && (strings.HasSuffix(at.Name.Space, "/relationships") || at.Name.Space == "r") {
			return at.Value
		}
	}
	return ""
}

type pptxShape struct {
	ph      string   // placeholder type: "title", "body", ...; "" for free shapes
	paras   []string // paragraphs of its text body (or of its chart or diagram)
	table   string   // a table in TableText form
	chart   string   // relationship id of the chart a graphicFrame shows
	diagram string   // relationship id of the SmartArt data a graphicFrame shows
}

const drawingML = "/drawingml/2006/main"

// pptxShapes reads the shapes of a slide or notes part in document order.
func pptxShapes(ctx context.Context, a *zipArchive, part string) ([]pptxShape, error) {
	s, c, err := a.xml(ctx, part)
	if err != nil {
		return nil, err
	}
	defer c.Close()
	var shapes []pptxShape
	var cur *pptxShape
	var para strings.Builder
	inPara := false
	var rows [][]string
	var row []string
	var cell []string
	inCell := false
	firstRow := -1 // a:tblPr firstRow: -1 no tblPr, 0 off, 1 on
	for {
		tok, err := s.next()
		if err == io.EOF {
			return shapes, nil
		}
		if err != nil {
			return shapes, err
		}
		switch e := tok.(type) {
		case xml.StartElement:
			dml := strings.HasSuffix(e.Name.Space, drawingML) || e.Name.Space == "a"
			switch {
			case e.Name.Local == "sp" || e.Name.Local == "graphicFrame":
				shapes = append(shapes, pptxShape{})
				cur = &shapes[len(shapes)-1]
			case (e.Name.Local == "chart" || e.Name.Local == "relIds") && cur != nil:
				graphicRef(e, cur)
			case e.Name.Local == "ph" && cur != nil:
				cur.ph = attr(e, "type")
				if cur.ph == "" {
					cur.ph = "body" // a placeholder without a type is a body
				}
			case dml && e.Name.Local == "p":
				para.Reset()
				inPara = true
			case dml && e.Name.Local == "t" && inPara:
				t, err := s.text()
				if err != nil {
					return shapes, err
				}
				para.WriteString(t)
			case dml && e.Name.Local == "br" && inPara:
				para.WriteByte('\n')
			case dml && e.Name.Local == "tbl":
				rows, firstRow = nil, -1
			case dml && e.Name.Local == "tblPr":
				// PowerPoint marks a header row with firstRow="1"; the
				// attribute's absence means the table has none.
				firstRow = 0
				if v := attr(e, "firstRow"); v == "1" || v == "true" {
					firstRow = 1
				}
			case dml && e.Name.Local == "tr":
				row = nil
			case dml && e.Name.Local == "tc":
				cell, inCell = nil, true
			}
		case xml.EndElement:
			dml := strings.HasSuffix(e.Name.Space, drawingML) || e.Name.Space == "a"
			switch {
			case dml && e.Name.Local == "p" && inPara:
				inPara = false
				t := strings.TrimSpace(para.String())
				if t == "" {
					break
				}
				if inCell {
					cell = append(cell, t)
				} else if cur != nil {
					cur.paras = append(cur.paras, t)
				}
			case dml && e.Name.Local == "tc":
				inCell = false
				row = append(row, strings.Join(cell, " "))
			case dml && e.Name.Local == "tr":
				rows = append(rows, row)
			case dml && e.Name.Local == "tbl" && cur != nil:
				var header []string
				switch {
				case firstRow == 1 && len(rows) >= 1:
					header, rows = rows[0], rows[1:]
				case firstRow == -1:
					header, rows = splitHeader(rows)
				}
				cur.table = TableText(header, rows)
			}
		}
	}
}

package extracttest

import (
	"bytes"
	"fmt"
	"strings"
)

// PDFPage is one page of a generated PDF: its MediaBox in points and its
// content stream ("" for an empty page).
type PDFPage struct {
	W, H    float64
	Content string
}

// PDF returns a PDF of the pages, with Helvetica as /F1 on every page;
// catalog is added to the catalog dictionary ("" for nothing).
func PDF(pages []PDFPage, catalog string) []byte {
	var b bytes.Buffer
	b.WriteString("%PDF-1.4\n")
	var offs []int
	obj := func(body string) {
		offs = append(offs, b.Len())
		fmt.Fprintf(&b, "%d 0 obj\n%s\nendobj\n", len(offs), body)
	}
	// 1 catalog, 2 pages, 3 font, then a page and its content per page.
	obj("<< /Type /Catalog /Pages 2 0 R " + catalog + " >>")
	kids := make([]string, len(pages))
	for i := range pages {
		kids[i] = fmt.Sprintf("%d 0 R", 4+2*i)
	}
	obj(fmt.Sprintf("<< /Type /Pages /Kids [%s] /Count %d >>", strings.Join(kids, " "), len(pages)))
	obj("<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>")
	for i, p := range pages {
		obj(fmt.Sprintf("<< /Type /Page /Parent 2 0 R /MediaBox [0 0 %g %g] /Contents %d 0 R /Resources << /Font << /F1 3 0 R >> >> >>",
			p.W, p.H, 5+2*i))
		obj(fmt.Sprintf("<< /Length %d >>\nstream\n%s\nendstream", len(p.Content), p.Content))
	}
	xref := b.Len()
	fmt.Fprintf(&b, "xref\n0 %d\n0000000000 65535 f \n", len(offs)+1)
	for _, o := range offs {
		fmt.Fprintf(&b, "%010d 00000 n \n", o)
	}
	fmt.Fprintf(&b, "trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n", len(offs)+1, xref)
	return b.Bytes()
}

// TextContent is a content stream that shows text at (x, y) in points,
// size pt, one line per element of lines.
func TextContent(x, y, pt float64, lines ...string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "BT /F1 %g Tf %g TL %g %g Td", pt, pt*1.3, x, y)
	for _, l := range lines {
		fmt.Fprintf(&b, " (%s) '", strings.NewReplacer(`\`, `\\`, "(", `\(`, ")", `\)`).Replace(l))
	}
	b.WriteString(" ET")
	return b.String()
}

// NestedPDF is a one-page PDF saying "Hello nested world" with arrays
// nested depth levels deep where says: in the catalog ("catalog"), in the
// page dictionary ("page"), in the page's content stream ("content"), in
// an object nothing refers to ("lone"), or nowhere ("none").
func NestedPDF(depth int, where string) []byte {
	nest := strings.Repeat("[", depth) + strings.Repeat("]", depth)
	content := "BT /F1 12 Tf 72 720 Td (Hello nested world) Tj ET"
	catalog, page := "", ""
	switch where {
	case "catalog":
		catalog = "/Nested " + nest
	case "page":
		page = " /Nested " + nest
	case "content":
		content += "\n" + nest + " pop"
	}
	var b bytes.Buffer
	b.WriteString("%PDF-1.4\n")
	objs := []string{"<< /Type /Catalog /Pages 2 0 R " + catalog + " >>",
		"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
		"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R /Resources << /Font << /F1 5 0 R >> >>" + page + " >>",
		fmt.Sprintf("<< /Length %d >>\nstream\n%s\nendstream", len(content), content),
		"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>"}
	if where == "lone" {
		objs = append(objs, nest)
	}
	var offs []int
	for i, o := range objs {
		offs = append(offs, b.Len())
		fmt.Fprintf(&b, "%d 0 obj\n%s\nendobj\n", i+1, o)
	}
	xref := b.Len()
	fmt.Fprintf(&b, "xref\n0 %d\n0000000000 65535 f \n", len(objs)+1)
	for _, o := range offs {
		fmt.Fprintf(&b, "%010d 00000 n \n", o)
	}
	fmt.Fprintf(&b, "trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n", len(objs)+1, xref)
	return b.Bytes()
}

// HugeXrefPDF is a small PDF whose cross-reference table lists object
// 20,000,000.
func HugeXrefPDF() []byte {
	return []byte("%PDF-1.4\n1 0 obj\n<< /Type /Catalog >>\nendobj\nxref\n0 1\n0000000000 65535 f \n20000000 1\n0000000009 00000 n \n" +
		"trailer\n<< /Size 20000001 /Root 1 0 R >>\nstartxref\n45\n%%EOF\n")
}

package extract

import (
	"archive/zip"
	"bytes"
	"strings"
	"testing"

	"github.com/xuri/excelize/v2"
)

// zipOf builds a zip from name, content pairs.
func zipOf(t *testing.T, parts ...string) []byte {
	t.Helper()
	var buf bytes.Buffer
	w := zip.NewWriter(&buf)
	for i := 0; i < len(parts); i += 2 {
		fw, err := w.Create(parts[i])
		if err != nil {
			t.Fatal(err)
		}
		fw.Write([]byte(parts[i+1]))
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// docxTable is a DOCX whose body is one table: tblPr holds look, and
// rows are the cell texts.
func docxTable(t *testing.T, look string, rows ...[]string) []byte {
	var sb strings.Builder
	sb.WriteString(`<w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"><w:body><w:tbl><w:tblPr><w:tblStyle w:val="TableGrid"/>` + look + `</w:tblPr>`)
	for _, r := range rows {
		sb.WriteString("<w:tr>")
		for _, c := range r {
			sb.WriteString("<w:tc><w:p><w:r><w:t>" + c + "</w:t></w:r></w:p></w:tc>")
		}
		sb.WriteString("</w:tr>")
	}
	sb.WriteString("</w:tbl></w:body></w:document>")
	return zipOf(t, "word/document.xml", sb.String())
}

// The rows of find(1)'s option table, which has no header row.
var findRows = [][]string{
	{"-name PATTERN", "Base of file name matches shell pattern PATTERN."},
	{"-size N", "File uses N units of space."},
	{"-type C", "File is of type C."},
}

func TestDOCXTableHeaderFromTheFile(t *testing.T) {
	r := NewRegistry(DefaultLimits())
	for _, c := range []struct {
		name, look string
		rows       [][]string
		want       string
	}{
		// Word's "Header Row" option off: no row is a header, whatever the first row says.
		{"firstRow off", `<w:tblLook w:val="0400" w:firstRow="0" w:lastRow="0" w:firstColumn="0" w:noHBand="0" w:noVBand="1"/>`, findRows,
			"-name PATTERN | Base of file name matches shell pattern PATTERN.\n-size N | File uses N units of space.\n-type C | File is of type C."},
		{"firstRow on", `<w:tblLook w:firstRow="1"/>`, [][]string{{"Option", "Meaning"}, {"-size N", "File uses N units of space."}},
			"Option: -size N | Meaning: File uses N units of space."},
		{"Word 2007 hex look", `<w:tblLook w:val="04A0"/>`, [][]string{{"Option", "Meaning"}, {"-size N", "File uses N units of space."}},
			"Option: -size N | Meaning: File uses N units of space."},
		{"Word 2007 hex look off", `<w:tblLook w:val="0480"/>`, [][]string{{"Option", "Meaning"}, {"-size N", "File uses N units of space."}},
			"Option | Meaning\n-size N | File uses N units of space."},
		// No look at all: a header only when it plainly labels numbers.
		{"no look, text only", "", findRows,
			"-name PATTERN | Base of file name matches shell pattern PATTERN.\n-size N | File uses N units of space.\n-type C | File is of type C."},
		{"no look, text over numbers", "", [][]string{{"Site", "Height (m)"}, {"North cairn", "1,204"}, {"West cairn", "987.5"}},
			"Site: North cairn | Height (m): 1,204\nSite: West cairn | Height (m): 987.5"},
	} {
		t.Run(c.name, func(t *testing.T) {
			d, err := r.Extract(t.Context(), fileOf("t.docx", docxTable(t, c.look, c.rows...)))
			if err != nil {
				t.Fatal(err)
			}
			if d.Text != c.want {
				t.Errorf("got\n%s\nwant\n%s", d.Text, c.want)
			}
		})
	}
}

func pptxTable(t *testing.T, tblPr string, rows ...[]string) []byte {
	var sb strings.Builder
	sb.WriteString(`<p:sld xmlns:a="http://schemas.openxmlformats.org/drawingml/2006/main" xmlns:p="http://schemas.openxmlformats.org/presentationml/2006/main"><p:cSld><p:spTree><p:graphicFrame><a:graphic><a:graphicData><a:tbl>` + tblPr)
	for _, r := range rows {
		sb.WriteString("<a:tr>")
		for _, c := range r {
			sb.WriteString("<a:tc><a:txBody><a:p><a:r><a:t>" + c + "</a:t></a:r></a:p></a:txBody></a:tc>")
		}
		sb.WriteString("</a:tr>")
	}
	sb.WriteString("</a:tbl></a:graphicData></a:graphic></p:graphicFrame></p:spTree></p:cSld></p:sld>")
	return zipOf(t,
		"ppt/presentation.xml", `<p:presentation xmlns:p="http://schemas.openxmlformats.org/presentationml/2006/main" xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships"><p:sldIdLst><p:sldId id="256" r:id="rId1"/></p:sldIdLst></p:presentation>`,
		"ppt/_rels/presentation.xml.rels", `<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/slide" Target="slides/slide1.xml"/></Relationships>`,
		"ppt/slides/slide1.xml", sb.String())
}

func TestPPTXTableHeaderFromTheFile(t *testing.T) {
	r := NewRegistry(DefaultLimits())
	for _, c := range []struct{ name, tblPr, want string }{
		{"no firstRow", `<a:tblPr bandRow="1"/>`, "-name PATTERN | Base of file name matches shell pattern PATTERN.\n-size N | File uses N units of space.\n-type C | File is of type C."},
		{"firstRow", `<a:tblPr firstRow="1" bandRow="1"/>`, "-name PATTERN: -size N | Base of file name matches shell pattern PATTERN.: File uses N units of space.\n-name PATTERN: -type C | Base of file name matches shell pattern PATTERN.: File is of type C."},
	} {
		t.Run(c.name, func(t *testing.T) {
			d, err := r.Extract(t.Context(), fileOf("t.pptx", pptxTable(t, c.tblPr, findRows...)))
			if err != nil {
				t.Fatal(err)
			}
			if got := unitText(d, 0); got != c.want {
				t.Errorf("got\n%s\nwant\n%s", got, c.want)
			}
		})
	}
}

// An Impress table: LibreOffice marks a header row by giving it a cell
// style no other row has; a table whose rows share one style has none.
func TestODPTableHeaderFromStyles(t *testing.T) {
	odp := func(styles ...string) []byte {
		var sb strings.Builder
		sb.WriteString(`<office:document-content xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0" xmlns:draw="urn:oasis:names:tc:opendocument:xmlns:drawing:1.0" xmlns:table="urn:oasis:names:tc:opendocument:xmlns:table:1.0" xmlns:text="urn:oasis:names:tc:opendocument:xmlns:text:1.0"><office:body><office:presentation><draw:page><draw:frame><table:table>`)
		for i, r := range findRows {
			sb.WriteString(`<table:table-row table:default-cell-style-name="` + styles[i] + `">`)
			for _, c := range r {
				sb.WriteString("<table:table-cell><text:p>" + c + "</text:p></table:table-cell>")
			}
			sb.WriteString("</table:table-row>")
		}
		sb.WriteString("</table:table></draw:frame></draw:page></office:presentation></office:body></office:document-content>")
		return zipOf(t, "mimetype", "application/vnd.oasis.opendocument.presentation", "content.xml", sb.String())
	}
	r := NewRegistry(DefaultLimits())
	d, err := r.Extract(t.Context(), fileOf("t.odp", odp("ce2", "ce2", "ce2")))
	if err != nil {
		t.Fatal(err)
	}
	contains(t, "no header", d.Text, "-name PATTERN | Base of file name matches shell pattern PATTERN.\n-size N | File uses N units of space.")
	d, err = r.Extract(t.Context(), fileOf("t.odp", odp("ce1", "ce2", "ce2")))
	if err != nil {
		t.Fatal(err)
	}
	contains(t, "header", d.Text, "-name PATTERN: -size N | Base of file name matches shell pattern PATTERN.: File uses N units of space.")
}

// A report sheet: a merged title row above the header row, a total whose
// value sits in a column the header does not name.
func TestXLSXTitleRowsAndHeader(t *testing.T) {
	x := excelize.NewFile()
	sh := x.GetSheetName(0)
	for cell, v := range map[string]any{
		"A1": "Quarterly sales report 2024",
		"A3": "Region", "B3": "Q1", "C3": "Q2",
		"A4": "North", "B4": 120, "C4": 135,
		"A5": "South", "B5": 98, "C5": 102,
		"C7": "Total:", "D7": 237,
	} {
		x.SetCellValue(sh, cell, v)
	}
	x.MergeCell(sh, "A1", "C1")
	var buf bytes.Buffer
	if err := x.Write(&buf); err != nil {
		t.Fatal(err)
	}
	d, err := NewRegistry(DefaultLimits()).Extract(t.Context(), fileOf("sales.xlsx", buf.Bytes()))
	if err != nil {
		t.Fatal(err)
	}
	want := "Sheet1\n\nQuarterly sales report 2024\n\n" +
		"Region: North | Q1: 120 | Q2: 135\nRegion: South | Q1: 98 | Q2: 102\nQ2: Total: | 237"
	if got := unitText(d, 0); got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
}

func TestTableTextKeepsEveryCell(t *testing.T) {
	got := TableText([]string{"Item", "Cost", "Total: 237"}, [][]string{{"Rope", "12"}, {"Maps", "30"}})
	want := "Total: 237\nItem: Rope | Cost: 12\nItem: Maps | Cost: 30"
	if got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
}

func TestLooksLikeHeader(t *testing.T) {
	for _, c := range []struct {
		rows [][]string
		want bool
	}{
		{findRows, false},
		{[][]string{{"Year", "Visitors"}, {"2023", "1,204"}, {"2024", "1,310"}}, true},
		{[][]string{{"Name", "Days"}, {"Ana", "14"}, {"Ben", "9"}}, true},
		{[][]string{{"Name", "Role"}, {"Ana", "Surveyor"}}, false},
		{[][]string{{"Price", "€ 1.234,50"}, {"Rope", "€ 12"}}, false},
		{[][]string{{"Only"}}, false},
	} {
		if got := looksLikeHeader(c.rows); got != c.want {
			t.Errorf("looksLikeHeader(%q) = %v, want %v", c.rows, got, c.want)
		}
	}
}

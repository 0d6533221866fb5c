package extract

import (
	"archive/zip"
	"bytes"
	"context"
	"fmt"
	"io"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/xuri/excelize/v2"
	"time"
)

// Tests of the zip-based office formats: DOCX, PPTX, XLSX, ODT/ODS/ODP,
// EPUB, plus the hostile archives.

var reportHeadings = []string{"1 Introduction", "2 Measurements", "1 Findings", "1 Conclusions", "1 Footnotes"}

const reportTable = "Site: Cairn A | Elevation: 412 m | Condition: intact\nSite: Cairn B | Elevation: 398 m | Condition: collapsed"

func TestDOCX(t *testing.T) {
	d := mustExtract(t, "report.docx")
	if d.Title != "Cairn Field Report" || d.Format != "docx" || len(d.Units) != 0 {
		t.Errorf("title %q format %q units %v", d.Title, d.Format, d.Units)
	}
	equalStrings(t, "headings", headingSummary(d), append(reportHeadings, "1 Headers and footers"))
	contains(t, "text", d.Text,
		"The eastern ridge survey began in April and covered eleven cairns along the old drove road.[1] Each cairn",
		"\n\n"+reportTable+"\n\n",
		"Old typesetting stored the field office and the fluffy flag as ligature characters.",
		"Footnotes\n\n[1] Survey permit 2024-117 was issued by the county archaeologist.",
		"Headers and footers\n\nCairn Field Guide: internal")
	if n := strings.Count(d.Text, "Cairn Field Guide: internal"); n != 1 {
		t.Errorf("page header written %d times, want once", n)
	}
}

func TestPPTX(t *testing.T) {
	d := mustExtract(t, "deck.pptx")
	if d.Title != "Cairn Quarterly Review" {
		t.Errorf("title %q", d.Title)
	}
	equalStrings(t, "units", unitSummary(d), []string{"slide 1 Cairn Quarterly Review", "slide 2 Budget", "slide 3 Schedule", "slide 4 Risks"})
	equalStrings(t, "headings", headingSummary(d), []string{"1 Cairn Quarterly Review", "1 Budget", "1 Schedule", "1 Risks"})
	if got, want := unitText(d, 1), "Budget\n\nSpending rose 12 percent in the third quarter\nFuel and permits were the largest costs\n\nNotes: Mention that the permit fees doubled in July."; got != want {
		t.Errorf("slide 2:\n got %q\nwant %q", got, want)
	}
	if got, want := unitText(d, 2), "Schedule\n\nPhase: Survey | Start: May | Owner: Ana\nPhase: Report | Start: June | Owner: Ben"; got != want {
		t.Errorf("slide 3:\n got %q\nwant %q", got, want)
	}
	contains(t, "slide 4", unitText(d, 3), "Notes: Ask the board about a contingency budget.")
}

const expensesSheet = "Expenses\n\n" +
	"Item: Fuel | Date: 2024-03-15 | Amount: 1,234.50 € | Share: 12.5%\n" +
	"Item: Permits | Date: 2024-07-01 | Amount: 860.00 € | Share: 8.7%\n" +
	"Item: Maps | Amount: 75.25 €"

const teamSheet = "Team\n\nName: Ana | Role: Surveyor | Days: 14\nName: Ben | Role: Draughtsman | Days: 9"

func TestSpreadsheets(t *testing.T) {
	for _, name := range []string{"budget.xlsx", "budget.ods"} {
		t.Run(name, func(t *testing.T) {
			d := mustExtract(t, name)
			if d.Title != "Cairn Budget 2024" {
				t.Errorf("title %q", d.Title)
			}
			equalStrings(t, "units", unitSummary(d), []string{"sheet 1 Expenses", "sheet 2 Team"})
			if got := unitText(d, 0); got != expensesSheet {
				t.Errorf("sheet 1:\n got %q\nwant %q", got, expensesSheet)
			}
			if got := unitText(d, 1); got != teamSheet {
				t.Errorf("sheet 2:\n got %q\nwant %q", got, teamSheet)
			}
		})
	}
}

func TestSpreadsheetCellCap(t *testing.T) {
	lim := DefaultLimits()
	lim.MaxCells = 9 // the header and one row of Expenses
	for _, name := range []string{"budget.xlsx", "budget.ods"} {
		d, err := extractFixtureLim(t, name, lim)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		equalStrings(t, name+" units", unitSummary(d), []string{"sheet 1 Expenses"})
		contains(t, name, unitText(d, 0), "Item: Fuel")
		lacks(t, name, d.Text, "Permits", "Ana")
		contains(t, name+" warnings", strings.Join(d.Warnings, "\n"), "more than 9 cells")
	}
	// A million cells that deflate 800:1: refused as a zip bomb by default,
	// and cut at the cell cap when the ratio check is off.
	_, err := extractFixture(t, "hugesheet.xlsx")
	wantErr(t, "hugesheet.xlsx", err, ErrTooLarge, "zip bomb")
	lim = DefaultLimits()
	lim.MaxRatio, lim.MaxCells = 0, 1000
	d, err := extractFixtureLim(t, "hugesheet.xlsx", lim)
	if err != nil {
		t.Fatalf("hugesheet.xlsx without ratio check: %v", err)
	}
	if n := strings.Count(d.Text, "Reading: 7"); n == 0 || n > 1000 {
		t.Errorf("hugesheet.xlsx: %d cells of the first column read, want 1..1000", n)
	}
	contains(t, "warnings", strings.Join(d.Warnings, "\n"), "more than 1000 cells")
}

func TestODT(t *testing.T) {
	d := mustExtract(t, "report.odt")
	if d.Title != "Cairn Field Report" {
		t.Errorf("title %q", d.Title)
	}
	equalStrings(t, "headings", headingSummary(d), reportHeadings)
	// LibreOffice records the page breaks of its layout: one unit per page.
	equalStrings(t, "units", unitSummary(d), []string{"page 1", "page 2", "page 3"})
	contains(t, "page 1", unitText(d, 0), "Introduction\n\nThe eastern ridge survey began in April", "[1] Each cairn", reportTable)
	if !strings.HasPrefix(unitText(d, 1), "Findings\n\nThe second page records the findings.") {
		t.Errorf("page 2 = %q", unitText(d, 1))
	}
	if got := unitText(d, 2); got != "Conclusions\n\nOn the third page: the ridge deserves protection as a scheduled monument." {
		t.Errorf("page 3 = %q", got)
	}
	contains(t, "text", d.Text, "Footnotes\n\n[1] Survey permit 2024-117 was issued by the county archaeologist.")
}

func TestODP(t *testing.T) {
	d := mustExtract(t, "deck.odp")
	equalStrings(t, "units", unitSummary(d), []string{"slide 1 Cairn Quarterly Review", "slide 2 Budget", "slide 3 Schedule", "slide 4 Risks"})
	if got, want := unitText(d, 1), "Budget\n\n- Spending rose 12 percent in the third quarter\n- Fuel and permits were the largest costs\n\nNotes: Mention that the permit fees doubled in July."; got != want {
		t.Errorf("slide 2:\n got %q\nwant %q", got, want)
	}
	contains(t, "slide 3", unitText(d, 2), "Phase: Survey | Start: May | Owner: Ana")
}

func TestEPUB(t *testing.T) {
	d := mustExtract(t, "book.epub")
	if d.Title != "The Cairn Builders" {
		t.Errorf("title %q", d.Title)
	}
	equalStrings(t, "units", unitSummary(d), []string{"chapter 1 The Cairn Builders", "chapter 2 The Drove Road", "chapter 3 The Ridge Cairns", "chapter 4 Keeping the Cairns"})
	equalStrings(t, "headings", headingSummary(d), []string{"1 The Cairn Builders", "1 The Drove Road", "2 Waymarks", "1 The Ridge Cairns", "1 Keeping the Cairns"})
	if got, want := unitText(d, 1), "The Drove Road\n\nShepherds marked the drove road with small cairns so the flocks could cross the moor in fog.\n\nWaymarks\n\nEach waymark stood within sight of the next."; got != want {
		t.Errorf("chapter 2:\n got %q\nwant %q", got, want)
	}
}

func TestRTF(t *testing.T) {
	d := mustExtract(t, "report.rtf")
	if d.Title != "Cairn Field Report" {
		t.Errorf("title %q", d.Title)
	}
	equalStrings(t, "headings", headingSummary(d), append(reportHeadings, "1 Headers and footers"))
	contains(t, "text", d.Text,
		"along the old drove road.[1] Each cairn was photographed",
		"Site | Elevation | Condition\nCairn A | 412 m | intact\nCairn B | 398 m | collapsed",
		"stored the field office and the fluffy flag",
		"[1] Survey permit 2024-117 was issued by the county archaeologist.")
}

func TestRTFEscapes(t *testing.T) {
	src := `{\rtf1\ansi\ansicpg1252{\fonttbl{\f0 Times;}}{\info{\title Caf\'e9 notes}}` +
		`\pard\outlinelevel0 Na\'efve heading\par\pard Smart \ldblquote quotes\rdblquote , \u8364? sign and a tab\tab here.\par` +
		`{\*\unknowndest hidden}{\pict 0102abcdef}Line\line break\par}`
	r := NewRegistry(DefaultLimits())
	d, err := r.Extract(context.Background(), fileOf("x.rtf", []byte(src)))
	if err != nil {
		t.Fatal(err)
	}
	if d.Title != "Café notes" {
		t.Errorf("title %q", d.Title)
	}
	want := "Naïve heading\n\nSmart “quotes”, € sign and a tab\there.\n\nLine\nbreak"
	if d.Text != want {
		t.Errorf("text:\n got %q\nwant %q", d.Text, want)
	}
	equalStrings(t, "headings", headingSummary(d), []string{"1 Naïve heading"})
}

func TestOfficeSkipsAndFailures(t *testing.T) {
	cases := []struct {
		name   string
		target error // nil: a failure, not a skip
		msg    string
	}{
		{"encrypted.docx", ErrEncrypted, "password-protected Office document"},
		{"encrypted.xlsx", ErrEncrypted, "password-protected Office document"},
		{"encrypted.odt", ErrEncrypted, "password-protected document"},
		{"report.doc", ErrUnsupported, "save it as .docx"},
		{"budget.xls", ErrUnsupported, "save it as .xlsx"},
		{"zipbomb.docx", ErrTooLarge, "zip bomb"},
		{"laughs.docx", ErrUnsafe, "unsafe content: docx: word/document.xml: XML declares entities (a DTD), which no office format allows; refused as a possible entity-expansion attack"},
		{"deep.docx", ErrTooDeep, "nested too deeply: docx: word/document.xml: XML nested deeper than 256"},
		{"truncated.docx", nil, "docx: not a zip archive (truncated or wrong extension)"},
		{"truncated.pptx", nil, "pptx: not a zip archive"},
		{"truncated.xlsx", nil, "xlsx: not a zip archive"},
		{"truncated.epub", nil, "epub: not a zip archive"},
		{"png-named.docx", nil, "docx: not a zip archive"},
		{"text-named.xlsx", nil, "xlsx: not a zip archive"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := extractFixture(t, c.name)
			wantErr(t, c.name, err, c.target, c.msg)
		})
	}
}

func FuzzDOCX(f *testing.F)  { fuzzExtractor(f, "x.docx", "report.docx", "laughs.docx", "deep.docx") }
func FuzzPPTX(f *testing.F)  { fuzzExtractor(f, "x.pptx", "deck.pptx") }
func FuzzXLSX(f *testing.F)  { fuzzExtractor(f, "x.xlsx", "budget.xlsx") }
func FuzzODF(f *testing.F)   { fuzzExtractor(f, "x.odt", "report.odt", "budget.ods", "deck.odp") }
func FuzzEPUB(f *testing.F)  { fuzzExtractor(f, "x.epub", "book.epub") }
func FuzzRTF(f *testing.F)   { fuzzExtractor(f, "x.rtf", "report.rtf") }
func FuzzEmail(f *testing.F) { fuzzExtractor(f, "x.eml", "message.eml") }
func FuzzMbox(f *testing.F)  { fuzzExtractor(f, "x.mbox", "mailbox.mbox") }
func FuzzMSG(f *testing.F)   { fuzzExtractor(f, "x.msg", "outlook.msg") }
func FuzzHTML(f *testing.F)  { fuzzExtractor(f, "x.html") }
func FuzzCSV(f *testing.F)   { fuzzExtractor(f, "x.csv") }

// fuzzExtractor feeds mutated fixtures to the extractor for name's
// extension directly, past the registry's panic recovery, so a panic is a
// failure; documents that come out must keep the invariants.
func fuzzExtractor(f *testing.F, name string, seeds ...string) {
	for _, s := range seeds {
		f.Add(fixtureBytes(f, s))
	}
	f.Add([]byte("PK\x03\x04"))
	f.Add([]byte("<html><body><h1>x</h1><table><tr><th>a</th></tr><tr><td>1</td></tr></table></body></html>"))
	r := NewRegistry(DefaultLimits(), WithPDFEngine(PDFPureGo))
	e := r.byExt[ext(name)]
	f.Fuzz(func(t *testing.T, data []byte) {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		d, err := e.Extract(ctx, fileOf(name, data), DefaultLimits())
		if err == nil && d != nil {
			finish(d, DefaultLimits())
			checkDocument(t, d)
		}
	})
}

// withEntry returns a copy of a zip fixture with one more entry.
func withEntry(t *testing.T, fixture, name, content string) []byte {
	t.Helper()
	src, err := zip.NewReader(bytes.NewReader(fixtureBytes(t, fixture)), int64(len(fixtureBytes(t, fixture))))
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	w := zip.NewWriter(&buf)
	for _, f := range src.File {
		if err := w.Copy(f); err != nil {
			t.Fatal(err)
		}
	}
	fw, err := w.Create(name)
	if err != nil {
		t.Fatal(err)
	}
	fw.Write([]byte(content))
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func TestEPUBEncryption(t *testing.T) {
	enc := func(alg string) string {
		return `<encryption xmlns="urn:oasis:names:tc:opendocument:xmlns:container"><EncryptedData xmlns="http://www.w3.org/2001/04/xmlenc#">` +
			`<EncryptionMethod Algorithm="` + alg + `"/><CipherData><CipherReference URI="EPUB/text/ch001.xhtml"/></CipherData></EncryptedData></encryption>`
	}
	r := NewRegistry(DefaultLimits())
	drm := withEntry(t, "book.epub", "META-INF/encryption.xml", enc("http://www.w3.org/2001/04/xmlenc#aes128-cbc"))
	_, err := r.Extract(context.Background(), fileOf("drm.epub", drm))
	wantErr(t, "drm.epub", err, ErrEncrypted, "protected by DRM")
	// Font obfuscation (the IDPF algorithm) is not DRM: the book is read.
	fonts := withEntry(t, "book.epub", "META-INF/encryption.xml", enc("http://www.idpf.org/2008/embedding"))
	d, err := r.Extract(context.Background(), fileOf("fonts.epub", fonts))
	if err != nil || len(d.Units) != 4 {
		t.Fatalf("font-obfuscated book: %v", err)
	}
}

// withReplaced returns a copy of a zip fixture whose entry name has each
// old string of pairs replaced by the new one after it.
func withReplaced(t *testing.T, fixture, name string, pairs ...string) []byte {
	t.Helper()
	return replaceInZip(t, fixtureBytes(t, fixture), name, pairs...)
}

// replaceInZip returns the zip raw with strings replaced in its part name.
func replaceInZip(t *testing.T, raw []byte, name string, pairs ...string) []byte {
	t.Helper()
	src, err := zip.NewReader(bytes.NewReader(raw), int64(len(raw)))
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	w := zip.NewWriter(&buf)
	for _, f := range src.File {
		if f.Name != name {
			if err := w.Copy(f); err != nil {
				t.Fatal(err)
			}
			continue
		}
		rc, err := f.Open()
		if err != nil {
			t.Fatal(err)
		}
		data, err := io.ReadAll(rc)
		rc.Close()
		if err != nil {
			t.Fatal(err)
		}
		for i := 0; i+1 < len(pairs); i += 2 {
			if !bytes.Contains(data, []byte(pairs[i])) {
				t.Fatalf("%s has no %q", name, pairs[i])
			}
			data = bytes.ReplaceAll(data, []byte(pairs[i]), []byte(pairs[i+1]))
		}
		fw, _ := w.Create(name)
		fw.Write(data)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// Word marks where its last layout started each page; LibreOffice does
// not. The fixture gets the marks Word writes at the first run of each new
// page (after LibreOffice's explicit page breaks).
func TestDOCXRenderedPages(t *testing.T) {
	const findings, conclusions = `<w:t>Findings</w:t>`, `<w:t>Conclusions</w:t>`
	word := withReplaced(t, "report.docx", "word/document.xml",
		findings, `<w:lastRenderedPageBreak/>`+findings, conclusions, `<w:lastRenderedPageBreak/>`+conclusions)
	d, err := NewRegistry(DefaultLimits()).Extract(context.Background(), fileOf("word.docx", word))
	if err != nil {
		t.Fatal(err)
	}
	checkDocument(t, d)
	equalStrings(t, "units", unitSummary(d), []string{"page 1", "page 2", "page 3"})
	contains(t, "page 1", unitText(d, 0), "Introduction", reportTable)
	if !strings.HasPrefix(unitText(d, 1), "Findings\n\nThe second page records") {
		t.Errorf("page 2 = %q", unitText(d, 1))
	}
	if got := unitText(d, 2); got != "Conclusions\n\nOn the third page: the ridge deserves protection as a scheduled monument." {
		t.Errorf("page 3 = %q", got)
	}
	// Footnotes and headers follow the pages, outside them.
	contains(t, "after the pages", d.Text[d.Units[2].End:], "Footnotes", "Cairn Field Guide: internal")
}

// Outline levels make headings whatever the style is called: set on a
// style ("Measurements Title", outline level 1) or on the paragraph itself,
// where level 9 turns a heading style's paragraph into body text.
func TestDOCXOutlineLevels(t *testing.T) {
	raw := withReplaced(t, "report.docx", "word/styles.xml", `<w:name w:val="Heading 2"/>`, `<w:name w:val="Measurements Title"/>`)
	raw = replaceInZip(t, raw, "word/document.xml",
		`<w:pStyle w:val="Heading1"/><w:bidi w:val="0"/><w:jc w:val="left"/><w:rPr></w:rPr></w:pPr><w:r><w:br w:type="page"/></w:r><w:r><w:rPr></w:rPr><w:t>Findings`,
		`<w:pStyle w:val="Heading1"/><w:outlineLvl w:val="9"/><w:bidi w:val="0"/><w:jc w:val="left"/><w:rPr></w:rPr></w:pPr><w:r><w:br w:type="page"/></w:r><w:r><w:rPr></w:rPr><w:t>Findings`,
		`<w:pStyle w:val="Normal"/><w:bidi w:val="0"/><w:jc w:val="left"/><w:rPr></w:rPr></w:pPr><w:r><w:rPr></w:rPr><w:t>The second page records`,
		`<w:pStyle w:val="Normal"/><w:outlineLvl w:val="2"/><w:bidi w:val="0"/><w:jc w:val="left"/><w:rPr></w:rPr></w:pPr><w:r><w:rPr></w:rPr><w:t>The second page records`)
	d, err := NewRegistry(DefaultLimits()).Extract(context.Background(), fileOf("outline.docx", raw))
	if err != nil {
		t.Fatal(err)
	}
	checkDocument(t, d)
	var got []string
	for _, h := range headingSummary(d) {
		got = append(got, h[:min(len(h), 38)])
	}
	equalStrings(t, "headings", got, []string{"1 Introduction", "2 Measurements", "3 The second page records the findings", "1 Conclusions", "1 Footnotes", "1 Headers and footers"})
}

// The table of contents names the sections: its titles replace the
// chapters' headings where they link to them, land on the element they
// link to (here a paragraph), and the headings it does not list nest
// below its entries. The NCX serves when there is no nav document.
func TestEPUBTableOfContentsHeadings(t *testing.T) {
	nav := withReplaced(t, "book.epub", "EPUB/nav.xhtml",
		`>Waymarks</a>`, `>Waymarks on the moor</a>`,
		`<a href="text/ch002.xhtml#the-ridge-cairns">The Ridge Cairns</a>`, `<a href="text/ch002.xhtml#cists">Cists</a>`)
	nav = replaceInZip(t, nav, "EPUB/text/ch001.xhtml",
		`<p>Each waymark stood within sight of the next.</p>`, `<p>Each waymark stood within sight of the next.</p><h3>Spacing</h3><p>Forty paces apart.</p>`)
	nav = replaceInZip(t, nav, "EPUB/text/ch002.xhtml",
		`<p>The ridge cairns are older`, `<p id="cists">The ridge cairns are older`)
	// The link to "Keeping the Cairns" goes to an anchor inside its heading.
	nav = replaceInZip(t, nav, "EPUB/nav.xhtml", `ch003.xhtml#keeping-the-cairns">Keeping the Cairns`, `ch003.xhtml#keep">Care of the cairns`)
	nav = replaceInZip(t, nav, "EPUB/text/ch003.xhtml", `<h1 data-number="3">Keeping the Cairns</h1>`,
		`<p>An epigraph.</p><h1 data-number="3"><a id="keep"></a>Keeping the Cairns</h1>`)
	ncx := withReplaced(t, "book.epub", "EPUB/content.opf", `properties="nav"`, `properties=""`)
	ncx = replaceInZip(t, ncx, "EPUB/toc.ncx", `<text>Waymarks</text>`, `<text>Waymarks (NCX)</text>`,
		`ch002.xhtml#the-ridge-cairns`, `ch002.xhtml`)
	// Linked without an anchor, the entry finds the chapter's heading of its title.
	ncx = replaceInZip(t, ncx, "EPUB/text/ch002.xhtml", `<h1 data-number="2">The Ridge Cairns</h1>`, `<p>An epigraph.</p><h1 data-number="2">The Ridge Cairns</h1>`)
	for _, tt := range []struct {
		name     string
		epub     []byte
		headings []string
	}{
		{"nav", nav, []string{
			"1 The Cairn Builders @ The Cairn Builders", // the title page is in no table of contents: its own heading
			"1 The Drove Road @ The Drove Road",
			"2 Waymarks on the moor @ Waymarks",
			"3 Spacing @ Spacing",
			"1 The Ridge Cairns @ The Ridge Cairns", // the chapter's heading, not in the table of contents
			"1 Cists @ The ridge cairns are older and larger; some cover cists of the early Bronze Age.",
			"1 Care of the cairns @ Keeping the Cairns", // an anchor inside the heading
		}},
		{"ncx", ncx, []string{
			"1 The Cairn Builders @ The Cairn Builders",
			"1 The Drove Road @ The Drove Road",
			"2 Waymarks (NCX) @ Waymarks",
			"1 The Ridge Cairns @ The Ridge Cairns",
			"1 Keeping the Cairns @ Keeping the Cairns",
		}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			d, err := NewRegistry(DefaultLimits()).Extract(context.Background(), fileOf("book.epub", tt.epub))
			if err != nil {
				t.Fatal(err)
			}
			checkDocument(t, d)
			var got []string
			for _, h := range d.Headings {
				line, _, _ := strings.Cut(d.Text[h.Offset:], "\n")
				got = append(got, strconv.Itoa(h.Level)+" "+h.Text+" @ "+line)
			}
			equalStrings(t, "headings", got, tt.headings)
		})
	}
}

// Rows past the first headerSample, which decide the header, are written
// as they are read, under the same header; a cut says which limit made it.
func TestXLSXStreamsRowsUnderTheHeader(t *testing.T) {
	f := excelize.NewFile()
	f.SetSheetRow("Sheet1", "A1", &[]any{"Name", "Age"})
	for i := 1; i <= 300; i++ {
		cell, _ := excelize.CoordinatesToCellName(1, i+1)
		f.SetSheetRow("Sheet1", cell, &[]any{fmt.Sprintf("walker %d", i), i})
	}
	var buf bytes.Buffer
	if err := f.Write(&buf); err != nil {
		t.Fatal(err)
	}
	extractLim := func(lim Limits) *Document {
		t.Helper()
		d, err := NewRegistry(lim).Extract(t.Context(), File{Name: "walkers.xlsx", Size: int64(buf.Len()), R: bytes.NewReader(buf.Bytes())})
		if err != nil {
			t.Fatal(err)
		}
		return d
	}
	d := extractLim(DefaultLimits())
	lines := strings.Split(d.Text, "\n")
	if got, want := lines[len(lines)-1], "Name: walker 300 | Age: 300"; got != want {
		t.Errorf("last row %q, want %q", got, want)
	}
	if got, want := strings.Count(d.Text, "\n"), 2+300-1; got != want {
		t.Errorf("%d line breaks, want %d (the sheet's name, a blank line, a line per row)", got, want)
	}

	lim := DefaultLimits()
	lim.MaxCells = 400
	d = extractLim(lim)
	contains(t, "cells cut", strings.Join(d.Warnings, "\n"), `xlsx: sheet "Sheet1" and the rest cut: more than 400 cells, the most read from one file`)
	contains(t, "cells cut", d.Text, "Name: walker 199 | Age: 199")
	lacks(t, "cells cut", d.Text, "walker 200")

	lim = DefaultLimits()
	lim.MaxTextBytes = 4000
	d = extractLim(lim)
	contains(t, "text cut", strings.Join(d.Warnings, "\n"), `xlsx: sheet "Sheet1" and the rest cut: the text limit (4 KB) reached`)
}

// pivotWorkbook is a workbook with a pivot table as Excel saves one: the
// source data on Sheet1, the pivot's values written into Sheet2 at A3:C6,
// and its definition's location naming row 2 of the table as the header
// and row 3 as the first values (excelize writes 1 and 1, so the part is
// patched).
func pivotWorkbook(t *testing.T) []byte {
	t.Helper()
	f := excelize.NewFile()
	f.SetSheetRow("Sheet1", "A1", &[]any{"Name", "City", "Age"})
	f.SetSheetRow("Sheet1", "A2", &[]any{"James Bond", "Moscow", 35})
	f.NewSheet("Sheet2")
	f.SetSheetRow("Sheet2", "A3", &[]any{"Sum of Age", "Column Labels"})
	f.SetSheetRow("Sheet2", "A4", &[]any{"Row Labels", "Moscow", "Grand Total"})
	f.SetSheetRow("Sheet2", "A5", &[]any{"James Bond", 35, 35})
	f.SetSheetRow("Sheet2", "A6", &[]any{"Grand Total", 35, 35})
	if err := f.AddPivotTable(&excelize.PivotTableOptions{
		DataRange: "Sheet1!A1:C2", PivotTableRange: "Sheet2!A3:C6",
		Rows: []excelize.PivotTableField{{Data: "Name"}}, Columns: []excelize.PivotTableField{{Data: "City"}},
		Data: []excelize.PivotTableField{{Data: "Age", Subtotal: "Sum"}},
	}); err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := f.Write(&buf); err != nil {
		t.Fatal(err)
	}
	zr, err := zip.NewReader(bytes.NewReader(buf.Bytes()), int64(buf.Len()))
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	zw := zip.NewWriter(&out)
	patched := false
	for _, zf := range zr.File {
		rc, _ := zf.Open()
		b, _ := io.ReadAll(rc)
		rc.Close()
		if strings.HasPrefix(zf.Name, "xl/pivotTables/pivotTable") {
			re := regexp.MustCompile(`<location [^>]*(/>|></location>)`)
			b = re.ReplaceAll(b, []byte(`<location ref="A3:C6" firstHeaderRow="1" firstDataRow="2" firstDataCol="1"/>`))
			patched = true
		}
		w, _ := zw.Create(zf.Name)
		w.Write(b)
	}
	zw.Close()
	if !patched {
		t.Fatal("excelize wrote no pivot table part")
	}
	return out.Bytes()
}

// A pivot table is headed by the row its definition names, and its caption
// row reads as a line of its own: before, the caption row was taken for
// the header ("Sum of Age: James Bond | Column Labels: 35 | 35", where 35
// belongs to the Moscow column).
func TestXLSXPivotTableHeader(t *testing.T) {
	b := pivotWorkbook(t)
	d, err := NewRegistry(DefaultLimits()).Extract(t.Context(), File{Name: "pivot.xlsx", Size: int64(len(b)), R: bytes.NewReader(b)})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := unitText(d, 1), "Sheet2\nSum of Age | Column Labels\nRow Labels: James Bond | Moscow: 35 | Grand Total: 35\nRow Labels: Grand Total | Moscow: 35 | Grand Total: 35"; got != want {
		t.Errorf("Sheet2 = %q\nwant     %q", got, want)
	}
}

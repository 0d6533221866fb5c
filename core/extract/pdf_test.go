package extract

import (
	"bytes"
	"context"
	"fmt"
	"image"
	"image/png"
	"os/exec"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"cairn/core/extract/extracttest"
)

// pdfEngines are the engines each PDF test runs with. Poppler is a runtime
// dependency of the tests (Debian poppler-utils, installed by make deps).
func pdfEngines(t *testing.T) []PDFEngine {
	if _, err := exec.LookPath("pdftotext"); err != nil {
		t.Fatalf("pdftotext not found: install poppler-utils (make deps)")
	}
	return []PDFEngine{PDFPoppler, PDFPureGo}
}

func TestPDFPagesHeadersLigatures(t *testing.T) {
	for _, e := range pdfEngines(t) {
		t.Run(string(e), func(t *testing.T) {
			d := mustExtract(t, "report.pdf", WithPDFEngine(e))
			if d.Title != "Cairn Field Report" || d.Format != "pdf" {
				t.Errorf("title %q format %q", d.Title, d.Format)
			}
			// Page numbers printed in the footers become the page labels.
			equalStrings(t, "units", unitSummary(d), []string{"page 1 1", "page 2 2", "page 3 3"})
			p1, p2, p3 := unitText(d, 0), unitText(d, 1), unitText(d, 2)
			contains(t, "page 1", p1, "Introduction", "The eastern ridge survey began in April",
				// U+FB01 ﬁ, U+FB03 ﬃ, U+FB02 ﬂ, U+FB00 ﬀ in the source:
				"stored the field office and the fluffy flag as ligature characters.",
				"Survey permit 2024-117 was issued by the county archaeologist.", "Page 1")
			contains(t, "page 2", p2, "Findings", "reused in the Bronze Age.", "Page 2")
			// "exam-" + line break + "ination": the hyphen is repaired.
			contains(t, "page 2", collapseSpace(p2), "a follow-up examination of the southern slope.")
			if !strings.HasPrefix(p3, "Conclusions") || !strings.HasSuffix(p3, "Page 3") {
				t.Errorf("page 3 = %q", p3)
			}
			contains(t, "page 3", p3, "On the third page: the ridge deserves protection as a scheduled monument.")
			// The running header repeats on every page and is dropped.
			lacks(t, "text", d.Text, "Cairn Field Guide", "ﬁ", "ﬃ")
		})
	}
}

func TestPDFTeXLigaturesAndHyphenation(t *testing.T) {
	for _, e := range pdfEngines(t) {
		t.Run(string(e), func(t *testing.T) {
			d := mustExtract(t, "ligatures.pdf", WithPDFEngine(e))
			if d.Title != "Ligature and hyphenation sample" {
				t.Errorf("title %q", d.Title)
			}
			equalStrings(t, "units", unitSummary(d), []string{"page 1 1", "page 2 2", "page 3 3"})
			p1 := collapseSpace(unitText(d, 0))
			contains(t, "page 1", p1, "The office staff filed the affidavits efficiently;",
				"the difficult fieldwork on the bluffs finished at the fjord.",
				"the officials reaffirmed the significance of the archaeological classification.")
			contains(t, "page 3", collapseSpace(unitText(d, 2)), "nothing superfluous was found in the affluent settlement.")
			lacks(t, "text", d.Text, "Cairn Typesetting Sample", "reaf-")
		})
	}
}

func TestPDFSkipsAndFailures(t *testing.T) {
	for _, e := range pdfEngines(t) {
		t.Run(string(e), func(t *testing.T) {
			_, err := extractFixture(t, "encrypted.pdf", WithPDFEngine(e))
			wantErr(t, "encrypted.pdf", err, ErrEncrypted, "password")
			_, err = extractFixture(t, "truncated.pdf", WithPDFEngine(e))
			wantErr(t, "truncated.pdf", err, nil, "pdf: broken file")
			_, err = extractFixture(t, "docx-named.pdf", WithPDFEngine(e))
			wantErr(t, "docx-named.pdf", err, nil, "not a PDF file")
		})
	}
}

func TestPDFScannedPagesGoThroughOCR(t *testing.T) {
	for _, e := range pdfEngines(t) {
		t.Run(string(e), func(t *testing.T) {
			// mixed.pdf: page 1 has a text layer, page 2 is a JPEG scan.
			ocr := &fakeOCR{text: "Recognised ﬁeld notes\n"}
			d := mustExtract(t, "mixed.pdf", WithPDFEngine(e), WithOCR(ocr))
			if len(ocr.images) != 1 {
				t.Fatalf("OCR ran %d times, want once (page 2 only)", len(ocr.images))
			}
			img := ocr.images[0]
			if !bytes.HasPrefix(img, []byte("P5\n")) && !bytes.HasPrefix(img, []byte("\x89PNG")) && !bytes.HasPrefix(img, []byte{0xFF, 0xD8, 0xFF}) {
				t.Errorf("OCR was given %q..., not a PGM (poppler's grey page), PNG or JPEG", img[:min(8, len(img))])
			}
			equalStrings(t, "units", unitSummary(d), []string{"page 1", "page 2"})
			if got := unitText(d, 1); got != "Recognised field notes" {
				t.Errorf("page 2 = %q", got)
			}
			contains(t, "page 1", unitText(d, 0), "Scanned survey notes\nThe north cairn leans west.")
		})
	}
}

// The OCR's confidence in a page is kept as a warning when it is low, so a
// poor scan is visible in the document's record; a confident reading adds
// nothing.
func TestPDFLowOCRConfidenceIsReported(t *testing.T) {
	for _, c := range []struct {
		conf int
		want string
	}{{31, "page 2: OCR read it with low confidence (31%)"}, {91, ""}} {
		d := mustExtract(t, "mixed.pdf", WithOCR(&fakeOCR{text: "Recognised field notes\n", confidence: c.conf}))
		got := strings.Join(d.Warnings, "\n")
		if c.want == "" && strings.Contains(got, "confidence") || !strings.Contains(got, c.want) {
			t.Errorf("confidence %d: warnings %q, want %q", c.conf, got, c.want)
		}
	}
	d := mustExtract(t, "scan.png", WithOCR(&fakeOCR{text: "Scanned survey notes\n", confidence: 12}))
	contains(t, "image warnings", strings.Join(d.Warnings, "\n"), "image: OCR read it with low confidence (12%)")
}

// A scan whose page image the pure-Go reader cannot decode (a fax-like
// CCITT image) goes to OCR and fails with a reason that names the fix,
// instead of passing as a page with no text.
func TestPDFPureGoScanNamesPoppler(t *testing.T) {
	b := TestPDF{Pages: [][]string{nil}, ScanFilter: "CCITTFaxDecode"}.Bytes()
	r := NewRegistry(DefaultLimits(), WithPDFEngine(PDFPureGo), WithOCR(&fakeOCR{text: "never asked"}))
	_, err := r.Extract(t.Context(), fileOf("fax.pdf", b))
	if err == nil || IsSkip(err) || !strings.Contains(err.Error(), "CCITTFaxDecode") || !strings.Contains(err.Error(), "install poppler-utils") {
		t.Fatalf("err = %v, want a failure naming the image's filter and poppler-utils", err)
	}
}

func TestPDFScannedWithoutOCR(t *testing.T) {
	d := mustExtract(t, "mixed.pdf")
	equalStrings(t, "units", unitSummary(d), []string{"page 1"})
	contains(t, "warnings", strings.Join(d.Warnings, "\n"), "page 2: no text layer and OCR unavailable")
	_, err := extractFixture(t, "scanned.pdf")
	wantErr(t, "scanned.pdf", err, ErrEmpty, "OCR is unavailable")
}

func TestPDFHonoursContext(t *testing.T) {
	for _, e := range pdfEngines(t) {
		b := fixtureBytes(t, "report.pdf")
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		_, err := NewRegistry(DefaultLimits(), WithPDFEngine(e)).Extract(ctx, fileOf("report.pdf", b))
		if err == nil {
			t.Errorf("%s: extraction with a cancelled context succeeded", e)
		}
	}
}

func TestDehyphenate(t *testing.T) {
	for in, want := range map[string]string{
		"a follow-up exam-\nination of it":   "a follow-up examination\nof it",
		"the well-\nKnown case":              "the well-\nKnown case", // capital: a name, not a split word
		"page 12-\n14":                       "page 12-\n14",
		"re-\nport":                          "report",
		"hyphen at end-\n":                   "hyphen at end-\n",
		"mid-\nword, then more":              "midword,\nthen more",
		"ﬁeld oﬃce":                          "ﬁeld oﬃce", // dehyphenate leaves ligatures to cleanPDFPage
		"no hyphen here\nat all":             "no hyphen here\nat all",
		"dash – \nstays":                     "dash – \nstays",
		"double--\nhyphen":                   "double--\nhyphen",
		"Straße-\nnbahn überall":             "Straßenbahn\nüberall",
		"line one-\n\nnew paragraph":         "line one-\n\nnew paragraph",
		"trailing-\nword":                    "trailingword",
		"x-\ny":                              "xy",
		"The office-\nstaff were efficient.": "The officestaff\nwere efficient.",
	} {
		if got := dehyphenate(in); got != want {
			t.Errorf("dehyphenate(%q) = %q, want %q", in, got, want)
		}
	}
	if got := cleanPDFPage("the ﬁeld oﬃce  \n\n\n\nnext"); got != "the field office\n\nnext" {
		t.Errorf("cleanPDFPage = %q", got)
	}
}

func TestRunningLinesAndPageLabels(t *testing.T) {
	pages := []string{
		"Annual Report 2024\nIntro text one\nmore\niii",
		"Annual Report 2024\nChapter 1\nbody text\n1",
		"Annual Report 2024\nbody text two\n2",
		"Annual Report 2024\n3\nbody with a section number 3 at the top\nConfidential: page 3 of 4",
	}
	labels := dropRunningLines(pages)
	equalStrings(t, "labels", labels, []string{"iii", "1", "2", "3"})
	for i, p := range pages {
		if strings.Contains(p, "Annual Report 2024") {
			t.Errorf("page %d keeps the running header: %q", i+1, p)
		}
	}
	if !strings.HasSuffix(pages[1], "\n1") {
		t.Errorf("page number line dropped from page 2: %q", pages[1])
	}
}

func FuzzPDF(f *testing.F) {
	for _, name := range []string{"report.pdf", "ligatures.pdf", "truncated.pdf", "mixed.pdf"} {
		f.Add(fixtureBytes(f, name))
	}
	f.Add([]byte("%PDF-1.4\n1 0 obj<<>>endobj\ntrailer<</Root 1 0 R>>\n%%EOF"))
	f.Add(guidePDF().Bytes()) // an outline with the three kinds of destination
	f.Add(TestPDF{Pages: [][]string{{"Text."}}, LoopNext: true, Outline: []TestBookmark{{Title: "A", Page: 1}, {Title: "B", Page: 1}}}.Bytes())
	// Nesting at the bounds, in the file's syntax and in a page's content
	// (checkPDFStructure, checkContent; issue 33).
	f.Add(nestedPDF(maxPDFDepth-1, "catalog"))
	f.Add(nestedPDF(maxPDFDepth+1, "content"))
	// The pure-Go engine is the one that parses hostile bytes in process;
	// poppler runs in a subprocess and cannot crash Cairn.
	r := NewRegistry(DefaultLimits(), WithPDFEngine(PDFPureGo))
	f.Fuzz(func(t *testing.T, data []byte) {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		d, err := r.extractPDF(ctx, fileOf("fuzz.pdf", data), DefaultLimits())
		if err == nil {
			finish(d, DefaultLimits())
			checkDocument(t, d)
		}
	})
}

// A scanned page is rendered for OCR at the resolution of its scan, which
// pdfimages gives, not at 300 dpi: a 100-dpi scan of a letter page reaches
// the OCR as 850×1100 pixels, its own. A page assembled from two images is
// no single scan and is rendered at 300 dpi (2550×3300).
func TestPDFScanReadAtItsOwnResolution(t *testing.T) {
	if _, err := exec.LookPath("pdfimages"); err != nil {
		t.Fatalf("pdfimages not found: install poppler-utils (make deps)")
	}
	for _, c := range []struct {
		images, w, h int
		wantW, wantH int
	}{
		{1, 850, 1100, 850, 1100},
		{2, 850, 550, 2550, 3300},
		{1, 5100, 6600, 2550, 3300}, // 600 dpi: read at 300
	} {
		pdf := TestPDF{Pages: [][]string{nil}, ScanImages: c.images, ScanSize: [2]int{c.w, c.h}}.Bytes()
		ocr := &fakeOCR{text: "Recognised field notes\n", confidence: 90}
		r := NewRegistry(DefaultLimits(), WithPDFEngine(PDFPoppler), WithOCR(ocr))
		if _, err := r.Extract(t.Context(), File{Name: "scan.pdf", Size: int64(len(pdf)), R: bytes.NewReader(pdf)}); err != nil {
			t.Fatal(err)
		}
		if len(ocr.images) != 1 {
			t.Fatalf("OCR ran %d times, want once", len(ocr.images))
		}
		w, h := imageSize(ocr.images[0])
		if w != c.wantW || h != c.wantH {
			t.Errorf("%d image(s) of %d×%d: OCR got %d×%d, want %d×%d", c.images, c.w, c.h, w, h, c.wantW, c.wantH)
		}
	}
}

func TestSingleImageDPI(t *testing.T) {
	head := "page   num  type   width height color comp bpc  enc interp  object ID x-ppi y-ppi size ratio\n" +
		"--------------------------------------------------------------------------------------------\n"
	for _, c := range []struct {
		rows string
		want int
	}{
		{"   1     0 image     875   621  rgb     3   8  image  no        10  0   150   150 17.9K 1.1%\n", 150},
		{"   1     0 image     875   621  rgb     3   8  image  no        10  0   150   151 17.9K 1.1%\n" +
			"   1     1 smask     875   621  gray    1   8  image  no        11  0   150   151 1K 1.1%\n", 151},
		{"   1     0 image     875   621  rgb     3   8  image  no        10  0   150   150 17.9K 1.1%\n" +
			"   1     1 image     875   621  rgb     3   8  image  no        12  0   150   150 17.9K 1.1%\n", 0},
		{"", 0},
	} {
		if got := singleImageDPI(head + c.rows); got != c.want {
			t.Errorf("%q: %d, want %d", c.rows, got, c.want)
		}
	}
}

// A page whose text is drawn turned by 90° (a landscape refcard on a
// portrait page) reads line by line with either reader. The pure-Go reader
// measured positions in page space, where every glyph of a sideways line
// has its own y, and wrote one glyph per line (texinfo's refcard: 16,713
// lines, word F1 0.07).
func TestPDFSidewaysTextReadsInLines(t *testing.T) {
	lines := []string{"GNU Texinfo Reference Card", "Beginning a Texinfo document", "The commands in this section"}
	pdf := TestPDF{Pages: [][]string{lines}, Sideways: true}.Bytes()
	for _, e := range pdfEngines(t) {
		t.Run(string(e), func(t *testing.T) {
			d, err := NewRegistry(DefaultLimits(), WithPDFEngine(e)).Extract(t.Context(), File{Name: "card.pdf", Size: int64(len(pdf)), R: bytes.NewReader(pdf)})
			if err != nil {
				t.Fatal(err)
			}
			if got, want := d.Text, strings.Join(lines, "\n"); got != want {
				t.Errorf("text %q, want %q", got, want)
			}
		})
	}
}

// A lossless scan stored with PNG predictor 15 reaches OCR with its pixels
// through the pure-Go reader too; the library it uses decodes predictor 12
// only and failed with its panic string "pred" as the reason.
func TestPDFPredictedScanPureGo(t *testing.T) {
	const w, h = 120, 40
	pdf := TestPDF{Pages: [][]string{nil}, ScanImages: 1, ScanSize: [2]int{w, h}, ScanPredictor: true}.Bytes()
	ocr := &fakeOCR{text: "Recognised field notes\n", confidence: 90}
	r := NewRegistry(DefaultLimits(), WithPDFEngine(PDFPureGo), WithOCR(ocr))
	if _, err := r.Extract(t.Context(), File{Name: "scan.pdf", Size: int64(len(pdf)), R: bytes.NewReader(pdf)}); err != nil {
		t.Fatal(err)
	}
	if len(ocr.images) != 1 {
		t.Fatalf("OCR ran %d times, want once", len(ocr.images))
	}
	im, err := png.Decode(bytes.NewReader(ocr.images[0]))
	if err != nil {
		t.Fatal(err)
	}
	g, ok := im.(*image.Gray)
	if !ok || g.Bounds().Dx() != w || g.Bounds().Dy() != h {
		t.Fatalf("image %T %v, want %d×%d grey", im, im.Bounds(), w, h)
	}
	for y := range h {
		for x := range w {
			if got, want := g.GrayAt(x, y).Y, ScanPixel(x, y); got != want {
				t.Fatalf("pixel (%d, %d) = %d, want %d", x, y, got, want)
			}
		}
	}
}

// A page tree that claims 2,000,000,000 pages in a file of a few hundred
// bytes is read for as many pages as such a file can hold, with a
// warning, not for ever (the pure-Go reader takes /Count at its word).
func TestAPageCountTheFileCannotHoldIsCapped(t *testing.T) {
	b := extracttest.PDF([]extracttest.PDFPage{{W: 612, H: 792, Content: extracttest.TextContent(72, 700, 12, "Pump manual")}}, "")
	b = bytes.Replace(b, []byte("/Count 1 >>"), []byte("/Count 2000000000 >>"), 1)
	// Write the cross-reference table again for the shifted objects.
	b = b[:bytes.Index(b, []byte("xref\n"))]
	offs := regexp.MustCompile(`(?m)^\d+ 0 obj`).FindAllIndex(b, -1)
	xref := len(b)
	var tail strings.Builder
	fmt.Fprintf(&tail, "xref\n0 %d\n0000000000 65535 f \n", len(offs)+1)
	for _, o := range offs {
		fmt.Fprintf(&tail, "%010d 00000 n \n", o[0])
	}
	fmt.Fprintf(&tail, "trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n", len(offs)+1, xref)
	b = append(b, tail.String()...)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	d, err := NewRegistry(DefaultLimits(), WithPDFEngine(PDFPureGo)).Extract(ctx, File{Name: "claims.pdf", Size: int64(len(b)), R: bytes.NewReader(b)})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(d.Text, "Pump manual") || !slices.ContainsFunc(d.Warnings, func(w string) bool { return strings.Contains(w, "says it has 2000000000 pages") }) {
		t.Errorf("text %q, warnings %q", d.Text, d.Warnings)
	}
}

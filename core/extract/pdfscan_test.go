package extract

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"cairn/internal/skip"
)

// nestedPDF is a one-page PDF whose page says "Hello nested world", with
// arrays nested depth levels deep where says: in the catalog ("catalog"),
// in the page's content stream ("content"), or nowhere ("none").
func nestedPDF(depth int, where string) []byte {
	nest := strings.Repeat("[", depth) + strings.Repeat("]", depth)
	content := "BT /F1 12 Tf 72 720 Td (Hello nested world) Tj ET"
	catalog := "<< /Type /Catalog /Pages 2 0 R >>"
	switch where {
	case "catalog":
		catalog = "<< /Type /Catalog /Pages 2 0 R /Nested " + nest + " >>"
	case "content":
		content += "\n" + nest + " pop"
	}
	objs := []string{catalog,
		"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
		"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R /Resources << /Font << /F1 5 0 R >> >> >>",
		fmt.Sprintf("<< /Length %d >>\nstream\n%s\nendstream", len(content), content),
		"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>"}
	var b bytes.Buffer
	b.WriteString("%PDF-1.4\n")
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

// TestPDFStructureIsBounded: arrays nested deeper than maxPDFDepth, and a
// cross-reference table or trailer claiming more than maxPDFObjects
// objects, are refused with the reason before a reader sees them; brackets
// inside strings, comments and streams do not count, and an ordinary file
// passes (issue 33, item 1).
func TestPDFStructureIsBounded(t *testing.T) {
	deep := strings.Repeat("[", maxPDFDepth+1)
	for _, tc := range []struct {
		name, pdf string
		want      error
		reason    string
	}{
		{"ordinary", string(nestedPDF(0, "none")), nil, ""},
		{"as deep as allowed (the catalog is the first level)", string(nestedPDF(maxPDFDepth-1, "catalog")), nil, ""},
		{"one level deeper", string(nestedPDF(maxPDFDepth, "catalog")), ErrTooDeep, "nested deeper than 256 levels"},
		{"dictionaries", "%PDF-1.4\n1 0 obj\n" + strings.Repeat("<< /A ", maxPDFDepth+1), ErrTooDeep, "nested deeper than 256 levels"},
		{"many dictionaries one after another", "%PDF-1.4\n" + strings.Repeat("1 0 obj\n<< /A << /B 1 >> >>\nendobj\n", maxPDFDepth+1), nil, ""},
		{"brackets in a string, a comment, a hex string and a stream", "%PDF-1.4\n1 0 obj\n(" + deep + ") <5b5b> % " + deep +
			"\n<< /Length 300 >>\nstream\n" + deep + "\nendstream\nendobj\n", nil, ""},
		{"a stream whose data holds endstr before endstream", "%PDF-1.4\n1 0 obj\n<< >>\nstream\nendstrendstream\n" + deep, ErrTooDeep, "nested deeper"},
		{"an object number past the bound", "%PDF-1.4\n99999999 0 obj\n1\nendobj\n", ErrTooLarge, "more than 4194304 objects (it defines more)"},
		{"a cross-reference table past the bound", "%PDF-1.4\nxref\n0 1\n0000000000 65535 f \n20000000 1\n0000000009 00000 n \ntrailer\n<< /Size 3 >>\n",
			ErrTooLarge, "a cross-reference table lists objects 20000000 to 20000001"},
		{"a trailer claiming too many", "%PDF-1.4\ntrailer\n<< /Size 2000000000 /Root 1 0 R >>\n", ErrTooLarge, "its trailer claims 2000000000 objects"},
	} {
		err := checkPDFStructure(strings.NewReader(tc.pdf))
		if tc.want == nil && err != nil || tc.want != nil && (!errorsIs(err, tc.want) || !strings.Contains(err.Error(), tc.reason)) {
			t.Errorf("%s: %v, want %v %q", tc.name, err, tc.want, tc.reason)
		}
	}
}

// TestPageContentIsBounded: the pure-Go reader's check of a page's decoded
// content refuses a run of operands without an operator and brackets
// nested too deep, skips an inline image's data, and passes real content.
func TestPageContentIsBounded(t *testing.T) {
	for _, tc := range []struct {
		name, content string
		reason        string
	}{
		{"text", "BT /F1 12 Tf 72 720 Td [(Hel) -20 (lo)] TJ ET", ""},
		{"operands without an operator", strings.Repeat("1 ", maxOperandRun+1), "more than 65536 operands in a row"},
		{"closing brackets", strings.Repeat("]", maxOperandRun+1), "more than 65536 operands in a row"},
		{"nested arrays", strings.Repeat("[", maxPDFDepth+1), "nested deeper than 256 levels"},
		{"an inline image", "BI /W 4 /H 4 /BPC 8 /CS /G ID " + strings.Repeat("[", 1000) + " EI Q", ""},
	} {
		err := checkContent(strings.NewReader(tc.content))
		if tc.reason == "" && err != nil || tc.reason != "" && (err == nil || !strings.Contains(err.Error(), tc.reason)) {
			t.Errorf("%s: %v, want %q", tc.name, err, tc.reason)
		}
	}
}

func errorsIs(err, target error) bool {
	for err != nil {
		if err == target {
			return true
		}
		u, ok := err.(interface{ Unwrap() error })
		if !ok {
			return false
		}
		err = u.Unwrap()
	}
	return false
}

// TestNestedPDFsStayUnderRSSBound: a PDF nested a million levels deep (2 MB)
// is read, or refused, by a process whose peak resident set stays far
// under the 256 MB a hostile file may cost, with either reader. Before
// the bounds, poppler's message per level (300 MB of them) took 1.9 GB of
// Cairn's memory for the catalog's nesting, and the pure-Go reader kept a
// million operands of the page's content (issue 33, item 1).
func TestNestedPDFsStayUnderRSSBound(t *testing.T) {
	if runtime.GOOS != "linux" {
		skip.Because(t, "Linux only: reads /proc/self/status")
	}
	dir := t.TempDir()
	engines := []PDFEngine{PDFPureGo}
	if _, err := exec.LookPath("pdftotext"); err == nil {
		engines = append(engines, PDFPoppler)
	}
	for _, where := range []string{"catalog", "content"} {
		path := filepath.Join(dir, where+".pdf")
		if err := os.WriteFile(path, nestedPDF(1_000_000, where), 0o600); err != nil {
			t.Fatal(err)
		}
		for _, engine := range engines {
			cmd := exec.Command(os.Args[0], "-test.run=^TestBombChild$", "-test.v")
			cmd.Env = append(os.Environ(), "CAIRN_BOMB="+path, "CAIRN_BOMB_PDF_ENGINE="+string(engine))
			out, err := cmd.CombinedOutput()
			if err != nil {
				t.Fatalf("child: %v\n%s", err, out)
			}
			var kb int64
			var reason string
			for _, l := range strings.Split(string(out), "\n") {
				if v, ok := strings.CutPrefix(l, "RSS "); ok {
					kb, _ = strconv.ParseInt(strings.TrimSuffix(v, " kB"), 10, 64)
				}
				if v, ok := strings.CutPrefix(l, "ERR "); ok {
					reason = v
				}
			}
			t.Logf("nested in the %s, %s reader: peak RSS %d MB: %s", where, engine, kb>>10, reason)
			if kb == 0 || kb > 100<<10 {
				t.Errorf("nested in the %s, %s reader: peak RSS %d MB, want at most 100 MB (%s)", where, engine, kb>>10, reason)
			}
			switch {
			case where == "catalog" && !strings.Contains(reason, "nested too deeply: pdf: arrays and dictionaries nested deeper than 256 levels"):
				t.Errorf("nested in the catalog, %s reader: %s", engine, reason)
			case where == "content" && engine == PDFPureGo && !strings.Contains(reason, "page 1: nested too deeply: pdf: arrays and dictionaries nested deeper than 256 levels"):
				t.Errorf("nested in the content, go reader: %s", reason)
			}
		}
	}
}

// FuzzPDFStructure: the scans of a PDF's bytes and of a page's content end
// on any input, refusing only with ErrTooDeep or ErrTooLarge.
func FuzzPDFStructure(f *testing.F) {
	f.Add(nestedPDF(3, "catalog"))
	f.Add(nestedPDF(maxPDFDepth+1, "content"))
	f.Add([]byte("%PDF-1.4\nxref\n0 1\n0000000000 65535 f \ntrailer\n<< /Size 1 >>\nstream\nendstrendstream\n(a\\)b) <5b> % [[\n"))
	f.Add([]byte("BI /W 1 ID [[[ EI Q"))
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, err := range []error{checkPDFStructure(bytes.NewReader(data)), checkContent(bytes.NewReader(data))} {
			if err != nil && !errorsIs(err, ErrTooDeep) && !errorsIs(err, ErrTooLarge) {
				t.Errorf("%v", err)
			}
		}
	})
}

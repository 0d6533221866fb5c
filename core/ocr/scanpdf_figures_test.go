//go:build cgo && !noocr

package ocr_test

import (
	"bytes"
	"compress/zlib"
	"context"
	"fmt"
	"image"
	"image/png"
	"os"
	"testing"
	"time"

	"cairn/bench"
	"cairn/core/extract"
	"cairn/internal/skip"
)

// TestScannedPDFFigures measures OCR of scanned PDFs, read through the
// PDF as Cairn indexes them: pages of Debian manuals drawn at 150 dpi,
// clean and as bench.NoisyScan, each stored as the one image of a PDF
// page; word F1 against pdftotext of the original page, and seconds. It
// runs only with CAIRN_SCAN_FIGURES=1 (docs/pdf-extraction.md records
// the figures).
func TestScannedPDFFigures(t *testing.T) {
	if os.Getenv("CAIRN_SCAN_FIGURES") == "" {
		skip.Because(t, "on demand: set CAIRN_SCAN_FIGURES=1")
	}
	reg := extract.NewRegistry(extract.DefaultLimits(), extract.WithOCR(engine(t)), extract.WithPDFEngine(extract.PDFPoppler))
	for _, p := range []struct {
		name, path string
		page       int
	}{
		{"R-FAQ.pdf p. 5", "/usr/share/doc/r-doc-pdf/manual/R-FAQ.pdf", 5},
		{"libtasn1.pdf p. 3, contents", "/usr/share/doc/libtasn1-doc/libtasn1.pdf", 3},
		{"libtasn1.pdf p. 12", "/usr/share/doc/libtasn1-doc/libtasn1.pdf", 12},
		{"bashref.pdf p. 1, sparse", "/usr/share/doc/bash-doc/bashref.pdf", 1},
	} {
		src, err := os.ReadFile(p.path)
		if err != nil {
			t.Fatal(err)
		}
		for _, scan := range []struct {
			kind string
			opt  bench.ScanOptions
		}{{"clean", bench.ScanOptions{DPI: 150}}, {"noisy", bench.NoisyScan}} {
			img, ref, err := bench.ScanPDFPage(context.Background(), src, p.page, scan.opt)
			if err != nil {
				t.Fatal(err)
			}
			pdf := imagePDF(t, img, scan.opt.DPI)
			start := time.Now()
			d, err := reg.Extract(context.Background(), extract.File{Name: "scan.pdf", Size: int64(len(pdf)), R: bytes.NewReader(pdf)})
			took := time.Since(start)
			text := ""
			if err == nil {
				text = d.Text
			}
			t.Logf("| %s | %s | %.3f | %.1f | %v |", p.name, scan.kind, bench.F1(bench.Words(text), bench.Words(ref)), took.Seconds(), err)
		}
	}
}

// imagePDF wraps a grey PNG as the one image of a one-page PDF at dpi.
func imagePDF(t *testing.T, pngData []byte, dpi int) []byte {
	t.Helper()
	im, err := png.Decode(bytes.NewReader(pngData))
	if err != nil {
		t.Fatal(err)
	}
	g, ok := im.(*image.Gray)
	if !ok {
		t.Fatalf("not grey: %T", im)
	}
	w, h := g.Bounds().Dx(), g.Bounds().Dy()
	var z bytes.Buffer
	zw := zlib.NewWriter(&z)
	for y := range h {
		zw.Write(g.Pix[y*g.Stride : y*g.Stride+w])
	}
	zw.Close()
	pw, ph := float64(w)*72/float64(dpi), float64(h)*72/float64(dpi)
	content := fmt.Sprintf("q %.2f 0 0 %.2f 0 0 cm /Im0 Do Q", pw, ph)
	objs := []string{
		"<< /Type /Catalog /Pages 2 0 R >>",
		"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
		fmt.Sprintf("<< /Type /Page /Parent 2 0 R /MediaBox [0 0 %.2f %.2f] /Resources << /XObject << /Im0 4 0 R >> >> /Contents 5 0 R >>", pw, ph),
		fmt.Sprintf("<< /Type /XObject /Subtype /Image /Width %d /Height %d /ColorSpace /DeviceGray /BitsPerComponent 8 /Filter /FlateDecode /Length %d >>\nstream\n%s\nendstream", w, h, z.Len(), z.String()),
		fmt.Sprintf("<< /Length %d >>\nstream\n%s\nendstream", len(content), content),
	}
	var out bytes.Buffer
	out.WriteString("%PDF-1.4\n")
	offs := make([]int, len(objs))
	for i, o := range objs {
		offs[i] = out.Len()
		fmt.Fprintf(&out, "%d 0 obj\n%s\nendobj\n", i+1, o)
	}
	xref := out.Len()
	fmt.Fprintf(&out, "xref\n0 %d\n0000000000 65535 f \n", len(objs)+1)
	for _, o := range offs {
		fmt.Fprintf(&out, "%010d 00000 n \n", o)
	}
	fmt.Fprintf(&out, "trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n", len(objs)+1, xref)
	return out.Bytes()
}

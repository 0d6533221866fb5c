package extract

import (
	"bufio"
	"bytes"
	"context"
	"strings"
	"testing"

	"cairn/core/extract/extracttest"
)

// TestBlankPagesAreNotDrawnForOCR: the pages of a PDF without a text
// layer are drawn small in one pdftoppm call, and those with nothing on
// them are known blank without being drawn for OCR; a page with a mark
// is drawn, within MaxPagePixels however large the page: an 11,000 pt
// page at 20 dpi, not 300 (issue 43, items 2 and 3).
func TestBlankPagesAreNotDrawnForOCR(t *testing.T) {
	p := findPoppler()
	if p == nil || p.pdftoppm == "" || p.pdfinfo == "" {
		t.Fatal("pdftoppm and pdfinfo not found: install poppler-utils (make deps)")
	}
	pages := make([]extracttest.PDFPage, 300)
	for i := range pages {
		pages[i] = extracttest.PDFPage{W: 612, H: 792}
	}
	pages[99].Content = "0 0 0 rg 100 100 50 50 re f"
	pages[199] = extracttest.PDFPage{W: 11000, H: 11000, Content: "0 0 0 rg 100 100 50 50 re f"}
	f := fileOf("blank.pdf", extracttest.PDF(pages, ""))
	want := make([]int, 300)
	for i := range want {
		want[i] = i + 1
	}
	plan, err := p.planOCR(context.Background(), f, want)
	if err != nil {
		t.Fatal(err)
	}
	var drawn []int
	for n := 1; n <= 300; n++ {
		if !plan[n].blank {
			drawn = append(drawn, n)
		}
	}
	if len(drawn) != 2 || drawn[0] != 100 || drawn[1] != 200 {
		t.Fatalf("pages to draw %v, want [100 200]", drawn)
	}
	if pl := plan[100]; pl.dpi != 300 || pl.note != "" {
		t.Errorf("page 100: %+v, want 300 dpi", pl)
	}
	if pl := plan[200]; pl.dpi != 20 || !strings.Contains(pl.note, "page 200: 11000 x 11000 pt, drawn for OCR at 20 dpi instead of 300 (at most 10 megapixels a page)") {
		t.Errorf("page 200: %+v", pl)
	}
	img, err := p.render(context.Background(), f, 200, plan[200].dpi)
	if err != nil {
		t.Fatal(err)
	}
	if w, h := imageSize(img); w*h > MaxPagePixels || w < 3000 {
		t.Errorf("page 200 drawn %dx%d", w, h)
	}
	// Without a size (no pdfinfo), the page is drawn by its longer side.
	if img, err = p.render(context.Background(), f, 200, 0); err != nil {
		t.Fatal(err)
	}
	if w, h := imageSize(img); w*h > MaxPagePixels || w != maxSide {
		t.Errorf("page 200 drawn %dx%d without its size", w, h)
	}
}

// imageSize reads a PGM's width and height.
func imageSize(b []byte) (int, int) {
	r := bufio.NewReader(bytes.NewReader(b))
	if _, err := pgmNumber(r, true); err != nil {
		return 0, 0
	}
	w, _ := pgmNumber(r, false)
	h, _ := pgmNumber(r, false)
	return w, h
}

// TestReadPGMInk reads pdftoppm's PGM stream page by page.
func TestReadPGMInk(t *testing.T) {
	r := bufio.NewReader(strings.NewReader("P5\n2 1\n255\n\xff\xffP5\n2 1\n255\n\xff\x80"))
	for i, want := range []bool{false, true} {
		ink, err := readPGMInk(r)
		if err != nil || ink != want {
			t.Errorf("page %d: %v %v", i+1, ink, err)
		}
	}
	if _, err := readPGMInk(r); err == nil {
		t.Error("past the end: no error")
	}
}

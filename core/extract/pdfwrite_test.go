package extract

import (
	"bytes"
	"compress/zlib"
	"fmt"
	"strings"
)

// TestPDF describes a small PDF that tests write themselves: pages of text
// lines in Helvetica and an outline. It is exported (in a _test file) so
// the package's external tests, which may import core/chunk, can use it.
type TestPDF struct {
	Pages    [][]string
	Outline  []TestBookmark
	LoopNext bool // the last top-level bookmark's /Next points back at the first
	// ScanFilter, when set, gives each page without lines one full-page
	// 1-bit image stored with this filter (e.g. CCITTFaxDecode), as a
	// fax-like scan is; its data is not a real image.
	ScanFilter string
	// ScanImages, when set, gives each page without lines that many real
	// white grey images of ScanSize pixels (width, height), stacked from
	// the top, together covering the page: one is a scan at
	// ScanSize[0]/8.5 dpi, several a page assembled from strips.
	ScanImages int
	ScanSize   [2]int
	// ScanPredictor stores each ScanImages image with PNG predictor 15,
	// every row under another filter (None, Sub, Up, Average, Paeth), and
	// fills it with ScanPixel instead of white.
	ScanPredictor bool
	// Sideways draws the text lines turned by 90°, as a landscape page
	// set on a portrait one is (the texinfo refcard).
	Sideways bool
}

// TestBookmark is an outline entry pointing at Page (1-based) in one of
// the ways producers write destinations.
type TestBookmark struct {
	Title string
	Page  int
	How   string // "" explicit /Dest array, "goto" /A /GoTo action, "named" /Dest string in the /Names tree, "bad" /Dest at a non-page object
	Kids  []TestBookmark
}

// Bytes writes the PDF with a correct cross-reference table.
func (p TestPDF) Bytes() []byte {
	var objs []string // objs[i] is object i+1
	add := func(s string) int { objs = append(objs, s); return len(objs) }
	set := func(n int, s string) { objs[n-1] = s }
	catalog := add("")
	pagesObj := add("")
	font := add("<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>")
	var pageRefs []string
	for _, lines := range p.Pages {
		var cs strings.Builder
		cs.WriteString("BT /F1 12 Tf 16 TL 72 760 Td\n")
		for i, l := range lines {
			if i > 0 {
				cs.WriteString("T* ")
			}
			fmt.Fprintf(&cs, "(%s) Tj\n", pdfEscape(l))
		}
		cs.WriteString("ET")
		if p.Sideways {
			body := cs.String()
			cs.Reset()
			fmt.Fprintf(&cs, "q 0 1 -1 0 792 0 cm\n%s\nQ", body)
		}
		res := fmt.Sprintf("/Font << /F1 %d 0 R >>", font)
		if len(lines) == 0 && p.ScanFilter != "" {
			im := add(fmt.Sprintf("<< /Type /XObject /Subtype /Image /Width 1700 /Height 2200 /ColorSpace /DeviceGray /BitsPerComponent 1 /Filter /%s /Length 4 >>\nstream\n\x00\x00\x00\x00\nendstream", p.ScanFilter))
			res += fmt.Sprintf(" /XObject << /Im1 %d 0 R >>", im)
			cs.Reset()
			cs.WriteString("q 612 0 0 792 0 0 cm /Im1 Do Q")
		}
		if len(lines) == 0 && p.ScanImages > 0 {
			var z bytes.Buffer
			zw := zlib.NewWriter(&z)
			parms := ""
			if p.ScanPredictor {
				zw.Write(pngRows(p.ScanSize[0], p.ScanSize[1]))
				parms = fmt.Sprintf(" /DecodeParms << /Predictor 15 /Colors 1 /BitsPerComponent 8 /Columns %d >>", p.ScanSize[0])
			} else {
				zw.Write(bytes.Repeat([]byte{0xFF}, p.ScanSize[0]*p.ScanSize[1]))
			}
			zw.Close()
			cs.Reset()
			res += " /XObject <<"
			h := 792 / p.ScanImages
			for i := range p.ScanImages {
				im := add(fmt.Sprintf("<< /Type /XObject /Subtype /Image /Width %d /Height %d /ColorSpace /DeviceGray /BitsPerComponent 8 /Filter /FlateDecode%s /Length %d >>\nstream\n%s\nendstream",
					p.ScanSize[0], p.ScanSize[1], parms, z.Len(), z.String()))
				res += fmt.Sprintf(" /Im%d %d 0 R", i, im)
				fmt.Fprintf(&cs, "q 612 0 0 %d 0 %d cm /Im%d Do Q\n", h, 792-(i+1)*h, i)
			}
			res += " >>"
		}
		content := add(fmt.Sprintf("<< /Length %d >>\nstream\n%s\nendstream", cs.Len(), cs.String()))
		page := add(fmt.Sprintf("<< /Type /Page /Parent %d 0 R /MediaBox [0 0 612 792] /Resources << %s >> /Contents %d 0 R >>", pagesObj, res, content))
		pageRefs = append(pageRefs, fmt.Sprintf("%d 0 R", page))
	}
	set(pagesObj, fmt.Sprintf("<< /Type /Pages /Kids [%s] /Count %d >>", strings.Join(pageRefs, " "), len(pageRefs)))
	var names []string
	dest := func(b TestBookmark) string {
		ref := "0 0 R"
		if b.Page >= 1 && b.Page <= len(pageRefs) {
			ref = pageRefs[b.Page-1]
		}
		arr := fmt.Sprintf("[%s /XYZ 0 792 0]", ref)
		switch b.How {
		case "goto":
			return fmt.Sprintf("/A << /S /GoTo /D %s >>", arr)
		case "named":
			name := fmt.Sprintf("dest.%d", len(names))
			names = append(names, fmt.Sprintf("(%s) %s", name, arr))
			return fmt.Sprintf("/Dest (%s)", name)
		case "bad":
			return fmt.Sprintf("/Dest [%d 0 R /Fit]", font)
		}
		return "/Dest " + arr
	}
	// items writes the bookmarks under parent and returns the first and
	// last object numbers.
	var items func(bs []TestBookmark, parent int, loop bool) (int, int)
	items = func(bs []TestBookmark, parent int, loop bool) (int, int) {
		nums := make([]int, len(bs))
		for i := range bs {
			nums[i] = add("")
		}
		for i, b := range bs {
			d := fmt.Sprintf("<< /Title (%s) /Parent %d 0 R %s", pdfEscape(b.Title), parent, dest(b))
			if i > 0 {
				d += fmt.Sprintf(" /Prev %d 0 R", nums[i-1])
			}
			if i+1 < len(bs) {
				d += fmt.Sprintf(" /Next %d 0 R", nums[i+1])
			} else if loop {
				d += fmt.Sprintf(" /Next %d 0 R", nums[0])
			}
			if len(b.Kids) > 0 {
				first, last := items(b.Kids, nums[i], false)
				d += fmt.Sprintf(" /First %d 0 R /Last %d 0 R /Count %d", first, last, len(b.Kids))
			}
			set(nums[i], d+" >>")
		}
		return nums[0], nums[len(nums)-1]
	}
	root := fmt.Sprintf("<< /Type /Catalog /Pages %d 0 R", pagesObj)
	if len(p.Outline) > 0 {
		outlines := add("")
		first, last := items(p.Outline, outlines, p.LoopNext)
		set(outlines, fmt.Sprintf("<< /Type /Outlines /First %d 0 R /Last %d 0 R /Count %d >>", first, last, len(p.Outline)))
		root += fmt.Sprintf(" /Outlines %d 0 R /PageMode /UseOutlines", outlines)
	}
	if len(names) > 0 {
		root += fmt.Sprintf(" /Names << /Dests << /Names [%s] >> >>", strings.Join(names, " "))
	}
	set(catalog, root+" >>")

	var out bytes.Buffer
	out.WriteString("%PDF-1.4\n%\xe2\xe3\xcf\xd3\n")
	offsets := make([]int, len(objs))
	for i, o := range objs {
		offsets[i] = out.Len()
		fmt.Fprintf(&out, "%d 0 obj\n%s\nendobj\n", i+1, o)
	}
	xref := out.Len()
	fmt.Fprintf(&out, "xref\n0 %d\n0000000000 65535 f \n", len(objs)+1)
	for _, off := range offsets {
		fmt.Fprintf(&out, "%010d 00000 n \n", off)
	}
	fmt.Fprintf(&out, "trailer\n<< /Size %d /Root %d 0 R >>\nstartxref\n%d\n%%%%EOF\n", len(objs)+1, catalog, xref)
	return out.Bytes()
}

func pdfEscape(s string) string {
	return strings.NewReplacer(`\`, `\\`, "(", `\(`, ")", `\)`).Replace(s)
}

// ScanPixel is the grey of pixel (x, y) of a ScanPredictor image.
func ScanPixel(x, y int) byte { return byte(x*3 + y*7 + x*y) }

// pngRows encodes a w×h image of ScanPixel as PNG-predicted rows, row
// y under filter y%5.
func pngRows(w, h int) []byte {
	var out []byte
	prev := make([]byte, w)
	for y := range h {
		row := make([]byte, w)
		for x := range w {
			row[x] = ScanPixel(x, y)
		}
		kind := byte(y % 5)
		out = append(out, kind)
		for x := range w {
			var left, upLeft byte
			if x > 0 {
				left, upLeft = row[x-1], prev[x-1]
			}
			var pred byte
			switch kind {
			case 1:
				pred = left
			case 2:
				pred = prev[x]
			case 3:
				pred = byte((int(left) + int(prev[x])) / 2)
			case 4:
				pred = paethTest(left, prev[x], upLeft)
			}
			out = append(out, row[x]-pred)
		}
		prev = row
	}
	return out
}

// paethTest is PNG's Paeth predictor, written apart from the reader's.
func paethTest(a, b, c byte) byte {
	p := int(a) + int(b) - int(c)
	d := func(x byte) int { return max(p-int(x), int(x)-p) }
	if d(a) <= d(b) && d(a) <= d(c) {
		return a
	}
	if d(b) <= d(c) {
		return b
	}
	return c
}

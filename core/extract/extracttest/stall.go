package extracttest

import (
	"bytes"
	"fmt"
)

// StallText is what the pages of StallingPDF say, as the pure-Go reader
// reads them.
const StallText = "The stalled page about turbines.\n\nThe second page about pumps and valves."

// stallLevels is the depth of StallingPDF's forms: pdftotext took 0.9 s
// at 15 levels and 23 s at 20 (poppler 22.12 on two busy cores), so 40
// levels take about 2^20 times as long: months.
const stallLevels = 40

// StallingPDF returns a small PDF (8 kB) on which poppler makes no progress
// for as long as anyone waits: its first page draws a form that draws the
// next form twice, stallLevels deep, and pdftotext works through 2^40
// drawings of one short line, in constant memory, before it would write the
// page's text. The watchdog of core/extract stops it at any
// index.timeout_sec, so the file fails with EXTRACT-004 however far the
// limit is raised. The pure-Go reader draws no forms and reads StallText
// at once: the file is a sound PDF, only slow to draw.
func StallingPDF() []byte {
	var b bytes.Buffer
	var offsets []int
	obj := func(format string, args ...any) {
		offsets = append(offsets, b.Len())
		fmt.Fprintf(&b, "%d 0 obj\n", len(offsets))
		fmt.Fprintf(&b, format, args...)
		b.WriteString("\nendobj\n")
	}
	stream := func(dict, content string) {
		obj("<< %s/Length %d >>\nstream\n%s\nendstream", dict, len(content), content)
	}
	b.WriteString("%PDF-1.4\n")
	// Objects 1-7: catalog, pages, the two pages, the font, their
	// contents; forms from object 8 on, each drawing the next twice.
	obj("<< /Type /Catalog /Pages 2 0 R >>")
	obj("<< /Type /Pages /Kids [3 0 R 4 0 R] /Count 2 >>")
	obj("<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 5 0 R >> /XObject << /X 8 0 R >> >> /Contents 6 0 R >>")
	obj("<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 5 0 R >> >> /Contents 7 0 R >>")
	obj("<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>")
	stream("", "BT /F1 12 Tf 72 720 Td (The stalled page about turbines.) Tj ET /X Do")
	stream("", "BT /F1 12 Tf 72 720 Td (The second page about pumps and valves.) Tj ET")
	for i := range stallLevels {
		form := "/Type /XObject /Subtype /Form /BBox [0 0 10 10] "
		if i == stallLevels-1 {
			stream(form, "0 0 m 1 1 l S")
			continue
		}
		stream(form+fmt.Sprintf("/Resources << /XObject << /X %d 0 R >> >> ", 8+i+1), "/X Do /X Do")
	}
	xref := b.Len()
	fmt.Fprintf(&b, "xref\n0 %d\n0000000000 65535 f \n", len(offsets)+1)
	for _, o := range offsets {
		fmt.Fprintf(&b, "%010d 00000 n \n", o)
	}
	fmt.Fprintf(&b, "trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n", len(offsets)+1, xref)
	return b.Bytes()
}

package extracttest

import (
	"archive/zip"
	"bufio"
	"encoding/base64"
	"encoding/binary"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"strings"
)

// SharedStringsXLSX writes a workbook whose one shared string is n bytes
// of letters that compress to about half (random, from sixteen), and
// whose sheet refers to it from rows x cols cells: a small file whose
// cells hold n x rows x cols bytes of text.
func SharedStringsXLSX(path string, n, rows, cols int) error {
	return writeZip(path, func(zw *zip.Writer) error {
		parts := []struct{ name, body string }{
			{"[Content_Types].xml", `<?xml version="1.0"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">` +
				`<Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/><Default Extension="xml" ContentType="application/xml"/>` +
				`<Override PartName="/xl/workbook.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml"/>` +
				`<Override PartName="/xl/worksheets/sheet1.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.worksheet+xml"/>` +
				`<Override PartName="/xl/sharedStrings.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.sharedStrings+xml"/></Types>`},
			{"_rels/.rels", `<?xml version="1.0"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">` +
				`<Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="xl/workbook.xml"/></Relationships>`},
			{"xl/workbook.xml", `<?xml version="1.0"?><workbook xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main" xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships"><sheets><sheet name="S" sheetId="1" r:id="rId1"/></sheets></workbook>`},
			{"xl/_rels/workbook.xml.rels", `<?xml version="1.0"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">` +
				`<Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/worksheet" Target="worksheets/sheet1.xml"/>` +
				`<Relationship Id="rId2" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/sharedStrings" Target="sharedStrings.xml"/></Relationships>`},
		}
		for _, p := range parts {
			w, err := zw.Create(p.name)
			if err != nil {
				return err
			}
			if _, err := io.WriteString(w, p.body); err != nil {
				return err
			}
		}
		w, err := zw.Create("xl/sharedStrings.xml")
		if err != nil {
			return err
		}
		bw := bufio.NewWriter(w)
		bw.WriteString(`<?xml version="1.0"?><sst xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main" count="1" uniqueCount="1"><si><t>`)
		rng := rand.New(rand.NewPCG(1, 2))
		for range n {
			bw.WriteByte("abcdefghijklmnop"[rng.IntN(16)])
		}
		bw.WriteString(`</t></si></sst>`)
		if err := bw.Flush(); err != nil {
			return err
		}
		if w, err = zw.Create("xl/worksheets/sheet1.xml"); err != nil {
			return err
		}
		var sb strings.Builder
		sb.WriteString(`<?xml version="1.0"?><worksheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"><sheetData>`)
		for r := 1; r <= rows; r++ {
			fmt.Fprintf(&sb, `<row r="%d">`, r)
			for c := range cols {
				fmt.Fprintf(&sb, `<c r="%c%d" t="s"><v>0</v></c>`, 'A'+c%26, r)
			}
			sb.WriteString(`</row>`)
		}
		sb.WriteString(`</sheetData></worksheet>`)
		_, err = io.WriteString(w, sb.String())
		return err
	})
}

func writeZip(path string, fill func(*zip.Writer) error) (err error) {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	defer func() {
		if cerr := f.Close(); err == nil {
			err = cerr
		}
	}()
	zw := zip.NewWriter(f)
	if err := fill(zw); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	return zw.Close()
}

// MultiPageTIFF writes a TIFF of n frames, each w x h pixels of 8-bit
// grey, uncompressed: white, with a black bar across the first frame.
func MultiPageTIFF(path string, n, w, h int) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	defer f.Close()
	bw := bufio.NewWriter(f)
	le := binary.LittleEndian
	const entries = 9
	frame := w * h
	ifdSize := 2 + entries*12 + 4
	bw.WriteString("II*\x00")
	binary.Write(bw, le, uint32(8))
	for i := range n {
		off := 8 + i*(ifdSize+frame)
		data := off + ifdSize
		next := uint32(0)
		if i+1 < n {
			next = uint32(off + ifdSize + frame)
		}
		binary.Write(bw, le, uint16(entries))
		for _, e := range [][3]uint32{
			{256, 4, uint32(w)},     // ImageWidth, LONG
			{257, 4, uint32(h)},     // ImageLength
			{258, 3, 8},             // BitsPerSample, SHORT
			{259, 3, 1},             // Compression: none
			{262, 3, 1},             // PhotometricInterpretation: black is zero
			{273, 4, uint32(data)},  // StripOffsets
			{277, 3, 1},             // SamplesPerPixel
			{278, 4, uint32(h)},     // RowsPerStrip
			{279, 4, uint32(frame)}, // StripByteCounts
		} {
			binary.Write(bw, le, uint16(e[0]))
			binary.Write(bw, le, uint16(e[1]))
			binary.Write(bw, le, uint32(1))
			if e[1] == 3 {
				binary.Write(bw, le, uint16(e[2]))
				binary.Write(bw, le, uint16(0))
			} else {
				binary.Write(bw, le, e[2])
			}
		}
		binary.Write(bw, le, next)
		px := make([]byte, frame)
		for j := range px {
			px[j] = 0xFF
			if i == 0 && j/w > h/3 && j/w < h/3+h/10 {
				px[j] = 0
			}
		}
		bw.Write(px)
	}
	return bw.Flush()
}

// writeRepeated writes head, then n bytes made of fill repeated, then tail.
func writeRepeated(path, head, fill string, n int64, tail string) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	bw := bufio.NewWriterSize(f, 1<<20)
	bw.WriteString(head)
	block := strings.Repeat(fill, max(1, (1<<20)/len(fill)))
	for left := n; left > 0; {
		k := min(left, int64(len(block)))
		bw.WriteString(block[:k])
		left -= k
	}
	bw.WriteString(tail)
	if err := bw.Flush(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// MboxWithAttachment writes a mailbox of one message whose attachment is
// n bytes (random, base64 in the file) after a short text body.
func MboxWithAttachment(path string, n int64) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	bw := bufio.NewWriterSize(f, 1<<20)
	bw.WriteString("From sender@example.org Mon Jan  5 10:00:00 2026\n" +
		"From: sender@example.org\nTo: reader@example.org\nSubject: the quarterly archive\n" +
		"MIME-Version: 1.0\nContent-Type: multipart/mixed; boundary=\"b1\"\n\n" +
		"--b1\nContent-Type: text/plain\n\nThe archive of the quarter is attached.\n" +
		"--b1\nContent-Type: application/octet-stream; name=\"archive.bin\"\nContent-Disposition: attachment; filename=\"archive.bin\"\nContent-Transfer-Encoding: base64\n\n")
	rng := rand.New(rand.NewPCG(3, 4))
	raw := make([]byte, 57*1024) // 57 bytes a line of 76 characters
	for left := n; left > 0; {
		k := min(left, int64(len(raw)))
		for i := range raw[:k] {
			raw[i] = byte(rng.Uint32())
		}
		for i := int64(0); i < k; i += 57 {
			bw.WriteString(base64.StdEncoding.EncodeToString(raw[i:min(i+57, k)]))
			bw.WriteByte('\n')
		}
		left -= k
	}
	bw.WriteString("--b1--\n")
	if err := bw.Flush(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// Package extracttest builds hostile inputs for core/extract's tests and
// for `cairn bench extract`: zip bombs too large to commit, written on
// demand.
package extracttest

import (
	"archive/zip"
	"bytes"
	"compress/flate"
	"fmt"
	"io"
	"os"
)

// BombEntry is one part of a generated archive: Head, then N bytes made by
// repeating Fill, then Tail.
type BombEntry struct {
	Name       string
	Head, Tail string
	Fill       string
	N          int64
}

// WriteBomb writes the archive to path with every fill shrunk by 2^shift,
// deflated at the given level (flate.BestCompression for the smallest file).
func WriteBomb(path string, entries []BombEntry, shift uint, level int) (err error) {
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
	zw.RegisterCompressor(zip.Deflate, func(w io.Writer) (io.WriteCloser, error) {
		return flate.NewWriter(w, level)
	})
	for _, e := range entries {
		w, err := zw.Create(e.Name)
		if err != nil {
			return fmt.Errorf("%s: %w", path, err)
		}
		if _, err := io.WriteString(w, e.Head); err != nil {
			return fmt.Errorf("%s: %w", path, err)
		}
		var block []byte
		if e.N > 0 {
			block = bytes.Repeat([]byte(e.Fill), max(1, (1<<20)/len(e.Fill)))
		}
		for left := e.N >> shift; left > 0; {
			k := min(left, int64(len(block)))
			if _, err := w.Write(block[:k]); err != nil {
				return fmt.Errorf("%s: %w", path, err)
			}
			left -= k
		}
		if _, err := io.WriteString(w, e.Tail); err != nil {
			return fmt.Errorf("%s: %w", path, err)
		}
	}
	if err := zw.Close(); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	return nil
}

const (
	// DocHead and DocTail wrap a DOCX body; ContentTypes is a minimal
	// [Content_Types].xml.
	DocHead      = `<?xml version="1.0"?><w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"><w:body>`
	DocTail      = `</w:body></w:document>`
	ContentTypes = `<?xml version="1.0"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"></Types>`
)

// Bombs are office files of about a megabyte that inflate to 1 GiB, by
// name: each must be refused as a zip bomb in bounded memory.
var Bombs = map[string][]BombEntry{
	// NUL bytes inside a text run: 1 GiB from one megabyte.
	"zeros.docx": {{Name: "[Content_Types].xml", Head: ContentTypes}, {Name: "word/document.xml", Head: DocHead + "<w:p><w:r><w:t>", Fill: "\x00", N: 1 << 30, Tail: "</w:t></w:r></w:p>" + DocTail}},
	// One text run of 1 GiB of words.
	"onerun.docx": {{Name: "[Content_Types].xml", Head: ContentTypes}, {Name: "word/document.xml", Head: DocHead + "<w:p><w:r><w:t>", Fill: "cairn ", N: 1 << 30, Tail: "</w:t></w:r></w:p>" + DocTail}},
	// 1 GiB of short paragraphs: every token small, the sum huge.
	"paragraphs.docx": {{Name: "[Content_Types].xml", Head: ContentTypes}, {Name: "word/document.xml", Head: DocHead, Fill: "<w:p><w:r><w:t>cairn stone</w:t></w:r></w:p>", N: 1 << 30, Tail: DocTail}},
	// One start tag with 1 GiB of attributes.
	"attributes.docx": {{Name: "[Content_Types].xml", Head: ContentTypes}, {Name: "word/document.xml", Head: DocHead + "<w:p ", Fill: `a="b" `, N: 1 << 30, Tail: "/>" + DocTail}},
	// A worksheet of 1 GiB of cells.
	"cells.xlsx": {
		{Name: "[Content_Types].xml", Head: ContentTypes},
		{Name: "xl/workbook.xml", Head: `<?xml version="1.0"?><workbook xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main" xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships"><sheets><sheet name="S" sheetId="1" r:id="rId1"/></sheets></workbook>`},
		{Name: "xl/_rels/workbook.xml.rels", Head: `<?xml version="1.0"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/worksheet" Target="worksheets/sheet1.xml"/></Relationships>`},
		{Name: "xl/worksheets/sheet1.xml", Head: `<?xml version="1.0"?><worksheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"><sheetData>`, Fill: `<row><c t="inlineStr"><is><t>cairn</t></is></c></row>`, N: 1 << 30, Tail: `</sheetData></worksheet>`},
	},
	// An ODT whose content is one text run of 1 GiB.
	"onerun.odt": {{Name: "mimetype", Head: "application/vnd.oasis.opendocument.text"}, {Name: "content.xml", Head: `<?xml version="1.0"?><office:document-content xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0" xmlns:text="urn:oasis:names:tc:opendocument:xmlns:text:1.0"><office:body><office:text><text:p>`, Fill: "cairn ", N: 1 << 30, Tail: `</text:p></office:text></office:body></office:document-content>`}},
}

package extract

import (
	"bytes"
	"encoding/base64"
	"encoding/binary"
	"errors"
	"hash/crc32"
	"os"
	"strings"
	"testing"

	"cairn/core/extract/extracttest"
	"cairn/core/fault"
)

func TestImagesThroughOCR(t *testing.T) {
	for _, name := range []string{"scan.png", "scan.jpg", "scan.tif", "scan.bmp", "scan.gif", "scan.webp"} {
		t.Run(name, func(t *testing.T) {
			ocr := &fakeOCR{text: "Scanned survey notes\nThe north cairn leans west.\n"}
			d := mustExtract(t, name, WithOCR(ocr))
			if len(ocr.images) != 1 || !bytes.Equal(ocr.images[0], fixtureBytes(t, name)) {
				t.Fatalf("OCR was not given the image file (%d calls)", len(ocr.images))
			}
			equalStrings(t, "units", unitSummary(d), []string{"page 1"})
			if d.Text != "Scanned survey notes\nThe north cairn leans west." || d.Format != "image" {
				t.Errorf("text %q format %q", d.Text, d.Format)
			}
		})
	}
}

func TestImagesWithoutOCR(t *testing.T) {
	_, err := extractFixture(t, "scan.png")
	wantErr(t, "scan.png", err, ErrUnsupported, "needs OCR, which is unavailable")
	if fault.CodeOf(err) != fault.ExtractNoOCR || !strings.Contains(fault.FixLine(err), "tesseract-ocr-eng") {
		t.Errorf("fault %q fix %q", fault.CodeOf(err), fault.FixLine(err))
	}
}

func TestImageRefusals(t *testing.T) {
	r := NewRegistry(DefaultLimits(), WithOCR(&fakeOCR{text: "x"}))
	_, err := r.Extract(t.Context(), fileOf("notes.png", []byte("just some text, not an image at all")))
	wantErr(t, "text named .png", err, nil, "image: .png is not an image")
	// A 100000x100000 PNG header: ten gigapixels declared in 33 bytes.
	ihdr := []byte("IHDR\x00\x01\x86\xa0\x00\x01\x86\xa0\x08\x00\x00\x00\x00")
	bomb := append([]byte("\x89PNG\r\n\x1a\n\x00\x00\x00\x0d"), ihdr...)
	bomb = binary.BigEndian.AppendUint32(bomb, crc32.ChecksumIEEE(ihdr))
	_, err = r.Extract(t.Context(), fileOf("bomb.png", bomb))
	wantErr(t, "bomb.png", err, ErrTooLarge, "file too large: image: 100000x100000 png takes more than the 48 MB an image may to decode")
}

func FuzzImage(f *testing.F) {
	for _, name := range []string{"scan.png", "scan.gif", "scan.bmp", "scan.webp"} {
		f.Add(fixtureBytes(f, name))
	}
	r := NewRegistry(DefaultLimits(), WithOCR(&fakeOCR{text: "x"}))
	f.Fuzz(func(t *testing.T, data []byte) {
		// Header parsing before OCR must survive any bytes.
		_, _ = r.extractImage(t.Context(), fileOf("x.png", data), DefaultLimits())
	})
}

// TestTIFFPages: a TIFF of several pages is read page by page, each a
// unit, each page's size checked from its directory first; a page too
// large to decode is left out with a warning; a chain of directories that
// loops back is cut there (issue 43, item 7).
func TestTIFFPages(t *testing.T) {
	if pages, _ := tiffPages(fixtureBytes(t, "scan.tif")); len(pages) != 1 {
		t.Errorf("scan.tif: %d pages, want 1", len(pages))
	}
	pages, cut := tiffPages(fixtureBytes(t, "scan2.tif"))
	if len(pages) != 2 || cut != "" || pages[0].width == 0 || pages[0].bits == 0 {
		t.Fatalf("scan2.tif: %+v %q", pages, cut)
	}
	ocr := &fakeOCR{text: "survey notes"}
	d := mustExtract(t, "scan2.tif", WithOCR(ocr))
	equalStrings(t, "units", unitSummary(d), []string{"page 1", "page 2"})
	if len(ocr.pages) != 2 || ocr.pages[0] != pages[0].offset || ocr.pages[1] != pages[1].offset || len(ocr.images) != 0 {
		t.Errorf("pages read %v (images %d), want the two directories %d, %d", ocr.pages, len(ocr.images), pages[0].offset, pages[1].offset)
	}
	if got := unitText(d, 1); got != "page 2 of the TIFF: survey notes" {
		t.Errorf("page 2: %q", got)
	}

	// 100 frames, the third 30000 x 30000 (900 megapixels declared), the
	// last directory pointing back at the first.
	dir := t.TempDir()
	if err := extracttest.MultiPageTIFF(dir+"/frames.tif", 100, 16, 16); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(dir + "/frames.tif")
	pages, _ = tiffPages(b)
	binary.LittleEndian.PutUint32(b[pages[2].offset+2+8:], 30000) // width: the first entry's value
	binary.LittleEndian.PutUint32(b[pages[2].offset+2+12+8:], 30000)
	last := pages[99].offset
	binary.LittleEndian.PutUint32(b[last+2+12*9:], uint32(pages[0].offset))
	ocr = &fakeOCR{text: "frame"}
	r := NewRegistry(DefaultLimits(), WithOCR(ocr))
	d, err := r.Extract(t.Context(), fileOf("frames.tif", b))
	if err != nil {
		t.Fatal(err)
	}
	if len(ocr.pages) != 99 || len(d.Units) != 99 {
		t.Errorf("%d pages read, %d units, want 99 of 100", len(ocr.pages), len(d.Units))
	}
	w := strings.Join(d.Warnings, "\n")
	contains(t, "warnings", w, "tiff: page 3, 30000x30000, takes more than the 48 MB an image may to decode; save a smaller or greyscale copy to index it: not read")
	contains(t, "warnings", w, "tiff: its pages' directories loop back")
}

// The reason names the cause: an image OCR cannot read is a failure of
// that image, an image without text is "no text", and a scanned PDF whose
// pages all failed says so instead of "no text".
func TestOCRReasons(t *testing.T) {
	damaged := errors.New("ocr: unreadable image: damaged PNG: chunk \"IDAT\" fails its CRC check")
	r := NewRegistry(DefaultLimits(), WithOCR(&fakeOCR{err: damaged}))
	_, err := r.Extract(t.Context(), fileOf("scan.png", fixtureBytes(t, "scan.png")))
	wantErr(t, "damaged png", err, nil, "image: cannot be read: ocr: unreadable image: damaged PNG")
	_, err = r.Extract(t.Context(), fileOf("scanned.pdf", fixtureBytes(t, "scanned.pdf")))
	wantErr(t, "unreadable scan", err, nil, "pdf: a scanned document whose pages could not be read: page 1: ocr: unreadable image")

	eml := "From: a@example.org\r\nSubject: photo\r\nContent-Type: multipart/mixed; boundary=B\r\n\r\n" +
		"--B\r\nContent-Type: text/plain\r\n\r\nSee the photo.\r\n" +
		"--B\r\nContent-Type: image/png\r\nContent-Disposition: attachment; filename=photo.png\r\nContent-Transfer-Encoding: base64\r\n\r\n" +
		base64.StdEncoding.EncodeToString(fixtureBytes(t, "scan.png")) + "\r\n--B--\r\n"
	d, err := r.Extract(t.Context(), fileOf("photo.eml", []byte(eml)))
	if err != nil {
		t.Fatal(err)
	}
	contains(t, "warnings", strings.Join(d.Warnings, "\n"), "attachment photo.png skipped: image: cannot be read: ocr: unreadable image")

	blank := NewRegistry(DefaultLimits(), WithOCR(&fakeOCR{text: " \n"}))
	_, err = blank.Extract(t.Context(), fileOf("scan.png", fixtureBytes(t, "scan.png")))
	wantErr(t, "blank image", err, ErrEmpty, "no text: image: OCR found no text in it")
}

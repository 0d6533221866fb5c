package extract

import (
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"image"
	_ "image/gif" // DecodeConfig of every format Tesseract is given
	_ "image/jpeg"
	_ "image/png"
	"strings"

	_ "golang.org/x/image/bmp"
	_ "golang.org/x/image/tiff"
	_ "golang.org/x/image/webp"

	"cairn/core/fault"
)

// maxImagePixels bounds the images given to OCR: a small file can declare
// a huge canvas (a decompression bomb), and Leptonica would allocate it.
const maxImagePixels = 80_000_000

var imageExts = []string{".png", ".jpg", ".jpeg", ".tif", ".tiff", ".bmp", ".gif", ".webp"}

func registerImages(r *Registry) {
	r.Register(ExtractorFunc(r.extractImage), imageExts...)
	r.RegisterKind(ExtractorFunc(r.extractImage), "png", "jpeg", "gif", "tiff", "bmp", "webp")
}

// extractImage recognises the text of an image with the registry's OCR.
// The image is one page unit, so a citation reads "page 1" like a scan.
// Without OCR, images are skipped with a reason that says what to install.
func (r *Registry) extractImage(ctx context.Context, f File, lim Limits) (*Document, error) {
	if r.ocr == nil {
		return nil, fault.Wrap(fault.ExtractNoOCR, OCRFix, fmt.Errorf("%w: image: text in images needs OCR, which is unavailable", ErrUnsupported))
	}
	data, err := readAll(f, lim)
	if err != nil {
		return nil, err
	}
	switch kind := Sniff(data[:min(len(data), 512)]); kind {
	case "png", "jpeg", "gif", "tiff", "bmp", "webp":
	default:
		return nil, fmt.Errorf("image: %s is not an image (%s content: wrong extension or damaged)", ext(f.Name), kind)
	}
	cfg, format, err := image.DecodeConfig(bytes.NewReader(data))
	if err != nil {
		return nil, fmt.Errorf("image: damaged %s header: %w", ext(f.Name), err)
	}
	if int64(cfg.Width)*int64(cfg.Height) > maxImagePixels {
		return nil, fmt.Errorf("%w: image: %dx%d %s is more than %d megapixels", ErrTooLarge, cfg.Width, cfg.Height, format, maxImagePixels/1_000_000)
	}
	text, conf, err := r.ocr.Recognize(ctx, data)
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, fmt.Errorf("image: cannot be read: %w", err)
	}
	if strings.TrimSpace(text) == "" {
		return nil, fmt.Errorf("%w: image: OCR found no text in it", ErrEmpty)
	}
	b := newBuilder(lim)
	b.startUnit(UnitPage, 1, "")
	b.block(cleanPDFPage(text))
	b.endUnit()
	doc := b.document("image", "")
	if w := lowConfidenceWarning("image", conf); w != "" {
		doc.Warnings = append(doc.Warnings, w)
	}
	if n := tiffPages(data); n > 1 {
		// Leptonica hands Tesseract the first page of a TIFF only.
		doc.Warnings = append(doc.Warnings, fmt.Sprintf("tiff: only the first of %d pages was read", n))
	}
	return doc, nil
}

// tiffPages counts the images (IFDs) of a TIFF file; 0 if it is not one.
func tiffPages(b []byte) int {
	if len(b) < 8 {
		return 0
	}
	var order binary.ByteOrder
	switch string(b[:4]) {
	case "II*\x00":
		order = binary.LittleEndian
	case "MM\x00*":
		order = binary.BigEndian
	default:
		return 0
	}
	n := 0
	for off := int64(order.Uint32(b[4:8])); off > 0 && n < 10000; n++ {
		if off+2 > int64(len(b)) {
			break
		}
		entries := int64(order.Uint16(b[off:]))
		next := off + 2 + 12*entries
		if next+4 > int64(len(b)) {
			n++
			break
		}
		off = int64(order.Uint32(b[next:]))
	}
	return n
}

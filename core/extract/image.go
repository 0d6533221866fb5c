package extract

import (
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"image"
	"image/color"
	_ "image/gif" // DecodeConfig of every format Tesseract is given
	_ "image/jpeg"
	_ "image/png"
	"strings"

	_ "golang.org/x/image/bmp"
	_ "golang.org/x/image/tiff"
	_ "golang.org/x/image/webp"

	"cairn/core/fault"
)

var imageExts = []string{".png", ".jpg", ".jpeg", ".tif", ".tiff", ".bmp", ".gif", ".webp"}

func registerImages(r *Registry) {
	r.Register(ExtractorFunc(r.extractImage), imageExts...)
	r.RegisterKind(ExtractorFunc(r.extractImage), "png", "jpeg", "gif", "tiff", "bmp", "webp")
}

// extractImage recognises the text of an image with the registry's OCR.
// The image is one page unit, so a citation reads "page 1" like a scan; a
// TIFF of several pages is read page by page, each a unit, within the
// bounds of one image (tiffPages). Without OCR, images are skipped with a
// reason that says what to install.
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
	if paged, ok := r.ocr.(PagedOCR); ok {
		if pages, cut := tiffPages(data); len(pages) > 1 {
			return readTIFFPages(ctx, paged, data, pages, cut, lim)
		}
	}
	cfg, format, err := image.DecodeConfig(bytes.NewReader(data))
	if err != nil {
		return nil, fmt.Errorf("image: damaged %s header: %w", ext(f.Name), err)
	}
	if why := tooLargeToDecode(cfg.Width, cfg.Height, bitsOf(cfg.ColorModel), format == "jpeg"); why != "" {
		return nil, fmt.Errorf("%w: image: %dx%d %s %s", ErrTooLarge, cfg.Width, cfg.Height, format, why)
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
	return doc, nil
}

// PagedOCR is an OCR that reads the pages of a multi-page TIFF one at a
// time: the page whose image file directory starts at offset (tiffPages).
// It may change tiff during the call, and puts it back before it returns.
// core/ocr's engine is one.
type PagedOCR interface {
	RecognizeTIFFPage(ctx context.Context, tiff []byte, offset int64) (text string, confidence int, err error)
}

// readTIFFPages reads the pages of a TIFF one at a time: a page unit each,
// each page's size checked from its directory before it is decoded, a
// page too large or unreadable left out with a warning, until the text
// limit.
func readTIFFPages(ctx context.Context, ocr PagedOCR, data []byte, pages []tiffPage, cut string, lim Limits) (*Document, error) {
	b := newBuilder(lim)
	var warnings, low []string
	var unread []int
	for i, p := range pages {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		if b.full() {
			warnings = append(warnings, fmt.Sprintf("tiff: text limit reached at page %d of %d", i+1, len(pages)))
			break
		}
		if why := tooLargeToDecode(p.width, p.height, p.bits, false); why != "" {
			warnings = append(warnings, fmt.Sprintf("tiff: page %d, %dx%d, %s: not read", i+1, p.width, p.height, why))
			continue
		}
		text, conf, err := ocr.RecognizeTIFFPage(ctx, data, p.offset)
		progress(ctx) // a page read
		switch {
		case ctx.Err() != nil:
			return nil, ctx.Err()
		case err != nil:
			unread = append(unread, i+1)
			if len(unread) == 1 {
				warnings = append(warnings, fmt.Sprintf("tiff: page %d: %v", i+1, err))
			}
			continue
		case strings.TrimSpace(text) == "":
			continue
		}
		if w := lowConfidenceWarning(fmt.Sprintf("page %d", i+1), conf); w != "" && len(low) < 10 {
			low = append(low, w)
		}
		b.startUnit(UnitPage, i+1, "")
		b.block(cleanPDFPage(text))
		b.endUnit()
	}
	if len(unread) > 1 {
		warnings = append(warnings, fmt.Sprintf("tiff: %s could not be read", pageList(unread)))
	}
	if cut != "" {
		warnings = append(warnings, "tiff: "+cut)
	}
	doc := b.document("image", "")
	doc.Warnings = append(warnings, low...)
	if strings.TrimSpace(doc.Text) == "" {
		return nil, fmt.Errorf("%w: image: OCR found no text on its %d pages (%s)", ErrEmpty, len(pages), strings.Join(doc.Warnings, "; "))
	}
	return doc, nil
}

// tooLargeToDecode says why an image of w x h pixels at bits per pixel
// is not decoded for OCR, or "": its pixels would take more than
// MaxImageBytes (a JPEG, which is decoded at down to an eighth of its
// size, more than that at an eighth).
func tooLargeToDecode(w, h, bits int, jpeg bool) string {
	cost := int64(w) * int64(h)
	if bits > 8 {
		cost *= 4
	}
	if jpeg {
		cost /= 64
	}
	if cost <= MaxImageBytes {
		return ""
	}
	return fmt.Sprintf("takes more than the %d MB an image may to decode; save a smaller or greyscale copy to index it", MaxImageBytes>>20)
}

// bitsOf is the bits a pixel of colour model m takes: 8 for grey and
// palettes, 24 for the rest.
func bitsOf(m color.Model) int {
	switch m {
	case color.GrayModel, color.Gray16Model, color.AlphaModel, color.Alpha16Model:
		return 8
	}
	if _, ok := m.(color.Palette); ok {
		return 8
	}
	return 24
}

// tiffPage is one page (image file directory) of a TIFF.
type tiffPage struct {
	offset        int64 // where its directory starts
	width, height int
	bits          int // bits per pixel: bits per sample times samples
}

// maxTIFFPages bounds the pages read from one TIFF; a directory chain
// that loops back is cut where it does.
const maxTIFFPages = 100_000

// tiffPages reads a TIFF's directories: each page's offset, size and bits
// per pixel; cut says why the list stops early (a loop, the bound). Not a
// TIFF: none.
func tiffPages(b []byte) (pages []tiffPage, cut string) {
	if len(b) < 8 {
		return nil, ""
	}
	var order binary.ByteOrder
	switch string(b[:4]) {
	case "II*\x00":
		order = binary.LittleEndian
	case "MM\x00*":
		order = binary.BigEndian
	default:
		return nil, ""
	}
	seen := map[int64]bool{}
	for off := int64(order.Uint32(b[4:8])); off > 0; {
		if seen[off] {
			return pages, "its pages' directories loop back; the pages before the loop were read"
		}
		if len(pages) == maxTIFFPages {
			return pages, fmt.Sprintf("more than %d pages; the first %d were read", maxTIFFPages, maxTIFFPages)
		}
		seen[off] = true
		if off+2 > int64(len(b)) {
			break
		}
		entries := int64(order.Uint16(b[off:]))
		next := off + 2 + 12*entries
		if next+4 > int64(len(b)) {
			break
		}
		p := tiffPage{offset: off, bits: 1}
		bps, spp := 1, 1
		for e := off + 2; e < next; e += 12 {
			tag, typ, count := order.Uint16(b[e:]), order.Uint16(b[e+2:]), order.Uint32(b[e+4:])
			v := int(order.Uint32(b[e+8:]))
			if typ == 3 { // SHORT: the first value, in the entry's first two bytes
				v = int(order.Uint16(b[e+8:]))
				if count > 2 { // more than fit: they are at an offset
					if at := int64(order.Uint32(b[e+8:])); at+2 <= int64(len(b)) {
						v = int(order.Uint16(b[at:]))
					}
				}
			}
			switch tag {
			case 256:
				p.width = v
			case 257:
				p.height = v
			case 258:
				bps = v
			case 277:
				spp = v
			}
		}
		p.bits = bps * spp
		pages = append(pages, p)
		off = int64(order.Uint32(b[next:]))
	}
	return pages, ""
}

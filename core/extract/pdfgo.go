package extract

import (
	"bytes"
	"context"
	"fmt"
	"image"
	"image/png"
	"io"
	"math"
	"strings"

	"github.com/ledongthuc/pdf"
)

// goPDF reads PDFs in pure Go with github.com/ledongthuc/pdf (BSD), for
// machines without poppler-utils. The library decodes fonts and positions
// glyphs; its own plain-text output runs words together (PDFs rarely hold
// space characters: the gap is a position), so the page text is assembled
// here from glyph positions, in content-stream order, which is reading order
// for the producers measured (TeX, LibreOffice, FOP).
type goPDF struct{}

func (goPDF) name() string { return "go" }

func (goPDF) read(ctx context.Context, f File, lim Limits) (out *pdfText, err error) {
	r, err := openGoPDF(f)
	if err != nil {
		return nil, err
	}
	out = &pdfText{}
	func() {
		defer func() { _ = recover() }() // a broken Info dictionary costs only the title
		out.title = r.Trailer().Key("Info").Key("Title").Text()
	}()
	n := r.NumPage()
	out.pageCount = n
	for i := 1; i <= n; i++ {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		text, perr := goPDFPage(r, i)
		if perr != nil {
			out.warnings = append(out.warnings, fmt.Sprintf("page %d: %v", i, perr))
		}
		out.pages = append(out.pages, text)
	}
	return out, nil
}

func openGoPDF(f File) (r *pdf.Reader, err error) {
	defer func() {
		if p := recover(); p != nil {
			r, err = nil, fmt.Errorf("pdf: broken file: %v", p)
		}
	}()
	r, err = pdf.NewReader(f.R, f.Size)
	if err != nil {
		msg := err.Error()
		if err == pdf.ErrInvalidPassword || strings.Contains(strings.ToLower(msg), "encrypt") {
			return nil, fmt.Errorf("%w: pdf: the file is password-protected or uses encryption the pure-Go reader lacks (%s)", ErrEncrypted, msg)
		}
		return nil, fmt.Errorf("pdf: broken file: %s", msg)
	}
	return r, nil
}

// goPDFPage assembles the text of page i from its glyphs: a new line when
// the baseline moves by more than half the font size, a space when the gap
// to the previous glyph is wider than a fifth of it.
func goPDFPage(r *pdf.Reader, i int) (text string, err error) {
	defer func() {
		if p := recover(); p != nil {
			text, err = "", fmt.Errorf("unreadable content: %v", p)
		}
	}()
	page := r.Page(i)
	// ledongthuc/pdf ends every TJ array with a pseudo-glyph: "\n" passed
	// through the font's encoding, which in TeX's OT1 fonts is "Ω". Those
	// are dropped here, per font, and the layout below decides on breaks.
	pseudo := map[string]string{}
	for _, name := range page.Fonts() {
		font := page.Font(name)
		base := font.BaseFont()
		if j := strings.Index(base, "+"); j >= 0 {
			base = base[j+1:]
		}
		pseudo[base] = font.Encoder().Decode("\n")
	}
	glyphs := page.Content().Text
	var sb strings.Builder
	var prev pdf.Text
	have := false
	for _, g := range glyphs {
		if g.S == "" || g.S == "\n" || g.S == pseudo[g.Font] {
			continue
		}
		size := g.FontSize
		if size <= 0 {
			size = 10
		}
		if have {
			dy := math.Abs(g.Y - prev.Y)
			prevEnd := prev.X + prev.W
			if prev.W <= 0 {
				prevEnd = prev.X + 0.5*size
			}
			gap := g.X - prevEnd
			switch {
			case dy > 0.5*size:
				sb.WriteByte('\n')
				if dy > 2.2*size && g.Y < prev.Y {
					sb.WriteByte('\n') // a wide vertical gap: new paragraph
				}
			case gap > 0.2*size || gap < -4*size:
				if !strings.HasSuffix(sb.String(), " ") && g.S != " " {
					sb.WriteByte(' ')
				}
			}
		}
		sb.WriteString(g.S)
		prev, have = g, true
	}
	return sb.String(), nil
}

// renderGoPDF returns the largest image drawn on page n, encoded for OCR: a
// scanned page is one full-page image. JPEG streams are passed through
// as they are; 8-bit grey or RGB Flate streams are re-encoded as PNG. Pages
// whose text was drawn as vector outlines cannot be rendered without a
// rasteriser; poppler's pdftoppm covers those.
func renderGoPDF(f File, n int) (img []byte, err error) {
	defer func() {
		if p := recover(); p != nil {
			img, err = nil, fmt.Errorf("unreadable page image: %v", p)
		}
	}()
	r, err := openGoPDF(f)
	if err != nil {
		return nil, err
	}
	xobj := r.Page(n).Resources().Key("XObject")
	best, bestArea := pdf.Value{}, 0.0
	for _, k := range xobj.Keys() {
		v := xobj.Key(k)
		if v.Key("Subtype").Name() != "Image" {
			continue
		}
		if a := v.Key("Width").Float64() * v.Key("Height").Float64(); a > bestArea {
			best, bestArea = v, a
		}
	}
	if bestArea == 0 {
		return nil, fmt.Errorf("no image on the page")
	}
	filter := best.Key("Filter")
	if filter.Kind() == pdf.Array && filter.Len() > 0 {
		filter = filter.Index(filter.Len() - 1)
	}
	switch filter.Name() {
	case "DCTDecode":
		return rawStream(best)
	case "FlateDecode", "":
		return flateImagePNG(best)
	}
	return nil, fmt.Errorf("page image uses %s, which the pure-Go reader cannot decode", filter.Name())
}

// rawStream returns a stream's bytes without decoding its last filter:
// ledongthuc/pdf leaves DCTDecode data as it is, which is a JPEG file.
func rawStream(v pdf.Value) ([]byte, error) {
	var buf bytes.Buffer
	if _, err := io.Copy(&buf, io.LimitReader(v.Reader(), 64<<20)); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

func flateImagePNG(v pdf.Value) ([]byte, error) {
	w, h := int(v.Key("Width").Int64()), int(v.Key("Height").Int64())
	bpc := int(v.Key("BitsPerComponent").Int64())
	comps := 0
	switch v.Key("ColorSpace").Name() {
	case "DeviceGray":
		comps = 1
	case "DeviceRGB":
		comps = 3
	}
	if w <= 0 || h <= 0 || w*h > 100<<20 || bpc != 8 || comps == 0 {
		return nil, fmt.Errorf("page image format not supported by the pure-Go reader")
	}
	data, err := rawStream(v)
	if err != nil {
		return nil, err
	}
	if len(data) < w*h*comps {
		return nil, fmt.Errorf("page image data is truncated")
	}
	var im image.Image
	if comps == 1 {
		im = &image.Gray{Pix: data[:w*h], Stride: w, Rect: image.Rect(0, 0, w, h)}
	} else {
		rgba := image.NewRGBA(image.Rect(0, 0, w, h))
		for i := 0; i < w*h; i++ {
			copy(rgba.Pix[4*i:4*i+3], data[3*i:3*i+3])
			rgba.Pix[4*i+3] = 0xFF
		}
		im = rgba
	}
	var buf bytes.Buffer
	if err := png.Encode(&buf, im); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

package extract

import (
	"bytes"
	"compress/zlib"
	"context"
	"errors"
	"fmt"
	"image"
	"image/jpeg"
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
	// ledongthuc/pdf reports malformed objects by panicking, wherever they
	// are met (the page tree, a font): all of them mean a broken file.
	defer func() {
		if p := recover(); p != nil {
			out, err = nil, fmt.Errorf("pdf: broken file: %v", p)
		}
	}()
	r, err := openGoPDF(f)
	if err != nil {
		return nil, err
	}
	out = &pdfText{}
	func() {
		defer func() { _ = recover() }() // a broken Info dictionary costs only the title
		out.title = r.Trailer().Key("Info").Key("Title").Text()
	}()
	if out.outline, err = readGoOutline(ctx, r); err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		out.warnings = append(out.warnings, fmt.Sprintf("pdf: outline (bookmarks) ignored: %v", err))
	}
	n := r.NumPage()
	if most := int(f.Size/minPageObject) + 1; n > most {
		// The page tree's /Count is the file's word: 2,000,000,000 pages
		// in 300 bytes would be read for ever, each "page" progress.
		out.warnings = append(out.warnings, fmt.Sprintf("pdf: the file says it has %d pages; one of %d bytes holds at most %d, read as many", n, f.Size, most))
		n = most
	}
	out.pageCount = n
	shared := map[string]*goFont{} // subset fonts by BaseFont, across pages
	var bound error                // the first page refused by a bound (checkContent)
	text := false
	for i := 1; i <= n; i++ {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		page, perr := goPDFPage(r, i, shared)
		if perr != nil {
			out.warnings = append(out.warnings, fmt.Sprintf("page %d: %v", i, perr))
			if bound == nil && (errors.Is(perr, ErrTooDeep) || errors.Is(perr, ErrTooLarge)) {
				bound = fmt.Errorf("page %d: %w", i, perr)
			}
		}
		text = text || strings.TrimSpace(page) != ""
		out.pages = append(out.pages, page)
		progress(ctx) // a page read: the library may read the same objects again for each
	}
	if !text && bound != nil {
		// Not a scanned document that needs OCR: a hostile one.
		return nil, bound
	}
	return out, nil
}

// minPageObject is fewer bytes than any page object takes in a file
// ("1 0 obj<</Type/Page>>endobj" is 26).
const minPageObject = 16

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

// glyph is one shown character code: its text, baseline origin, advance
// width and font size, in page space.
type glyph struct {
	s          string
	x, y, w, h float64
}

// goFont is what the interpreter needs of a font, computed once.
type goFont struct {
	enc     pdf.TextEncoding
	codes   map[byte]string // overrides of enc for single-byte codes
	twoByte bool            // Type0 fonts: two-byte codes (Identity-H and most CJK CMaps)
	first   int
	widths  []float64       // simple fonts: FirstChar.. widths, 1/1000 em
	cid     map[int]float64 // Type0 fonts: /W widths
	dw      float64         // Type0 default width
}

func (f *goFont) width(code int) float64 {
	if f.twoByte {
		if w, ok := f.cid[code]; ok {
			return w
		}
		return f.dw
	}
	if i := code - f.first; i >= 0 && i < len(f.widths) && f.widths[i] > 0 {
		return f.widths[i]
	}
	return 500 // no width given: half an em is the least damaging guess
}

func loadGoFont(v pdf.Value) *goFont {
	font := pdf.Font{V: v}
	f := &goFont{enc: font.Encoder(), dw: 1000}
	if v.Key("ToUnicode").IsNull() && v.Key("Encoding").IsNull() && isTeXTextFont(v.Key("BaseFont").Name()) {
		f.codes = ot1Codes
	}
	if v.Key("Subtype").Name() == "Type0" {
		f.twoByte = true
		d := v.Key("DescendantFonts").Index(0)
		if dw := d.Key("DW"); dw.Kind() == pdf.Integer || dw.Kind() == pdf.Real {
			f.dw = dw.Float64()
		}
		f.cid = map[int]float64{}
		w := d.Key("W")
		for i := 0; i < w.Len() && len(f.cid) < 65536; {
			c := int(w.Index(i).Int64())
			if i+1 < w.Len() && w.Index(i+1).Kind() == pdf.Array {
				arr := w.Index(i + 1)
				for k := 0; k < arr.Len() && k < 65536; k++ {
					f.cid[c+k] = arr.Index(k).Float64()
				}
				i += 2
				continue
			}
			if i+2 < w.Len() {
				last, wd := int(w.Index(i+1).Int64()), w.Index(i+2).Float64()
				for k := c; k <= last && k-c < 65536; k++ {
					f.cid[k] = wd
				}
			}
			i += 3
		}
		return f
	}
	f.first = int(v.Key("FirstChar").Int64())
	ws := v.Key("Widths")
	for i := 0; i < ws.Len() && i < 256; i++ {
		f.widths = append(f.widths, ws.Index(i).Float64())
	}
	return f
}

// mat is an affine matrix [a b c d e f], used as PDF does with row vectors.
type mat [6]float64

var identity = mat{1, 0, 0, 1, 0, 0}

func (m mat) mul(n mat) mat {
	return mat{
		m[0]*n[0] + m[1]*n[2], m[0]*n[1] + m[1]*n[3],
		m[2]*n[0] + m[3]*n[2], m[2]*n[1] + m[3]*n[3],
		m[4]*n[0] + m[5]*n[2] + n[4], m[4]*n[1] + m[5]*n[3] + n[5],
	}
}

func translate(x, y float64) mat { return mat{1, 0, 0, 1, x, y} }

func matFrom(args []pdf.Value) mat {
	var m mat
	for i := range m {
		m[i] = args[i].Float64()
	}
	return m
}

// goPDFGlyphs runs the page's content stream through a text-state machine
// (PDF 32000 §9.4) and returns the glyphs it shows. It replaces the
// library's own Content(), which decodes a whole string at once and so
// misplaces every glyph after a ligature ("ffi" is three runes from one
// code), appends a pseudo-glyph after each TJ, and looks font widths up in
// the file for every glyph, which makes it slow.
//
// shared caches fonts across pages by their subset name ("ABCDEF+Times"),
// which names one font program in one file; fonts without a subset prefix
// are cached for the page only, since /F1 may mean another font elsewhere.
func goPDFGlyphs(page pdf.Page, shared map[string]*goFont) ([]glyph, error) {
	fonts := map[string]*goFont{}
	contents := page.V.Key("Contents")
	if contents.IsNull() {
		return nil, nil
	}
	if err := checkContent(contentReader(contents)); err != nil {
		return nil, err
	}
	full := false // maxPageGlyphs reached
	res := page.Resources().Key("Font")
	var out []glyph
	type gstate struct{ ctm mat }
	var stack []gstate
	ctm := identity
	tm, tlm := identity, identity
	var font *goFont
	var tfs, tc, tw, tl, rise float64
	th := 1.0
	show := func(raw string) {
		if font == nil || full {
			return
		}
		if full = len(out) >= maxPageGlyphs; full {
			return
		}
		step := 1
		if font.twoByte {
			step = 2
		}
		for i := 0; i+step <= len(raw); i += step {
			code := int(raw[i])
			if step == 2 {
				code = code<<8 | int(raw[i+1])
			}
			trm := tm.mul(ctm)
			w0 := font.width(code)
			tx := (w0/1000*tfs + tc) * th
			if step == 1 && code == 32 {
				tx += tw * th
			}
			scaleX := math.Hypot(trm[0], trm[1])
			text, ok := font.codes[raw[i]]
			if !ok || step != 1 {
				text = font.enc.Decode(raw[i : i+step])
			}
			// Positions are measured along and across the text's own
			// direction, so lines of a page set sideways (a landscape
			// refcard drawn rotated by 90°) are lines too: in page space
			// every glyph of such a line has its own y, and each became
			// a line of one glyph.
			px, py := trm[4]+rise*trm[2], trm[5]+rise*trm[3]
			ux, uy := 1.0, 0.0
			if scaleX > 0 {
				ux, uy = trm[0]/scaleX, trm[1]/scaleX
			}
			out = append(out, glyph{
				s: text,
				x: px*ux + py*uy, y: py*ux - px*uy,
				w: w0 / 1000 * tfs * th * scaleX,
				h: tfs * math.Hypot(trm[2], trm[3]),
			})
			tm = translate(tx, 0).mul(tm)
		}
	}
	pdf.Interpret(contents, func(stk *pdf.Stack, op string) {
		n := stk.Len()
		args := make([]pdf.Value, n)
		for i := n - 1; i >= 0; i-- {
			args[i] = stk.Pop()
		}
		switch op {
		case "q":
			if len(stack) < 256 {
				stack = append(stack, gstate{ctm})
			}
		case "Q":
			if len(stack) > 0 {
				ctm = stack[len(stack)-1].ctm
				stack = stack[:len(stack)-1]
			}
		case "cm":
			if n == 6 {
				ctm = matFrom(args).mul(ctm)
			}
		case "BT":
			tm, tlm = identity, identity
		case "Tf":
			if n == 2 {
				name := args[0].Name()
				f, ok := fonts[name]
				if !ok {
					v := res.Key(name)
					base := v.Key("BaseFont").Name()
					if f, ok = shared[base]; !ok {
						f = loadGoFont(v)
						if isSubsetName(base) {
							shared[base] = f
						}
					}
					fonts[name] = f
				}
				font, tfs = f, args[1].Float64()
			}
		case "Tc":
			if n == 1 {
				tc = args[0].Float64()
			}
		case "Tw":
			if n == 1 {
				tw = args[0].Float64()
			}
		case "Tz":
			if n == 1 {
				th = args[0].Float64() / 100
			}
		case "TL":
			if n == 1 {
				tl = args[0].Float64()
			}
		case "Ts":
			if n == 1 {
				rise = args[0].Float64()
			}
		case "Td", "TD":
			if n == 2 {
				if op == "TD" {
					tl = -args[1].Float64()
				}
				tlm = translate(args[0].Float64(), args[1].Float64()).mul(tlm)
				tm = tlm
			}
		case "Tm":
			if n == 6 {
				tm = matFrom(args)
				tlm = tm
			}
		case "T*":
			tlm = translate(0, -tl).mul(tlm)
			tm = tlm
		case "Tj":
			if n == 1 {
				show(args[0].RawString())
			}
		case "'", "\"":
			if op == "\"" && n == 3 {
				tw, tc = args[0].Float64(), args[1].Float64()
				args = args[2:]
			}
			tlm = translate(0, -tl).mul(tlm)
			tm = tlm
			if len(args) == 1 {
				show(args[0].RawString())
			}
		case "TJ":
			if n != 1 {
				break
			}
			a := args[0]
			for i := 0; i < a.Len(); i++ {
				v := a.Index(i)
				if v.Kind() == pdf.String {
					show(v.RawString())
				} else {
					tm = translate(-v.Float64()/1000*tfs*th, 0).mul(tm)
				}
			}
		}
	})
	if full {
		return out, fmt.Errorf("more than %d characters drawn: the rest of the page was not read", maxPageGlyphs)
	}
	return out, nil
}

// contentReader reads a page's content: one stream, or an array of them
// read as one.
func contentReader(contents pdf.Value) io.Reader {
	if contents.Kind() != pdf.Array {
		return contents.Reader()
	}
	rs := make([]io.Reader, 0, contents.Len())
	for i := range contents.Len() {
		rs = append(rs, contents.Index(i).Reader())
	}
	return io.MultiReader(rs...)
}

// goPDFPage assembles the text of page i from its glyphs in content-stream
// order: a new line when the baseline moves by more than half the font
// size, a space when the gap to the previous glyph is wider than a sixth
// of it (PDFs rarely hold space characters: a gap is a position).
func goPDFPage(r *pdf.Reader, i int, shared map[string]*goFont) (text string, err error) {
	defer func() {
		if p := recover(); p != nil {
			text, err = "", fmt.Errorf("unreadable content: %v", p)
		}
	}()
	glyphs, gerr := goPDFGlyphs(r.Page(i), shared)
	if gerr != nil && glyphs == nil {
		return "", gerr
	}
	var sb strings.Builder
	var prev glyph
	have, space := false, false
	for _, g := range glyphs {
		if g.s == "" {
			continue
		}
		if strings.TrimSpace(g.s) == "" {
			space = true // a real space character: write it once, before the next glyph
			prev.x, prev.w = g.x, g.w
			continue
		}
		size := g.h
		if size <= 0 {
			size = 10
		}
		if have {
			dy := math.Abs(g.y - prev.y)
			gap := g.x - (prev.x + prev.w)
			// Measured against the larger of the two sizes, so that a
			// superscript or subscript stays on its line.
			line := max(size, prev.h)
			switch {
			case dy > 0.5*line:
				sb.WriteByte('\n')
				if dy > 2.2*line && g.y < prev.y {
					sb.WriteByte('\n') // a wide vertical gap: new paragraph
				}
			case space || gap > size/6 || gap < -size:
				sb.WriteByte(' ')
			}
		}
		space = false
		sb.WriteString(g.s)
		prev, have = g, true
	}
	return sb.String(), gerr
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
		return nil, errNoPageImage
	}
	if bestArea > MaxPagePixels {
		return nil, fmt.Errorf("the page's image is %.0f x %.0f, more than %d megapixels: not decoded (poppler-utils' pdftoppm draws such a page smaller)",
			best.Key("Width").Float64(), best.Key("Height").Float64(), MaxPagePixels/1_000_000)
	}
	filter := best.Key("Filter")
	if filter.Kind() == pdf.Array && filter.Len() > 0 {
		filter = filter.Index(filter.Len() - 1)
	}
	switch filter.Name() {
	case "DCTDecode":
		return rawJPEG(f, best)
	case "FlateDecode", "":
		return flateImagePNG(f, best)
	}
	return nil, fmt.Errorf("page image uses %s, which the pure-Go reader cannot decode (install poppler-utils: its pdftoppm renders any page)", filter.Name())
}

// errNoPageImage means a page without text has no image either: a blank
// page, not a scan.
var errNoPageImage = errors.New("no image on the page")

// rawJPEG finds the bytes of a DCTDecode image stream, which are a JPEG
// file as they stand. ledongthuc/pdf refuses to read DCT streams and does
// not expose stream offsets, so the file is searched for a JPEG of the
// stream's /Length that starts with SOI, ends with EOI and has the image's
// dimensions. (An encrypted PDF's streams would not match; those are
// skipped before this point.)
func rawJPEG(f File, v pdf.Value) ([]byte, error) {
	length := v.Key("Length").Int64()
	w, h := int(v.Key("Width").Int64()), int(v.Key("Height").Int64())
	if length <= 4 || length > f.Size || f.Size > 256<<20 {
		return nil, fmt.Errorf("page image has no usable length")
	}
	data := make([]byte, f.Size)
	if _, err := f.R.ReadAt(data, 0); err != nil && err != io.EOF {
		return nil, err
	}
	soi := []byte{0xFF, 0xD8, 0xFF}
	for off := 0; ; {
		i := bytes.Index(data[off:], soi)
		if i < 0 {
			return nil, fmt.Errorf("page image (JPEG) not found in the file")
		}
		start := off + i
		end := start + int(length)
		if end <= len(data) && data[end-2] == 0xFF && data[end-1] == 0xD9 {
			if cfg, err := jpeg.DecodeConfig(bytes.NewReader(data[start:end])); err == nil && cfg.Width == w && cfg.Height == h {
				return data[start:end], nil
			}
		}
		off = start + 1
	}
}

// rawStream returns a stream's decoded bytes.
func rawStream(v pdf.Value) ([]byte, error) {
	var buf bytes.Buffer
	if _, err := io.Copy(&buf, io.LimitReader(v.Reader(), 64<<20)); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

func flateImagePNG(f File, v pdf.Value) ([]byte, error) {
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
		return nil, fmt.Errorf("page image (%d-bit %s) not supported by the pure-Go reader (install poppler-utils: its pdftoppm renders any page)", bpc, v.Key("ColorSpace").Name())
	}
	var data []byte
	var err error
	if params := decodeParms(v); params.Key("Predictor").Int64() >= 2 {
		// ledongthuc/pdf decodes only predictor 12 and panics with "pred"
		// on the others; a lossless scan usually carries 15 (PNG,
		// chosen per row).
		data, err = predictedImage(f, v, params, w, h)
	} else {
		data, err = rawStream(v)
	}
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

// decodeParms returns the decode parameters of a stream's Flate filter.
func decodeParms(v pdf.Value) pdf.Value {
	p := v.Key("DecodeParms")
	if p.Kind() == pdf.Array {
		p = p.Index(p.Len() - 1) // the Flate filter is the last one (renderGoPDF)
	}
	return p
}

// predictedImage decodes a Flate image stream written with a PNG
// predictor (PDF 32000 §7.4.4.4): the stream's bytes are found in the file
// by its object number (streams never sit in object streams), inflated, and
// each row's filter undone.
func predictedImage(f File, v pdf.Value, params pdf.Value, w, h int) ([]byte, error) {
	pred := params.Key("Predictor").Int64()
	if pred < 10 || pred > 15 {
		return nil, fmt.Errorf("page image uses predictor %d, which the pure-Go reader cannot decode (install poppler-utils: its pdftoppm renders any page)", pred)
	}
	colors, bpc, columns := int(params.Key("Colors").Int64()), int(params.Key("BitsPerComponent").Int64()), int(params.Key("Columns").Int64())
	if colors <= 0 {
		colors = 1
	}
	if bpc <= 0 {
		bpc = 8
	}
	if columns <= 0 {
		columns = 1
	}
	rowLen := (columns*colors*bpc + 7) / 8
	if rowLen <= 0 || rowLen > 1<<20 || int64(rowLen+1)*int64(h) > 400<<20 {
		return nil, fmt.Errorf("page image of %d×%d is too large to decode", columns, h)
	}
	raw, err := streamBytes(f, v)
	if err != nil {
		return nil, err
	}
	zr, err := zlib.NewReader(bytes.NewReader(raw))
	if err != nil {
		return nil, fmt.Errorf("page image: %w", err)
	}
	inflated, err := io.ReadAll(io.LimitReader(zr, int64(rowLen+1)*int64(h)))
	if err != nil && !errors.Is(err, io.ErrUnexpectedEOF) {
		return nil, fmt.Errorf("page image: %w", err)
	}
	return unpredictPNG(inflated, rowLen, max(1, colors*bpc/8)), nil
}

// unpredictPNG undoes PNG row filters (None, Sub, Up, Average, Paeth), each
// row led by its filter's byte; bpp is the bytes per pixel the filters
// look back by. A last, partial row is dropped.
func unpredictPNG(data []byte, rowLen, bpp int) []byte {
	out := make([]byte, 0, len(data))
	prev := make([]byte, rowLen)
	for len(data) >= rowLen+1 {
		kind, row := data[0], data[1:rowLen+1]
		data = data[rowLen+1:]
		for i := range row {
			var left, upLeft byte
			if i >= bpp {
				left, upLeft = row[i-bpp], prev[i-bpp]
			}
			up := prev[i]
			switch kind {
			case 1:
				row[i] += left
			case 2:
				row[i] += up
			case 3:
				row[i] += byte((int(left) + int(up)) / 2)
			case 4:
				row[i] += paeth(left, up, upLeft)
			}
		}
		out = append(out, row...)
		prev = row
	}
	return out
}

func paeth(a, b, c byte) byte {
	p := int(a) + int(b) - int(c)
	pa, pb, pc := abs(p-int(a)), abs(p-int(b)), abs(p-int(c))
	switch {
	case pa <= pb && pa <= pc:
		return a
	case pb <= pc:
		return b
	}
	return c
}

// streamBytes returns the encoded bytes of stream v as the file holds
// them: after the keyword "stream" of the last definition of its object
// ("12 0 obj"), /Length bytes.
func streamBytes(f File, v pdf.Value) ([]byte, error) {
	id, ok := idOf(v)
	length := v.Key("Length").Int64()
	if !ok || length <= 0 || length > f.Size || f.Size > 256<<20 {
		return nil, fmt.Errorf("page image stream not found in the file")
	}
	data := make([]byte, f.Size)
	if _, err := f.R.ReadAt(data, 0); err != nil && err != io.EOF {
		return nil, err
	}
	head := []byte(fmt.Sprintf("%d %d obj", id.id, id.gen))
	at := -1
	for off := 0; ; {
		i := bytes.Index(data[off:], head)
		if i < 0 {
			break
		}
		if j := off + i; j == 0 || isPDFSpace(data[j-1]) {
			at = j
		}
		off += i + 1
	}
	if at < 0 {
		return nil, fmt.Errorf("page image stream not found in the file")
	}
	k := bytes.Index(data[at:], []byte("stream"))
	if k < 0 {
		return nil, fmt.Errorf("page image stream not found in the file")
	}
	start := at + k + len("stream")
	if start < len(data) && data[start] == '\r' {
		start++
	}
	if start < len(data) && data[start] == '\n' {
		start++
	}
	if start+int(length) > len(data) {
		return nil, fmt.Errorf("page image data is truncated")
	}
	return data[start : start+int(length)], nil
}

// isSubsetName reports a subset font name: six capitals and a plus sign.
func isSubsetName(s string) bool {
	if len(s) < 8 || s[6] != '+' {
		return false
	}
	for i := 0; i < 6; i++ {
		if s[i] < 'A' || s[i] > 'Z' {
			return false
		}
	}
	return true
}

// ot1Codes are the codes of TeX's OT1 text encoding that differ from
// ASCII. pdfTeX embeds Computer Modern fonts with their built-in encoding
// and, by default, no ToUnicode map, so without this table the ligatures
// "fi", "ff", ... and the dashes and quotes come out as U+FFFD or as the
// wrong ASCII character.
var ot1Codes = map[byte]string{
	0x0B: "ff", 0x0C: "fi", 0x0D: "fl", 0x0E: "ffi", 0x0F: "ffl",
	0x10: "ı", 0x11: "ȷ", 0x19: "ß", 0x1A: "æ", 0x1B: "œ", 0x1C: "ø",
	0x1D: "Æ", 0x1E: "Œ", 0x1F: "Ø", 0x22: "”", 0x3C: "¡", 0x3E: "¿",
	0x5C: "“", 0x7B: "–", 0x7C: "—",
}

// isTeXTextFont reports Computer Modern text fonts, which use OT1 (the
// typewriter, math and symbol fonts use other encodings).
func isTeXTextFont(base string) bool {
	if isSubsetName(base) {
		base = base[7:]
	}
	if !strings.HasPrefix(base, "CM") || len(base) < 3 {
		return false
	}
	for _, other := range []string{"CMTT", "CMITT", "CMSLTT", "CMTCSC", "CMMI", "CMSY", "CMEX", "CMBSY", "CMMIB"} {
		if strings.HasPrefix(base, other) {
			return false
		}
	}
	return true
}

package extract

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"os/exec"
	"strconv"
	"strings"
)

// MaxPagePixels bounds a page drawn for OCR, and an image given to it,
// before either is drawn or decoded: Tesseract holds about ten bytes a
// pixel while it reads a page (a 300-dpi A4 page, 8.7 megapixels, took
// some 90 MB), and a 448-byte PDF whose page is 11,000 points square,
// drawn at 300 dpi, is 2.1 gigapixels (10 GB between Cairn and
// pdftoppm). A larger page is drawn at the resolution that fits (an A3
// page at 220 dpi); core/ocr scales a larger image down to it once
// decoded (ocr.Options.MaxPixels).
const MaxPagePixels = 10_000_000

// MaxImageBytes bounds the decoding of an image for OCR, checked from its
// header: its pixels at a byte each (grey, and bilevel spread to grey) or
// four (colour). A larger JPEG is decoded at a half, a quarter or an
// eighth of its size; another larger image is skipped with the reason
// (ocr.Options.MaxDecodeBytes).
const MaxImageBytes = 48 << 20

// pagePlan is how a page without a text layer is read by OCR.
type pagePlan struct {
	blank bool   // nothing drawn on it: nothing to read
	dpi   int    // the resolution it is drawn at; 0: at maxSide pixels on its longer side
	note  string // a warning: drawn below the resolution it asked for
}

// maxSide is the longer side, in pixels, a page of unknown size is drawn
// at: at most MaxPagePixels whatever its shape.
var maxSide = int(math.Sqrt(MaxPagePixels))

// planOCR decides, before any page is drawn at full size, how each page
// of pages (1-based, ascending) is read: all of them drawn small in one
// pdftoppm call per run of pages, so that blank ones (2,000 empty pages
// took 1.6 s each to draw at 300 dpi and find nothing) are known without
// drawing them again; every other page at its scan's resolution or 300
// dpi, less when that would pass MaxPagePixels. A page whose size pdfinfo
// does not give is drawn by its longer side within the same bound; when
// the small drawing fails, every page is drawn, each within it.
func (p *popplerPDF) planOCR(ctx context.Context, f File, pages []int) (map[int]pagePlan, error) {
	plan := make(map[int]pagePlan, len(pages))
	if len(pages) == 0 || p.pdftoppm == "" {
		return plan, nil
	}
	first, last := pages[0], pages[len(pages)-1]
	inked, err := p.inked(ctx, f, pages)
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		inked = nil // every page is drawn; the bound below still holds
	}
	sizes := p.pageSizes(ctx, f, first, last)
	dpis := p.scanDPIs(ctx, f, first, last)
	for _, n := range pages {
		if inked != nil && !inked[n] {
			plan[n] = pagePlan{blank: true}
			continue
		}
		pl := pagePlan{dpi: renderDPI(dpis[n])}
		if sz, ok := sizes[n]; ok {
			pl.dpi, pl.note = fitDPI(n, sz, pl.dpi)
		} else {
			pl.dpi = 0 // unknown size (no pdfinfo): bounded by its longer side
		}
		plan[n] = pl
	}
	return plan, nil
}

// fitDPI is dpi, or the resolution at which a page of size (points) is
// MaxPagePixels, whichever is lower, and the warning when it is lower.
func fitDPI(n int, size [2]float64, dpi int) (int, string) {
	px := size[0] / 72 * float64(dpi) * size[1] / 72 * float64(dpi)
	if px <= MaxPagePixels {
		return dpi, ""
	}
	fit := max(1, int(float64(dpi)*math.Sqrt(MaxPagePixels/px)))
	return fit, fmt.Sprintf("page %d: %.0f x %.0f pt, drawn for OCR at %d dpi instead of %d (at most %d megapixels a page): small print on it may not be read",
		n, size[0], size[1], fit, dpi, MaxPagePixels/1_000_000)
}

// probeSize is the height (or width) in pixels pages are drawn at to see
// whether anything is drawn on them: 6-point text still greys a pixel.
const probeSize = 128

// inked draws pages probeSize pixels high in one pdftoppm call per run of
// consecutive pages, as greyscale PGM images on its output read as they
// come, and reports which have a pixel that is not white.
func (p *popplerPDF) inked(ctx context.Context, f File, pages []int) (map[int]bool, error) {
	out := make(map[int]bool, len(pages))
	for i := 0; i < len(pages); {
		j := i
		for j+1 < len(pages) && pages[j+1] == pages[j]+1 {
			j++
		}
		if err := p.probeRun(ctx, f, pages[i], pages[j], out); err != nil {
			return nil, err
		}
		i = j + 1
	}
	return out, nil
}

func (p *popplerPDF) probeRun(ctx context.Context, f File, first, last int, out map[int]bool) error {
	cmd := exec.CommandContext(ctx, p.pdftoppm, "-f", strconv.Itoa(first), "-l", strconv.Itoa(last),
		"-scale-to", strconv.Itoa(probeSize), "-gray", "-")
	dieWithCairn(cmd)
	cmd.Stdin = io.NewSectionReader(f.R, 0, f.Size)
	stderr := &capped{max: maxPopplerErr}
	cmd.Stderr = stderr
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return err
	}
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("pdf: run pdftoppm: %w", err)
	}
	r := bufio.NewReaderSize(stdout, 64<<10)
	n := first
	var perr error
	for ; n <= last; n++ {
		ink, err := readPGMInk(r)
		if err != nil {
			if !errors.Is(err, io.EOF) {
				perr = err
			}
			break
		}
		out[n] = ink
		progress(ctx) // a page looked at
	}
	io.Copy(io.Discard, r)
	werr := cmd.Wait()
	switch {
	case ctx.Err() != nil:
		return ctx.Err()
	case perr != nil:
		return perr
	case werr != nil && n <= last:
		return fmt.Errorf("pdf: pdftoppm: %v: %s", werr, popplerMessage(stderr.b.String()))
	}
	return nil
}

// readPGMInk reads one binary greyscale PGM ("P5", width, height, 255,
// then the pixels) and reports whether any pixel is not white.
func readPGMInk(r *bufio.Reader) (bool, error) {
	var head [4]int // the magic number's digit, width, height, largest value
	for i := range head {
		n, err := pgmNumber(r, i == 0)
		if err != nil {
			return false, err
		}
		head[i] = n
	}
	w, h, maxv := head[1], head[2], head[3]
	if head[0] != 5 {
		return false, fmt.Errorf("pdf: pdftoppm wrote no greyscale image (P%d)", head[0])
	}
	if w <= 0 || h <= 0 || w > 2*probeSize || h > 2*probeSize || maxv != 255 {
		return false, fmt.Errorf("pdf: pdftoppm drew an unexpected %dx%d image", w, h)
	}
	ink := false
	buf := make([]byte, w)
	for range h {
		if _, err := io.ReadFull(r, buf); err != nil {
			return false, err
		}
		for _, px := range buf {
			if px < 0xFF {
				ink = true
				break
			}
		}
	}
	return ink, nil
}

// pgmNumber reads the next number of a PGM header (after "P" for the
// first), skipping white space before it and consuming the one after it.
func pgmNumber(r *bufio.Reader, magic bool) (int, error) {
	c, err := r.ReadByte()
	for err == nil && (c == ' ' || c == '\n' || c == '\r' || c == '\t') {
		c, err = r.ReadByte()
	}
	if err != nil {
		return 0, err
	}
	if magic {
		if c != 'P' {
			return 0, fmt.Errorf("pdf: pdftoppm wrote no PGM image")
		}
		if c, err = r.ReadByte(); err != nil {
			return 0, err
		}
	}
	n := 0
	for digits := 0; ; digits++ {
		if c < '0' || c > '9' {
			if digits == 0 {
				return 0, fmt.Errorf("pdf: pdftoppm wrote a damaged PGM header")
			}
			return n, nil // c, the white space after the number, is consumed
		}
		if n = n*10 + int(c-'0'); n > 1<<20 {
			return 0, fmt.Errorf("pdf: pdftoppm wrote a damaged PGM header")
		}
		if c, err = r.ReadByte(); err != nil {
			return 0, err
		}
	}
}

// pageSizes reads the size in points of pages first to last from pdfinfo.
func (p *popplerPDF) pageSizes(ctx context.Context, f File, first, last int) map[int][2]float64 {
	out := map[int][2]float64{}
	if p.pdfinfo == "" {
		return out
	}
	info, err := p.run(ctx, f, p.pdfinfo, "-f", strconv.Itoa(first), "-l", strconv.Itoa(last), "-")
	if err != nil && !errors.Is(err, errOutputCut) {
		return out
	}
	// "Page    1 size: 612 x 792 pts (letter)"
	for _, l := range strings.Split(string(info), "\n") {
		fs := strings.Fields(l)
		if len(fs) < 7 || fs[0] != "Page" || fs[2] != "size:" || fs[4] != "x" {
			continue
		}
		n, err1 := strconv.Atoi(fs[1])
		w, err2 := strconv.ParseFloat(fs[3], 64)
		h, err3 := strconv.ParseFloat(fs[5], 64)
		if err1 == nil && err2 == nil && err3 == nil && w > 0 && h > 0 {
			out[n] = [2]float64{w, h}
		}
	}
	return out
}

// scanDPIs returns, for each page of first to last that shows exactly one
// image (the page of a scanned document), that image's resolution, from
// one `pdfimages -list` (see singleImageDPI).
func (p *popplerPDF) scanDPIs(ctx context.Context, f File, first, last int) map[int]int {
	out := map[int]int{}
	if p.pdfimages == "" {
		return out
	}
	list, err := p.run(ctx, f, p.pdfimages, "-list", "-f", strconv.Itoa(first), "-l", strconv.Itoa(last), "-")
	if err != nil && !errors.Is(err, errOutputCut) {
		return out
	}
	byPage := map[int][]string{}
	for _, l := range strings.Split(string(list), "\n") {
		fs := strings.Fields(l)
		if len(fs) == 0 {
			continue
		}
		if n, err := strconv.Atoi(fs[0]); err == nil {
			byPage[n] = append(byPage[n], l)
		}
	}
	for n, ls := range byPage {
		if dpi := singleImageDPI(strings.Join(ls, "\n")); dpi > 0 {
			out[n] = dpi
		}
	}
	return out
}

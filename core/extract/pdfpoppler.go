package extract

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"time"
)

// popplerPDF reads PDFs with poppler-utils' pdftotext, pdfinfo and pdftoppm
// run as subprocesses (Debian package poppler-utils, GPL: run, not linked, so
// Cairn's licence is unaffected). It is the most accurate reader measured
// (see docs/pdf-extraction.md) and a crash inside poppler cannot take Cairn
// down with it. The file is fed on stdin, so nothing is written to disk.
type popplerPDF struct {
	pdftotext, pdfinfo, pdftoppm, pdftohtml, pdfimages string // absolute paths
}

// findPoppler returns the poppler tools on PATH, or nil when pdftotext is
// missing (pdfinfo, pdftoppm, pdftohtml and pdfimages are optional).
func findPoppler() *popplerPDF {
	p := &popplerPDF{}
	var err error
	if p.pdftotext, err = exec.LookPath("pdftotext"); err != nil {
		return nil
	}
	p.pdfinfo, _ = exec.LookPath("pdfinfo")
	p.pdftoppm, _ = exec.LookPath("pdftoppm")
	p.pdftohtml, _ = exec.LookPath("pdftohtml")
	p.pdfimages, _ = exec.LookPath("pdfimages")
	return p
}

func (p *popplerPDF) name() string { return "poppler" }

// PopplerFix is what to install when poppler's tools are missing.
const PopplerFix = "install poppler-utils (Debian: sudo apt-get install poppler-utils; `make` installs it)"

// PopplerTools are the poppler-utils programs Cairn runs on PDFs, and what
// each does for it.
var PopplerTools = []struct{ Name, Use string }{
	{"pdftotext", "the text of every page"},
	{"pdfinfo", "the title and page count"},
	{"pdftoppm", "scanned pages drawn for OCR, and the preview"},
	{"pdfimages", "the resolution of a scanned page"},
	{"pdftohtml", "the outline (bookmarks) as headings"},
}

// Poppler reports poppler's version (from pdftotext -v) and the tools of
// PopplerTools that are not on PATH. Poppler is required: the pure-Go
// reader that stands in without it reads some PDFs badly (docs/pdf-extraction.md).
func Poppler(ctx context.Context) (version string, missing []string) {
	for _, t := range PopplerTools {
		if _, err := exec.LookPath(t.Name); err != nil {
			missing = append(missing, t.Name)
		}
	}
	if out, err := exec.CommandContext(ctx, "pdftotext", "-v").CombinedOutput(); err == nil {
		for _, l := range strings.Split(string(out), "\n") {
			if v, ok := strings.CutPrefix(strings.TrimSpace(l), "pdftotext version "); ok {
				version = v
			}
		}
	}
	return version, missing
}

func (p *popplerPDF) read(ctx context.Context, f File, lim Limits) (*pdfText, error) {
	out := &pdfText{}
	if p.pdfinfo != "" {
		info, err := p.run(ctx, f, p.pdfinfo, "-enc", "UTF-8", "-")
		if err != nil {
			return nil, err
		}
		for _, l := range strings.Split(string(info), "\n") {
			k, v, ok := strings.Cut(l, ":")
			if !ok {
				continue
			}
			v = strings.TrimSpace(v)
			switch k {
			case "Title":
				out.title = v
			case "Pages":
				out.pageCount, _ = strconv.Atoi(v)
			}
		}
	}
	// Default mode (not -layout, not -raw): poppler orders text in reading
	// order, one column after the other, which is what a passage needs.
	text, err := p.run(ctx, f, p.pdftotext, "-enc", "UTF-8", "-eol", "unix", "-", "-")
	if errors.Is(err, errOutputCut) {
		// More text than the text limit keeps: the pages read so far stand.
		out.warnings = append(out.warnings, err.Error()+"; the rest of the text was not read")
	} else if err != nil {
		return nil, err
	}
	pages := strings.Split(string(text), "\f")
	if len(pages) > 0 && strings.TrimSpace(pages[len(pages)-1]) == "" {
		pages = pages[:len(pages)-1] // pdftotext ends every page with a form feed
	}
	out.pages = pages
	if out.pageCount > len(pages) {
		for len(out.pages) < out.pageCount {
			out.pages = append(out.pages, "")
		}
	}
	outline, err := p.outline(ctx, f)
	switch {
	case ctx.Err() != nil:
		return nil, ctx.Err()
	case err != nil:
		out.warnings = append(out.warnings, fmt.Sprintf("pdf: outline (bookmarks) ignored: %v", err))
	default:
		out.outline = outline
	}
	return out, nil
}

// outlineTimeout bounds pdftohtml, in case a damaged outline sends it
// into a loop: the text is already read, only the headings are lost.
const outlineTimeout = 30 * time.Second

// outline reads the bookmarks with `pdftohtml -xml`, whose <outline> gives
// every entry with the page number poppler resolved for it, named
// destinations included: the same parser, and so the same page numbering,
// as pdftotext. The alternative was ledongthuc's reader for the outline
// alone. On twelve Debian manuals (docs/structure.md) both read identical
// entries, but pdftohtml took 10-135 ms where ledongthuc took up to 1.6 s
// (octave.pdf, 517 entries: it decompresses pdfTeX's object streams again
// for every object), and a second parser could disagree with pdftotext on
// a damaged file that poppler repairs. Only page 1 is converted (-f 1
// -l 1): the outline comes whole anyway. With -stdout nothing is written to
// disk; the output name is required with stdin input but unused.
func (p *popplerPDF) outline(ctx context.Context, f File) ([]OutlineEntry, error) {
	if p.pdftohtml == "" {
		return nil, nil
	}
	ctx, cancel := context.WithTimeout(ctx, outlineTimeout)
	defer cancel()
	out, err := p.run(ctx, f, p.pdftohtml, "-xml", "-i", "-q", "-stdout", "-f", "1", "-l", "1", "-", os.DevNull)
	if err != nil {
		return nil, err
	}
	return readPopplerOutline(out)
}

// render draws page n (1-based) as a grey image at dpi for OCR, or, with
// dpi 0, at maxSide pixels on its longer side. It is a PGM, a byte a
// pixel as Tesseract reads it: pdftoppm's "grey" PNG is RGB, which
// decodes at four bytes a pixel, and its TIFF needs a file to seek in.
func (p *popplerPDF) render(ctx context.Context, f File, n, dpi int) ([]byte, error) {
	if p.pdftoppm == "" {
		return nil, fmt.Errorf("pdftoppm not found")
	}
	s := strconv.Itoa(n)
	size := []string{"-r", strconv.Itoa(dpi)}
	if dpi <= 0 {
		size = []string{"-scale-to", strconv.Itoa(maxSide)}
	}
	// Without an output root, pdftoppm writes the single page to stdout.
	args := append([]string{"-f", s, "-l", s}, size...)
	return p.run(ctx, f, p.pdftoppm, append(args, "-gray", "-singlefile", "-")...)
}

// singleImageDPI reads `pdfimages -list` output: the larger of x-ppi and
// y-ppi of its one row of type image, or 0 when it has another number of
// them. Columns: page num type width height color comp bpc enc interp
// object ID x-ppi y-ppi size ratio.
func singleImageDPI(list string) int {
	dpi, images := 0, 0
	for _, l := range strings.Split(list, "\n") {
		f := strings.Fields(l)
		if len(f) < 14 || f[2] != "image" {
			continue
		}
		images++
		x, errX := strconv.Atoi(f[12])
		y, errY := strconv.Atoi(f[13])
		if errX != nil || errY != nil {
			return 0
		}
		dpi = max(x, y)
	}
	if images != 1 {
		return 0
	}
	return dpi
}

// Poppler's output is held in Cairn's memory, so it is capped: the text
// beyond what the text limit keeps is of no use, and a hostile file makes
// poppler print a syntax error per token (300 MB of messages for a 2 MB
// file nested a million levels deep).
const (
	maxPopplerOut = 128 << 20
	maxPopplerErr = 64 << 10
)

// errOutputCut says that a tool's output went past maxPopplerOut and the
// rest was dropped; run returns it with the output it kept.
var errOutputCut = fmt.Errorf("%w: pdf: poppler's output is larger than %d MB", ErrTooLarge, maxPopplerOut>>20)

// capped keeps the first max bytes written to it and drops the rest. Each
// write it keeps is progress of the extraction under ctx (pdftotext
// writes as it reads the pages), when ctx is set.
type capped struct {
	b   bytes.Buffer
	max int
	cut bool
	ctx context.Context
}

func (c *capped) Write(p []byte) (int, error) {
	keep := max(min(len(p), c.max-c.b.Len()), 0)
	if c.ctx != nil && keep > 0 {
		progress(c.ctx) // output past the cap is not progress: a tool may print for ever
	}
	c.b.Write(p[:keep])
	c.cut = c.cut || keep < len(p)
	return len(p), nil
}

// run feeds f to tool on stdin and returns its stdout, turning poppler's
// complaints into errors that say what is wrong with the file. Output past
// maxPopplerOut is dropped, with errOutputCut.
func (p *popplerPDF) run(ctx context.Context, f File, tool string, args ...string) ([]byte, error) {
	cmd := exec.CommandContext(ctx, tool, args...)
	dieWithCairn(cmd)
	cmd.Stdin = io.NewSectionReader(f.R, 0, f.Size)
	stdout, stderr := &capped{max: maxPopplerOut, ctx: ctx}, &capped{max: maxPopplerErr}
	cmd.Stdout, cmd.Stderr = stdout, stderr
	err := cmd.Run()
	if ctx.Err() != nil {
		return nil, ctx.Err()
	}
	if err == nil && stdout.cut {
		return stdout.b.Bytes(), errOutputCut
	}
	if err == nil {
		return stdout.b.Bytes(), nil
	}
	msg := popplerMessage(stderr.b.String())
	var ee *exec.ExitError
	if !errors.As(err, &ee) {
		return nil, fmt.Errorf("pdf: run %s: %w", tool, err)
	}
	low := strings.ToLower(msg)
	switch {
	case strings.Contains(low, "incorrect password"):
		return nil, fmt.Errorf("%w: pdf: the file is password-protected", ErrEncrypted)
	case strings.Contains(low, "copying of text from this document is not allowed"):
		return nil, fmt.Errorf("%w: pdf: the author's permissions forbid copying its text", ErrEncrypted)
	}
	if msg == "" {
		msg = err.Error()
	}
	return nil, fmt.Errorf("pdf: broken file: %s", msg)
}

// popplerMessage picks the most telling lines of poppler's stderr: errors
// first, without the warnings it prints for every recoverable quirk.
func popplerMessage(stderr string) string {
	var errs []string
	for _, l := range strings.Split(stderr, "\n") {
		l = strings.TrimSpace(l)
		if l == "" || strings.Contains(l, "Warning") {
			continue
		}
		if len(errs) < 3 {
			errs = append(errs, l)
		}
	}
	return strings.Join(errs, "; ")
}

package extract

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"regexp"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"cairn/core/fault"
)

// PDFEngine names the reader used for PDF text.
type PDFEngine string

// PDF engines. PDFAuto uses poppler when pdftotext is installed (it measured
// best, see docs/pdf-extraction.md) and the pure-Go reader otherwise.
const (
	PDFAuto    PDFEngine = ""
	PDFPoppler PDFEngine = "poppler"
	PDFPureGo  PDFEngine = "go"
)

// WithPDFEngine chooses the PDF reader. With PDFPoppler and no pdftotext on
// PATH, PDFs are skipped with ErrUnsupported naming the missing package.
func WithPDFEngine(e PDFEngine) Option { return func(r *Registry) { r.pdfEngine = e } }

// ocrDPI is the resolution a page that is not a single scan is rendered
// at: Tesseract's accuracy drops quickly below 300 dpi for vector text and
// gains little above it.
const ocrDPI = 300

// minScanDPI is the lowest image resolution taken for a scan's own; below
// it the image is more likely a thumbnail stretched over the page.
const minScanDPI = 50

// renderDPI is the resolution a page is rendered at for OCR, given the
// resolution of the one image it shows (0: none or several). A scan is
// read at its own resolution, at most ocrDPI: drawn at 300 dpi, a 150-dpi
// scan's pixels become blocks that add nothing but grain and memory (a
// clean 150-dpi contents page read with word F1 0.33 rendered at 300 dpi
// against 0.89 from its image; one page peaked at 430 MB and a noisy one
// timed out).
func renderDPI(scan int) int {
	if scan < minScanDPI {
		return ocrDPI
	}
	return min(scan, ocrDPI)
}

// minTextLayer is the number of letters and digits below which a page is
// taken to have no text layer (a scan may carry a stamped page number).
const minTextLayer = 8

// pdfText is what a PDF engine returns: raw page texts in page order.
type pdfText struct {
	title     string
	pages     []string
	pageCount int
	outline   []OutlineEntry // bookmarks in document order; nil without any
	warnings  []string
}

type pdfReader interface {
	name() string
	read(ctx context.Context, f File, lim Limits) (*pdfText, error)
}

// PDFEngineName reports which PDF reader Extract uses: "poppler" or "go",
// or "" when PDFs cannot be read (poppler asked for but missing).
func (r *Registry) PDFEngineName() string {
	rd, err := r.pdfReader()
	if err != nil {
		return ""
	}
	return rd.name()
}

func (r *Registry) pdfReader() (pdfReader, error) {
	r.popplerOnce.Do(func() { r.poppler = findPoppler() })
	switch r.pdfEngine {
	case PDFPureGo:
		return goPDF{}, nil
	case PDFPoppler:
		if r.poppler == nil {
			return nil, fmt.Errorf("%w: pdf: pdftotext is not installed (Debian package poppler-utils)", ErrUnsupported)
		}
		return r.poppler, nil
	}
	if r.poppler != nil {
		return r.poppler, nil
	}
	return goPDF{}, nil
}

// extractPDF reads a PDF page by page: one page unit per page, text cleaned
// of ligatures, end-of-line hyphenation and repeated running headers and
// footers; pages without a text layer go through OCR when the registry has
// it, and otherwise leave a warning. The outline (bookmarks), when the PDF
// has one, gives the headings: the true section titles at their pages,
// where guessing from the text would take a licence's last line or a row
// of the table of contents for a title.
func (r *Registry) extractPDF(ctx context.Context, f File, lim Limits) (*Document, error) {
	head := make([]byte, 1024)
	n, _ := f.R.ReadAt(head, 0)
	if !bytes.Contains(head[:n], []byte("%PDF-")) {
		return nil, fmt.Errorf("pdf: not a PDF file (no %%PDF- header: wrong extension or damaged start)")
	}
	if err := checkPDFStructure(io.NewSectionReader(f.R, 0, f.Size)); err != nil {
		return nil, err
	}
	rd, err := r.pdfReader()
	if err != nil {
		return nil, err
	}
	pt, err := rd.read(ctx, f, lim)
	if err != nil {
		return nil, err
	}
	pages := make([]string, len(pt.pages))
	for i, p := range pt.pages {
		pages[i] = cleanPDFPage(p)
	}
	labels := dropRunningLines(pages)
	b := newBuilder(lim)
	warnings := pt.warnings
	var plan map[int]pagePlan // how each page without text is drawn for OCR (poppler)
	if pp, ok := rd.(*popplerPDF); ok && r.ocr != nil {
		var scan []int
		for i, p := range pages {
			if countAlnum(p) < minTextLayer {
				scan = append(scan, i+1)
			}
		}
		if plan, err = pp.planOCR(ctx, f, scan); err != nil {
			return nil, err
		}
	}
	var noText []int
	var unread []string // pages OCR could not read
	for i, p := range pages {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		if b.full() {
			warnings = append(warnings, fmt.Sprintf("pdf: text limit reached at page %d of %d", i+1, len(pages)))
			break
		}
		if pl, ok := plan[i+1]; ok && pl.blank {
			// Nothing drawn on it: an empty page, not a scan to read.
		} else if countAlnum(p) < minTextLayer {
			if pl.note != "" {
				warnings = append(warnings, pl.note)
			}
			ocrText, conf, err := r.ocrPDFPage(ctx, f, i+1, rd, pl)
			switch {
			case err == nil:
				if countAlnum(ocrText) > countAlnum(p) {
					p = tidyLines(cleanPDFPage(ocrText))
					if w := lowConfidenceWarning(fmt.Sprintf("page %d", i+1), conf); w != "" {
						warnings = append(warnings, w)
					}
				}
			case ctx.Err() != nil:
				return nil, ctx.Err()
			case r.ocr == nil:
				noText = append(noText, i+1)
			default:
				unread = append(unread, fmt.Sprintf("page %d: %v", i+1, err))
				warnings = append(warnings, fmt.Sprintf("page %d: no text layer and OCR failed: %v", i+1, err))
			}
		}
		b.startUnit(UnitPage, i+1, labels[i])
		b.block(p)
		b.endUnit()
		progress(ctx) // a page read: OCR of one page may take most of the watchdog's time
	}
	if len(noText) > 0 && strings.TrimSpace(b.sb.String()) == "" {
		return nil, fault.Wrap(fault.ExtractNoOCR, OCRFix, fmt.Errorf("%w: pdf: no page has a text layer (a scanned document) and OCR is unavailable", ErrEmpty))
	}
	if len(unread) > 0 && strings.TrimSpace(b.sb.String()) == "" {
		// A failure of the scan, not a skip: "no text" would hide it.
		return nil, fmt.Errorf("pdf: a scanned document whose pages could not be read: %s", strings.Join(unread, "; "))
	}
	if len(noText) > 0 {
		warnings = append(warnings, fmt.Sprintf("%s: no text layer and OCR unavailable (install Tesseract: Debian packages libtesseract5 tesseract-ocr-eng)", pageList(noText)))
	}
	doc := b.document("pdf", pt.title)
	if len(pt.outline) > 0 {
		var w []string
		doc.Headings, w = outlineHeadings(doc.Text, doc.Units, pt.outline)
		warnings = append(warnings, w...)
	}
	doc.Warnings = warnings
	return doc, nil
}

// ocrPDFPage renders page n and recognises its text. pdftoppm draws exactly
// what the page shows (vector text too), as pl says (planOCR: at the
// resolution of the scan when the page is one image, within
// MaxPagePixels); without it the page's largest embedded image, which is
// the page of a scanned document, is used.
func (r *Registry) ocrPDFPage(ctx context.Context, f File, n int, rd pdfReader, pl pagePlan) (string, int, error) {
	if r.ocr == nil {
		return "", 0, fmt.Errorf("OCR unavailable")
	}
	var img []byte
	var err error
	if p, ok := rd.(*popplerPDF); ok && p.pdftoppm != "" {
		img, err = p.render(ctx, f, n, pl.dpi)
	} else {
		img, err = renderGoPDF(f, n)
		if errors.Is(err, errNoPageImage) {
			return "", 0, nil // a blank page: nothing to recognise
		}
	}
	if err != nil {
		return "", 0, err
	}
	return r.ocr.Recognize(ctx, img)
}

// poorOCR is the mean word confidence (0-100) under which a page read by
// OCR is reported: clean print reads at 85-95, a noisy 150-dpi scan at
// 60-80, and below 50 a good share of the words are wrong.
const poorOCR = 50

// lowConfidenceWarning is the warning for a page OCR read with confidence
// conf, or "" when the reading can be trusted.
func lowConfidenceWarning(what string, conf int) string {
	if conf >= poorOCR {
		return ""
	}
	return fmt.Sprintf("%s: OCR read it with low confidence (%d%%): a poor scan; some words may be wrong", what, conf)
}

func pageList(pages []int) string {
	if len(pages) == 1 {
		return fmt.Sprintf("page %d", pages[0])
	}
	var sb strings.Builder
	sb.WriteString("pages ")
	for i := 0; i < len(pages); {
		j := i
		for j+1 < len(pages) && pages[j+1] == pages[j]+1 {
			j++
		}
		if i > 0 {
			sb.WriteString(", ")
		}
		if j > i {
			fmt.Fprintf(&sb, "%d-%d", pages[i], pages[j])
		} else {
			fmt.Fprintf(&sb, "%d", pages[i])
		}
		i = j + 1
	}
	return sb.String()
}

func countAlnum(s string) int {
	n := 0
	for _, c := range s {
		if unicode.IsLetter(c) || unicode.IsDigit(c) {
			n++
		}
	}
	return n
}

// ligatures maps the presentation forms that PDF fonts use for ligatures to
// the letters they stand for, so "ﬁle" is found by a search for "file".
var ligatures = strings.NewReplacer(
	"\uFB00", "ff", "\uFB01", "fi", "\uFB02", "fl", "\uFB03", "ffi", "\uFB04", "ffl",
	"\uFB05", "st", "\uFB06", "st", "\u00AD", "", "\u0000", "",
)

// cleanPDFPage repairs ligatures and words hyphenated at a line end, and
// trims the blanks at line ends.
func cleanPDFPage(s string) string {
	s = ligatures.Replace(s)
	s = dehyphenate(s)
	return tidyLines(s)
}

// dehyphenate joins a word split at a line end ("exam-\nple") when the
// hyphen follows a letter and the next line starts with a lower-case
// letter; the joined word stays on the first line. Compounds broken at
// their own hyphen ("well-\nknown") lose it, a trade every PDF extractor
// makes: there is no way to tell them apart without a dictionary.
func dehyphenate(s string) string {
	if !strings.Contains(s, "-\n") {
		return s
	}
	var sb strings.Builder
	sb.Grow(len(s))
	for {
		i := strings.Index(s, "-\n")
		if i < 0 {
			sb.WriteString(s)
			return sb.String()
		}
		before, _ := utf8.DecodeLastRuneInString(s[:i])
		rest := s[i+2:]
		after, _ := utf8.DecodeRuneInString(rest)
		if !unicode.IsLetter(before) || !unicode.IsLower(after) {
			sb.WriteString(s[:i+2])
			s = rest
			continue
		}
		sb.WriteString(s[:i])
		end := strings.IndexFunc(rest, func(r rune) bool { return unicode.IsSpace(r) })
		if end < 0 {
			sb.WriteString(rest)
			return sb.String()
		}
		sb.WriteString(rest[:end]) // the word's tail
		// The line break the hyphen stood for comes after the tail.
		if rest[end] == ' ' {
			sb.WriteByte('\n')
			s = rest[end+1:]
		} else {
			s = rest[end:]
		}
	}
}

var (
	digitsRE     = regexp.MustCompile(`\d+`)
	pageNumberRE = regexp.MustCompile(`(?i)^(?:page|p\.|pg\.?|seite|página|pagina)?\s*[-–—]?\s*(\d{1,5}|[ivxlcdm]{1,7})\s*[-–—]?\s*(?:(?:of|/|von|de)\s*\d{1,5})?$`)
)

// runningLines is how many lines at the top and at the bottom of a page
// are looked at for running headers and footers.
const runningLines = 2

// dropRunningLines removes running headers and footers: lines at the top or
// bottom of a page that repeat, digits aside, on at least half the pages
// (and at least three). Page-number lines ("12", "Page 3 of 9", "- iv -")
// stay in the text, and the printed numbers become the pages' labels when
// they follow the page order, so a citation can name the printed page. It
// returns the labels.
func dropRunningLines(pages []string) []string {
	lines := make([][]string, len(pages))
	counts := map[string]int{}
	cands := make([][]string, len(pages)) // page-number candidates per page
	nonEmpty := 0
	for i, p := range pages {
		if strings.TrimSpace(p) == "" {
			continue
		}
		nonEmpty++
		lines[i] = strings.Split(p, "\n")
		seen := map[string]bool{}
		for _, j := range edgeLines(lines[i]) {
			l := strings.TrimSpace(lines[i][j])
			if m := pageNumberRE.FindStringSubmatch(l); m != nil {
				cands[i] = append(cands[i], m[1])
				continue
			}
			if k := runningKey(l); !seen[k] {
				seen[k] = true
				counts[k]++
			}
		}
	}
	labels := pageLabels(cands, nonEmpty)
	if nonEmpty < 3 {
		return labels
	}
	threshold := max(3, (nonEmpty+1)/2)
	for i := range pages {
		if lines[i] == nil {
			continue
		}
		drop := map[int]bool{}
		for _, j := range edgeLines(lines[i]) {
			l := strings.TrimSpace(lines[i][j])
			if !pageNumberRE.MatchString(l) && counts[runningKey(l)] >= threshold {
				drop[j] = true
			}
		}
		if len(drop) == 0 {
			continue
		}
		var kept []string
		for j, l := range lines[i] {
			if !drop[j] {
				kept = append(kept, l)
			}
		}
		pages[i] = tidyLines(strings.Join(kept, "\n"))
	}
	return labels
}

// pageLabels picks the printed page numbers among the candidates: the
// Arabic numbers that equal the page index plus one common offset on at
// least half of the pages (a section number "3" at the top of page 17 is
// not one), and Roman numerals on the pages before them (front matter).
func pageLabels(cands [][]string, nonEmpty int) []string {
	labels := make([]string, len(cands))
	offsets := map[int]int{}
	for i, cs := range cands {
		for _, c := range cs {
			if n, err := strconv.Atoi(c); err == nil {
				offsets[n-(i+1)]++
			}
		}
	}
	best, bestN := 0, 0
	for o, n := range offsets {
		if n > bestN || n == bestN && abs(o) < abs(best) {
			best, bestN = o, n
		}
	}
	if bestN*2 < nonEmpty || bestN < 2 {
		return labels
	}
	first := -1
	for i, cs := range cands {
		for _, c := range cs {
			if n, err := strconv.Atoi(c); err == nil && n == i+1+best {
				labels[i] = c
				if first < 0 {
					first = i
				}
				break
			}
		}
	}
	for i := 0; i < first; i++ {
		for _, c := range cands[i] {
			if _, err := strconv.Atoi(c); err != nil {
				labels[i] = strings.ToLower(c)
				break
			}
		}
	}
	return labels
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

// edgeLines returns the indexes of the first and last runningLines
// non-empty lines.
func edgeLines(lines []string) []int {
	var idx []int
	for j, n := 0, 0; j < len(lines) && n < runningLines; j++ {
		if strings.TrimSpace(lines[j]) != "" {
			idx = append(idx, j)
			n++
		}
	}
	for j, n := len(lines)-1, 0; j >= 0 && n < runningLines; j-- {
		if strings.TrimSpace(lines[j]) != "" {
			if !containsInt(idx, j) {
				idx = append(idx, j)
			}
			n++
		}
	}
	return idx
}

func containsInt(s []int, v int) bool {
	for _, x := range s {
		if x == v {
			return true
		}
	}
	return false
}

func runningKey(l string) string {
	return digitsRE.ReplaceAllString(collapseSpace(l), "#")
}

// PDFPageTexts returns the text of each page of a PDF as engine reads it,
// before Cairn's cleanup (ligatures, hyphenation, running lines) and
// without OCR. It exists for measurements such as `cairn bench extract`.
func PDFPageTexts(ctx context.Context, f File, engine PDFEngine) ([]string, error) {
	pt, err := readPDFWith(ctx, f, engine)
	if err != nil {
		return nil, err
	}
	return pt.pages, nil
}

// PDFOutline returns the outline (bookmarks) of a PDF as engine reads it:
// titles, depths and destination pages, in document order; nil when the
// PDF has none. It exists for measurements such as the outline coverage
// test in core/chunk.
func PDFOutline(ctx context.Context, f File, engine PDFEngine) ([]OutlineEntry, error) {
	pt, err := readPDFWith(ctx, f, engine)
	if err != nil {
		return nil, err
	}
	return pt.outline, nil
}

// readPDFWith reads f with engine as it stands, before Cairn's cleanup.
func readPDFWith(ctx context.Context, f File, engine PDFEngine) (*pdfText, error) {
	r := &Registry{pdfEngine: engine}
	rd, err := r.pdfReader()
	if err != nil {
		return nil, err
	}
	return rd.read(ctx, f, DefaultLimits())
}

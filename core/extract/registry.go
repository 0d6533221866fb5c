package extract

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"runtime/debug"
	"sort"
	"strings"
	"sync"
	"time"
	"unicode"
	"unicode/utf8"

	"cairn/core/fault"
	"cairn/core/humanize"
	"cairn/core/invisible"
)

// Limits bound the work one file may cause. Zero fields mean "no limit" only
// where noted; DefaultLimits gives sane values.
type Limits struct {
	MaxFileBytes    int64         // larger files are skipped before reading
	MaxTextBytes    int64         // extracted text beyond this is cut, with a warning
	MaxUncompressed int64         // total bytes an archive-based format may inflate
	MaxRatio        float64       // per-entry compression ratio treated as a zip bomb
	MaxDepth        int           // nesting of attachments and embedded documents
	MaxCells        int64         // spreadsheet cells read per file; 0 = no limit
	Timeout         time.Duration // the longest one file's extraction may go without progress (watchdog.go), a page's too
	Depth           int           // current nesting depth; set by the registry
}

// DefaultLimits are the limits used when the configuration does not say.
func DefaultLimits() Limits {
	return Limits{
		MaxFileBytes:    64 << 20,
		MaxTextBytes:    32 << 20,
		MaxUncompressed: 512 << 20,
		MaxRatio:        200,
		MaxDepth:        3,
		MaxCells:        2_000_000,
		Timeout:         2 * time.Minute,
	}
}

// Registry maps file types to extractors.
type Registry struct {
	byExt  map[string]Extractor
	byKind map[string]Extractor // sniffed kinds: "pdf", "zip", "png", ...
	lim    Limits
	ocr    OCR

	pdfEngine   PDFEngine
	popplerOnce sync.Once // poppler is looked up on the first PDF, not at start-up
	poppler     *popplerPDF
}

// OCR recognises text in images. core/ocr provides one backed by Tesseract;
// without one, images are skipped and scanned pages yield a warning.
type OCR interface {
	// Recognize returns the text of one encoded image (PNG, JPEG, TIFF, ...)
	// and the OCR's mean word confidence in it, 0-100.
	Recognize(ctx context.Context, image []byte) (text string, confidence int, err error)
}

// Option configures a Registry.
type Option func(*Registry)

// WithOCR makes the registry read images and scanned pages through o.
func WithOCR(o OCR) Option { return func(r *Registry) { r.ocr = o } }

// NewRegistry returns a registry with every built-in extractor registered.
func NewRegistry(lim Limits, opts ...Option) *Registry {
	r := &Registry{byExt: map[string]Extractor{}, byKind: map[string]Extractor{}, lim: lim}
	for _, o := range opts {
		o(r)
	}
	registerText(r)
	registerOLE(r)
	registerImages(r)
	r.Register(ExtractorFunc(r.extractPDF), ".pdf")
	r.RegisterKind(ExtractorFunc(r.extractPDF), "pdf")
	r.Register(ExtractorFunc(r.extractDOCX), ".docx", ".docm", ".dotx", ".dotm")
	r.Register(ExtractorFunc(r.extractPPTX), ".pptx", ".pptm", ".ppsx", ".potx")
	r.Register(ExtractorFunc(r.extractXLSX), ".xlsx", ".xlsm", ".xltx")
	r.Register(ExtractorFunc(r.extractODF), ".odt", ".ott", ".ods", ".ots", ".odp", ".otp")
	r.Register(ExtractorFunc(r.extractEPUB), ".epub")
	r.Register(ExtractorFunc(r.extractRTF), ".rtf")
	r.RegisterKind(ExtractorFunc(r.extractRTF), "rtf")
	r.Register(ExtractorFunc(r.extractMbox), ".mbox", ".mbx")
	return r
}

// Limits returns the limits the registry applies.
func (r *Registry) Limits() Limits { return r.lim }

// HasOCR reports whether the registry reads text in images.
func (r *Registry) HasOCR() bool { return r.ocr != nil }

// Register makes e handle files with the given extensions (".pdf"; case is
// ignored), replacing any earlier extractor.
func (r *Registry) Register(e Extractor, exts ...string) {
	for _, x := range exts {
		r.byExt[strings.ToLower(x)] = e
	}
}

// RegisterKind makes e handle files whose first bytes sniff as kind (see
// Sniff) when their extension is unknown.
func (r *Registry) RegisterKind(e Extractor, kinds ...string) {
	for _, k := range kinds {
		r.byKind[k] = e
	}
}

// Supports reports whether name's extension has an extractor.
func (r *Registry) Supports(name string) bool {
	_, ok := r.byExt[ext(name)]
	return ok
}

// Extensions lists the registered extensions.
func (r *Registry) Extensions() []string {
	out := make([]string, 0, len(r.byExt))
	for x := range r.byExt {
		out = append(out, x)
	}
	return out
}

// Extract picks an extractor for f and runs it within the registry's limits.
// A panic inside an extractor becomes an error naming the file.
func (r *Registry) Extract(ctx context.Context, f File) (*Document, error) {
	return r.extract(ctx, f, r.lim)
}

// ExtractNested extracts an embedded file (an e-mail attachment, a document
// inside an archive) one level deeper than lim, refusing past MaxDepth.
func (r *Registry) ExtractNested(ctx context.Context, f File, lim Limits) (*Document, error) {
	lim.Depth++
	if lim.MaxDepth > 0 && lim.Depth > lim.MaxDepth {
		return nil, fmt.Errorf("%w: attachments or embedded files nested deeper than %d levels", ErrTooDeep, lim.MaxDepth)
	}
	return r.extract(ctx, f, lim)
}

func (r *Registry) extract(ctx context.Context, f File, lim Limits) (doc *Document, err error) {
	if lim.MaxFileBytes > 0 && f.Size > lim.MaxFileBytes {
		return nil, fault.Wrap(fault.ExtractTooLarge, "raise index.max_file_mb if the file should be indexed",
			fmt.Errorf("%w: %s is larger than the %s limit", ErrTooLarge, humanize.Bytes(f.Size), humanize.Bytes(lim.MaxFileBytes)))
	}
	if f.Size == 0 {
		return nil, fmt.Errorf("%w: empty file", ErrEmpty)
	}
	e, err := r.pick(f)
	if err != nil {
		return nil, err
	}
	if lim.Timeout > 0 && lim.Depth == 0 {
		var stop func()
		ctx, stop = withWatchdog(ctx, lim.Timeout)
		defer stop()
		f.R = newProgressReader(ctx, f.R, f.Size)
	}
	defer func() {
		if p := recover(); p != nil {
			doc, err = nil, fmt.Errorf("extractor crashed on %s: %v\n%s", f.Name, p, debug.Stack())
		}
	}()
	doc, err = e.Extract(ctx, f, lim)
	if err != nil {
		switch cause := context.Cause(ctx); {
		case ctx.Err() == nil:
		case errors.Is(cause, errStalled):
			return nil, fault.Wrap(fault.ExtractTimeout, "raise index.timeout_sec if the file should be indexed",
				fmt.Errorf("extraction made no progress (no new part of the file read, no page done) for %s: %w", lim.Timeout, context.DeadlineExceeded))
		}
		return nil, err
	}
	finish(doc, lim)
	if strings.TrimSpace(doc.Text) == "" {
		if len(doc.Warnings) > 0 {
			// The warnings say why (a page OCR could not read, a broken part).
			return nil, fmt.Errorf("%w: the file contains no extractable text (%s)", ErrEmpty, strings.Join(doc.Warnings, "; "))
		}
		return nil, fmt.Errorf("%w: the file contains no extractable text", ErrEmpty)
	}
	return doc, nil
}

func (r *Registry) pick(f File) (Extractor, error) {
	x := ext(f.Name)
	if e, ok := r.byExt[x]; ok {
		return e, nil
	}
	head := make([]byte, 8192)
	n, err := f.R.ReadAt(head, 0)
	if err != nil && err != io.EOF {
		return nil, fmt.Errorf("read %s: %w", f.Name, err)
	}
	head = head[:n]
	kind := Sniff(head)
	if e, ok := r.byKind[kind]; ok {
		return e, nil
	}
	switch kind {
	case "text":
		return r.byExt[".txt"], nil
	case "binary":
		return nil, fmt.Errorf("%w: not a text format Cairn reads", ErrBinary)
	}
	if x == "" {
		x = "without extension"
	}
	return nil, fmt.Errorf("%w: %s (%s)", ErrUnsupported, x, kind)
}

// finish makes the document safe for the rest of the pipeline: valid UTF-8,
// no NUL bytes, text within MaxTextBytes, units and headings inside the text.
func finish(doc *Document, lim Limits) {
	if !utf8.ValidString(doc.Text) || strings.IndexByte(doc.Text, 0) >= 0 {
		doc.Text = strings.ToValidUTF8(strings.ReplaceAll(doc.Text, "\x00", ""), "\uFFFD")
	}
	dropInvisible(doc)
	if lim.MaxTextBytes > 0 && int64(len(doc.Text)) > lim.MaxTextBytes {
		cut := int(lim.MaxTextBytes)
		for cut > 0 && !utf8.RuneStart(doc.Text[cut]) {
			cut--
		}
		doc.Text = doc.Text[:cut]
		doc.Warnings = append(doc.Warnings, fmt.Sprintf("text cut at %s (limit)", humanize.Bytes(lim.MaxTextBytes)))
	}
	n := len(doc.Text)
	units := doc.Units[:0]
	for _, u := range doc.Units {
		u.Start, u.End = clamp(u.Start, 0, n), clamp(u.End, 0, n)
		if u.End > u.Start {
			units = append(units, u)
		}
	}
	doc.Units = units
	hs := doc.Headings[:0]
	for _, h := range doc.Headings {
		if h.Offset >= 0 && h.Offset <= n {
			hs = append(hs, h)
		}
	}
	doc.Headings = hs
}

// dropInvisible removes the default-ignorable characters (zero-width
// spaces and joiners, bidirectional marks, ...) from the document, moving
// its units' and headings' offsets with the text: between letters they
// split a word for the search tokenizer ("p\u200ba\u200bs\u200bs" was
// four one-letter words), and a document made of them is 10,000 chunks no
// search finds. One where they outnumber the visible characters is
// reported in a warning.
func dropInvisible(doc *Document) {
	doc.Title = invisible.Remove(doc.Title)
	for i := range doc.Headings {
		doc.Headings[i].Text = invisible.Remove(doc.Headings[i].Text)
	}
	text := doc.Text
	first := invisible.Next(text, 0)
	if first < 0 {
		return
	}
	// The offsets to move, in order; each is moved as the text before it
	// is copied, so the text is read once and nothing is kept per
	// character removed (a 12 MB file of them held 70 MB of positions).
	var offs []*int
	for i := range doc.Units {
		offs = append(offs, &doc.Units[i].Start, &doc.Units[i].End)
	}
	for i := range doc.Headings {
		offs = append(offs, &doc.Headings[i].Offset)
	}
	sort.SliceStable(offs, func(i, j int) bool { return *offs[i] < *offs[j] })
	var b strings.Builder
	b.Grow(len(text))
	removed, runes, k := 0, 0, 0
	for i := first; i >= 0; i = invisible.Next(text, i) {
		end := invisible.End(text, i)
		for ; k < len(offs) && *offs[k] < end; k++ {
			if *offs[k] > i {
				*offs[k] = i // inside the run: at its start
			}
			*offs[k] -= removed
		}
		b.WriteString(text[b.Len()+removed : i])
		runes += utf8.RuneCountInString(text[i:end])
		removed += end - i
		i = end
	}
	for ; k < len(offs); k++ {
		*offs[k] -= removed
	}
	b.WriteString(text[b.Len()+removed:])
	doc.Text = b.String()
	visible := 0
	for _, r := range doc.Text {
		if !unicode.IsSpace(r) {
			visible++
		}
	}
	if runes > visible {
		doc.Warnings = append(doc.Warnings, fmt.Sprintf("%d invisible characters (zero-width spaces, joiners and the like) removed: more than the %d visible ones", runes, visible))
	}
}

// Sniff names the kind of content from its first bytes: "pdf", "zip",
// "ole" (legacy Office), "png", "jpeg", "gif", "tiff", "bmp", "webp",
// "gzip", "text" or "binary".
func Sniff(head []byte) string {
	switch {
	case bytes.HasPrefix(head, []byte("%PDF-")):
		return "pdf"
	case bytes.HasPrefix(head, []byte("PK\x03\x04")):
		return "zip"
	case bytes.HasPrefix(head, []byte{0xD0, 0xCF, 0x11, 0xE0, 0xA1, 0xB1, 0x1A, 0xE1}):
		return "ole"
	case bytes.HasPrefix(head, []byte("\x89PNG\r\n\x1a\n")):
		return "png"
	case bytes.HasPrefix(head, []byte{0xFF, 0xD8, 0xFF}):
		return "jpeg"
	case bytes.HasPrefix(head, []byte("GIF87a")), bytes.HasPrefix(head, []byte("GIF89a")):
		return "gif"
	case bytes.HasPrefix(head, []byte("II*\x00")), bytes.HasPrefix(head, []byte("MM\x00*")):
		return "tiff"
	case bytes.HasPrefix(head, []byte("BM")) && len(head) > 14 && !looksText(head):
		return "bmp"
	case len(head) >= 12 && bytes.Equal(head[:4], []byte("RIFF")) && bytes.Equal(head[8:12], []byte("WEBP")):
		return "webp"
	case bytes.HasPrefix(head, []byte{0x1F, 0x8B}):
		return "gzip"
	case bytes.HasPrefix(head, []byte("{\\rtf")):
		return "rtf"
	}
	if looksText(head) {
		return "text"
	}
	return "binary"
}

// looksText reports whether head is plausibly text in one of the encodings
// decodeText understands: UTF-16 with a BOM, or bytes without NULs and with
// few control characters.
func looksText(head []byte) bool {
	if len(head) == 0 {
		return true
	}
	if bytes.HasPrefix(head, []byte{0xFF, 0xFE}) || bytes.HasPrefix(head, []byte{0xFE, 0xFF}) {
		return true
	}
	if bytes.IndexByte(head, 0) >= 0 {
		return false
	}
	ctl := 0
	for _, b := range head {
		if b < 0x20 && b != '\n' && b != '\r' && b != '\t' && b != '\f' && b != 0x1b {
			ctl++
		}
	}
	return ctl*100 < len(head)*2 // under 2% control characters
}

func ext(name string) string {
	return strings.ToLower(filepath.Ext(name))
}

func clamp(v, lo, hi int) int {
	return max(lo, min(v, hi))
}

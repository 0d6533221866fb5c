// Package extract turns files into text plus the structure needed to cite
// them: pages, slides, sheets, messages and headings with byte offsets.
//
// One extractor per format sits behind a Registry keyed by file extension
// and, when the extension says nothing, by the first bytes of the file. An
// extractor never panics the caller: Registry.Extract recovers, bounds the
// work by Limits, and returns errors that say whether the file was skipped on
// purpose (ErrUnsupported, ErrBinary, ErrEncrypted, ErrTooLarge, ErrTooDeep,
// ErrEmpty, ErrUnsafe) or failed.
//
// Formats: plain text, Markdown and source code (text.go), HTML (html.go),
// PDF through poppler's pdftotext or a pure-Go reader, with OCR of pages
// without text (pdf.go, pdfpoppler.go, pdfgo.go), DOCX, PPTX, XLSX
// (docx.go, pptx.go, xlsx.go), ODT/ODS/ODP (odf.go), EPUB (epub.go), RTF
// (rtf.go), e-mail as .eml, .mbox and Outlook .msg (email.go, mbox.go,
// msg.go), images through OCR (image.go); legacy .doc/.xls/.ppt and
// password-protected files are recognised and skipped with a reason
// (ole.go). The package is pure Go: OCR comes in through the OCR interface
// (core/ocr implements it with Tesseract), poppler through a subprocess.
package extract

import (
	"context"
	"errors"
	"io"
	"maps"
)

// Skip reasons. Errors wrapping these mean the file was deliberately not
// indexed; anything else means extraction failed.
var (
	ErrUnsupported = errors.New("unsupported file type")
	ErrBinary      = errors.New("binary file")
	ErrEncrypted   = errors.New("encrypted file")
	ErrTooLarge    = errors.New("file too large")
	ErrTooDeep     = errors.New("nested too deeply")
	ErrEmpty       = errors.New("no text")
	// ErrUnsafe marks content refused because reading it is an attack's
	// way in (an XML entity bomb), not because it is broken.
	ErrUnsafe = errors.New("unsafe content")
)

// OCRFix is what to install when text in images cannot be read.
const OCRFix = "install Tesseract (Debian: sudo apt-get install libtesseract5 tesseract-ocr-eng, plus tesseract-ocr-LANG for each of ocr.languages); `cairn doctor` checks it"

// IsSkip reports whether err is a deliberate skip rather than a failure.
func IsSkip(err error) bool {
	return errors.Is(err, ErrUnsupported) || errors.Is(err, ErrBinary) ||
		errors.Is(err, ErrEncrypted) || errors.Is(err, ErrTooLarge) || errors.Is(err, ErrTooDeep) || errors.Is(err, ErrEmpty) ||
		errors.Is(err, ErrUnsafe)
}

// File is the input of an extractor: a name (for the extension and messages)
// and random access to the bytes, so zip- and PDF-based formats need no copy.
type File struct {
	Name string // base name or path; only the extension and messages use it
	Size int64
	R    io.ReaderAt
}

// versions numbers the output of each format's extractor (Document.Format);
// a format not listed is at 1. Raise a format's number with any change to
// the text or structure its extractor gives: a knowledge base then reads
// its files of that format again at the next index run, instead of keeping
// the old text until each file changes.
var versions = map[string]int{
	"markdown": 2, // 2: the text without its ##, ** and setext underlines (plainMarkdown)
	"html":     3, // 2: without the permalink marks beside headings ("¶"; isPermalink); 3: issue 43's bounds (below)
	"image":    2, // 2: every page of a multi-page TIFF, a unit each (was the first page only)
	// Issue 43's bounds change what some files give: a page over 4 MB read as
	// a stream, a CSV whose quote never closes read as text, cells cut at
	// Excel's 32,767 characters and header labels at 128 bytes, attachments
	// over 32 MB skipped.
	"csv":   2,
	"xlsx":  2,
	"email": 2,
	"mbox":  2,
}

// Version is the version of a format's extractor (see versions).
func Version(format string) int {
	if v, ok := versions[format]; ok {
		return v
	}
	return 1
}

// Versions is every format whose extractor is past version 1.
func Versions() map[string]int { return maps.Clone(versions) }

// Document is what an extractor returns.
type Document struct {
	Title    string    // from the format's metadata when present
	Format   string    // short name of the format: "text", "markdown", "html", "pdf", ...
	Text     string    // valid UTF-8
	Units    []Unit    // pages, slides, sheets, messages in order; empty when the format has none
	Headings []Heading // headings the format marks explicitly; the chunker detects more in plain text
	Warnings []string  // problems that did not stop extraction, e.g. "page 4: no text layer and OCR unavailable"
}

// UnitKind names what a Unit's number counts.
type UnitKind string

const (
	UnitPage       UnitKind = "page"
	UnitSlide      UnitKind = "slide"
	UnitSheet      UnitKind = "sheet"
	UnitMessage    UnitKind = "message"
	UnitAttachment UnitKind = "attachment"
	UnitChapter    UnitKind = "chapter"
)

// Unit is a citable part of a document: Text[Start:End] is page Number.
// Units are sorted by Start and do not overlap. Chunks never cross a unit
// boundary, so every chunk cites exactly one page, slide or sheet.
type Unit struct {
	Kind   UnitKind
	Number int    // 1-based
	Label  string // sheet name, chapter title, attachment name; may be empty
	Start  int
	End    int
}

// Heading is a heading at byte offset Offset of Document.Text.
type Heading struct {
	Offset int
	Level  int // 1 = top level
	Text   string
}

// Extractor extracts one format. Implementations must honour ctx, must not
// read beyond f.Size, and report limit violations with ErrTooLarge.
type Extractor interface {
	Extract(ctx context.Context, f File, lim Limits) (*Document, error)
}

// ExtractorFunc adapts a function to Extractor.
type ExtractorFunc func(ctx context.Context, f File, lim Limits) (*Document, error)

// Extract calls fn.
func (fn ExtractorFunc) Extract(ctx context.Context, f File, lim Limits) (*Document, error) {
	return fn(ctx, f, lim)
}

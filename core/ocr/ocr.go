// Package ocr recognises text in images with Tesseract. It is the only
// package of Cairn's core that links Tesseract (through cgo and
// github.com/otiai10/gosseract/v2); core/extract reaches it through the
// extract.OCR interface, so the extractors stay pure Go and can be tested
// with a fake.
//
// Tesseract is detected when New is called: without the library or without
// the language data asked for, New returns an error wrapping ErrUnavailable
// that says what to install, and the caller runs without OCR (images are
// then skipped and scanned PDF pages produce a warning).
package ocr

import (
	"errors"
	"strings"
)

// ErrUnavailable means Tesseract or the requested language data is missing.
var ErrUnavailable = errors.New("OCR unavailable")

// ErrUnreadable means the image is damaged or in a format Tesseract does
// not read: the image, not the OCR engine, is at fault.
var ErrUnreadable = errors.New("ocr: unreadable image")

// ErrTooLarge means an image would take more memory to decode than an
// image may (Options.MaxDecodeBytes).
var ErrTooLarge = errors.New("image too large to decode")

// Options configure the engine.
type Options struct {
	// Languages are Tesseract language codes joined by '+', e.g. "eng" or
	// "eng+deu"; default "eng". Each needs its traineddata file (Debian
	// package tesseract-ocr-LANG).
	Languages string
	// TessdataDir overrides where the traineddata files are looked up;
	// empty means Tesseract's compiled-in default (or TESSDATA_PREFIX).
	TessdataDir string
	// Workers is how many images may be recognised at once; each worker
	// holds a Tesseract instance (30-100 MB), started when first needed,
	// and recognises on one thread. Default: the number of CPUs, at most 4.
	Workers int
	// MaxPixels is the largest image Tesseract reads: a larger one is
	// scaled down to it once decoded, since Tesseract holds about ten
	// bytes a pixel; default DefaultMaxPixels (core/extract's
	// MaxPagePixels, which bounds the pages it draws the same way).
	MaxPixels int
	// MaxDecodeBytes bounds an image's decoding: an image is checked by
	// its header first, and one whose pixels would take more (colour
	// takes four bytes a pixel, grey one) is refused with ErrTooLarge,
	// unless it is a JPEG, which libjpeg decodes at a half, a quarter or
	// an eighth of its size; default DefaultMaxDecodeBytes (core/extract's
	// MaxImageBytes).
	MaxDecodeBytes int64
}

// Options.MaxPixels's and MaxDecodeBytes's defaults.
const (
	DefaultMaxPixels      = 10_000_000
	DefaultMaxDecodeBytes = 48 << 20
)

func (o Options) languages() []string {
	l := strings.TrimSpace(o.Languages)
	if l == "" {
		l = "eng"
	}
	return strings.FieldsFunc(l, func(r rune) bool { return r == '+' || r == ',' || r == ' ' })
}

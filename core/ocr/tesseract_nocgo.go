//go:build !cgo || noocr

package ocr

import (
	"context"
	"fmt"
)

// Engine is unavailable in builds without cgo or with the noocr tag.
type Engine struct{}

// New reports that this build has no OCR: Tesseract is linked through cgo,
// and builds without cgo or with the noocr tag leave it out (for a package
// that must run where libtesseract is not installed: a cgo build links it
// dynamically, so its absence would stop the program from starting).
func New(opt Options) (*Engine, error) {
	return nil, fmt.Errorf("%w: this build of Cairn was compiled without Tesseract (no cgo, or the noocr tag)", ErrUnavailable)
}

// Page is what OCR read on one image.
type Page struct {
	Text       string
	Confidence int
	Mode       int
	Skew       float64
}

// Recognize always fails in builds without cgo.
func (e *Engine) Recognize(ctx context.Context, img []byte) (string, int, error) {
	return "", 0, ErrUnavailable
}

// Read always fails in builds without cgo.
func (e *Engine) Read(ctx context.Context, img []byte) (Page, error) {
	return Page{}, ErrUnavailable
}

// RecognizeTIFFPage always fails in builds without cgo.
func (e *Engine) RecognizeTIFFPage(ctx context.Context, tiff []byte, offset int64) (string, int, error) {
	return "", 0, ErrUnavailable
}

// Languages reports no languages.
func (e *Engine) Languages() string { return "" }

// Version reports no version.
func (e *Engine) Version() string { return "" }

// Close does nothing.
func (e *Engine) Close() error { return nil }

//go:build !cgo

package ocr

import (
	"context"
	"fmt"
)

// Engine is unavailable in builds without cgo.
type Engine struct{}

// New reports that this build has no OCR: Tesseract is linked through cgo.
func New(opt Options) (*Engine, error) {
	return nil, fmt.Errorf("%w: this build of Cairn was compiled without cgo, so it cannot link Tesseract", ErrUnavailable)
}

// Recognize always fails in builds without cgo.
func (e *Engine) Recognize(ctx context.Context, img []byte) (string, error) {
	return "", ErrUnavailable
}

// Languages reports no languages.
func (e *Engine) Languages() string { return "" }

// Version reports no version.
func (e *Engine) Version() string { return "" }

// Close does nothing.
func (e *Engine) Close() error { return nil }

//go:build cgo && !noocr

package ocr

import "context"

// ReadAuto reads img with automatic layout only: what Read gives when it
// keeps its first pass.
func (e *Engine) ReadAuto(ctx context.Context, img []byte) (Page, error) {
	return e.readWith(ctx, img, func(recognize func(int) (string, int, error)) (reading, error) {
		text, conf, err := recognize(psmAuto)
		return reading{text, conf, psmAuto}, err
	})
}

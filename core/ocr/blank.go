package ocr

import (
	"bytes"
	"image"
	"image/color"
	"image/png"
)

// Ink thresholds for blankPNG: a pixel darker than inkLevel is ink, and a
// page with fewer than one ink pixel in inkShare (a few specks of a scan)
// holds nothing to read.
const (
	inkLevel = 128
	inkShare = 10_000
)

// blank reports whether img is a greyscale PNG with no ink on it, such as
// the empty left-hand page before a chapter that pdftoppm draws at 300 dpi
// for OCR. Tesseract would spend a second and ~90 MB on it to find
// nothing. Other images (colour, JPEG, ...) are left to Tesseract: decoding
// a large colour photo here would cost more memory than it saves.
func blank(img []byte) bool {
	if !bytes.HasPrefix(img, []byte("\x89PNG\r\n\x1a\n")) {
		return false
	}
	cfg, err := png.DecodeConfig(bytes.NewReader(img))
	if err != nil || cfg.ColorModel != color.GrayModel {
		return false
	}
	m, err := png.Decode(bytes.NewReader(img))
	g, ok := m.(*image.Gray)
	if err != nil || !ok {
		return false
	}
	ink := 0
	for _, p := range g.Pix {
		if p < inkLevel {
			ink++
		}
	}
	return ink*inkShare < len(g.Pix)
}

//go:build cgo && !noocr

package ocr

import (
	"bytes"
	"cairn/internal/skip"
	"context"
	"image"
	"image/color"
	"image/jpeg"
	"image/png"
	"testing"
)

// page is a white greyscale page of 300 dpi A4-ish size with ink dark
// pixels spread over it.
func page(ink int) *image.Gray {
	g := image.NewGray(image.Rect(0, 0, 2480, 3508))
	for i := range g.Pix {
		g.Pix[i] = 0xF8
	}
	for i := range ink {
		g.Pix[(i*7919)%len(g.Pix)] = 0x10
	}
	return g
}

func encodePNG(t *testing.T, m image.Image) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := png.Encode(&b, m); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// TestBlankPagesAreRecognisedWithoutTesseract: a page without ink is known
// blank once decoded, in any format (colour PNG, as pdftoppm draws pages,
// 16-bit grey, JPEG), and Tesseract is not run on it; a page with a line
// of text's worth of ink is read.
func TestBlankPagesAreRecognisedWithoutTesseract(t *testing.T) {
	e, err := New(Options{})
	if err != nil {
		skip.Because(t, "needs Tesseract with its English data (Debian packages libtesseract-dev tesseract-ocr-eng; make installs them): "+err.Error())
	}
	defer e.Close()
	rgb := image.NewRGBA(image.Rect(0, 0, 800, 1000))
	for i := range rgb.Pix {
		rgb.Pix[i] = 0xFF
	}
	grey16 := image.NewGray16(image.Rect(0, 0, 800, 1000))
	for y := range 1000 {
		for x := range 800 {
			grey16.SetGray16(x, y, color.Gray16{Y: 0xFFFF})
		}
	}
	var jpg bytes.Buffer
	jpeg.Encode(&jpg, page(0), nil)
	for _, tc := range []struct {
		name string
		img  []byte
		want bool
	}{
		{"white page", encodePNG(t, page(0)), true},
		{"a few specks of a scan", encodePNG(t, page(300)), true},
		{"a line of text's worth of ink", encodePNG(t, page(20_000)), false},
		{"colour PNG", encodePNG(t, rgb), true},
		{"16-bit grey PNG", encodePNG(t, grey16), true},
		{"JPEG", jpg.Bytes(), true},
	} {
		ran := false
		_, err = e.readWith(context.Background(), tc.img, func(recognize func(int) (string, int, error)) (reading, error) {
			ran = true
			return reading{}, nil
		})
		if err != nil || ran == tc.want {
			t.Errorf("%s: Tesseract ran %v (%v), want blank %v", tc.name, ran, err, tc.want)
		}
	}
}

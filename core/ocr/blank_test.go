package ocr

import (
	"bytes"
	"image"
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

func TestBlankPagesAreRecognisedWithoutTesseract(t *testing.T) {
	rgb := image.NewRGBA(image.Rect(0, 0, 100, 100))
	for i := range rgb.Pix {
		rgb.Pix[i] = 0xFF
	}
	grey16 := image.NewGray16(image.Rect(0, 0, 100, 100))
	for i := range grey16.Pix {
		grey16.Pix[i] = 0xFF
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
		{"colour PNG", encodePNG(t, rgb), false},
		{"16-bit grey PNG", encodePNG(t, grey16), false},
		{"JPEG", jpg.Bytes(), false},
		{"not an image", []byte("\x89PNG\r\n\x1a\nbroken"), false},
	} {
		if got := blank(tc.img); got != tc.want {
			t.Errorf("%s: blank = %v, want %v", tc.name, got, tc.want)
		}
	}
}

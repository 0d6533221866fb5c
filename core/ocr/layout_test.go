//go:build cgo && !noocr

package ocr_test

import (
	"bytes"
	"image"
	"image/color"
	"image/draw"
	"image/png"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"golang.org/x/image/font"
	"golang.org/x/image/font/gofont/goregular"
	"golang.org/x/image/font/opentype"
	"golang.org/x/image/math/fixed"
)

// block is text drawn at (x, y), the baseline of its first line, in
// pixels; each string of lines is one line.
type block struct {
	x, y  int
	lines []string
}

// page draws blocks in black Go Regular on a white page of w×h pixels,
// turned by skew degrees, as a 300-dpi scan of 11-point print.
func page(t *testing.T, w, h int, skew float64, blocks ...block) []byte {
	t.Helper()
	f, err := opentype.Parse(goregular.TTF)
	if err != nil {
		t.Fatal(err)
	}
	face, err := opentype.NewFace(f, &opentype.FaceOptions{Size: 11, DPI: 300, Hinting: font.HintingFull})
	if err != nil {
		t.Fatal(err)
	}
	img := image.NewGray(image.Rect(0, 0, w, h))
	draw.Draw(img, img.Bounds(), image.White, image.Point{}, draw.Src)
	d := font.Drawer{Dst: img, Src: image.Black, Face: face}
	lineHeight := face.Metrics().Height.Ceil() + 8
	for _, b := range blocks {
		for i, l := range b.lines {
			d.Dot = fixed.P(b.x, b.y+i*lineHeight)
			d.DrawString(l)
		}
	}
	out := img
	if skew != 0 {
		out = image.NewGray(img.Bounds())
		sin, cos := math.Sincos(skew * math.Pi / 180)
		cx, cy := float64(w)/2, float64(h)/2
		for y := range h {
			for x := range w {
				dx, dy := float64(x)-cx, float64(y)-cy
				sx, sy := int(cx+dx*cos+dy*sin), int(cy-dx*sin+dy*cos)
				c := color.Gray{Y: 255}
				if sx >= 0 && sy >= 0 && sx < w && sy < h {
					c = img.GrayAt(sx, sy)
				}
				out.SetGray(x, y, c)
			}
		}
	}
	var buf bytes.Buffer
	if err := png.Encode(&buf, out); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// oneLine folds whitespace, so a sentence broken over lines reads as one.
func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// Two columns side by side are read column by column, as the tesseract
// command does (automatic layout), not line by line across both columns
// (a single block, the Tesseract API's default), which cut every sentence
// in pieces and put half-sentences of the other column between them.
func TestTwoColumnsReadInOrder(t *testing.T) {
	left := []string{"The north cairn leans", "west of the river and", "marks the old ford", "used by the drovers", "who crossed it with", "their herds each year."}
	right := []string{"Bring a longer tape", "measure and a compass", "when you survey the", "eastern ridge in June", "and note where the", "path turns to the left."}
	img := page(t, 2550, 1200, 0, block{200, 250, left}, block{1400, 250, right})
	e := engine(t)
	p, err := e.Read(t.Context(), img)
	if err != nil {
		t.Fatal(err)
	}
	got := oneLine(p.Text)
	for _, col := range [][]string{left, right} {
		if want := oneLine(strings.Join(col, " ")); !strings.Contains(got, want) {
			t.Errorf("column %q not read in order:\n%s", want, p.Text)
		}
	}
	if p.Mode != 3 || p.Confidence < 80 {
		t.Errorf("mode %d confidence %d, want automatic layout (3) read with confidence >= 80", p.Mode, p.Confidence)
	}
}

// A page fed askew by two degrees is turned upright before it is read, and
// the angle is reported.
func TestSkewedPageIsStraightened(t *testing.T) {
	lines := []string{"Scanned survey notes from the spring walk", "The north cairn leans west of the river", "Bring a longer tape measure next time"}
	img := page(t, 2400, 900, 2, block{150, 300, lines})
	p, err := engine(t).Read(t.Context(), img)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := oneLine(p.Text), oneLine(strings.Join(lines, " ")); got != want {
		t.Errorf("text = %q, want %q", got, want)
	}
	if math.Abs(math.Abs(p.Skew)-2) > 0.3 {
		t.Errorf("skew = %.2f degrees, want about 2", p.Skew)
	}
}

// A page whose grain hides its text blocks from automatic layout (150 dpi,
// grey noise of σ 50) is read again as one block, which finds the text.
// Before, the second pass used automatic layout again, and a reading
// without words (rated 95 by Tesseract) was not read again at all.
func TestUnsurePageIsReadAgainAsOneBlock(t *testing.T) {
	lines := []string{"The north cairn leans west of the river and marks the old ford", "used by the drovers who crossed it with their herds each year.",
		"Bring a longer tape measure and a compass when you survey the", "eastern ridge in June and note where the path turns left."}
	img := noisyPage(t, 1350, 300, 150, 50, lines)
	e := engine(t)
	auto, err := e.ReadAuto(t.Context(), img)
	if err != nil {
		t.Fatal(err)
	}
	if strings.TrimSpace(auto.Text) != "" {
		t.Fatalf("the fixture no longer defeats automatic layout: %q", auto.Text)
	}
	p, err := e.Read(t.Context(), img)
	if err != nil {
		t.Fatal(err)
	}
	if p.Mode != 6 || !strings.Contains(oneLine(p.Text), "marks the old ford") {
		t.Errorf("mode %d, text %q: want one block (6) holding %q", p.Mode, oneLine(p.Text), "marks the old ford")
	}
}

// noisyPage draws lines of 11-point Go Regular at dpi on a w×h page and
// adds grey noise of standard deviation sigma, the same for every run.
func noisyPage(t *testing.T, w, h int, dpi, sigma float64, lines []string) []byte {
	t.Helper()
	f, err := opentype.Parse(goregular.TTF)
	if err != nil {
		t.Fatal(err)
	}
	face, err := opentype.NewFace(f, &opentype.FaceOptions{Size: 11, DPI: dpi, Hinting: font.HintingFull})
	if err != nil {
		t.Fatal(err)
	}
	img := image.NewGray(image.Rect(0, 0, w, h))
	draw.Draw(img, img.Bounds(), image.White, image.Point{}, draw.Src)
	d := font.Drawer{Dst: img, Src: image.Black, Face: face}
	for i, l := range lines {
		d.Dot = fixed.P(int(dpi/3), int(dpi/2)+i*face.Metrics().Height.Ceil())
		d.DrawString(l)
	}
	r := rand.New(rand.NewPCG(1, 2))
	for i, v := range img.Pix {
		img.Pix[i] = uint8(max(0, min(255, float64(v)+r.NormFloat64()*sigma)))
	}
	var buf bytes.Buffer
	if err := png.Encode(&buf, img); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

package bench

import (
	"bytes"
	"context"
	"fmt"
	"hash/crc32"
	"image"
	"image/color"
	"image/png"
	"math"
	"math/rand/v2"
	"os/exec"
	"strconv"
)

// ScanOptions describe how a scanned page is imitated from a PDF page.
type ScanOptions struct {
	DPI     int     // render resolution; 150 is a cheap office scan, 300 a good one
	Skew    float64 // rotation in degrees, as a sheet fed slightly askew
	Noise   float64 // standard deviation of the grey noise added, 0-255
	Speckle float64 // share of pixels flipped to black or white, e.g. 0.002
	Seed    uint64  // the noise is reproducible for a seed
}

// NoisyScan is a 150-dpi scan of an office copier: a little askew, grainy,
// with dust. The tesseract CLI reads such pages at F1 0.8-0.9.
var NoisyScan = ScanOptions{DPI: 150, Skew: 0.8, Noise: 28, Speckle: 0.001, Seed: 1}

// ScanPDFPage renders page n (1-based) of a PDF at opt.DPI as a grey PNG
// with pdftoppm and degrades it as opt says. The PNG records its
// resolution, as a scanner's file does. It also returns pdftotext's text of
// the page, the reference OCR is scored against.
func ScanPDFPage(ctx context.Context, pdf []byte, n int, opt ScanOptions) (img []byte, ref string, err error) {
	p := strconv.Itoa(n)
	run := func(name string, args ...string) ([]byte, error) {
		cmd := exec.CommandContext(ctx, name, args...)
		cmd.Stdin = bytes.NewReader(pdf)
		out, err := cmd.Output()
		if err != nil {
			return nil, fmt.Errorf("%s page %d: %w", name, n, err)
		}
		return out, nil
	}
	out, err := run("pdftoppm", "-f", p, "-l", p, "-r", strconv.Itoa(opt.DPI), "-gray", "-png", "-singlefile", "-")
	if err != nil {
		return nil, "", err
	}
	txt, err := run("pdftotext", "-f", p, "-l", p, "-enc", "UTF-8", "-", "-")
	if err != nil {
		return nil, "", err
	}
	src, err := png.Decode(bytes.NewReader(out))
	if err != nil {
		return nil, "", fmt.Errorf("page %d as rendered: %w", n, err)
	}
	g := Degrade(src, opt)
	var buf bytes.Buffer
	if err := png.Encode(&buf, g); err != nil {
		return nil, "", err
	}
	return withDPI(buf.Bytes(), opt.DPI), string(txt), nil
}

// Degrade rotates src by opt.Skew degrees about its centre (white
// outside), then adds grey noise and speckles.
func Degrade(src image.Image, opt ScanOptions) *image.Gray {
	b := src.Bounds()
	w, h := b.Dx(), b.Dy()
	gray, ok := src.(*image.Gray)
	if !ok {
		gray = image.NewGray(b)
		for y := b.Min.Y; y < b.Max.Y; y++ {
			for x := b.Min.X; x < b.Max.X; x++ {
				gray.Set(x, y, color.GrayModel.Convert(src.At(x, y)))
			}
		}
	}
	dst := image.NewGray(image.Rect(0, 0, w, h))
	sin, cos := math.Sincos(opt.Skew * math.Pi / 180)
	cx, cy := float64(w)/2, float64(h)/2
	rng := rand.New(rand.NewPCG(opt.Seed, 0x5ca7))
	for y := range h {
		for x := range w {
			// Sample the source at the inverse rotation of (x, y).
			dx, dy := float64(x)-cx, float64(y)-cy
			sx, sy := cx+dx*cos+dy*sin, cy-dx*sin+dy*cos
			v := 255.0
			ix, iy := int(sx), int(sy)
			if ix >= 0 && iy >= 0 && ix+1 < w && iy+1 < h {
				fx, fy := sx-float64(ix), sy-float64(iy)
				at := func(x, y int) float64 { return float64(gray.Pix[y*gray.Stride+x]) }
				v = at(ix, iy)*(1-fx)*(1-fy) + at(ix+1, iy)*fx*(1-fy) + at(ix, iy+1)*(1-fx)*fy + at(ix+1, iy+1)*fx*fy
			}
			v += rng.NormFloat64() * opt.Noise
			if r := rng.Float64(); r < opt.Speckle/2 {
				v = 0
			} else if r < opt.Speckle {
				v = 255
			}
			dst.Pix[y*dst.Stride+x] = uint8(max(0, min(255, v)))
		}
	}
	return dst
}

// withDPI inserts a pHYs chunk after the IHDR of an encoded PNG, so
// Tesseract knows the resolution instead of estimating it.
func withDPI(p []byte, dpi int) []byte {
	const ihdrEnd = 8 + 8 + 13 + 4 // signature, IHDR length+type, data, CRC
	if dpi <= 0 || len(p) < ihdrEnd {
		return p
	}
	ppm := uint32(math.Round(float64(dpi) / 0.0254))
	data := []byte{byte(ppm >> 24), byte(ppm >> 16), byte(ppm >> 8), byte(ppm), byte(ppm >> 24), byte(ppm >> 16), byte(ppm >> 8), byte(ppm), 1}
	var chunk bytes.Buffer
	chunk.Write([]byte{0, 0, 0, 9})
	chunk.WriteString("pHYs")
	chunk.Write(data)
	crc := crc32.ChecksumIEEE(append([]byte("pHYs"), data...))
	chunk.Write([]byte{byte(crc >> 24), byte(crc >> 16), byte(crc >> 8), byte(crc)})
	out := append([]byte{}, p[:ihdrEnd]...)
	out = append(out, chunk.Bytes()...)
	return append(out, p[ihdrEnd:]...)
}

// Command iconmaker draws Cairn's icon: a cairn of four stones on a rounded
// slate-blue square, anti-aliased by 4x4 supersampling. `go generate
// ./resources` writes resources/icon.png with it.
package main

import (
	"flag"
	"image"
	"image/color"
	"image/png"
	"log"
	"math"
	"os"
)

const ss = 4 // samples per pixel per axis

type stone struct{ cx, cy, rx, ry float64 }

func main() {
	out := flag.String("o", "icon.png", "output file")
	size := flag.Int("size", 512, "width and height in pixels")
	flag.Parse()
	img := draw(*size)
	f, err := os.Create(*out)
	if err != nil {
		log.Fatal(err)
	}
	if err := png.Encode(f, img); err != nil {
		log.Fatal(err)
	}
	if err := f.Close(); err != nil {
		log.Fatal(err)
	}
}

// draw renders the icon; coordinates are in a unit square.
func draw(n int) *image.NRGBA {
	stones := []stone{ // bottom to top
		{0.50, 0.745, 0.285, 0.095},
		{0.49, 0.585, 0.215, 0.080},
		{0.515, 0.445, 0.160, 0.068},
		{0.50, 0.325, 0.105, 0.058},
	}
	img := image.NewNRGBA(image.Rect(0, 0, n, n))
	for py := 0; py < n; py++ {
		for px := 0; px < n; px++ {
			var r, g, b, a float64
			for sy := 0; sy < ss; sy++ {
				for sx := 0; sx < ss; sx++ {
					x := (float64(px) + (float64(sx)+0.5)/ss) / float64(n)
					y := (float64(py) + (float64(sy)+0.5)/ss) / float64(n)
					c, ok := sample(x, y, stones)
					if ok {
						r, g, b, a = r+c[0], g+c[1], b+c[2], a+1
					}
				}
			}
			if a == 0 {
				continue
			}
			k := float64(ss * ss)
			img.SetNRGBA(px, py, color.NRGBA{R: u8(r / a), G: u8(g / a), B: u8(b / a), A: u8(a / k)})
		}
	}
	return img
}

// sample returns the colour at x, y and whether the icon covers it.
func sample(x, y float64, stones []stone) ([3]float64, bool) {
	if !inRoundedSquare(x, y, 0.04, 0.18) {
		return [3]float64{}, false
	}
	// Background: slate blue, lighter towards the top.
	t := y
	bg := [3]float64{0x3b + (0x2a-0x3b)*t, 0x6e + (0x4d-0x6e)*t, 0xa5 + (0x78-0xa5)*t}
	// Ground shadow under the cairn.
	if d := sq((x-0.5)/0.33) + sq((y-0.845)/0.04); d < 1 {
		bg = mix(bg, [3]float64{0x1c, 0x33, 0x50}, 0.55*(1-d))
	}
	col := bg
	for i, s := range stones {
		d := sq((x-s.cx)/s.rx) + sq((y-s.cy)/s.ry)
		if d > 1 {
			continue
		}
		// Stones get lighter towards the top; each is lit from the upper
		// left, with a soft rim.
		base := 0xd9 + float64(i)*0x09
		light := -((x - s.cx) / s.rx * 0.35) - ((y - s.cy) / s.ry * 0.65)
		v := base + light*26 - math.Pow(d, 6)*40
		col = [3]float64{v - 6, v - 2, v + 4}
	}
	return col, true
}

func inRoundedSquare(x, y, margin, radius float64) bool {
	lo, hi := margin, 1-margin
	if x < lo || x > hi || y < lo || y > hi {
		return false
	}
	cx := math.Max(lo+radius, math.Min(x, hi-radius))
	cy := math.Max(lo+radius, math.Min(y, hi-radius))
	return sq(x-cx)+sq(y-cy) <= radius*radius
}

func mix(a, b [3]float64, t float64) [3]float64 {
	return [3]float64{a[0] + (b[0]-a[0])*t, a[1] + (b[1]-a[1])*t, a[2] + (b[2]-a[2])*t}
}

func sq(v float64) float64 { return v * v }

func u8(v float64) uint8 { return uint8(math.Max(0, math.Min(255, math.Round(v)))) }

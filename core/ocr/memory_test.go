//go:build cgo && !noocr

package ocr

import (
	"context"
	"os"
	"strconv"
	"strings"
	"testing"

	"cairn/internal/skip"
)

// rssMB is this process's resident memory.
func rssMB(t *testing.T) int {
	t.Helper()
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		skip.Because(t, "Linux only: reads /proc/self/status")
	}
	for _, l := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(l, "VmRSS:"); ok {
			kb, _ := strconv.Atoi(strings.TrimSuffix(strings.TrimSpace(v), " kB"))
			return kb >> 10
		}
	}
	skip.Because(t, "Linux only: reads VmRSS from /proc/self/status")
	return 0
}

// TestRecognisedPagesGiveTheirMemoryBack: Tesseract needs ~90 MB for a
// 300 dpi page; once the page is read, that memory goes back to the system
// instead of staying with the instance and glibc's arenas (issue 14,
// item 10: 25 pages of one manual took `cairn index` from 120 to 309 MB).
func TestRecognisedPagesGiveTheirMemoryBack(t *testing.T) {
	e, err := New(Options{})
	if err != nil {
		skip.Because(t, "needs Tesseract with its English data (Debian packages libtesseract-dev tesseract-ocr-eng; make installs them): "+err.Error())
	}
	defer e.Close()
	// A page of word-sized blocks in lines: work for the layout analysis.
	g := page(0)
	for y := 200; y < 3300; y += 60 {
		for x := 200; x < 2300; x += 140 {
			for dy := range 30 {
				for dx := range 100 {
					g.Pix[(y+dy)*g.Stride+x+dx] = 0x10
				}
			}
		}
	}
	img := encodePNG(t, g)
	before := rssMB(t)
	for range 3 {
		if _, _, err := e.Recognize(context.Background(), img); err != nil {
			t.Fatal(err)
		}
	}
	if grown := rssMB(t) - before; grown > 40 {
		t.Errorf("resident memory grew %d MB over 3 recognised pages, want under 40", grown)
	} else {
		t.Logf("resident memory grew %d MB over 3 recognised pages", grown)
	}
}

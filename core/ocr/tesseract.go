//go:build cgo && !noocr

package ocr

import (
	"bytes"
	"context"
	"fmt"
	"image"
	"image/png"
	"slices"
	"strings"
	"sync"

	"github.com/otiai10/gosseract/v2"
)

// Engine recognises text through a small pool of Tesseract instances. It is
// safe for concurrent use; Close releases the instances.
type Engine struct {
	pool  chan *gosseract.Client
	langs []string
	ver   string
	blank []byte // a tiny blank PNG, recognised to free a page's memory
}

// New starts Tesseract with the configured languages and checks that it
// really works by recognising a blank image, so a missing or broken
// installation is reported now rather than on the first scanned page.
func New(opt Options) (*Engine, error) {
	langs := opt.languages()
	if opt.TessdataDir == "" {
		have, err := gosseract.GetAvailableLanguages()
		if err == nil && len(have) > 0 {
			for _, l := range langs {
				if !slices.Contains(have, l) {
					return nil, fmt.Errorf("%w: Tesseract has no language data for %q (installed: %s); on Debian install tesseract-ocr-%s",
						ErrUnavailable, l, strings.Join(have, ", "), l)
				}
			}
		}
	}
	routeLeptonica()
	n := max(1, opt.Workers)
	e := &Engine{pool: make(chan *gosseract.Client, n), langs: langs, blank: blankPNG()}
	for range n {
		c := gosseract.NewClient()
		if opt.TessdataDir != "" {
			_ = c.SetTessdataPrefix(opt.TessdataDir)
		}
		_ = c.SetLanguage(langs...)
		e.pool <- c
	}
	c := <-e.pool
	e.ver = c.Version()
	_, err := recognize(c, e.blank)
	e.pool <- c
	if err != nil {
		e.Close()
		return nil, fmt.Errorf("%w: Tesseract %s could not start with languages %s: %v (on Debian: apt-get install libtesseract5 tesseract-ocr-eng)",
			ErrUnavailable, e.ver, strings.Join(langs, "+"), err)
	}
	return e, nil
}

// Recognize returns the text of one encoded image (PNG, JPEG, TIFF, BMP,
// GIF or WebP, whatever Leptonica reads). Tesseract cannot be interrupted
// mid-page, so ctx is checked before and after. A greyscale PNG with no
// ink (a blank page) is answered "" without Tesseract.
func (e *Engine) Recognize(ctx context.Context, img []byte) (string, error) {
	if err := ctx.Err(); err != nil {
		return "", err
	}
	if blank(img) {
		return "", nil
	}
	var c *gosseract.Client
	select {
	case c = <-e.pool:
	case <-ctx.Done():
		return "", ctx.Err()
	}
	defer func() { e.pool <- c }()
	text, err := recognize(c, img)
	// The instance holds the page (the decoded image, its thresholded copy
	// and the recognition results) until its next one: recognising a tiny
	// blank image frees them, and the memory goes back to the system.
	recognize(c, e.blank)
	releaseFreedMemory()
	if err != nil {
		return "", err
	}
	return text, ctx.Err()
}

// decodeMu makes one image decode at a time, so the Leptonica messages
// read after a decode are that decode's.
var decodeMu sync.Mutex

func recognize(c *gosseract.Client, img []byte) (string, error) {
	// Leptonica answers an unknown format with no image and Tesseract then
	// returns "" without an error, so the format is checked here.
	if !knownImage(img) {
		return "", fmt.Errorf("%w: not an image format Tesseract reads (PNG, JPEG, TIFF, BMP, GIF, WebP)", ErrUnreadable)
	}
	if bytes.HasPrefix(img, []byte("\x89PNG")) {
		if err := checkPNG(img); err != nil {
			return "", fmt.Errorf("%w: %v", ErrUnreadable, err)
		}
	}
	decodeMu.Lock()
	leptonicaMessages() // earlier messages belong to earlier calls
	err := c.SetImageFromBytes(img)
	msgs := leptonicaMessages()
	decodeMu.Unlock()
	if err != nil {
		return "", fmt.Errorf("ocr: %w", err)
	}
	// gosseract does not report a failed decode; Tesseract would then say
	// "Please call SetImage" on stderr and return no text.
	for _, m := range msgs {
		if strings.Contains(m, "Error in pixReadMem") {
			return "", fmt.Errorf("%w: Leptonica could not decode it: %s", ErrUnreadable, strings.Join(msgs, "; "))
		}
	}
	text, err := c.Text()
	leptonicaMessages()
	if err != nil {
		return "", fmt.Errorf("ocr: %w", err)
	}
	return text, nil
}

// Languages reports the languages the engine recognises, e.g. "eng".
func (e *Engine) Languages() string { return strings.Join(e.langs, "+") }

// Version reports Tesseract's version.
func (e *Engine) Version() string { return e.ver }

// Close releases the Tesseract instances. It is safe on a nil Engine.
func (e *Engine) Close() error {
	if e == nil {
		return nil
	}
	for range cap(e.pool) {
		c := <-e.pool
		c.Close()
	}
	return nil
}

// blankPNG is a small white image: enough for Tesseract to load its
// language data and prove it runs.
func blankPNG() []byte {
	img := image.NewGray(image.Rect(0, 0, 32, 32))
	for i := range img.Pix {
		img.Pix[i] = 0xFF
	}
	var buf bytes.Buffer
	_ = png.Encode(&buf, img)
	return buf.Bytes()
}

func knownImage(b []byte) bool {
	for _, magic := range []string{"\x89PNG\r\n\x1a\n", "\xff\xd8\xff", "II*\x00", "MM\x00*", "BM", "GIF87a", "GIF89a"} {
		if bytes.HasPrefix(b, []byte(magic)) {
			return true
		}
	}
	return len(b) >= 12 && string(b[:4]) == "RIFF" && string(b[8:12]) == "WEBP"
}

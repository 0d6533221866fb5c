//go:build cgo && !noocr

package ocr

/*
#cgo LDFLAGS: -ltesseract -llept -lm
#define _GNU_SOURCE
#include <dlfcn.h>
#include <math.h>
#include <stdlib.h>
#include <tesseract/capi.h>
#include <leptonica/allheaders.h>

// cairn_read_mem decodes an image; Leptonica says why on its stderr
// handler when it cannot.
static PIX *cairn_read_mem(const void *data, size_t n) { return pixReadMem((const l_uint8 *)data, n); }

static void cairn_pix_destroy(PIX *p) { pixDestroy(&p); }

// cairn_header reads an image's size and depth without decoding it.
static int cairn_header(const void *data, size_t n, l_int32 *format, l_int32 *w, l_int32 *h, l_int32 *bps, l_int32 *spp) {
	l_int32 cmap = 0;
	return pixReadHeaderMem((const l_uint8 *)data, n, format, w, h, bps, spp, &cmap);
}

// cairn_read_jpeg decodes a JPEG at 1/reduction of its size (1, 2, 4 or
// 8): libjpeg scales while it decodes, so the full image never exists.
static PIX *cairn_read_jpeg(const void *data, size_t n, int reduction) {
	return pixReadMemJpeg((const l_uint8 *)data, n, 0, reduction, NULL, 0);
}

// cairn_read_tiff decodes the first page of a TIFF.
static PIX *cairn_read_tiff(const void *data, size_t n) { return pixReadMemTiff((const l_uint8 *)data, n, 0); }

// cairn_fit turns pix into 8-bit grey (Tesseract reads grey; a colour
// page holds four bytes a pixel) no larger than maxpx pixels, destroying
// pix; NULL when Leptonica cannot.
static PIX *cairn_fit(PIX *pix, double maxpx) {
	PIX *g = pix;
	if (pixGetDepth(pix) != 8 || pixGetColormap(pix) != NULL) {
		g = pixConvertTo8(pix, 0);
		pixDestroy(&pix);
		if (g == NULL) return NULL;
	}
	double px = (double)pixGetWidth(g) * (double)pixGetHeight(g);
	if (px <= maxpx) return g;
	float s = (float)sqrt(maxpx / px);
	PIX *small = pixScale(g, s, s);
	pixDestroy(&g);
	return small;
}

// cairn_ink counts the pixels of an 8-bit grey image darker than 128.
static l_int32 cairn_ink(PIX *pix) {
	PIX *bin = pixThresholdToBinary(pix, 128);
	if (bin == NULL) return -1;
	l_int32 n = 0;
	pixCountPixels(bin, &n, NULL);
	pixDestroy(&bin);
	return n;
}

// cairn_recognize recognises on the calling thread only. Debian's
// Tesseract is built with OpenMP and asks for several threads per text
// line (num_threads clauses, which omp_set_num_threads does not override);
// those threads spin while they wait, and on a busy two-core machine a
// noisy page took 12.4 s with them and 1.3 s without (the CLI: 4.4 s and
// 0.8 s). OMP_THREAD_LIMIT would do it, but libgomp reads it before Go
// starts; a maximum of 0 active parallel levels has the same effect. It is
// a setting of the calling OS thread, and Go moves goroutines between
// threads, so it is set in the same C call. Cairn reads pages in parallel
// through Options.Workers instead. The function is looked up at run time,
// so a Tesseract built without OpenMP works too.
static int cairn_recognize(TessBaseAPI *api) {
	void (*set_levels)(int) = (void (*)(int))dlsym(RTLD_DEFAULT, "omp_set_max_active_levels");
	if (set_levels != NULL) set_levels(0);
	return TessBaseAPIRecognize(api, NULL);
}

// cairn_deskew returns the image turned upright when Leptonica finds a
// skew it is confident of, or NULL when the image is straight enough.
// pixFindSkew works on one bit per pixel, so the image is binarised first.
static PIX *cairn_deskew(PIX *pix, float *angle) {
	*angle = 0;
	PIX *bin = NULL;
	if (pixGetDepth(pix) == 1) {
		bin = pixClone(pix);
	} else {
		PIX *gray = pixConvertTo8(pix, 0);
		if (gray == NULL) return NULL;
		bin = pixThresholdToBinary(gray, 160);
		pixDestroy(&gray);
	}
	if (bin == NULL) return NULL;
	l_float32 a = 0, conf = 0;
	l_ok bad = pixFindSkew(bin, &a, &conf);
	pixDestroy(&bin);
	// Below 0.1 degree rotating costs more than it brings; a confidence
	// under 3 is Leptonica's own threshold for "no reliable answer".
	if (bad || conf < 3.0 || (a > -0.1 && a < 0.1)) return NULL;
	*angle = a;
	return pixRotate(pix, a * 3.14159265f / 180.0f, L_ROTATE_AREA_MAP, L_BRING_IN_WHITE, 0, 0);
}
*/
import "C"

import (
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"image"
	"image/png"
	"math"
	"os"
	"runtime"
	"slices"
	"strings"
	"sync"
	"unsafe"
)

// Engine recognises text through a small pool of Tesseract instances,
// started as they are needed. It is safe for concurrent use; Close
// releases the instances.
type Engine struct {
	slots chan struct{} // one per instance that may run; taken while recognising
	idle  chan *client  // started instances not in use
	dir   string
	langs []string
	ver   string
	// maxPixels is the largest image Tesseract is given: larger ones are
	// scaled down to it first (Options.MaxPixels).
	maxPixels float64
	maxDecode int64 // Options.MaxDecodeBytes
}

// client is one initialised Tesseract instance; one goroutine uses it at a
// time.
type client struct{ api *C.TessBaseAPI }

// New starts Tesseract with the configured languages and checks that it
// really works by recognising a blank image, so a missing or broken
// installation is reported now rather than on the first scanned page.
func New(opt Options) (*Engine, error) {
	langs := opt.languages()
	routeLeptonica()
	n := opt.Workers
	if n <= 0 {
		// Each instance recognises on one thread (cairn_recognize), so
		// pages of several files are read at once; four instances bound
		// the memory (30-100 MB each).
		n = min(runtime.GOMAXPROCS(0), 4)
	}
	e := &Engine{slots: make(chan struct{}, n), idle: make(chan *client, n), dir: opt.TessdataDir, langs: langs,
		ver: C.GoString(C.TessVersion()), maxPixels: float64(opt.MaxPixels), maxDecode: opt.MaxDecodeBytes}
	if e.maxPixels <= 0 {
		e.maxPixels = DefaultMaxPixels
	}
	if e.maxDecode <= 0 {
		e.maxDecode = DefaultMaxDecodeBytes
	}
	c, err := newClient(opt.TessdataDir, langs, true)
	if err != nil {
		return nil, err
	}
	pix, err := e.decode(blankPNG())
	if err == nil {
		_, err = c.read(pix, bestReading)
		C.cairn_pix_destroy(pix)
	}
	if err != nil {
		c.close()
		return nil, fmt.Errorf("%w: Tesseract %s could not start with languages %s: %v (on Debian: apt-get install libtesseract5 tesseract-ocr-eng)",
			ErrUnavailable, e.ver, strings.Join(langs, "+"), err)
	}
	e.idle <- c
	return e, nil
}

func newClient(dir string, langs []string, checkLangs bool) (*client, error) {
	api := C.TessBaseAPICreate()
	// Tesseract writes its progress ("Estimating resolution as 312") and
	// errors to stderr, where they would interleave with Cairn's output;
	// errors are reported below from what Init returns instead.
	setVariable(api, "debug_file", os.DevNull)
	var cdir *C.char
	if dir != "" {
		cdir = C.CString(dir)
		defer C.free(unsafe.Pointer(cdir))
	}
	clang := C.CString(strings.Join(langs, "+"))
	defer C.free(unsafe.Pointer(clang))
	if C.TessBaseAPIInit3(api, cdir, clang) != 0 {
		C.TessBaseAPIDelete(api)
		return nil, fmt.Errorf("%w: Tesseract could not load the language data for %s (on Debian: apt-get install libtesseract5 tesseract-ocr-eng)",
			ErrUnavailable, strings.Join(langs, "+"))
	}
	leptonicaMessages() // Init's own chatter
	// Init succeeds when one of several languages loads, so each is checked.
	if checkLangs {
		have := availableLanguages(api)
		for _, l := range langs {
			if !slices.Contains(have, l) {
				(&client{api: api}).close()
				return nil, fmt.Errorf("%w: Tesseract has no language data for %q (installed: %s); on Debian install tesseract-ocr-%s",
					ErrUnavailable, l, strings.Join(have, ", "), l)
			}
		}
	}
	return &client{api: api}, nil
}

func setVariable(api *C.TessBaseAPI, name, value string) {
	n, v := C.CString(name), C.CString(value)
	defer C.free(unsafe.Pointer(n))
	defer C.free(unsafe.Pointer(v))
	C.TessBaseAPISetVariable(api, n, v)
}

// availableLanguages lists the traineddata Tesseract found; it needs an api
// that tried Init, which sets the data path.
func availableLanguages(api *C.TessBaseAPI) []string {
	v := C.TessBaseAPIGetAvailableLanguagesAsVector(api)
	if v == nil {
		return nil
	}
	defer C.TessDeleteTextArray(v)
	var out []string
	for p := v; *p != nil; p = (**C.char)(unsafe.Add(unsafe.Pointer(p), unsafe.Sizeof(*p))) {
		out = append(out, C.GoString(*p))
	}
	return out
}

// Page is what OCR read on one image.
type Page struct {
	Text string
	// Confidence is Tesseract's mean word confidence, 0-100; pages of
	// clean print read at 85-95.
	Confidence int
	// Mode is the page segmentation mode whose reading was kept: 3
	// (automatic layout) or 6 (one block).
	Mode int
	// Skew is the angle in degrees the page was turned by before reading;
	// 0 when it was straight.
	Skew float64
}

// Recognize returns the text of one encoded image (PNG, JPEG, TIFF, BMP,
// GIF or WebP, whatever Leptonica reads) and its mean word confidence
// (0-100). Tesseract cannot be interrupted mid-page, so ctx is checked
// before and after.
func (e *Engine) Recognize(ctx context.Context, img []byte) (string, int, error) {
	p, err := e.Read(ctx, img)
	return p.Text, p.Confidence, err
}

// Read is Recognize with the details of how the page was read.
func (e *Engine) Read(ctx context.Context, img []byte) (Page, error) {
	return e.readWith(ctx, img, bestReading)
}

// readWith reads img with the given choice of passes.
func (e *Engine) readWith(ctx context.Context, img []byte, passes passes) (Page, error) {
	return e.readPix(ctx, func() (*C.PIX, error) { return e.decode(img) }, passes)
}

// RecognizeTIFFPage reads one page of a multi-page TIFF: the one whose
// image file directory starts at offset in tiff. That page alone is
// decoded, so the pages of a TIFF are read one at a time, each within the
// bounds of a single image; the caller checks each page's size from its
// directory first. For the call, tiff's header is made to name that page
// first (and put back after): libtiff, asked for a later directory,
// walks the chain from the first one every time, which made 10,000 pages
// take 20 ms each. tiff must not be read by anyone else meanwhile.
func (e *Engine) RecognizeTIFFPage(ctx context.Context, tiff []byte, offset int64) (string, int, error) {
	p, err := e.readPix(ctx, func() (*C.PIX, error) {
		var order binary.ByteOrder
		switch {
		case bytes.HasPrefix(tiff, []byte("II*\x00")):
			order = binary.LittleEndian
		case bytes.HasPrefix(tiff, []byte("MM\x00*")):
			order = binary.BigEndian
		}
		if order == nil || len(tiff) < 8 || offset < 8 || offset >= int64(len(tiff)) || offset > math.MaxUint32 {
			return nil, fmt.Errorf("%w: not a TIFF page", ErrUnreadable)
		}
		first := order.Uint32(tiff[4:8])
		order.PutUint32(tiff[4:8], uint32(offset))
		defer order.PutUint32(tiff[4:8], first)
		decodeMu.Lock()
		leptonicaMessages()
		pix := C.cairn_read_tiff(unsafe.Pointer(&tiff[0]), C.size_t(len(tiff)))
		msgs := leptonicaMessages()
		decodeMu.Unlock()
		if pix == nil {
			return nil, fmt.Errorf("%w: Leptonica could not decode the page: %s", ErrUnreadable, strings.Join(msgs, "; "))
		}
		return e.fit(pix)
	}, bestReading)
	return p.Text, p.Confidence, err
}

// readPix decodes an image (decode: within the engine's bounds, as 8-bit
// grey of at most MaxPixels) and reads it: a page without ink (an empty
// page, a few specks) costs no Tesseract instance.
func (e *Engine) readPix(ctx context.Context, decode func() (*C.PIX, error), passes passes) (Page, error) {
	if err := ctx.Err(); err != nil {
		return Page{}, err
	}
	pix, err := decode()
	if err != nil {
		return Page{}, err
	}
	defer C.cairn_pix_destroy(pix)
	if ink := int64(C.cairn_ink(pix)); ink >= 0 && ink*inkShare < int64(C.pixGetWidth(pix))*int64(C.pixGetHeight(pix)) {
		return Page{}, nil // nothing to read
	}
	select {
	case e.slots <- struct{}{}:
	case <-ctx.Done():
		return Page{}, ctx.Err()
	}
	defer func() { <-e.slots }()
	var c *client
	select {
	case c = <-e.idle:
	default:
		if c, err = newClient(e.dir, e.langs, false); err != nil {
			return Page{}, err
		}
	}
	defer func() { e.idle <- c }()
	p, err := c.read(pix, passes)
	// read clears the instance's page; glibc keeps the freed memory (a
	// 300-dpi page is about 90 MB) unless asked to give it back.
	releaseFreedMemory()
	if err != nil {
		return Page{}, err
	}
	return p, ctx.Err()
}

// decodeMu makes one image decode at a time, so the Leptonica messages
// read after a decode are that decode's.
var decodeMu sync.Mutex

// decode checks img's size from its header and decodes it, at a JPEG's
// reduced size when that is what keeps it within maxDecodeBytes.
func (e *Engine) decode(img []byte) (*C.PIX, error) {
	// Leptonica answers an unknown format with no image, so the format is
	// checked here.
	if !knownImage(img) {
		return nil, fmt.Errorf("%w: not an image format Tesseract reads (PNG, JPEG, TIFF, BMP, GIF, WebP, PGM)", ErrUnreadable)
	}
	if bytes.HasPrefix(img, []byte("\x89PNG")) {
		if err := checkPNG(img); err != nil {
			return nil, fmt.Errorf("%w: %v", ErrUnreadable, err)
		}
	}
	reduction := 1
	decodeMu.Lock()
	defer decodeMu.Unlock()
	leptonicaMessages() // earlier messages belong to earlier calls
	var format, w, h, bps, spp C.l_int32
	if C.cairn_header(unsafe.Pointer(&img[0]), C.size_t(len(img)), &format, &w, &h, &bps, &spp) == 0 {
		cost := decodedBytes(int(w), int(h), int(bps)*int(spp))
		for cost/int64(reduction*reduction) > e.maxDecode {
			if format != C.IFF_JFIF_JPEG || reduction == 8 {
				return nil, fmt.Errorf("%w: %dx%d pixels at %d bits take %d MB to decode, more than the %d MB an image may",
					ErrTooLarge, w, h, bps*spp, cost>>20, e.maxDecode>>20)
			}
			reduction *= 2
		}
	}
	var pix *C.PIX
	if reduction > 1 {
		pix = C.cairn_read_jpeg(unsafe.Pointer(&img[0]), C.size_t(len(img)), C.int(reduction))
	} else {
		pix = C.cairn_read_mem(unsafe.Pointer(&img[0]), C.size_t(len(img)))
	}
	msgs := leptonicaMessages()
	if pix == nil {
		return nil, fmt.Errorf("%w: Leptonica could not decode it: %s", ErrUnreadable, strings.Join(msgs, "; "))
	}
	return e.fit(pix)
}

// decodedBytes is the memory an image of w x h pixels at bits per pixel
// (bits per sample times samples) takes once decoded: a byte a pixel up to
// 8 bits (one bit a pixel is spread to a byte when it is scaled), four
// above (colour).
func decodedBytes(w, h, bits int) int64 {
	px := int64(w) * int64(h)
	if bits > 8 {
		return 4 * px
	}
	return px
}

// fit makes pix 8-bit grey of at most the engine's MaxPixels (destroying
// pix).
func (e *Engine) fit(pix *C.PIX) (*C.PIX, error) {
	g := C.cairn_fit(pix, C.double(e.maxPixels))
	if g == nil {
		return nil, fmt.Errorf("%w: Leptonica could not convert it to grey", ErrUnreadable)
	}
	return g, nil
}

// read straightens pix (8-bit grey) and recognises it in the passes given
// (bestReading: with automatic layout, as the tesseract command does, then
// as a single block when unsure).
func (c *client) read(pix *C.PIX, passes passes) (Page, error) {
	var angle C.float
	page := Page{}
	if straight := C.cairn_deskew(pix, &angle); straight != nil {
		defer C.cairn_pix_destroy(straight)
		pix, page.Skew = straight, float64(angle)
	}
	C.TessBaseAPISetImage2(c.api, pix)
	defer C.TessBaseAPIClear(c.api)
	r, err := passes(c.recognize)
	if err != nil {
		return Page{}, err
	}
	page.Text, page.Confidence, page.Mode = r.text, r.conf, r.mode
	leptonicaMessages()
	return page, nil
}

// recognize reads the image set on c with page segmentation mode psm.
func (c *client) recognize(psm int) (string, int, error) {
	C.TessBaseAPISetPageSegMode(c.api, C.TessPageSegMode(psm))
	if C.cairn_recognize(c.api) != 0 {
		return "", 0, fmt.Errorf("ocr: Tesseract could not recognise the image")
	}
	t := C.TessBaseAPIGetUTF8Text(c.api)
	if t == nil {
		return "", 0, fmt.Errorf("ocr: Tesseract returned no text")
	}
	defer C.TessDeleteText(t)
	return C.GoString(t), int(C.TessBaseAPIMeanTextConf(c.api)), nil
}

// Languages reports the languages the engine recognises, e.g. "eng".
func (e *Engine) Languages() string { return strings.Join(e.langs, "+") }

// Version reports Tesseract's version.
func (e *Engine) Version() string { return e.ver }

// Close waits for the recognitions under way and releases the Tesseract
// instances. It is safe on a nil Engine.
func (e *Engine) Close() error {
	if e == nil {
		return nil
	}
	for range cap(e.slots) {
		e.slots <- struct{}{}
	}
	for {
		select {
		case c := <-e.idle:
			c.close()
		default:
			return nil
		}
	}
}

func (c *client) close() {
	C.TessBaseAPIEnd(c.api)
	C.TessBaseAPIDelete(c.api)
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
	for _, magic := range []string{"\x89PNG\r\n\x1a\n", "\xff\xd8\xff", "II*\x00", "MM\x00*", "BM", "GIF87a", "GIF89a", "P5\n", "P5 "} {
		if bytes.HasPrefix(b, []byte(magic)) {
			return true
		}
	}
	return len(b) >= 12 && string(b[:4]) == "RIFF" && string(b[8:12]) == "WEBP"
}

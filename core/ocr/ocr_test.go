package ocr_test

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"cairn/core/extract"
	"cairn/core/ocr"
)

const fixtures = "../../testdata/formats"

func engine(t *testing.T) *ocr.Engine {
	t.Helper()
	e, err := ocr.New(ocr.Options{Languages: "eng"})
	if err != nil {
		t.Fatalf("Tesseract is a test dependency (make deps installs libtesseract-dev tesseract-ocr-eng): %v", err)
	}
	t.Cleanup(func() { e.Close() })
	return e
}

func extractFile(t *testing.T, r *extract.Registry, name string) *extract.Document {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(fixtures, name))
	if err != nil {
		t.Fatal(err)
	}
	d, err := r.Extract(context.Background(), extract.File{Name: name, Size: int64(len(b)), R: bytes.NewReader(b)})
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return d
}

func TestImagesAreRecognised(t *testing.T) {
	r := extract.NewRegistry(extract.DefaultLimits(), extract.WithOCR(engine(t)))
	for _, name := range []string{"scan.png", "scan.jpg", "scan.tif", "scan.bmp", "scan.gif", "scan.webp"} {
		t.Run(name, func(t *testing.T) {
			d := extractFile(t, r, name)
			if d.Text != "Scanned survey notes\nThe north cairn leans west." {
				t.Errorf("text = %q", d.Text)
			}
			if len(d.Units) != 1 || d.Units[0].Kind != extract.UnitPage || d.Units[0].Number != 1 {
				t.Errorf("units = %+v", d.Units)
			}
		})
	}
}

func TestScannedPDFPageByPage(t *testing.T) {
	for _, engineName := range []extract.PDFEngine{extract.PDFPoppler, extract.PDFPureGo} {
		r := extract.NewRegistry(extract.DefaultLimits(), extract.WithOCR(engine(t)), extract.WithPDFEngine(engineName))
		// mixed.pdf: page 1 has a text layer (read as text), page 2 is a scan.
		d := extractFile(t, r, "mixed.pdf")
		if len(d.Units) != 2 {
			t.Fatalf("%s: units = %+v", engineName, d.Units)
		}
		if got := d.Text[d.Units[1].Start:d.Units[1].End]; got != "Second scanned page\nBring a longer tape measure." {
			t.Errorf("%s: page 2 = %q", engineName, got)
		}
	}
	r := extract.NewRegistry(extract.DefaultLimits(), extract.WithOCR(engine(t)))
	d := extractFile(t, r, "scanned.pdf")
	want := []string{"Scanned survey notes\nThe north cairn leans west.", "Second scanned page\nBring a longer tape measure."}
	for i, u := range d.Units {
		if u.Number != i+1 || i >= len(want) || d.Text[u.Start:u.End] != want[i] {
			t.Errorf("unit %d: %+v %q", i, u, d.Text[u.Start:u.End])
		}
	}
}

func TestMissingLanguageIsReported(t *testing.T) {
	_, err := ocr.New(ocr.Options{Languages: "eng+qaa"})
	if !errors.Is(err, ocr.ErrUnavailable) || !strings.Contains(err.Error(), "tesseract-ocr-qaa") {
		t.Fatalf("err = %v, want ErrUnavailable naming the package to install", err)
	}
}

func TestConcurrentRecognition(t *testing.T) {
	e, err := ocr.New(ocr.Options{Workers: 2})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	img, err := os.ReadFile(filepath.Join(fixtures, "scan.png"))
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	errs := make(chan error, 4)
	for range 4 {
		wg.Go(func() {
			text, _, err := e.Recognize(context.Background(), img)
			if err == nil && !strings.Contains(text, "north cairn") {
				err = errors.New("unexpected text " + text)
			}
			errs <- err
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Error(err)
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, _, err := e.Recognize(ctx, img); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled Recognize: %v", err)
	}
	if e.Languages() != "eng" || e.Version() == "" {
		t.Errorf("languages %q version %q", e.Languages(), e.Version())
	}
}

func TestGarbageImageFails(t *testing.T) {
	e := engine(t)
	if _, _, err := e.Recognize(context.Background(), []byte("not an image")); err == nil {
		t.Error("Recognize of garbage succeeded")
	}
}

// TestMultiPageTIFFPageByPage: each page of a TIFF is decoded on its own
// (Leptonica reads the directory at its offset) and read as a page unit
// (issue 43, item 7).
func TestMultiPageTIFFPageByPage(t *testing.T) {
	r := extract.NewRegistry(extract.DefaultLimits(), extract.WithOCR(engine(t)))
	d := extractFile(t, r, "scan2.tif")
	if len(d.Units) != 2 || d.Units[0].Number != 1 || d.Units[1].Number != 2 {
		t.Fatalf("units = %+v, warnings %q", d.Units, d.Warnings)
	}
	for i, want := range []string{"Scanned survey notes\nThe north cairn leans west.", "Second scanned page\nBring a longer tape measure."} {
		if text := d.Text[d.Units[i].Start:d.Units[i].End]; text != want {
			t.Errorf("page %d: %q, want %q", i+1, text, want)
		}
	}
}

package extract

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"
)

// Fixtures are real files made by testdata/formats/generate.sh (LibreOffice,
// pandoc, pdfTeX, qpdf, img2pdf, Python's email package) and committed.
const fixtureDir = "../../testdata/formats"

func fixtureBytes(t testing.TB, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(fixtureDir, name))
	if err != nil {
		t.Fatalf("fixture %s: %v (run testdata/formats/generate.sh)", name, err)
	}
	return b
}

func fileOf(name string, b []byte) File {
	return File{Name: name, Size: int64(len(b)), R: bytes.NewReader(b)}
}

// extractFixture extracts a fixture through a registry built with opts and
// checks the invariants every document must keep.
func extractFixture(t *testing.T, name string, opts ...Option) (*Document, error) {
	t.Helper()
	return extractFixtureLim(t, name, DefaultLimits(), opts...)
}

func extractFixtureLim(t *testing.T, name string, lim Limits, opts ...Option) (*Document, error) {
	t.Helper()
	b := fixtureBytes(t, name)
	doc, err := NewRegistry(lim, opts...).Extract(context.Background(), fileOf(name, b))
	if err == nil {
		checkDocument(t, doc)
	}
	return doc, err
}

// checkDocument asserts what the chunker relies on: valid UTF-8, units
// sorted, inside the text and not overlapping, headings at their text
// (a PDF's: at a line start).
func checkDocument(t testing.TB, d *Document) {
	t.Helper()
	if !utf8.ValidString(d.Text) {
		t.Errorf("text is not valid UTF-8")
	}
	prevEnd := 0
	for i, u := range d.Units {
		if u.Start < prevEnd || u.End <= u.Start || u.End > len(d.Text) {
			t.Errorf("unit %d (%s %d) [%d:%d] is out of order or range (previous end %d, text %d)", i, u.Kind, u.Number, u.Start, u.End, prevEnd, len(d.Text))
		}
		prevEnd = u.End
	}
	for _, h := range d.Headings {
		switch {
		case h.Offset < 0 || h.Offset > len(d.Text):
			t.Errorf("heading %q at offset %d is outside the text", h.Text, h.Offset)
		case d.Format == "pdf" || d.Format == "epub":
			// A PDF's headings come from its outline, an EPUB's from its
			// table of contents: they name the section, and sit at the
			// start of the line that prints it (which may differ), at
			// the anchor they link to, or at the start of the page.
			if h.Offset > 0 && d.Text[h.Offset-1] != '\n' {
				t.Errorf("heading %q at offset %d is not at a line start", h.Text, h.Offset)
			}
		case d.Format == "markdown":
			// "## Title" and setext titles: the heading is its line.
			if line, _, _ := strings.Cut(d.Text[h.Offset:], "\n"); !strings.Contains(line, h.Text) {
				t.Errorf("heading %q is not on the line at offset %d", h.Text, h.Offset)
			}
		case !strings.HasPrefix(d.Text[h.Offset:], h.Text):
			t.Errorf("heading %q is not at offset %d", h.Text, h.Offset)
		}
	}
}

func mustExtract(t *testing.T, name string, opts ...Option) *Document {
	t.Helper()
	doc, err := extractFixture(t, name, opts...)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return doc
}

func unitText(d *Document, i int) string {
	u := d.Units[i]
	return d.Text[u.Start:u.End]
}

// unitSummary lists units as "kind number label" for exact comparison.
func unitSummary(d *Document) []string {
	var out []string
	for _, u := range d.Units {
		out = append(out, strings.TrimSpace(string(u.Kind)+" "+strconv.Itoa(u.Number)+" "+u.Label))
	}
	return out
}

func headingSummary(d *Document) []string {
	var out []string
	for _, h := range d.Headings {
		out = append(out, strconv.Itoa(h.Level)+" "+h.Text)
	}
	return out
}

func equalStrings(t *testing.T, what string, got, want []string) {
	t.Helper()
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("%s:\n got %q\nwant %q", what, got, want)
	}
}

func contains(t *testing.T, what, s string, subs ...string) {
	t.Helper()
	for _, sub := range subs {
		if !strings.Contains(s, sub) {
			t.Errorf("%s lacks %q in:\n%s", what, sub, s)
		}
	}
}

func lacks(t *testing.T, what, s string, subs ...string) {
	t.Helper()
	for _, sub := range subs {
		if strings.Contains(s, sub) {
			t.Errorf("%s should not contain %q:\n%s", what, sub, s)
		}
	}
}

// wantErr asserts err wraps target (nil: any non-skip failure) and that
// its message says why.
func wantErr(t *testing.T, name string, err, target error, msg string) {
	t.Helper()
	switch {
	case err == nil:
		t.Fatalf("%s: extracted, want an error", name)
	case target != nil && !errors.Is(err, target):
		t.Errorf("%s: error %q does not wrap %q", name, err, target)
	case target == nil && IsSkip(err):
		t.Errorf("%s: error %q is a skip; want a failure", name, err)
	}
	if !strings.Contains(err.Error(), msg) {
		t.Errorf("%s: error %q does not say %q", name, err, msg)
	}
}

// fakeOCR stands in for Tesseract: it records the images it is given.
type fakeOCR struct {
	text       string
	err        error // returned instead of text when set
	confidence int
	images     [][]byte
	pages      []int64 // the TIFF pages asked for, by their directories' offsets
}

// RecognizeTIFFPage reads a page as "page N of the TIFF: " and the text,
// N counted by the offsets asked for.
func (o *fakeOCR) RecognizeTIFFPage(ctx context.Context, tiff []byte, offset int64) (string, int, error) {
	o.pages = append(o.pages, offset)
	if o.err != nil {
		return "", 0, o.err
	}
	return fmt.Sprintf("page %d of the TIFF: %s", len(o.pages), o.text), o.confidence, nil
}

func (o *fakeOCR) Recognize(ctx context.Context, img []byte) (string, int, error) {
	o.images = append(o.images, img)
	if o.err != nil {
		return "", 0, o.err
	}
	return o.text, o.confidence, nil
}

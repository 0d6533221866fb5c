package fault

import (
	"errors"
	"fmt"
	"io/fs"
	"testing"
)

func TestFaultKeepsItsCauseAndFix(t *testing.T) {
	cause := fmt.Errorf("open kb.db: %w", fs.ErrPermission)
	err := fmt.Errorf("index: %w", New(StoreReadOnly, "kb.db is not writable", "chmod u+w kb.db", cause))

	if !errors.Is(err, fs.ErrPermission) {
		t.Error("errors.Is does not see the cause through the fault")
	}
	f, ok := As(err)
	if !ok || f.Code != StoreReadOnly || CodeOf(err) != "STORE-009" {
		t.Fatalf("As: %+v %v", f, ok)
	}
	if got := err.Error(); got != "index: kb.db is not writable: open kb.db: permission denied" {
		t.Errorf("Error() = %q", got)
	}
	if got := FixLine(err); got != "chmod u+w kb.db [STORE-009]" {
		t.Errorf("FixLine = %q", got)
	}
	if got := OneLine(err); got != "index: kb.db is not writable: open kb.db: permission denied (fix: chmod u+w kb.db [STORE-009])" {
		t.Errorf("OneLine = %q", got)
	}
}

func TestWrap(t *testing.T) {
	if Wrap(StoreFull, "x", nil) != nil {
		t.Error("Wrap(nil) is not nil")
	}
	inner := New(StoreFull, "disk is full", "free space", nil)
	if got := Wrap(StoreIO, "other", fmt.Errorf("write: %w", inner)); CodeOf(got) != StoreFull {
		t.Errorf("a second Wrap replaced the first fault's code: %v", CodeOf(got))
	}
	plain := errors.New("unsupported file type: image")
	w := Wrap(ExtractNoOCR, "install tesseract-ocr-eng", plain)
	if w.Error() != plain.Error() || !errors.Is(w, plain) || FixLine(w) != "install tesseract-ocr-eng [EXTRACT-001]" {
		t.Errorf("%q %q", w.Error(), FixLine(w))
	}
	if FixLine(plain) != "" || CodeOf(plain) != "" || OneLine(errors.New("a\nstack")) != "a" {
		t.Error("an error without a fault has no fix")
	}
}

func TestPrintable(t *testing.T) {
	for in, want := range map[string]string{
		"plain café, ok":        "plain café, ok",
		"a\x1b[31mred\x07":      `a\x1b[31mred\a`,
		"caf\xe9.txt":           `caf\xe9.txt`,
		"tab\there":             `tab\there`,
		"kept \uFFFD character": "kept \uFFFD character",
	} {
		if got := Printable(in); got != want {
			t.Errorf("Printable(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestPrintableText(t *testing.T) {
	for in, want := range map[string]string{
		"two\nlines\tand a tab":            "two\nlines\tand a tab",
		"Subject: \x1b]0;owned\x07\x1b[2J": `Subject: \x1b]0;owned\a\x1b[2J`,
		"c1 \u009b31m":                     `c1 \u009b31m`,
		"a token ending in \xc3":           "a token ending in \xc3",
		"\r carriage return":               `\r carriage return`,
	} {
		if got := PrintableText(in); got != want {
			t.Errorf("PrintableText(%q) = %q, want %q", in, got, want)
		}
	}
}

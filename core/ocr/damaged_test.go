//go:build cgo && !noocr && linux

package ocr_test

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"cairn/core/ocr"
)

// captureStderr runs fn with file descriptor 2 (where C libraries write)
// pointed at a temporary file, and returns what was written there.
func captureStderr(t *testing.T, fn func()) string {
	t.Helper()
	tmp, err := os.CreateTemp(t.TempDir(), "stderr")
	if err != nil {
		t.Fatal(err)
	}
	defer tmp.Close()
	saved, err := syscall.Dup(2)
	if err != nil {
		t.Fatal(err)
	}
	if err := syscall.Dup2(int(tmp.Fd()), 2); err != nil {
		t.Fatal(err)
	}
	fn()
	_ = syscall.Dup2(saved, 2)
	_ = syscall.Close(saved)
	b, _ := os.ReadFile(tmp.Name())
	return string(b)
}

// A damaged PNG (in the wild: an e-mail attachment cut short) is reported
// as an unreadable image, and neither libpng nor Leptonica nor Tesseract
// prints to stderr about it.
func TestDamagedImagesAreUnreadableAndQuiet(t *testing.T) {
	e := engine(t)
	png, err := os.ReadFile(filepath.Join(fixtures, "scan.png"))
	if err != nil {
		t.Fatal(err)
	}
	crc := bytes.Clone(png)
	crc[len(crc)/2] ^= 0xFF
	jpeg, err := os.ReadFile(filepath.Join(fixtures, "scan.jpg"))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name string
		img  []byte
		msg  string
	}{
		{"truncated png", png[:len(png)*2/3], "damaged PNG"},
		{"png with a bad CRC", crc, "fails its CRC check"},
		{"jpeg without its data", jpeg[:200], "Leptonica could not decode it"},
	} {
		t.Run(c.name, func(t *testing.T) {
			var err error
			out := captureStderr(t, func() { _, _, err = e.Recognize(t.Context(), c.img) })
			if !errors.Is(err, ocr.ErrUnreadable) || !strings.Contains(err.Error(), c.msg) {
				t.Errorf("err = %v, want ErrUnreadable saying %q", err, c.msg)
			}
			if strings.Contains(out, "libpng") || strings.Contains(out, "Error in pix") || strings.Contains(out, "SetImage") {
				t.Errorf("stderr got %q", out)
			}
		})
	}
	// The engine still reads a good image afterwards.
	text, _, err := e.Recognize(t.Context(), png)
	if err != nil || !strings.Contains(text, "Scanned survey notes") {
		t.Errorf("good image after damaged ones: %q, %v", text, err)
	}
}

package ui

import (
	"os/exec"
	"strings"
	"testing"
)

// TestTheWindowLoadsNoModelOrOCRCode: the window's package reaches the
// engine through ui.Engine and the report types, never through the
// packages that link llama.cpp and Tesseract (core, core/llm, core/ocr),
// so it needs no cgo beyond Fyne's for its types.
func TestTheWindowLoadsNoModelOrOCRCode(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", ".").Output()
	if err != nil {
		t.Skipf("go list: %v", err)
	}
	for _, dep := range strings.Fields(string(out)) {
		switch dep {
		case "cairn/core", "cairn/core/llm", "cairn/core/ocr", "cairn/core/models", "cairn/core/doctor":
			t.Errorf("the window's package depends on %s", dep)
		}
	}
}

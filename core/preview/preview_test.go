package preview

import (
	"bytes"
	"context"
	"image/png"
	"os/exec"
	"strings"
	"testing"

	"cairn/internal/skip"
)

func TestLocate(t *testing.T) {
	page := "Cairn Field Guide: internal\n\nFindings\n\nThe second page records the find-\nings. A quartz flake was found beside Cairn\nB, which suggests reuse.\n\nPage 2"
	for _, c := range []struct {
		name, passage, want string
	}{
		{"exact", "A quartz flake was found", "A quartz flake was found"},
		{"spacing, case and a hyphenated word", "The second page records the findings. A quartz flake was found beside Cairn B, which suggests reuse.",
			"The second page records the find-\nings. A quartz flake was found beside Cairn\nB, which suggests reuse"},
	} {
		s, e, ok := Locate(page, c.passage)
		if !ok || page[s:e] != c.want {
			t.Errorf("%s: %q (ok %v), want %q", c.name, page[s:e], ok, c.want)
		}
	}
	if _, _, ok := Locate(page, "nothing of the kind is written here"); ok {
		t.Error("found a passage that is not on the page")
	}
}

func TestLinesShowsContextAndPrefersTheRecordedLine(t *testing.T) {
	var lines []string
	for i := 1; i <= 60; i++ {
		lines = append(lines, "line "+strings.Repeat("x", i%3))
	}
	lines[9], lines[39] = "reset the router", "reset the router" // lines 10 and 40
	text := strings.Join(lines, "\n")
	p := Lines(text, "reset the router", 40, 40)
	if !p.Found || p.FirstLine != 40-contextLines || p.Text[p.Start:p.End] != "reset the router" {
		t.Fatalf("preview from line %d, passage %q (found %v)", p.FirstLine, p.Text[p.Start:p.End], p.Found)
	}
	if got := strings.Count(p.Text, "\n") + 1; got != 2*contextLines+1 {
		t.Errorf("%d lines shown, want %d", got, 2*contextLines+1)
	}
	if p := Lines(text, "gone from the file", 3, 3); p.Found || p.Note == "" || p.Text != "gone from the file" {
		t.Errorf("a passage no longer in the file: %+v", p)
	}
}

func TestPDFPage(t *testing.T) {
	ctx := context.Background()
	const pdf = "../../testdata/formats/report.pdf"
	if _, err := exec.LookPath("pdftotext"); err != nil {
		skip.Because(t, "needs pdftotext (Debian package poppler-utils; make installs it)")
	}
	text, err := PDFPageText(ctx, pdf, 2)
	if err != nil {
		t.Fatal(err)
	}
	p := Page(text, "The second page records the findings. A quartz flake was found beside Cairn B", 2)
	if !p.Found || !strings.HasPrefix(p.Text[p.Start:p.End], "The second page") {
		t.Errorf("passage not located on page 2: %+v", p)
	}
	img, err := RenderPDFPage(ctx, pdf, 2, 300)
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := png.DecodeConfig(bytes.NewReader(img))
	if err != nil || cfg.Width != 300 {
		t.Errorf("page image %dx%d (%v), want 300 wide", cfg.Width, cfg.Height, err)
	}
	if _, err := RenderPDFPage(ctx, pdf, 9, 300); err == nil || !strings.Contains(err.Error(), "page 9") {
		t.Errorf("page 9 of 3: %v", err)
	}
}

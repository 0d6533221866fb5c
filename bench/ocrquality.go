package bench

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"text/tabwriter"
	"time"

	"cairn/core/ocr"
)

// ScanPage is a page of a Debian manual that the OCR comparison scans.
type ScanPage struct {
	Path string // one of DebianPDFs
	Page int    // 1-based
}

// ScanPages are the pages OCR is scored on: running text (R FAQ, bzip2),
// an API reference with code (libtasn1) and a table of contents with
// dotted leaders (libtasn1 page 3), the layouts the issue found read badly.
var ScanPages = []ScanPage{
	{"/usr/share/R/doc/manual/R-FAQ.pdf", 5},
	{"/usr/share/doc/bzip2/manual.pdf.gz", 4},
	{"/usr/share/doc/libtasn1-doc/libtasn1.pdf", 12},
	{"/usr/share/doc/libtasn1-doc/libtasn1.pdf", 3},
}

// OCRScore is the OCR of one scanned page by Cairn and by the tesseract
// command, against pdftotext's text of the page.
type OCRScore struct {
	Page       string  `json:"page"` // file name and page number
	DPI        int     `json:"dpi"`
	F1         float64 `json:"f1"`
	Seconds    float64 `json:"seconds"`
	Confidence int     `json:"confidence"`
	Mode       int     `json:"mode"` // page segmentation mode kept
	Skew       float64 `json:"skew"`
	CLIF1      float64 `json:"cli_f1"` // -1 without the tesseract command
	CLISeconds float64 `json:"cli_seconds"`
}

// ocrQuality scans ScanPages at 150 and 300 dpi (NoisyScan: askew, grainy,
// dusty), reads each with Cairn's OCR and with `tesseract IMAGE -` (its
// defaults, as a person would run it), and scores both against pdftotext.
func ocrQuality(ctx context.Context, w io.Writer, eng *ocr.Engine) ([]OCRScore, error) {
	cli, _ := exec.LookPath("tesseract")
	var out []OCRScore
	tw := tabwriter.NewWriter(w, 2, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "page\tdpi\tCairn F1\ts\tconfidence\tmode\tskew\ttesseract CLI F1\ts")
	for _, sp := range ScanPages {
		files, err := loadPDFData(sp.Path)
		if err != nil {
			fmt.Fprintf(w, "left out %s: %v\n", sp.Path, err)
			continue
		}
		for _, dpi := range []int{150, 300} {
			opt := NoisyScan
			opt.DPI = dpi
			img, ref, err := ScanPDFPage(ctx, files, sp.Page, opt)
			if err != nil {
				return out, err
			}
			s := OCRScore{Page: fmt.Sprintf("%s p. %d", strings.TrimSuffix(filepath.Base(sp.Path), ".gz"), sp.Page), DPI: dpi, CLIF1: -1}
			start := time.Now()
			p, err := eng.Read(ctx, img)
			if err != nil {
				return out, fmt.Errorf("OCR of %s: %w", s.Page, err)
			}
			s.Seconds = time.Since(start).Seconds()
			s.F1, s.Confidence, s.Mode, s.Skew = F1(Words(p.Text), Words(ref)), p.Confidence, p.Mode, p.Skew
			if cli != "" {
				s.CLIF1, s.CLISeconds, err = tesseractCLI(ctx, cli, img, ref)
				if err != nil {
					return out, err
				}
			}
			out = append(out, s)
			fmt.Fprintf(tw, "%s\t%d\t%.3f\t%.1f\t%d\t%d\t%.1f\t%.3f\t%.1f\n", s.Page, s.DPI, s.F1, s.Seconds, s.Confidence, s.Mode, s.Skew, s.CLIF1, s.CLISeconds)
		}
	}
	tw.Flush()
	return out, nil
}

// tesseractCLI runs the tesseract command on img and scores its text.
func tesseractCLI(ctx context.Context, cli string, img []byte, ref string) (f1, seconds float64, err error) {
	text, seconds, err := tesseractText(ctx, cli, img)
	if err != nil {
		return 0, 0, err
	}
	return F1(Words(text), Words(ref)), seconds, nil
}

// tesseractText is the tesseract command's text of a PNG image, read with
// its defaults as a person would run it, and the seconds it took.
func tesseractText(ctx context.Context, cli string, img []byte) (string, float64, error) {
	f, err := os.CreateTemp("", "cairn-scan-*.png")
	if err != nil {
		return "", 0, err
	}
	defer os.Remove(f.Name())
	if _, err := f.Write(img); err != nil {
		f.Close()
		return "", 0, err
	}
	if err := f.Close(); err != nil {
		return "", 0, err
	}
	start := time.Now()
	text, err := exec.CommandContext(ctx, cli, f.Name(), "-").Output()
	if err != nil {
		return "", 0, fmt.Errorf("tesseract %s: %w", f.Name(), err)
	}
	return string(text), time.Since(start).Seconds(), nil
}

package cli

import (
	"context"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strings"

	"cairn/bench"
	"cairn/core/humanize"
)

// benchExtract measures text extraction: PDF word-level F1 against
// `pdftotext -layout` on the Debian manuals, MB/s per format over the
// fixtures, F1 against reference tools on other projects' files, peak RSS
// per hostile input and OCR pages/s; the plain report goes to stderr, the
// tables to stdout.
func benchExtract(ctx context.Context, env *cliEnv, bin, work string, runs int, part string) (bench.ExtractReport, error) {
	if !slices.Contains([]string{"", "pdf", "formats", "reference", "hostile", "ocr"}, part) {
		return bench.ExtractReport{}, usageError{fmt.Sprintf("--part %q: use pdf, formats, reference, hostile or ocr", part)}
	}
	rep, err := bench.Extract(ctx, env.stderr, bench.ExtractOptions{Runs: runs, OCR: true, Fixtures: "testdata/formats", Only: part,
		RefDir: filepath.Join(work, "extract-reference"), Bin: bin, HostileDir: filepath.Join(work, "extract-hostile")})
	if err != nil {
		return rep, err
	}
	w := env.stdout
	if len(rep.Engines) > 0 {
		pages := 0
		for _, n := range rep.PDFPages {
			pages += n
		}
		fmt.Fprintf(w, "\n## PDF text vs `pdftotext -layout`: %d PDFs, %d pages from Debian documentation packages\n\n", len(rep.PDFFiles), pages)
		fmt.Fprintln(w, "| reader | licence | mean F1 | min F1 | pages/s | failures |")
		fmt.Fprintln(w, "|---|---|---|---|---|---|")
		for _, e := range rep.Engines {
			fmt.Fprintf(w, "| %s | %s | %.3f | %.3f | %.0f | %d |\n", e.Name, e.Licence, e.MeanF1, e.MinF1, e.PagesPerSec, e.Failures)
		}
		pkg := map[string]string{}
		for _, p := range bench.DebianPDFs {
			pkg[strings.TrimSuffix(filepath.Base(p.Path), ".gz")] = p.Package
		}
		fmt.Fprintf(w, "\n| file (Debian package) | pages |")
		for _, e := range rep.Engines {
			fmt.Fprintf(w, " %s |", e.Name)
		}
		fmt.Fprintf(w, "\n|---|---|%s\n", strings.Repeat("---|", len(rep.Engines)))
		for i, f := range rep.PDFFiles {
			fmt.Fprintf(w, "| %s (%s) | %d |", f, pkg[f], rep.PDFPages[i])
			for _, e := range rep.Engines {
				fmt.Fprintf(w, " %.3f |", e.F1[i])
			}
			fmt.Fprintln(w)
		}
	}
	if len(rep.Formats) > 0 {
		fmt.Fprintln(w, "\n## Extraction speed per format (testdata/formats fixtures, no OCR)")
		fmt.Fprintln(w, "\n| format | files | KB | MB/s | ms/file |")
		fmt.Fprintln(w, "|---|---|---|---|---|")
		for _, f := range rep.Formats {
			fmt.Fprintf(w, "| %s | %d | %.0f | %.1f | %.1f |\n", f.Ext, f.Files, f.KB, f.MBPerSec, f.MsPerFile)
		}
	}
	if len(rep.Fidelity) > 0 {
		fmt.Fprintln(w, "\n## Text of each fixture vs the source it was made from (word-level F1)")
		fmt.Fprintln(w, "\n| fixture | made from | F1 |")
		fmt.Fprintln(w, "|---|---|---|")
		for _, f := range rep.Fidelity {
			fmt.Fprintf(w, "| %s | %s | %.3f |\n", f.File, f.Reference, f.F1)
		}
	}
	if len(rep.Refs) > 0 {
		fmt.Fprintln(w, "\n## Cairn's text vs reference tools' on files of other projects (word-level F1)")
		fmt.Fprintln(w, "\n| format | reference | files | mean F1 | precision | recall | min F1 (file) | refused by Cairn |")
		fmt.Fprintln(w, "|---|---|---|---|---|---|---|---|")
		for _, r := range rep.Refs {
			fmt.Fprintf(w, "| %s | %s | %d | %.3f | %.3f | %.3f | %.3f (%s) | %d |\n", r.Format, r.Reference, r.Files, r.MeanF1, r.Precision, r.Recall, r.MinF1, r.MinFile, r.Refused)
		}
	}
	if len(rep.Hostile) > 0 {
		fmt.Fprintln(w, "\n## Peak RSS per hostile input (one child process per file, VmHWM)")
		fmt.Fprintln(w, "\n| file | size | peak RSS | outcome |")
		fmt.Fprintln(w, "|---|---|---|---|")
		for _, h := range rep.Hostile {
			fmt.Fprintf(w, "| %s | %s | %.0f MB | %s |\n", h.File, humanize.Bytes(h.Size), h.PeakMB, h.Outcome)
		}
	}
	if o := rep.OCR; o != nil {
		fmt.Fprintf(w, "\nOCR (Tesseract %s, %s, pages rendered at 300 dpi): %d pages of testdata/formats/scanned.pdf, %.2f pages/s\n",
			o.Tesseract, o.Languages, o.Pages, o.PagesPerSec)
		writeOCRScans(w, o.Scans)
	} else if part == "" || part == "ocr" {
		fmt.Fprintln(w, "\nOCR: not measured (see the log above)")
	}
	return rep, nil
}

// writeOCRScans prints the OCR comparison on scanned manual pages.
func writeOCRScans(w io.Writer, scans []bench.OCRScore) {
	if len(scans) == 0 {
		return
	}
	fmt.Fprintln(w, "\n## OCR of scanned manual pages vs pdftotext (pages drawn by pdftoppm, askew 0.8°, grain and dust)")
	fmt.Fprintln(w, "\n| page | dpi | Cairn F1 | s | confidence | mode | tesseract CLI F1 | s |")
	fmt.Fprintln(w, "|---|---|---|---|---|---|---|---|")
	var f1, cli [2][]float64
	for _, s := range scans {
		i := 0
		if s.DPI >= 300 {
			i = 1
		}
		f1[i], cli[i] = append(f1[i], s.F1), append(cli[i], s.CLIF1)
		fmt.Fprintf(w, "| %s | %d | %.3f | %.1f | %d | %d | %.3f | %.1f |\n", s.Page, s.DPI, s.F1, s.Seconds, s.Confidence, s.Mode, s.CLIF1, s.CLISeconds)
	}
	for i, dpi := range []int{150, 300} {
		if len(f1[i]) > 0 {
			fmt.Fprintf(w, "| **mean** | %d | **%.3f** | | | | **%.3f** | |\n", dpi, bench.Mean(f1[i]), bench.Mean(cli[i]))
		}
	}
}

// Package bench measures Cairn's pipeline stages on real files and prints
// the figures the README and docs quote.
package bench

import (
	"bytes"
	"compress/gzip"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"text/tabwriter"
	"time"
	"unicode"

	"github.com/ledongthuc/pdf"
	"golang.org/x/text/unicode/norm"

	"cairn/core/extract"
	"cairn/core/ocr"
	"cairn/core/stats"
)

// DebianPDF is a PDF of the comparison corpus and the Debian package that
// installs it.
type DebianPDF struct{ Package, Path string }

// DebianPDFs are the PDFs the PDF comparison runs on: real manuals from
// Debian documentation packages, made by several producers (pdfTeX of
// several vintages, LuaTeX, dvipdfmx, Ghostscript, Apache FOP). The
// Makefile's BENCH_PACKAGES installs them for `make bench`. Files ending in
// .gz are read decompressed.
var DebianPDFs = []DebianPDF{
	{"zlib1g-dev", "/usr/share/doc/zlib1g-dev/crc-doc.1.0.pdf.gz"},
	{"nettle-dev", "/usr/share/doc/nettle-dev/nettle.pdf.gz"},
	{"fontconfig", "/usr/share/doc/fontconfig/fontconfig-user.pdf.gz"},
	{"libtasn1-doc", "/usr/share/doc/libtasn1-doc/libtasn1.pdf"},
	{"gnuplot-doc", "/usr/share/doc/gnuplot/gnuplot.pdf"},
	{"valgrind", "/usr/share/doc/valgrind/valgrind_manual.pdf.gz"},
	{"shared-mime-info", "/usr/share/doc/shared-mime-info/shared-mime-info-spec.pdf"},
	{"r-doc-pdf", "/usr/share/R/doc/manual/R-FAQ.pdf"},
	{"r-doc-pdf", "/usr/share/R/doc/manual/R-intro.pdf"},
	{"r-doc-pdf", "/usr/share/R/doc/manual/R-data.pdf"},
	{"r-doc-pdf", "/usr/share/R/doc/manual/R-lang.pdf"},
	{"r-doc-pdf", "/usr/share/R/doc/manual/R-ints.pdf"},
	{"r-doc-pdf", "/usr/share/R/doc/manual/R-admin.pdf"},
	{"r-doc-pdf", "/usr/share/R/doc/manual/R-exts.pdf"},
	{"bzip2-doc", "/usr/share/doc/bzip2/manual.pdf.gz"},
	{"texlive-latex-base-doc", "/usr/share/doc/texlive-doc/latex/base/usrguide.pdf"},
	{"texlive-latex-base-doc", "/usr/share/doc/texlive-doc/latex/base/clsguide.pdf"},
	{"texlive-latex-base-doc", "/usr/share/doc/texlive-doc/latex/base/fntguide.pdf"},
	{"texlive-latex-base-doc", "/usr/share/doc/texlive-doc/latex/base/encguide.pdf"},
	{"texlive-latex-base-doc", "/usr/share/doc/texlive-doc/latex/amsmath/amsldoc.pdf"},
	{"texlive-base", "/usr/share/doc/texlive-doc/bibtex/base/btxdoc.pdf"},
	{"texlive-base", "/usr/share/doc/texlive-doc/kpathsea/kpathsea.pdf"},
	{"texlive-latex-base-doc", "/usr/share/doc/texlive-doc/latex/babel/babel.pdf"},
	{"texlive-base", "/usr/share/doc/texlive-doc/dvips/dvips.pdf"},
	{"texlive-base", "/usr/share/doc/texlive-doc/dvipdfmx/tug2003-slides.pdf"},
}

// DebianPDFPaths are the paths of DebianPDFs.
func DebianPDFPaths() []string {
	out := make([]string, len(DebianPDFs))
	for i, p := range DebianPDFs {
		out[i] = p.Path
	}
	return out
}

// ExtractOptions configure Extract.
type ExtractOptions struct {
	PDFs     []string // default DebianPDFPaths(); missing files are reported and left out
	Fixtures string   // folder of sample files per format for MB/s; default testdata/formats
	Runs     int      // timing runs; the median is reported; default 3
	OCR      bool     // also measure OCR pages/s (needs Tesseract)
	PerFile  bool     // print F1 per PDF
	Only     string   // "pdf", "formats", "reference", "hostile" or "ocr" runs one part; "" runs all
	// RefDir is a scratch folder for the corpus compared with reference
	// tools (pandoc, LibreOffice, pdftotext, tesseract); "" leaves the
	// comparison out.
	RefDir string
	// Bin is the cairn binary that extracts each hostile input in a child
	// process (`cairn bench extract-child`), and HostileDir the folder its
	// gigabyte bombs are written to; either "" leaves peak RSS out.
	Bin, HostileDir string
}

// engine is one way of reading a PDF's pages.
type engine struct {
	name, licence string
	pages         func(ctx context.Context, f extract.File) ([]string, error)
}

func engines() []engine {
	es := []engine{
		{"ledongthuc/pdf GetPlainText", "BSD-3-Clause", ledongthucPlain},
		{"ledongthuc/pdf + Cairn layout (pure Go)", "BSD-3-Clause", func(ctx context.Context, f extract.File) ([]string, error) {
			return extract.PDFPageTexts(ctx, f, extract.PDFPureGo)
		}},
	}
	if _, err := exec.LookPath("pdftotext"); err == nil {
		es = append(es, engine{"poppler pdftotext (subprocess)", "GPL-2.0 (not linked)", func(ctx context.Context, f extract.File) ([]string, error) {
			return extract.PDFPageTexts(ctx, f, extract.PDFPoppler)
		}})
	}
	return es
}

// ExtractReport holds Extract's figures.
type ExtractReport struct {
	PDFFiles []string      `json:"pdf_files"`
	PDFPages []int         `json:"pdf_pages"` // per file, as pdftotext counts them
	Engines  []EngineScore `json:"engines"`
	Formats  []FormatSpeed `json:"formats"`
	Fidelity []FormatF1    `json:"fidelity"`
	Refs     []RefScore    `json:"references,omitempty"`
	Hostile  []HostileRSS  `json:"hostile,omitempty"`
	OCR      *OCRSpeed     `json:"ocr,omitempty"`
}

// EngineScore is one PDF reader's agreement with `pdftotext -layout`.
type EngineScore struct {
	Name        string    `json:"name"`
	Licence     string    `json:"licence"`
	F1          []float64 `json:"f1"` // per file, in PDFFiles order
	MeanF1      float64   `json:"mean_f1"`
	MinF1       float64   `json:"min_f1"`
	PagesPerSec float64   `json:"pages_per_sec"`
	Failures    int       `json:"failures"`
}

// FormatSpeed is the extraction speed of one format over its fixtures.
type FormatSpeed struct {
	Ext       string  `json:"ext"`
	Files     int     `json:"files"`
	KB        float64 `json:"kb"`
	MBPerSec  float64 `json:"mb_per_sec"`
	MsPerFile float64 `json:"ms_per_file"`
}

// OCRSpeed is Tesseract's speed on the scanned-page fixture.
type OCRSpeed struct {
	Tesseract   string     `json:"tesseract"`
	Languages   string     `json:"languages"`
	Pages       int        `json:"pages"`
	PagesPerSec float64    `json:"pages_per_sec"`
	Scans       []OCRScore `json:"scans"`
}

// Extract measures extraction and writes a report to w: PDF word-level F1
// of each engine against `pdftotext -layout` with pages/s, MB/s per format
// over the fixtures, and OCR pages/s.
func Extract(ctx context.Context, w io.Writer, opt ExtractOptions) (ExtractReport, error) {
	if len(opt.PDFs) == 0 {
		opt.PDFs = DebianPDFPaths()
	}
	if opt.Fixtures == "" {
		opt.Fixtures = "testdata/formats"
	}
	if opt.Runs <= 0 {
		opt.Runs = 3
	}
	fmt.Fprintf(w, "machine: %s; median of %d runs\n\n", DescribeMachine(), opt.Runs)
	var rep ExtractReport
	var err error
	if opt.Only == "" || opt.Only == "pdf" {
		if err = pdfComparison(ctx, w, opt, &rep); err != nil {
			return rep, err
		}
	}
	if opt.Only == "" || opt.Only == "formats" {
		if rep.Formats, err = formatThroughput(ctx, w, opt); err != nil {
			return rep, err
		}
		fmt.Fprintf(w, "Text of each fixture vs the source it was made from (word-level F1):\n\n")
		if rep.Fidelity, err = formatFidelity(ctx, w, opt.Fixtures); err != nil {
			return rep, err
		}
	}
	if opt.RefDir != "" && (opt.Only == "" || opt.Only == "reference") {
		fmt.Fprintf(w, "Cairn's text vs reference tools' on files of other projects (word-level F1):\n\n")
		if rep.Refs, err = referenceComparison(ctx, w, opt.RefDir, opt.PDFs); err != nil {
			return rep, err
		}
	}
	if opt.Bin != "" && opt.HostileDir != "" && (opt.Only == "" || opt.Only == "hostile") {
		fmt.Fprintf(w, "Peak RSS per hostile input, one child process per file:\n\n")
		if rep.Hostile, err = hostileRSS(ctx, w, opt.Bin, opt.Fixtures, opt.HostileDir); err != nil {
			return rep, err
		}
	}
	if opt.OCR && (opt.Only == "" || opt.Only == "ocr") {
		rep.OCR, err = ocrThroughput(ctx, w, opt)
	}
	return rep, err
}

type pdfFile struct {
	name string
	data []byte
	ref  []string // words of `pdftotext -layout`
	page int
}

func loadPDFs(ctx context.Context, w io.Writer, paths []string) ([]pdfFile, error) {
	if _, err := exec.LookPath("pdftotext"); err != nil {
		return nil, fmt.Errorf("bench: the reference text needs pdftotext (Debian package poppler-utils)")
	}
	var out []pdfFile
	for _, p := range paths {
		data, err := loadPDFData(p)
		if err != nil {
			fmt.Fprintf(w, "left out %s: %v\n", p, err)
			continue
		}
		cmd := exec.CommandContext(ctx, "pdftotext", "-layout", "-enc", "UTF-8", "-", "-")
		cmd.Stdin = bytes.NewReader(data)
		ref, err := cmd.Output()
		if err != nil {
			return nil, fmt.Errorf("pdftotext -layout %s: %w", p, err)
		}
		out = append(out, pdfFile{name: strings.TrimSuffix(filepath.Base(p), ".gz"), data: data, ref: Words(string(ref)), page: strings.Count(string(ref), "\f")})
	}
	return out, nil
}

// loadPDFData reads a PDF, decompressed when its name ends in .gz.
func loadPDFData(path string) ([]byte, error) {
	data, err := os.ReadFile(path)
	if err != nil || !strings.HasSuffix(path, ".gz") {
		return data, err
	}
	zr, err := gzip.NewReader(bytes.NewReader(data))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return io.ReadAll(zr)
}

func pdfComparison(ctx context.Context, w io.Writer, opt ExtractOptions, rep *ExtractReport) error {
	files, err := loadPDFs(ctx, w, opt.PDFs)
	if err != nil {
		return err
	}
	if len(files) == 0 {
		return fmt.Errorf("bench: none of the PDFs is installed (Debian packages are listed with bench.DebianPDFs)")
	}
	pages := 0
	for _, f := range files {
		pages += f.page
		rep.PDFFiles = append(rep.PDFFiles, f.name)
		rep.PDFPages = append(rep.PDFPages, f.page)
	}
	fmt.Fprintf(w, "PDF text vs `pdftotext -layout` (word-level F1, NFKC + lower case): %d files, %d pages\n\n", len(files), pages)
	tw := tabwriter.NewWriter(w, 2, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "engine\tlicence\tmean F1\tmin F1\tpages/s\tfailures")
	perFile := map[string][]float64{}
	for _, e := range engines() {
		var f1s []float64
		failures := 0
		var times []time.Duration
		for run := 0; run < opt.Runs; run++ {
			start := time.Now()
			for _, pf := range files {
				if err := ctx.Err(); err != nil {
					return err
				}
				got, err := e.pages(ctx, extract.File{Name: pf.name, Size: int64(len(pf.data)), R: bytes.NewReader(pf.data)})
				if run > 0 {
					continue
				}
				if err != nil {
					failures++
					f1s = append(f1s, 0)
					fmt.Fprintf(w, "%s failed on %s: %v\n", e.name, pf.name, err)
					continue
				}
				f1s = append(f1s, F1(Words(strings.Join(got, "\n")), pf.ref))
			}
			times = append(times, time.Since(start))
		}
		perFile[e.name] = f1s
		sc := EngineScore{Name: e.name, Licence: e.licence, F1: f1s, MeanF1: Mean(f1s), MinF1: slices.Min(f1s),
			PagesPerSec: float64(pages) / stats.MedianDuration(times).Seconds(), Failures: failures}
		rep.Engines = append(rep.Engines, sc)
		fmt.Fprintf(tw, "%s\t%s\t%.3f\t%.3f\t%.0f\t%d\n", sc.Name, sc.Licence, sc.MeanF1, sc.MinF1, sc.PagesPerSec, sc.Failures)
	}
	tw.Flush()
	if opt.PerFile {
		fmt.Fprintln(w)
		tw = tabwriter.NewWriter(w, 2, 4, 2, ' ', 0)
		names := make([]string, 0, len(perFile))
		for n := range perFile {
			names = append(names, n)
		}
		sort.Strings(names)
		fmt.Fprintf(tw, "file\tpages\t%s\n", strings.Join(names, "\t"))
		for i, pf := range files {
			fmt.Fprintf(tw, "%s\t%d", pf.name, pf.page)
			for _, n := range names {
				fmt.Fprintf(tw, "\t%.3f", perFile[n][i])
			}
			fmt.Fprintln(tw)
		}
		tw.Flush()
	}
	fmt.Fprintln(w)
	return nil
}

func ledongthucPlain(ctx context.Context, f extract.File) (pages []string, err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("panic: %v", p)
		}
	}()
	r, err := pdf.NewReader(f.R, f.Size)
	if err != nil {
		return nil, err
	}
	for i := 1; i <= r.NumPage(); i++ {
		t, err := r.Page(i).GetPlainText(nil)
		if err != nil {
			return nil, err
		}
		pages = append(pages, t)
	}
	return pages, nil
}

// formatThroughput extracts every fixture of each format and reports MB/s.
func formatThroughput(ctx context.Context, w io.Writer, opt ExtractOptions) ([]FormatSpeed, error) {
	entries, err := os.ReadDir(opt.Fixtures)
	if err != nil {
		fmt.Fprintf(w, "no fixtures for MB/s (%v)\n", err)
		return nil, nil
	}
	reg := extract.NewRegistry(extract.DefaultLimits())
	byExt := map[string][][]byte{}
	names := map[string][]string{}
	for _, e := range entries {
		x := strings.ToLower(filepath.Ext(e.Name()))
		if e.IsDir() || x == "" || x == ".sh" || x == ".md" || hostile(e.Name()) {
			continue
		}
		b, err := os.ReadFile(filepath.Join(opt.Fixtures, e.Name()))
		if err != nil {
			return nil, err
		}
		if _, err := reg.Extract(ctx, extract.File{Name: e.Name(), Size: int64(len(b)), R: bytes.NewReader(b)}); err != nil {
			continue // skips (legacy formats, scans without OCR) measure nothing
		}
		byExt[x] = append(byExt[x], b)
		names[x] = append(names[x], e.Name())
	}
	fmt.Fprintf(w, "Throughput per format over %s (no OCR; PDF engine %s)\n\n", opt.Fixtures, reg.PDFEngineName())
	tw := tabwriter.NewWriter(w, 2, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "format\tfiles\tKB\tMB/s\tms/file")
	exts := make([]string, 0, len(byExt))
	for x := range byExt {
		exts = append(exts, x)
	}
	sort.Strings(exts)
	var out []FormatSpeed
	for _, x := range exts {
		var total int
		for _, b := range byExt[x] {
			total += len(b)
		}
		extractAll := func(reps int) time.Duration {
			start := time.Now()
			for range reps {
				for i, b := range byExt[x] {
					_, _ = reg.Extract(ctx, extract.File{Name: names[x][i], Size: int64(len(b)), R: bytes.NewReader(b)})
				}
			}
			return time.Since(start)
		}
		// One untimed pass warms caches and sizes the repetitions so that a
		// timing covers at least ~200 ms of work.
		once := max(extractAll(1), time.Microsecond)
		reps := max(1, int(200*time.Millisecond/once))
		var times []time.Duration
		for range opt.Runs {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
			times = append(times, extractAll(reps))
		}
		med := stats.MedianDuration(times).Seconds() / float64(reps)
		fs := FormatSpeed{Ext: x, Files: len(byExt[x]), KB: float64(total) / 1024, MBPerSec: float64(total) / (1 << 20) / med,
			MsPerFile: med * 1000 / float64(len(byExt[x]))}
		out = append(out, fs)
		fmt.Fprintf(tw, "%s\t%d\t%.0f\t%.1f\t%.1f\n", fs.Ext, fs.Files, fs.KB, fs.MBPerSec, fs.MsPerFile)
	}
	tw.Flush()
	fmt.Fprintln(w)
	return out, nil
}

// hostile reports the fixtures that test refusals (bombs, broken and
// encrypted files): they say nothing about throughput.
func hostile(name string) bool {
	for _, s := range []string{"bomb", "laughs", "deep", "huge", "truncated", "encrypted", "-named", "scan"} {
		if strings.Contains(name, s) {
			return true
		}
	}
	return false
}

// ocrThroughput OCRs the scanned-page fixtures and reports pages/s; nil
// without Tesseract or the fixture (said on w).
func ocrThroughput(ctx context.Context, w io.Writer, opt ExtractOptions) (*OCRSpeed, error) {
	eng, err := ocr.New(ocr.Options{Languages: "eng"})
	if err != nil {
		fmt.Fprintf(w, "OCR: %v\n", err)
		return nil, nil
	}
	defer eng.Close()
	path := filepath.Join(opt.Fixtures, "scanned.pdf")
	b, err := os.ReadFile(path)
	if err != nil {
		fmt.Fprintf(w, "OCR: no %s: %v\n", path, err)
		return nil, nil
	}
	reg := extract.NewRegistry(extract.DefaultLimits(), extract.WithOCR(eng))
	var times []time.Duration
	pages := 0
	for run := 0; run < opt.Runs; run++ {
		start := time.Now()
		doc, err := reg.Extract(ctx, extract.File{Name: "scanned.pdf", Size: int64(len(b)), R: bytes.NewReader(b)})
		if err != nil {
			return nil, fmt.Errorf("OCR bench: %w", err)
		}
		times = append(times, time.Since(start))
		pages = len(doc.Units)
	}
	r := &OCRSpeed{Tesseract: eng.Version(), Languages: eng.Languages(), Pages: pages, PagesPerSec: float64(pages) / stats.MedianDuration(times).Seconds()}
	fmt.Fprintf(w, "OCR (Tesseract %s, %s, %d dpi render via %s): %d pages, %.2f pages/s\n", r.Tesseract, r.Languages, 300, reg.PDFEngineName(), r.Pages, r.PagesPerSec)
	fmt.Fprintf(w, "\nOCR of noisy scans of manual pages vs pdftotext (word-level F1):\n")
	r.Scans, err = ocrQuality(ctx, w, eng)
	return r, err
}

// words splits text into lower-case NFKC words of letters and digits, the
// unit F1 is counted in: punctuation and layout spacing do not count.
func Words(s string) []string {
	s = strings.ToLower(norm.NFKC.String(s))
	return strings.FieldsFunc(s, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) })
}

// F1 is the harmonic mean of precision and recall of got's words against
// want's, counted as multisets (order does not matter).
func F1(got, want []string) float64 {
	if len(got) == 0 && len(want) == 0 {
		return 1
	}
	p, r := PrecisionRecall(got, want)
	if p+r == 0 {
		return 0
	}
	return 2 * p * r / (p + r)
}

// PrecisionRecall are the shares of got's words found in want (precision:
// low when got adds words) and of want's found in got (recall: low when
// got loses words), counted as multisets; 0 for an empty side.
func PrecisionRecall(got, want []string) (p, r float64) {
	counts := make(map[string]int, len(want))
	for _, w := range want {
		counts[w]++
	}
	match := 0
	for _, g := range got {
		if counts[g] > 0 {
			counts[g]--
			match++
		}
	}
	if match == 0 {
		return 0, 0
	}
	return float64(match) / float64(len(got)), float64(match) / float64(len(want))
}

func Mean(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := 0.0
	for _, x := range xs {
		s += x
	}
	return s / float64(len(xs))
}

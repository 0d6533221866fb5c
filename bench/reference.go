package bench

import (
	"archive/zip"
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"text/tabwriter"

	"cairn/core/extract"
	"cairn/core/ocr"
)

// RefScore is Cairn's text of one format against one reference tool's
// text of the same files, files written by other projects.
type RefScore struct {
	Format    string  `json:"format"`
	Reference string  `json:"reference"`
	Files     int     `json:"files"`
	MeanF1    float64 `json:"mean_f1"`
	Precision float64 `json:"precision"` // mean; below recall when Cairn adds words
	Recall    float64 `json:"recall"`    // mean; below precision when Cairn loses words
	MinF1     float64 `json:"min_f1"`
	MinFile   string  `json:"min_file"`
	Refused   int     `json:"refused"` // files Cairn skipped or refused (legacy formats), not scored
}

// Reference tools the comparison runs; a missing one is left out with a
// note in the report.
type refTools struct{ pandoc, soffice, pdftotext, tesseract string }

func findRefTools() refTools {
	look := func(name string) string { p, _ := exec.LookPath(name); return p }
	return refTools{look("pandoc"), look("soffice"), look("pdftotext"), look("tesseract")}
}

// RefHTML and RefMarkdown are the texts of other projects that the
// reference corpus is made from: Debian manuals in HTML (packages
// debian-reference-en, git-doc) and READMEs of Go modules Cairn builds
// with (in the module cache). pandoc turns the HTML into DOCX, ODT, EPUB
// and the Markdown into PPTX; LibreOffice turns those into its own DOCX,
// RTF, DOC, ODP and PDF, and excelize's test workbooks into ODS and XLS.
var (
	RefHTML = []string{
		"/usr/share/debian-reference/ch01.en.html",
		"/usr/share/debian-reference/ch02.en.html",
		"/usr/share/debian-reference/ch05.en.html",
		"/usr/share/doc/git-doc/gittutorial.html",
		"/usr/share/doc/git-doc/git-rebase.html",
		"/usr/share/doc/git-doc/MyFirstContribution.html",
	}
	RefMarkdown = []string{ // globs under the module cache
		"github.com/xuri/excelize/v2@*/README.md",
		"fyne.io/fyne/v2@*/README.md",
		"github.com/ncruces/go-sqlite3@*/README.md",
		"github.com/richardlehane/mscfb@*/README.md",
	}
	// RefSheets and RefLegacy are test files of Go modules (excelize,
	// mscfb): real workbooks and Word 97 files written by other tools.
	RefSheets = []string{"github.com/xuri/excelize/v2@*/test/Book1.xlsx", "github.com/xuri/excelize/v2@*/test/SharedStrings.xlsx",
		"github.com/xuri/excelize/v2@*/test/MergeCell.xlsx", "github.com/xuri/excelize/v2@*/test/CalcChain.xlsx",
		"github.com/xuri/excelize/v2@*/test/OverflowNumericCell.xlsx"}
	RefLegacy = []string{"github.com/richardlehane/mscfb@*/test/test.doc", "github.com/richardlehane/mscfb@*/test/novpapplan.doc",
		"github.com/richardlehane/mscfb@*/test/test.xls"}
)

// refFile is one file of the reference corpus.
type refFile struct{ path, format string }

// modCache is Go's module cache, where the module test files are.
func modCache() string {
	if out, err := exec.Command("go", "env", "GOMODCACHE").Output(); err == nil && len(bytes.TrimSpace(out)) > 0 {
		return string(bytes.TrimSpace(out))
	}
	home, _ := os.UserHomeDir()
	return filepath.Join(home, "go", "pkg", "mod")
}

// globFirst is the last (newest version) match of pattern under dir, "" if none.
func globFirst(dir, pattern string) string {
	m, _ := filepath.Glob(filepath.Join(dir, pattern))
	if len(m) == 0 {
		return ""
	}
	sort.Strings(m)
	return m[len(m)-1]
}

var majorVersion = regexp.MustCompile(`^v[0-9]+$`)

// moduleName is the last element of a module path pattern that is not a
// major version: "fyne" for "fyne.io/fyne/v2@*/README.md".
func moduleName(pattern string) string {
	elems := strings.Split(strings.SplitN(pattern, "@", 2)[0], "/")
	for i := len(elems) - 1; i > 0; i-- {
		if !majorVersion.MatchString(elems[i]) {
			return elems[i]
		}
	}
	return elems[0]
}

// ext is a file's format: its extension without the dot, lower case.
func ext(p string) string { return strings.ToLower(strings.TrimPrefix(filepath.Ext(p), ".")) }

func run(ctx context.Context, name string, args ...string) ([]byte, error) {
	var stderr bytes.Buffer
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("%s %s: %w: %s", filepath.Base(name), strings.Join(args, " "), err, bytes.TrimSpace(stderr.Bytes()))
	}
	return out, nil
}

// convert converts files with LibreOffice in one headless run, into outDir,
// with a profile of its own so that a running LibreOffice is not disturbed.
func (t refTools) convert(ctx context.Context, dir, outDir, to string, files []string) error {
	if len(files) == 0 {
		return nil
	}
	args := append([]string{"-env:UserInstallation=file://" + filepath.Join(dir, "lo-profile"), "--headless", "--convert-to", to, "--outdir", outDir}, files...)
	_, err := run(ctx, t.soffice, args...)
	return err
}

// images are Markdown and HTML images: stripped from the corpus's sources,
// since pandoc fetches remote ones (READMEs' badges) and the bench dials
// nothing.
var images = regexp.MustCompile(`!\[[^\]]*\](\([^)]*\)|\[[^\]]*\])|<img[^>]*>`)

// copyTo copies src into dir, under name, without its images; a .gz file
// is decompressed.
func copyTo(src, dir, name string) (string, error) {
	b, err := loadPDFData(src)
	if err != nil {
		return "", err
	}
	if x := ext(name); x == "md" || x == "html" {
		b = images.ReplaceAll(b, nil)
	}
	dst := filepath.Join(dir, name)
	return dst, os.WriteFile(dst, b, 0o644)
}

// buildRefCorpus gathers and converts the reference corpus into dir.
func buildRefCorpus(ctx context.Context, w io.Writer, t refTools, dir string) ([]refFile, error) {
	src := filepath.Join(dir, "corpus")
	if err := os.MkdirAll(src, 0o755); err != nil {
		return nil, err
	}
	var files []refFile
	add := func(p string) { files = append(files, refFile{p, ext(p)}) }
	var html, md, sheets []string
	for _, p := range RefHTML {
		dst, err := copyTo(p, src, strings.ReplaceAll(filepath.Base(p), ".en.html", ".html"))
		if err != nil {
			fmt.Fprintf(w, "left out %s: %v\n", p, err)
			continue
		}
		html = append(html, dst)
		add(dst)
	}
	mc := modCache()
	for _, g := range slices.Concat(RefMarkdown, RefSheets, RefLegacy) {
		p := globFirst(mc, g)
		if p == "" {
			fmt.Fprintf(w, "left out %s: not in the module cache %s\n", g, mc)
			continue
		}
		name := filepath.Base(p)
		if name == "README.md" { // README.md of several modules: name them by module
			name = moduleName(g) + ".md"
		}
		dst, err := copyTo(p, src, name)
		if err != nil {
			return nil, err
		}
		switch ext(dst) {
		case "md":
			md = append(md, dst)
		case "xlsx":
			sheets = append(sheets, dst)
		}
		add(dst)
	}
	if t.pandoc != "" {
		for _, h := range html {
			base := strings.TrimSuffix(h, ".html")
			for _, to := range []string{"docx", "odt", "epub"} {
				out := base + "." + to
				if _, err := run(ctx, t.pandoc, "-f", "html", "-o", out, "--metadata", "title="+filepath.Base(base), h); err != nil {
					fmt.Fprintf(w, "left out %s: %v\n", out, err)
					continue
				}
				add(out)
			}
		}
		for _, m := range md {
			out := strings.TrimSuffix(m, ".md") + ".pptx"
			if _, err := run(ctx, t.pandoc, "-f", "gfm", "-o", out, m); err != nil {
				fmt.Fprintf(w, "left out %s: %v\n", out, err)
				continue
			}
			add(out)
		}
	} else {
		fmt.Fprintln(w, "pandoc missing: no DOCX, ODT, EPUB or PPTX made from the HTML and Markdown")
	}
	if t.soffice == "" {
		fmt.Fprintln(w, "LibreOffice (soffice) missing: no LibreOffice-written DOCX, RTF, DOC, PDF, ODP, ODS or XLS")
		return files, nil
	}
	// LibreOffice's own writers, from pandoc's ODT and PPTX and from the
	// workbooks; outputs go to a folder of their own, named "<source>.lo.<ext>".
	var odts, pptxs []string
	for _, f := range files {
		switch f.format {
		case "odt":
			odts = append(odts, f.path)
		case "pptx":
			pptxs = append(pptxs, f.path)
		}
	}
	lo := filepath.Join(dir, "lo-made")
	for _, c := range []struct {
		in []string
		to string
	}{
		{odts, "docx:MS Word 2007 XML"}, {odts, "rtf"}, {odts, "doc:MS Word 97"}, {odts, "pdf"},
		{pptxs, "odp"}, {sheets, "ods"}, {sheets, "xls:MS Excel 97"},
	} {
		if err := t.convert(ctx, dir, lo, c.to, c.in); err != nil {
			fmt.Fprintf(w, "LibreOffice --convert-to %s: %v\n", c.to, err)
			continue
		}
		x := strings.SplitN(c.to, ":", 2)[0]
		for _, in := range c.in {
			made := filepath.Join(lo, strings.TrimSuffix(filepath.Base(in), filepath.Ext(in))+"."+x)
			dst := filepath.Join(src, strings.TrimSuffix(filepath.Base(in), filepath.Ext(in))+".lo."+x)
			if err := os.Rename(made, dst); err != nil {
				fmt.Fprintf(w, "left out %s: %v\n", dst, err)
				continue
			}
			add(dst)
		}
	}
	return files, nil
}

// loTargets are LibreOffice's conversions that give the reference text of
// a format: plain text from Writer, every sheet to its own CSV from Calc
// (the last token, -1; cells as shown), and ODP from Impress, which has no
// text export (its PDF clips text that overflows a slide): the text of the
// ODP's content.xml. An ODP's reference is its own content.xml, as
// LibreOffice wrote it.
var loTargets = map[string]string{
	"docx": "txt:Text (encoded):UTF8", "odt": "txt:Text (encoded):UTF8", "rtf": "txt:Text (encoded):UTF8", "doc": "txt:Text (encoded):UTF8",
	"xlsx": "csv:Text - txt - csv (StarCalc):44,34,76,1,,0,false,true,false,false,false,-1",
	"ods":  "csv:Text - txt - csv (StarCalc):44,34,76,1,,0,false,true,false,false,false,-1",
	"xls":  "csv:Text - txt - csv (StarCalc):44,34,76,1,,0,false,true,false,false,false,-1",
	"pptx": "odp",
}

// loReferences converts the files LibreOffice reads into dir/lo-ref/<format>,
// one LibreOffice run per format (each run starts it: seconds).
func (t refTools) loReferences(ctx context.Context, w io.Writer, dir string, files []refFile) {
	if t.soffice == "" {
		return
	}
	byFormat := map[string][]string{}
	for _, f := range files {
		if loTargets[f.format] != "" {
			byFormat[f.format] = append(byFormat[f.format], f.path)
		}
	}
	for x, paths := range byFormat {
		if err := t.convert(ctx, dir, filepath.Join(dir, "lo-ref", x), loTargets[x], paths); err != nil {
			fmt.Fprintf(w, "LibreOffice references of the %s files: %v\n", x, err)
		}
	}
}

// odpText is the text of an ODP file's content.xml.
func odpText(path string) (string, error) {
	zr, err := zip.OpenReader(path)
	if err != nil {
		return "", err
	}
	defer zr.Close()
	f, err := zr.Open("content.xml")
	if err != nil {
		return "", fmt.Errorf("%s: %w", path, err)
	}
	defer f.Close()
	b, err := io.ReadAll(f)
	if err != nil {
		return "", fmt.Errorf("%s: %w", path, err)
	}
	return odfBodyText(b)
}

// texts are the reference tools' texts of f, by tool name; tools that
// cannot read its format are absent.
func (t refTools) texts(ctx context.Context, dir string, f refFile) (map[string]string, error) {
	out := map[string]string{}
	if t.pandoc != "" && slices.Contains([]string{"html", "md", "docx", "odt", "epub"}, f.format) {
		from := map[string]string{"html": "html", "md": "gfm"}[f.format]
		args := []string{"-t", "plain", "--wrap=none", f.path}
		if from != "" {
			args = append([]string{"-f", from}, args...)
		}
		b, err := run(ctx, t.pandoc, args...)
		if err != nil {
			return nil, err
		}
		out["pandoc"] = string(b)
	}
	if to := loTargets[f.format]; t.soffice != "" && to != "" {
		base := filepath.Join(dir, "lo-ref", f.format, strings.TrimSuffix(filepath.Base(f.path), filepath.Ext(f.path)))
		switch strings.SplitN(to, ":", 2)[0] {
		case "txt":
			b, err := os.ReadFile(base + ".txt")
			if err != nil {
				return nil, fmt.Errorf("LibreOffice wrote no text: %w", err)
			}
			out["LibreOffice"] = string(b)
		case "csv":
			csvs, _ := filepath.Glob(base + "-*.csv")
			if len(csvs) == 0 {
				csvs = []string{base + ".csv"}
			}
			var sb strings.Builder
			for _, c := range csvs {
				// LibreOffice names each sheet's CSV after the sheet, the
				// label Cairn gives its rows: counted on both sides.
				if name, ok := strings.CutPrefix(strings.TrimSuffix(filepath.Base(c), ".csv"), filepath.Base(base)+"-"); ok {
					sb.WriteString(name + "\n")
				}
				b, err := os.ReadFile(c)
				if err != nil {
					return nil, fmt.Errorf("LibreOffice wrote no CSV: %w", err)
				}
				sb.Write(b)
				sb.WriteByte('\n')
			}
			out["LibreOffice"] = sb.String()
		case "odp":
			text, err := odpText(base + ".odp")
			if err != nil {
				return nil, err
			}
			out["LibreOffice (ODP content)"] = text
		}
	}
	if t.soffice != "" && f.format == "odp" {
		text, err := odpText(f.path)
		if err != nil {
			return nil, err
		}
		out["LibreOffice (ODP content)"] = text
	}
	if t.pdftotext != "" && f.format == "pdf" {
		b, err := run(ctx, t.pdftotext, "-enc", "UTF-8", f.path, "-")
		if err != nil {
			return nil, err
		}
		out["pdftotext"] = string(b)
	}
	return out, nil
}

// referenceComparison builds the reference corpus in dir and scores
// Cairn's text of each file against every reference tool that reads its
// format, then Cairn's OCR of clean page images against the tesseract CLI.
func referenceComparison(ctx context.Context, w io.Writer, dir string, pdfs []string) ([]RefScore, error) {
	t := findRefTools()
	for name, p := range map[string]string{"pandoc": t.pandoc, "LibreOffice (soffice)": t.soffice, "pdftotext": t.pdftotext, "tesseract": t.tesseract} {
		if p == "" {
			fmt.Fprintf(w, "note: %s is not installed; its comparisons are left out (`make bench` installs it)\n", name)
		}
	}
	if err := os.RemoveAll(dir); err != nil {
		return nil, err
	}
	files, err := buildRefCorpus(ctx, w, t, dir)
	if err != nil {
		return nil, err
	}
	for _, p := range pdfs {
		dst, err := copyTo(p, filepath.Join(dir, "corpus"), strings.TrimSuffix(filepath.Base(p), ".gz"))
		if err != nil {
			fmt.Fprintf(w, "left out %s: %v\n", p, err)
			continue
		}
		files = append(files, refFile{dst, "pdf"})
	}
	t.loReferences(ctx, w, dir, files)
	reg := extract.NewRegistry(extract.DefaultLimits())
	type key struct{ format, tool string }
	f1s, ps, rs := map[key][]float64{}, map[key][]float64{}, map[key][]float64{}
	names := map[key][]string{}
	refused := map[string]int{}
	for _, f := range files {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		data, err := os.ReadFile(f.path)
		if err != nil {
			return nil, err
		}
		name := filepath.Base(f.path)
		refs, err := t.texts(ctx, dir, f)
		if err != nil {
			fmt.Fprintf(w, "left out %s: reference: %v\n", name, err)
			continue
		}
		if len(refs) == 0 {
			continue
		}
		doc, err := reg.Extract(ctx, extract.File{Name: name, Size: int64(len(data)), R: bytes.NewReader(data)})
		if err != nil {
			fmt.Fprintf(w, "Cairn refused %s: %v\n", name, err)
			refused[f.format]++
			continue
		}
		for tool, ref := range refs {
			k := key{f.format, tool}
			got, want := Words(doc.Text), Words(ref)
			p, r := PrecisionRecall(got, want)
			f1s[k], ps[k], rs[k] = append(f1s[k], F1(got, want)), append(ps[k], p), append(rs[k], r)
			names[k] = append(names[k], name)
		}
	}
	var out []RefScore
	for k, v := range f1s {
		i := slices.Index(v, slices.Min(v))
		out = append(out, RefScore{Format: k.format, Reference: k.tool, Files: len(v), MeanF1: Mean(v), Precision: Mean(ps[k]), Recall: Mean(rs[k]),
			MinF1: v[i], MinFile: names[k][i], Refused: refused[k.format]})
	}
	for x, n := range refused {
		if !slices.ContainsFunc(out, func(s RefScore) bool { return s.Format == x }) {
			out = append(out, RefScore{Format: x, Reference: "-", Refused: n})
		}
	}
	if t.tesseract != "" {
		imgs, err := imageVsCLI(ctx, w, t.tesseract)
		if err != nil {
			return out, err
		}
		out = append(out, imgs...)
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Format != out[j].Format {
			return out[i].Format < out[j].Format
		}
		return out[i].Reference < out[j].Reference
	})
	tw := tabwriter.NewWriter(w, 2, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "format\treference\tfiles\tmean F1\tprecision\trecall\tmin F1\tworst file\trefused")
	for _, s := range out {
		fmt.Fprintf(tw, "%s\t%s\t%d\t%.3f\t%.3f\t%.3f\t%.3f\t%s\t%d\n", s.Format, s.Reference, s.Files, s.MeanF1, s.Precision, s.Recall, s.MinF1, s.MinFile, s.Refused)
	}
	tw.Flush()
	fmt.Fprintln(w)
	return out, nil
}

// imageVsCLI renders ScanPages cleanly at 150 and 300 dpi as PNG and
// scores Cairn's OCR of each (through the registry, as an indexed image
// is read) against the tesseract CLI's text of the same image.
func imageVsCLI(ctx context.Context, w io.Writer, cli string) ([]RefScore, error) {
	eng, err := ocr.New(ocr.Options{Languages: "eng"})
	if err != nil {
		fmt.Fprintf(w, "note: images left out: %v\n", err)
		return nil, nil
	}
	defer eng.Close()
	reg := extract.NewRegistry(extract.DefaultLimits(), extract.WithOCR(eng))
	var out []RefScore
	for _, dpi := range []int{150, 300} {
		var f1s, ps, rs []float64
		var names []string
		for _, sp := range ScanPages {
			pdf, err := loadPDFData(sp.Path)
			if err != nil {
				fmt.Fprintf(w, "left out %s: %v\n", sp.Path, err)
				continue
			}
			img, _, err := ScanPDFPage(ctx, pdf, sp.Page, ScanOptions{DPI: dpi})
			if err != nil {
				return nil, err
			}
			name := fmt.Sprintf("%s-p%d.png", strings.TrimSuffix(strings.TrimSuffix(filepath.Base(sp.Path), ".gz"), ".pdf"), sp.Page)
			doc, err := reg.Extract(ctx, extract.File{Name: name, Size: int64(len(img)), R: bytes.NewReader(img)})
			if err != nil {
				return nil, fmt.Errorf("OCR of %s: %w", name, err)
			}
			ref, _, err := tesseractText(ctx, cli, img)
			if err != nil {
				return nil, err
			}
			got, want := Words(doc.Text), Words(ref)
			p, r := PrecisionRecall(got, want)
			f1s, ps, rs = append(f1s, F1(got, want)), append(ps, p), append(rs, r)
			names = append(names, name)
		}
		if len(f1s) == 0 {
			continue
		}
		i := slices.Index(f1s, slices.Min(f1s))
		out = append(out, RefScore{Format: fmt.Sprintf("png (page drawn at %d dpi)", dpi), Reference: "tesseract CLI", Files: len(f1s),
			MeanF1: Mean(f1s), Precision: Mean(ps), Recall: Mean(rs), MinF1: f1s[i], MinFile: names[i]})
	}
	return out, nil
}

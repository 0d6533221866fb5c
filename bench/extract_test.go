package bench

import (
	"bytes"
	"context"
	"math"
	"os"
	"slices"
	"strings"
	"testing"
)

func TestF1(t *testing.T) {
	for _, c := range []struct {
		got, want string
		f1        float64
	}{
		{"the ﬁeld office", "The field, office!", 1},
		{"a b c d", "a b", 2 * (0.5 * 1) / 1.5},
		{"x", "y", 0},
		{"", "", 1},
		{"word word", "word", 2 * 0.5 / 1.5}, // multisets: the second "word" is unmatched
		// A bag of words: order and layout do not count. 3 of 4 words
		// match each way: precision 3/4, recall 3/5, F1 2/3.
		{"Sheet1\nItem: Fuel | 420", "fuel,420 item total 9", 2 * (0.75 * 0.6) / 1.35},
	} {
		if got := F1(Words(c.got), Words(c.want)); math.Abs(got-c.f1) > 1e-9 {
			t.Errorf("F1(%q, %q) = %.4f, want %.4f", c.got, c.want, got, c.f1)
		}
	}
}

func TestPrecisionRecall(t *testing.T) {
	// Cairn's sheet label and row label are words the reference lacks
	// (precision 3/4); the reference's total is a word Cairn lost (recall 3/5).
	p, r := PrecisionRecall(Words("Sheet1\nItem: Fuel | 420"), Words("fuel,420 item total 9"))
	if p != 0.75 || r != 0.6 {
		t.Errorf("precision %.3f, recall %.3f, want 0.750 and 0.600", p, r)
	}
}

// TestExtractReport runs the whole report on the fixtures (not the Debian
// corpus, which tests do not install) and checks that every part is there.
func TestExtractReport(t *testing.T) {
	var out bytes.Buffer
	opt := ExtractOptions{
		PDFs:     []string{"../testdata/formats/report.pdf", "../testdata/formats/ligatures.pdf"},
		Fixtures: "../testdata/formats",
		Runs:     1,
		PerFile:  true,
	}
	if _, err := Extract(context.Background(), &out, opt); err != nil {
		t.Fatal(err)
	}
	report := out.String()
	for _, want := range []string{
		"2 files, 6 pages",
		"poppler pdftotext (subprocess)",
		"ledongthuc/pdf + Cairn layout (pure Go)",
		"ligatures.pdf",
		"Throughput per format",
		".docx", ".xlsx", ".epub", ".msg",
	} {
		if !strings.Contains(report, want) {
			t.Errorf("report lacks %q:\n%s", want, report)
		}
	}
	if strings.Contains(report, "zipbomb") || strings.Contains(report, ".doc ") {
		t.Errorf("report measures refusals:\n%s", report)
	}
}

// makeList is the package list the Makefile assigns to name, with its
// continuation lines.
func makeList(t *testing.T, name string) []string {
	t.Helper()
	b, err := os.ReadFile("../Makefile")
	if err != nil {
		t.Fatal(err)
	}
	_, rest, ok := strings.Cut(string(b), "\n"+name+" :=")
	if !ok {
		t.Fatalf("no %s in the Makefile", name)
	}
	var pkgs []string
	for _, line := range strings.Split(rest, "\n") {
		pkgs = append(pkgs, strings.Fields(strings.TrimSuffix(line, `\`))...)
		if !strings.HasSuffix(line, `\`) {
			break
		}
	}
	return pkgs
}

// TestBenchPackagesInstallThePDFs keeps the Makefile's bench dependencies
// in step with the PDF corpus, so `make bench` works on a fresh machine.
func TestBenchPackagesInstallThePDFs(t *testing.T) {
	pkgs := makeList(t, "BENCH_PACKAGES")
	for _, p := range DebianPDFs {
		if !slices.Contains(pkgs, p.Package) {
			t.Errorf("BENCH_PACKAGES lacks %s (for %s)", p.Package, p.Path)
		}
	}
}

// The reference extractors are installed for `make bench` and never for
// `make build` or `make test`: no test may need them.
func TestReferenceToolsAreBenchOnly(t *testing.T) {
	bench, build := makeList(t, "BENCH_PACKAGES"), makeList(t, "APT_PACKAGES")
	for _, p := range []string{"pandoc", "libreoffice-writer-nogui", "libreoffice-calc-nogui", "libreoffice-impress-nogui"} {
		if !slices.Contains(bench, p) {
			t.Errorf("BENCH_PACKAGES lacks %s", p)
		}
		if slices.Contains(build, p) {
			t.Errorf("APT_PACKAGES (make build and make test) has %s, a bench-only reference tool", p)
		}
	}
}

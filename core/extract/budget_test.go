package extract

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"cairn/core/extract/extracttest"
	"cairn/core/humanize"
)

// TestSharedStringsAreBoundedByWhatTheyAdd: a workbook's shared string is
// text every cell that refers to it repeats. One string of 8 MB in 100
// cells (5 GB before) is refused by the bound every office part has on a
// run of text, before excelize loads it; a 60 KB string in 5,000 cells
// (300 MB of cells) is read up to the text limit, each row built only as
// far as the text still has room, with the live heap small (issue 43,
// item 2).
func TestSharedStringsAreBoundedByWhatTheyAdd(t *testing.T) {
	dir := t.TempDir()
	big := filepath.Join(dir, "big.xlsx")
	if err := extracttest.SharedStringsXLSX(big, 8<<20, 10, 10); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(big)
	var err error
	peak := peakHeap(func() { _, err = NewRegistry(DefaultLimits()).Extract(t.Context(), fileOf("big.xlsx", b)) })
	wantErr(t, "8 MB shared string", err, ErrTooLarge, "xlsx: xl/sharedStrings.xml: more than 1.0 MB of text or one tag without markup")
	if peak > 64<<20 {
		t.Errorf("8 MB shared string: live heap peaked at %s", humanize.Bytes(int64(peak)))
	}

	// A string under that bound in 200 cells of one row: excelize would
	// build the row whole, a copy a cell (180 MB); the row's references
	// are counted before it reads the sheet.
	wide := filepath.Join(dir, "wide.xlsx")
	if err := extracttest.SharedStringsXLSX(wide, 900<<10, 1, 200); err != nil {
		t.Fatal(err)
	}
	b, _ = os.ReadFile(wide)
	peak = peakHeap(func() { _, err = NewRegistry(DefaultLimits()).Extract(t.Context(), fileOf("wide.xlsx", b)) })
	wantErr(t, "900 KB shared string in a row of 200 cells", err, ErrTooLarge, "xlsx: xl/worksheets/sheet1.xml: a row refers to more than 16.0 MB of text")
	if peak > 64<<20 {
		t.Errorf("900 KB shared string in a row of 200 cells: live heap peaked at %s", humanize.Bytes(int64(peak)))
	}

	many := filepath.Join(dir, "many.xlsx")
	if err := extracttest.SharedStringsXLSX(many, 60<<10, 100, 50); err != nil {
		t.Fatal(err)
	}
	b, _ = os.ReadFile(many)
	lim := DefaultLimits()
	lim.MaxTextBytes = 2 << 20
	var d *Document
	peak = peakHeap(func() { d, err = NewRegistry(lim).Extract(t.Context(), fileOf("many.xlsx", b)) })
	if err != nil {
		t.Fatal(err)
	}
	if len(d.Text) > int(lim.MaxTextBytes) || len(d.Text) < int(lim.MaxTextBytes)/2 {
		t.Errorf("text %s for a 2 MB limit", humanize.Bytes(int64(len(d.Text))))
	}
	contains(t, "warnings", strings.Join(d.Warnings, "\n"), "the text limit (2.0 MB) reached")
	if peak > 64<<20 {
		t.Errorf("60 KB shared string in 5,000 cells: live heap peaked at %s", humanize.Bytes(int64(peak)))
	}
}

// TestTableTextIsBounded: a header cell is repeated before every value of
// its column, so a long one is cut to a label's length, and a table's text
// stops at its bound however many rows it has.
func TestTableTextIsBounded(t *testing.T) {
	header := []string{strings.Repeat("h", 1<<20), "Size"}
	rows := make([][]string, 1000)
	for i := range rows {
		rows[i] = []string{"a", "1"}
	}
	got := TableText(header, rows)
	if want := len(strings.Repeat("h", maxLabel) + ": a | Size: 1\n"); len(got) != 1000*want-1 {
		t.Errorf("text of %d bytes, want %d", len(got), 1000*want-1)
	}
	if got := tableText(nil, [][]string{{strings.Repeat("x", 100)}, {"y"}}, 10); got != strings.Repeat("x", 10) {
		t.Errorf("capped at 10: %q", got)
	}
	if got := rowText(nil, []string{"é" + strings.Repeat("x", 10)}, 1); got != "" {
		t.Errorf("a character is not cut: %q", got)
	}
}

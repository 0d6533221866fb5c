package extract

import (
	"bytes"
	"fmt"
	"os"
	"runtime"
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	"github.com/xuri/excelize/v2"

	"cairn/internal/skip"
)

// TestBigSheetFigures measures the peak heap and the result of reading a
// workbook of 5 million cells (500,000 rows of 10 columns, distinct text
// and numbers), written to CAIRN_BIGSHEET (made there when missing) with
// excelize's stream writer. It runs only when CAIRN_BIGSHEET is set
// (docs/pdf-extraction.md records the figures).
func TestBigSheetFigures(t *testing.T) {
	path := os.Getenv("CAIRN_BIGSHEET")
	if path == "" {
		skip.Because(t, "on demand: set CAIRN_BIGSHEET to a file path")
	}
	if _, err := os.Stat(path); err != nil {
		writeBigSheet(t, path, 500_000, 10)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	runtime.GC()
	var peak atomic.Uint64
	done := make(chan struct{})
	go func() {
		var m runtime.MemStats
		for {
			select {
			case <-done:
				return
			case <-time.After(5 * time.Millisecond):
			}
			runtime.ReadMemStats(&m)
			if m.HeapInuse > peak.Load() {
				peak.Store(m.HeapInuse)
			}
		}
	}()
	start := time.Now()
	d, err := NewRegistry(DefaultLimits()).Extract(t.Context(), File{Name: "big.xlsx", Size: int64(len(b)), R: bytes.NewReader(b)})
	close(done)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%.1f MB file: %.1f s, peak heap %d MB, %d MB of text, %d units, warnings %q",
		float64(len(b))/1e6, time.Since(start).Seconds(), peak.Load()>>20, len(d.Text)>>20, len(d.Units), d.Warnings)
}

func writeBigSheet(t *testing.T, path string, rows, cols int) {
	f := excelize.NewFile()
	sw, err := f.NewStreamWriter("Sheet1")
	if err != nil {
		t.Fatal(err)
	}
	head := make([]any, cols)
	for j := range cols {
		head[j] = fmt.Sprintf("Column %d", j+1)
	}
	sw.SetRow("A1", head)
	row := make([]any, cols)
	for i := range rows {
		for j := range cols {
			if j%2 == 0 {
				row[j] = "item " + strconv.Itoa(i*cols+j)
			} else {
				row[j] = i*cols + j
			}
		}
		cell, _ := excelize.CoordinatesToCellName(1, i+2)
		if err := sw.SetRow(cell, row); err != nil {
			t.Fatal(err)
		}
	}
	if err := sw.Flush(); err != nil {
		t.Fatal(err)
	}
	if err := f.SaveAs(path); err != nil {
		t.Fatal(err)
	}
}

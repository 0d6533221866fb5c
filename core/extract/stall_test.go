package extract

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"cairn/core/extract/extracttest"
	"cairn/core/fault"
)

// A PDF on which pdftotext makes no progress (extracttest.StallingPDF) is
// stopped by the watchdog, whatever the limit, with EXTRACT-004 and its
// fix; the pure-Go reader, which draws no forms, reads its text, so the
// failure is poppler's stall and not a broken file.
func TestStallingPDFFailsWithNoProgress(t *testing.T) {
	engines := pdfEngines(t)
	b := extracttest.StallingPDF()
	lim := DefaultLimits()
	lim.Timeout = 200 * time.Millisecond
	for _, e := range engines {
		t.Run(string(e), func(t *testing.T) {
			d, err := NewRegistry(lim, WithPDFEngine(e)).Extract(context.Background(), File{Name: "stall.pdf", Size: int64(len(b)), R: bytes.NewReader(b)})
			if e == PDFPureGo {
				if err != nil || d.Text != extracttest.StallText {
					t.Fatalf("pure-Go reader: %v, %+v", err, d)
				}
				return
			}
			if fault.CodeOf(err) != fault.ExtractTimeout || !errors.Is(err, context.DeadlineExceeded) ||
				!strings.Contains(err.Error(), "extraction made no progress (no new part of the file read, no page done) for 200ms") {
				t.Fatalf("poppler: %v, want EXTRACT-004 for no progress", err)
			}
		})
	}
}

package cli

import (
	"strings"
	"testing"
	"time"

	"cairn/ui"
)

// The paint suite's figures are times from the moment the process was
// started, and its table reports their medians and spreads.
func TestPaintFiguresFromProcessStart(t *testing.T) {
	t0 := time.Unix(1000, 0)
	var f paintFigures
	for _, ms := range []int64{400, 200, 300} {
		f.add(ui.BenchResult{
			FirstPaintAt:  t0.Add(time.Duration(ms) * time.Millisecond).UnixNano(),
			Black:         time.Duration(ms/10) * time.Millisecond,
			InteractiveAt: t0.Add(time.Duration(ms+1000) * time.Millisecond).UnixNano(),
		}, t0)
	}
	var out strings.Builder
	f.table(&out, "first start", 3)
	for _, want := range []string{
		"| first paint (a frame that is not black) | 300.0 ms | 200.0 ms–400.0 ms |",
		"| … of which the window was on screen, black | 30.0 ms | 20.0 ms–40.0 ms |",
		"| interactive (every panel works) | 1300.0 ms | 1200.0 ms–1400.0 ms |",
	} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("no line %q in\n%s", want, out.String())
		}
	}
}

package cli

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"time"

	"cairn/core/stats"
	"cairn/ui"
)

// paintRuns is how many fresh starts the paint suite times by default.
const paintRuns = 7

// benchPaint times the window's first paint on a first start, the moment a
// tester saw a black window for 1-4 s (issue 16): each run starts `cairn`
// with a new home, so the user guide is installed and indexed as on a new
// machine, and watches the X server (Xvfb, started here unless DISPLAY is
// set) for the window's first frame that is not black. It takes seconds and
// needs no corpus; `cairn bench gui` measures the same over ~100K chunks.
func benchPaint(ctx context.Context, env *cliEnv, work string, runs int) (map[string]any, error) {
	display, stopX, err := xDisplay(env.stderr)
	if err != nil {
		return nil, err
	}
	defer stopX()
	bin, err := os.Executable()
	if err != nil {
		return nil, err
	}
	var f paintFigures
	for i := range runs {
		home, err := filepath.Abs(filepath.Join(work, "paint", fmt.Sprintf("run%d", i+1)))
		if err != nil {
			return nil, err
		}
		os.RemoveAll(home)
		r, t0, err := runGUIChild(ctx, bin, home, display, "default", ui.BenchSpec{Scenario: "startup", Question: paintQuestion})
		os.RemoveAll(home)
		if err != nil {
			return nil, fmt.Errorf("run %d: %w", i+1, err)
		}
		if r.FirstPaintAt == 0 {
			return nil, fmt.Errorf("run %d: the window was never seen painted", i+1)
		}
		f.add(r, t0)
		answered := "none"
		if r.AnsweredAt != 0 {
			answered = msUnit(time.Duration(r.AnsweredAt - t0.UnixNano()))
		}
		fmt.Fprintf(env.stderr, "first start %d: first paint %s (black for %s before), interactive %s, first answer %s\n",
			i+1, msUnit(f.paint[i]), msUnit(f.black[i]), msUnit(f.interactive[i]), answered)
	}
	f.table(env.stdout, fmt.Sprintf("first start, new home (Xvfb, %s)", display), runs)
	return map[string]any{"display": display, "first_paint_ns": f.paint, "black_ns": f.black, "interactive_ns": f.interactive,
		"first_answer_ns": f.answer}, nil
}

// paintQuestion is the first question of the paint suite's starts, one the
// user guide answers.
const paintQuestion = "how do I add a folder"

// paintFigures are the startup runs' times from process start.
type paintFigures struct{ paint, black, interactive, answer []time.Duration }

func (f *paintFigures) add(r ui.BenchResult, t0 time.Time) {
	f.paint = append(f.paint, time.Duration(r.FirstPaintAt-t0.UnixNano()))
	f.black = append(f.black, r.Black)
	f.interactive = append(f.interactive, time.Duration(r.InteractiveAt-t0.UnixNano()))
	if r.AnsweredAt != 0 {
		f.answer = append(f.answer, time.Duration(r.AnsweredAt-t0.UnixNano()))
	}
}

// table prints the medians and spreads as a Markdown table.
func (f *paintFigures) table(w io.Writer, title string, runs int) {
	row := func(what string, ds []time.Duration) {
		fmt.Fprintf(w, "| %s | %s | %s–%s |\n", what, msUnit(stats.MedianDuration(ds)), msUnit(slices.Min(ds)), msUnit(slices.Max(ds)))
	}
	fmt.Fprintf(w, "\n## The window's first paint: %s, %d runs\n\n", title, runs)
	fmt.Fprintln(w, "| from process start to | median | spread |")
	fmt.Fprintln(w, "|---|---|---|")
	row("first paint (a frame that is not black)", f.paint)
	row("… of which the window was on screen, black", f.black)
	row("interactive (every panel works)", f.interactive)
	if len(f.answer) > 0 {
		row(fmt.Sprintf("first answer (%q, asked once the user guide is indexed)", paintQuestion), f.answer)
	}
}

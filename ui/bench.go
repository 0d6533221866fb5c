package ui

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"runtime/pprof"
	"runtime/trace"
	"time"

	"fyne.io/fyne/v2"

	"cairn/panels"
)

// BenchSpec is a measurement to take in the live window (cairn bench gui
// runs the app in a child process, under Xvfb, with one of these).
type BenchSpec struct {
	// Scenario: "startup" (time to interactive; with Question, to its
	// first answer once the first start's user guide is indexed), "index"
	// (longest stall of the window's loop while Folder is indexed) or
	// "rerank" (slider to re-ranked list, after asking Question).
	Scenario string `json:"scenario"`
	Folder   string `json:"folder,omitempty"`
	Tab      string `json:"tab,omitempty"` // index: "ask" keeps the Ask tab in front (searching while indexing); default the Index tab
	Question string `json:"question,omitempty"`
	Moves    int    `json:"moves,omitempty"`   // rerank: slider moves measured
	TopK     int    `json:"top_k,omitempty"`   // rerank: results shown
	Out      string `json:"out"`               // where the JSON results go
	Profile  string `json:"profile,omitempty"` // if set, a CPU profile of the scenario goes there
	Trace    string `json:"trace,omitempty"`   // if set, an execution trace of the scenario goes there
}

// startupLinger is how long the startup scenario keeps the window open
// once it is interactive.
const startupLinger = 2 * time.Second

// BenchResult is what a scenario measured; times are nanoseconds, and
// At fields are wall-clock Unix nanoseconds so the parent can measure from
// the moment it started the process.
type BenchResult struct {
	Scenario      string        `json:"scenario"`
	ShownAt       int64         `json:"shown_at"`       // the window's loop started
	InteractiveAt int64         `json:"interactive_at"` // every panel works
	AnsweredAt    int64         `json:"answered_at"`    // startup with a Question: its answer was shown
	FirstPaintAt  int64         `json:"-"`              // the window showed a frame that is not black (seen by the parent, on the X server)
	Black         time.Duration `json:"-"`              // how long the window was on the screen, black, before that
	Interactive   time.Duration `json:"interactive"`    // since ui.Run began
	// Stalls: each probe's wait from posting an empty function to the
	// window's goroutine (fyne.DoAndWait) until the window ran it;
	// RoundTrips: until the probe's goroutine, woken by its end, went on.
	Stalls     []time.Duration `json:"stalls,omitempty"`
	RoundTrips []time.Duration `json:"round_trips,omitempty"`
	Rerank     []time.Duration `json:"rerank,omitempty"`
	Candidates int             `json:"candidates,omitempty"`
	Files      int             `json:"files,omitempty"`
	IndexTook  time.Duration   `json:"index_took,omitempty"`
	// Index scenario: the index panel's updates while the run went on, and
	// the time the window's thread and the software rasterizer's threads
	// ran (CPU) and waited for a core (Wait) meanwhile; see windowThreads.
	Updates    int           `json:"updates,omitempty"`
	WindowCPU  time.Duration `json:"window_cpu,omitempty"`
	WindowWait time.Duration `json:"window_wait,omitempty"`
	RasterCPU  time.Duration `json:"raster_cpu,omitempty"`
	RasterWait time.Duration `json:"raster_wait,omitempty"`
	Error      string        `json:"error,omitempty"`
}

// benchRun drives a scenario: the window's goroutine feeds it events, a
// goroutine of its own waits for them and acts through fyne.DoAndWait.
type benchRun struct {
	spec    BenchSpec
	win     *window
	res     BenchResult
	events  chan observed // applied events, from the window's goroutine
	updates int           // batches of index events applied; on the window's goroutine
	done    chan struct{}
	err     error
}

func (win *window) startBench(spec *BenchSpec) {
	win.bench = &benchRun{spec: *spec, win: win, res: BenchResult{Scenario: spec.Scenario},
		events: make(chan observed, 4096), done: make(chan struct{})}
}

// shown notes when the window was shown (Fyne's OnStarted).
func (b *benchRun) shown() { b.res.ShownAt = time.Now().UnixNano() }

// observed is an event and when its panel had applied it.
type observed struct {
	ev any
	at time.Time
}

// observe receives every event the panels applied, on the window's
// goroutine; it never blocks it.
func (b *benchRun) observe(ev any) {
	if _, ok := ev.(indexUpdate); ok {
		b.updates++
		return
	}
	select {
	case b.events <- observed{ev, time.Now()}:
	default:
	}
}

// interactive runs on the window's goroutine when the panels work.
func (b *benchRun) interactive(d time.Duration) {
	if b.res.InteractiveAt != 0 {
		return
	}
	b.res.InteractiveAt, b.res.Interactive = time.Now().UnixNano(), d
	go b.run() // ends by quitting the app, which Run waits for
}

func (b *benchRun) run() {
	defer fyne.Do(b.win.app.Quit)
	if b.spec.Profile != "" {
		if f, err := os.Create(b.spec.Profile); err == nil {
			pprof.StartCPUProfile(f)
			defer f.Close()
			defer pprof.StopCPUProfile()
		}
	}
	if b.spec.Trace != "" {
		if f, err := os.Create(b.spec.Trace); err == nil {
			trace.Start(f)
			defer f.Close()
			defer trace.Stop()
		}
	}
	var err error
	switch b.spec.Scenario {
	case "startup":
		if b.spec.Question != "" {
			err = b.firstAnswer()
		}
		// Stay a moment, so that the parent can see the first frame even
		// when it comes after the panels work.
		time.Sleep(startupLinger)
	case "index":
		err = b.index()
	case "rerank":
		err = b.rerank()
	default:
		err = fmt.Errorf("unknown bench scenario %q", b.spec.Scenario)
	}
	if err != nil {
		b.res.Error = err.Error()
	}
	data, _ := json.MarshalIndent(b.res, "", "  ")
	if werr := os.WriteFile(b.spec.Out, data, 0o644); werr != nil && err == nil {
		err = werr
	}
	b.err = err
}

// firstAnswer asks Question as soon as the first start's user guide is
// indexed, as a new user following the guide would, and notes when the
// answer was shown.
func (b *benchRun) firstAnswer() error {
	if _, err := b.wait(5*time.Minute, func(ev any) bool { _, ok := ev.(panels.IndexFinished); return ok }); err != nil {
		return fmt.Errorf("waiting for the user guide to be indexed: %w", err)
	}
	fyne.DoAndWait(func() {
		q := b.win.shell.Query
		q.Question.SetText(b.spec.Question)
		q.Submit()
	})
	o, err := b.waitAt(5*time.Minute, func(ev any) bool { _, ok := ev.(panels.Answered); return ok })
	if err != nil {
		return fmt.Errorf("asking %q: %w", b.spec.Question, err)
	}
	b.res.AnsweredAt = o.at.UnixNano()
	return nil
}

// wait returns the first applied event for which match is true.
func (b *benchRun) wait(timeout time.Duration, match func(any) bool) (any, error) {
	o, err := b.waitAt(timeout, match)
	return o.ev, err
}

// waitAt is wait with the time the event was applied.
func (b *benchRun) waitAt(timeout time.Duration, match func(any) bool) (observed, error) {
	t := time.NewTimer(timeout)
	defer t.Stop()
	for {
		select {
		case o := <-b.events:
			if match(o.ev) {
				return o, nil
			}
		case <-t.C:
			return observed{}, errors.New("timed out waiting for the window")
		}
	}
}

// index measures the window loop's responsiveness while a folder is
// indexed: a probe asks the loop to run an empty function every 10 ms and
// records how long the function waited for the loop, and the whole round
// trip. The stall is the wait: the round trip also holds the probe's own
// wake-up after the function ran, on one of the process's threads the
// window lowers below its own (lowerOtherThreads), which is not the
// window's delay.
func (b *benchRun) index() error {
	var s *shell
	var win0, raster0 threadTimes
	var threadsErr error
	fyne.DoAndWait(func() {
		s = b.win.shell // the window's goroutine owns it
		if b.spec.Tab != "ask" {
			s.showTab(tabIndex) // the person watches the progress
		}
		s.IndexTab.IndexPath(b.spec.Folder)
		b.updates = 0
		win0, raster0, threadsErr = windowThreads()
	})
	stop := make(chan struct{})
	type probes struct{ waits, trips []time.Duration }
	probed := make(chan probes)
	go func() {
		var p probes
		for {
			select {
			case <-stop:
				probed <- p
				return
			case <-time.After(10 * time.Millisecond):
			}
			var ran time.Time
			t := time.Now()
			fyne.DoAndWait(func() { ran = time.Now() })
			p.waits = append(p.waits, ran.Sub(t))
			p.trips = append(p.trips, time.Since(t))
		}
	}()
	ev, err := b.wait(2*time.Hour, func(ev any) bool {
		f, ok := ev.(panels.IndexFinished)
		return ok && f.Path == b.spec.Folder // not the user guide's run on a new knowledge base
	})
	close(stop)
	p := <-probed
	b.res.Stalls, b.res.RoundTrips = p.waits, p.trips
	if err != nil {
		return err
	}
	fyne.DoAndWait(func() {
		b.res.Updates = b.updates
		win1, raster1, err := windowThreads()
		if threadsErr == nil && err == nil { // not Linux: no figures
			b.res.WindowCPU, b.res.WindowWait = win1.CPU-win0.CPU, win1.Wait-win0.Wait
			b.res.RasterCPU, b.res.RasterWait = raster1.CPU-raster0.CPU, raster1.Wait-raster0.Wait
		}
	})
	fin := ev.(panels.IndexFinished)
	b.res.Files = fin.Run.FilesSeen
	b.res.IndexTook = fin.Run.FinishedAt.Sub(fin.Run.StartedAt)
	if fin.Err != nil {
		return fin.Err
	}
	return nil
}

// keywordSyncer is an engine whose keyword index is built in the
// background (core.Engine).
type keywordSyncer interface {
	SyncKeywordIndex(ctx context.Context) error
}

// rerank asks a question with candidate pools of 200, then moves the rrf_k
// slider and times each move, from the change on the window's goroutine to
// the re-ranked list applied there. Moves are 50 ms apart, like a slow
// drag, so that each starts from a drawn frame. It starts once the keyword
// index the window builds after its start is ready: moves during that
// build (seconds over 100K chunks) share the two cores with it and took
// 60-70 ms, a figure of the build rather than of re-ranking.
func (b *benchRun) rerank() error {
	var s *shell
	var eng Engine
	fyne.DoAndWait(func() { s, eng = b.win.shell, b.win.shell.eng }) // the window's goroutine owns them
	if k, ok := eng.(keywordSyncer); ok {
		if err := k.SyncKeywordIndex(b.win.ctx); err != nil {
			return fmt.Errorf("waiting for the keyword index: %w", err)
		}
	}
	var e *panels.Engineering
	fyne.DoAndWait(func() {
		e = s.Tuning
		e.Knob("retrieval.bm25_pool").Slider.SetValue(200)
		e.Knob("retrieval.vector_pool").Slider.SetValue(200)
		e.Knob("retrieval.top_k").Slider.SetValue(float64(max(b.spec.TopK, 1)))
		e.Knob("retrieval.min_score").Slider.SetValue(0)
		s.Query.Question.SetText(b.spec.Question)
		s.Query.Submit()
	})
	ev, err := b.wait(5*time.Minute, func(ev any) bool { _, ok := ev.(panels.Answered); return ok })
	if err != nil {
		return fmt.Errorf("asking %q: %w", b.spec.Question, err)
	}
	if sr := ev.(panels.Answered).Answer.Search; sr != nil && sr.Candidates != nil {
		b.res.Candidates = len(sr.Candidates.Passages)
	}
	if _, err := b.wait(time.Minute, func(ev any) bool { _, ok := ev.(panels.Ranked); return ok }); err != nil {
		return err
	}
	moves := max(b.spec.Moves, 1)
	for i := range moves {
		k := float64(10 + (i%2)*90) // alternate rrf_k 10 and 100: the order changes each time
		time.Sleep(50 * time.Millisecond)
		var t0 time.Time
		fyne.DoAndWait(func() {
			t0 = time.Now()
			e.Knob("retrieval.rrf_k").Slider.SetValue(k)
		})
		o, err := b.waitAt(10*time.Second, func(ev any) bool {
			r, ok := ev.(panels.Ranked)
			return ok && r.Params.RRFK == k
		})
		if err != nil {
			return err
		}
		b.res.Rerank = append(b.res.Rerank, o.at.Sub(t0))
	}
	return nil
}

func (win *window) benchErr() error {
	if win.bench == nil {
		return nil
	}
	return win.bench.err
}

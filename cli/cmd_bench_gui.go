package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"cairn/bench"
	"cairn/core"
	"cairn/core/config"
	"cairn/core/domain"
	"cairn/core/search"
	"cairn/core/stats"
	"cairn/ui"
	"cairn/ui/desktop"
)

// GUI bench settings: the man-page knowledge base is indexed with 1000-
// character chunks, which gives the ~100K chunks the startup figure is
// specified for (1200-character chunks give ~84K).
const (
	guiKB          = "manpages"
	guiChunkSize   = 1000
	guiStartupRuns = 7
	guiStallRuns   = 3
	guiRerankRuns  = 3
	guiMoves       = 40
	guiQuestion    = "list the files of a directory sorted by modification time"
)

// benchGUI measures the window, each figure in a fresh `cairn` process
// showing its window under Xvfb (started here unless DISPLAY is set):
//   - time to the first paint (the window's first frame that is not black,
//     seen on the X server) and to interactive (every panel works) over an
//     existing knowledge base of ~100K chunks, from the moment the process
//     is started;
//   - the longest stall of the window's loop while the man-page corpus is
//     indexed into a new knowledge base, from a probe that asks the loop to
//     run an empty function (fyne.DoAndWait) every 10 ms: how long the
//     function waited for the loop (and the whole round trip, for
//     reference), with the window's and the rasterizer's CPU time;
//   - slider to re-ranked list: rrf_k is moved in the window and timed until
//     the query panel has applied the new ranking of 200 candidates.
//
// Medians over runs; the machine is shared, so the spread is reported too.
func benchGUI(ctx context.Context, env *cliEnv, dir string) (map[string]any, error) {
	log := env.stderr
	mc, err := bench.BuildManCorpus(ctx, "/usr/share/man", filepath.Join(dir, "manpages"), 0, log)
	if err != nil {
		return nil, err
	}
	home, err := filepath.Abs(filepath.Join(dir, "work", "gui"))
	if err != nil {
		return nil, err
	}
	chunks, fuse, err := prepareGUIKB(ctx, env, home, mc.Dir)
	if err != nil {
		return nil, err
	}
	display, stopX, err := xDisplay(log)
	if err != nil {
		return nil, err
	}
	defer stopX()
	bin, err := os.Executable()
	if err != nil {
		return nil, err
	}
	run := func(kb string, spec ui.BenchSpec) (ui.BenchResult, time.Time, error) {
		return runGUIChild(ctx, bin, home, display, kb, spec)
	}

	var interactive, shown, paint, black []time.Duration
	for i := range guiStartupRuns {
		r, t0, err := run(guiKB, ui.BenchSpec{Scenario: "startup"})
		if err != nil {
			return nil, fmt.Errorf("startup run %d: %w", i+1, err)
		}
		interactive = append(interactive, time.Duration(r.InteractiveAt-t0.UnixNano()))
		shown = append(shown, time.Duration(r.ShownAt-t0.UnixNano()))
		paint = append(paint, time.Duration(r.FirstPaintAt-t0.UnixNano()))
		black = append(black, r.Black)
		fmt.Fprintf(log, "startup %d: window shown %s, first paint %s (black for %s before), interactive %s\n", i+1, msUnit(shown[i]), msUnit(paint[i]), msUnit(r.Black), msUnit(interactive[i]))
	}

	// Stalls while indexing, with the Index tab in front (its progress is
	// repainted five times a second) and with the Ask tab in front.
	stalls := map[string]*stallRuns{"index": {}, "ask": {}}
	files := 0
	for i := range guiStallRuns {
		for _, tab := range []string{"index", "ask"} {
			removeKB(filepath.Join(home, "data", "kb", "stall.db"))
			r, _, err := run("stall", ui.BenchSpec{Scenario: "index", Folder: mc.Dir, Tab: tab})
			if err != nil {
				return nil, fmt.Errorf("indexing run %d (%s tab): %w", i+1, tab, err)
			}
			files = r.Files
			st := stalls[tab]
			st.max = append(st.max, slices.Max(r.Stalls))
			st.p99 = append(st.p99, stats.Quantile(r.Stalls, 0.99))
			st.median = append(st.median, stats.MedianDuration(r.Stalls))
			st.add(r)
			fmt.Fprintf(log, "indexing %d, %s tab: %d files in %s, %d probes, longest stall %s (round trip %s), p99 %s, median %s; "+
				"%d updates, window thread %s CPU and %s waiting for a core, rasterizer %s CPU (load average %.1f)\n", i+1, tab,
				r.Files, r.IndexTook.Round(100*time.Millisecond), len(r.Stalls), msUnit(slices.Max(r.Stalls)), msUnit(slices.Max(r.RoundTrips)), msUnit(stats.Quantile(r.Stalls, 0.99)),
				msUnit(stats.MedianDuration(r.Stalls)), r.Updates, msUnit(r.WindowCPU), msUnit(r.WindowWait), msUnit(r.RasterCPU), bench.LoadAverage())
		}
	}
	removeKB(filepath.Join(home, "data", "kb", "stall.db"))

	var rerank []time.Duration
	candidates := 0
	for i := range guiRerankRuns {
		r, _, err := run(guiKB, ui.BenchSpec{Scenario: "rerank", Question: guiQuestion, Moves: guiMoves, TopK: 12})
		if err != nil {
			return nil, fmt.Errorf("re-rank run %d: %w", i+1, err)
		}
		candidates = r.Candidates
		rerank = append(rerank, r.Rerank...)
		fmt.Fprintf(log, "re-rank %d: %d candidates, median %s, max %s\n", i+1, r.Candidates, msUnit(stats.MedianDuration(r.Rerank)), msUnit(slices.Max(r.Rerank)))
	}

	w := env.stdout
	fmt.Fprintf(w, "\n## The window (Xvfb, %s)\n\n", display)
	fmt.Fprintln(w, "| measure | median | spread | target |")
	fmt.Fprintln(w, "|---|---|---|---|")
	fmt.Fprintf(w, "| process start to window shown (%d chunks) | %s | %s–%s | |\n", chunks, msUnit(stats.MedianDuration(shown)), msUnit(slices.Min(shown)), msUnit(slices.Max(shown)))
	fmt.Fprintf(w, "| process start to first paint (not black) | %s | %s–%s | |\n", msUnit(stats.MedianDuration(paint)), msUnit(slices.Min(paint)), msUnit(slices.Max(paint)))
	fmt.Fprintf(w, "| … of which the window was on screen, black | %s | %s–%s | |\n", msUnit(stats.MedianDuration(black)), msUnit(slices.Min(black)), msUnit(slices.Max(black)))
	fmt.Fprintf(w, "| process start to interactive (%d chunks, %d runs) | %s | %s–%s | < 1500 ms |\n", chunks, guiStartupRuns,
		msUnit(stats.MedianDuration(interactive)), msUnit(slices.Min(interactive)), msUnit(slices.Max(interactive)))
	for _, tab := range []string{"index", "ask"} {
		st := stalls[tab]
		fmt.Fprintf(w, "| longest UI stall while indexing %d files, %s tab in front (%d runs) | %s | %s–%s | < 100 ms |\n", files, tab, guiStallRuns,
			msUnit(stats.MedianDuration(st.max)), msUnit(slices.Min(st.max)), msUnit(slices.Max(st.max)))
		fmt.Fprintf(w, "| p99 / median UI stall, %s tab | %s / %s | | |\n", tab, msUnit(stats.MedianDuration(st.p99)), msUnit(stats.MedianDuration(st.median)))
		fmt.Fprintf(w, "| longest probe round trip (the stall and the probe's own wake-up), %s tab | %s | %s–%s | |\n", tab,
			msUnit(stats.MedianDuration(st.trip)), msUnit(slices.Min(st.trip)), msUnit(slices.Max(st.trip)))
		if st.updates > 0 {
			fmt.Fprintf(w, "| %s tab: the window thread's CPU per index panel update (%d updates) / the rasterizer's | %s / %s | | |\n", tab, st.updates,
				msUnit(st.windowCPU/time.Duration(st.updates)), msUnit(st.rasterCPU/time.Duration(st.updates)))
			fmt.Fprintf(w, "| %s tab: the window thread's share of the run, running / waiting for a core | %.1f %% / %.1f %% | | |\n", tab,
				100*st.windowCPU.Seconds()/st.took.Seconds(), 100*st.windowWait.Seconds()/st.took.Seconds())
		}
	}
	fmt.Fprintf(w, "| slider to re-ranked list, %d candidates (%d moves) | %s | p95 %s | < 16 ms |\n", candidates, len(rerank),
		msUnit(stats.MedianDuration(rerank)), msUnit(stats.Quantile(rerank, 0.95)))
	fmt.Fprintf(w, "| search.Fuse alone, %d candidates | %s | | |\n", candidates, fuse)
	return map[string]any{
		"chunks": chunks, "display": display,
		"window_shown_ns": shown, "first_paint_ns": paint, "black_ns": black, "interactive_ns": interactive,
		"index_files":       files,
		"stall_index_tab":   stalls["index"].json(),
		"stall_ask_tab":     stalls["ask"].json(),
		"rerank_candidates": candidates, "rerank_ns": rerank, "fuse_ns": fuse,
	}, nil
}

// stallRuns are the stall figures of the indexing runs with one tab in
// front: each run's longest, 99th percentile and median round trip, and
// over all runs the index panel's updates, how long the runs took, and
// the window thread's and the rasterizer's CPU and wait for a core.
type stallRuns struct {
	max, p99, median, trip                             []time.Duration
	updates                                            int
	took, windowCPU, windowWait, rasterCPU, rasterWait time.Duration
}

func (st *stallRuns) add(r ui.BenchResult) {
	st.trip = append(st.trip, slices.Max(r.RoundTrips))
	st.updates += r.Updates
	st.took += r.IndexTook
	st.windowCPU += r.WindowCPU
	st.windowWait += r.WindowWait
	st.rasterCPU += r.RasterCPU
	st.rasterWait += r.RasterWait
}

func (st *stallRuns) json() map[string]any {
	return map[string]any{"max_ns": st.max, "p99_ns": st.p99, "median_ns": st.median, "round_trip_max_ns": st.trip, "updates": st.updates, "took_ns": st.took,
		"window_cpu_ns": st.windowCPU, "window_wait_ns": st.windowWait, "raster_cpu_ns": st.rasterCPU, "raster_wait_ns": st.rasterWait}
}

// prepareGUIKB makes sure the bench's knowledge base holds the corpus (it
// is kept between runs) and times search.Fuse over a 200-candidate search.
func prepareGUIKB(ctx context.Context, env *cliEnv, home, corpus string) (chunks int, fuse time.Duration, err error) {
	dirs := config.Dirs{Config: filepath.Join(home, "config"), Data: filepath.Join(home, "data"), State: filepath.Join(home, "state")}
	cfg := config.Default("")
	cfg.Paths.DataDir, cfg.Paths.ModelsDir, cfg.Paths.KB = dirs.Data, filepath.Join(dirs.Data, "models"), guiKB
	cfg.Chunking.Size = guiChunkSize
	e, err := core.Open(ctx, cfg, dirs, core.Options{KB: guiKB, Write: true})
	if err != nil {
		return 0, 0, err
	}
	defer e.Close()
	folders, err := e.Folders(ctx)
	if err != nil {
		return 0, 0, err
	}
	if !slices.ContainsFunc(folders, func(f domain.Folder) bool { return f.Path == corpus }) {
		fmt.Fprintf(env.stderr, "indexing %s into %s (once; kept for later runs)…\n", corpus, home)
		t := time.Now()
		run, err := e.IndexFolder(ctx, corpus, nil)
		if err != nil {
			return 0, 0, err
		}
		fmt.Fprintf(env.stderr, "indexed %d files, %d chunks in %s\n", run.FilesIndexed, run.Chunks, time.Since(t).Round(time.Second))
	}
	st, err := e.Status(ctx)
	if err != nil {
		return 0, 0, err
	}
	req := e.SearchRequest(guiQuestion)
	req.BM25Pool, req.VectorPool = 200, 200
	resp, err := e.Search(ctx, req)
	if err != nil {
		return 0, 0, err
	}
	var ds []time.Duration
	for range 200 {
		t := time.Now()
		search.Fuse(resp.Candidates, req.Params)
		ds = append(ds, time.Since(t))
	}
	return st.Chunks, stats.MedianDuration(ds), nil
}

// runGUIChild runs the app with spec in a child process and returns what
// it measured and when it was started.
func runGUIChild(ctx context.Context, bin, home, display, kb string, spec ui.BenchSpec) (ui.BenchResult, time.Time, error) {
	out, err := os.CreateTemp("", "cairn-gui-bench-*.json")
	if err != nil {
		return ui.BenchResult{}, time.Time{}, err
	}
	out.Close()
	defer os.Remove(out.Name())
	spec.Out = out.Name()
	js, _ := json.Marshal(spec)
	ctx, cancel := context.WithTimeout(ctx, 30*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin)
	cmd.Env = append(os.Environ(), "DISPLAY="+display, "CAIRN_HOME="+home, "CAIRN_PATHS_KB="+kb,
		fmt.Sprintf("CAIRN_CHUNKING_SIZE=%d", guiChunkSize), "XDG_CONFIG_HOME="+filepath.Join(home, "xdg"),
		benchGUIEnv+"="+string(js))
	var stderr strings.Builder
	cmd.Stderr = &stderr
	t0 := time.Now()
	if err := cmd.Start(); err != nil {
		return ui.BenchResult{}, t0, err
	}
	// The first paint is seen from outside: the window's first frame that
	// is not black on the X server.
	type paint struct {
		mapped, at time.Time
		err        error
	}
	painted := make(chan paint, 1)
	watch, stopWatch := context.WithCancel(ctx)
	defer stopWatch()
	if spec.Scenario == "startup" {
		go func() {
			mapped, at, err := desktop.WaitPainted(watch, display, "Cairn")
			painted <- paint{mapped, at, err}
		}()
	} else {
		painted <- paint{}
	}
	if err := cmd.Wait(); err != nil {
		return ui.BenchResult{}, t0, fmt.Errorf("%w: %s", err, lastLines(stderr.String(), 5))
	}
	stopWatch()
	p := <-painted
	var r ui.BenchResult
	b, err := os.ReadFile(out.Name())
	if err == nil {
		err = json.Unmarshal(b, &r)
	}
	if err != nil {
		return r, t0, fmt.Errorf("reading the window's results: %w", err)
	}
	if r.Error != "" {
		return r, t0, errors.New(r.Error)
	}
	if p.err != nil {
		return r, t0, fmt.Errorf("first paint: %w", p.err)
	}
	if !p.at.IsZero() {
		r.FirstPaintAt = p.at.UnixNano()
	}
	if !p.mapped.IsZero() {
		r.Black = p.at.Sub(p.mapped)
	}
	return r, t0, nil
}

// xDisplay returns the display to use: $DISPLAY, or a new Xvfb server that
// stop shuts down.
func xDisplay(log interface{ Write([]byte) (int, error) }) (display string, stop func(), err error) {
	if d := os.Getenv("DISPLAY"); d != "" {
		return d, func() {}, nil
	}
	xvfb, err := exec.LookPath("Xvfb")
	if err != nil {
		return "", nil, errors.New("no DISPLAY and no Xvfb: install xvfb (make deps) or run under a desktop session")
	}
	for n := 90; n < 110; n++ {
		sock := fmt.Sprintf("/tmp/.X11-unix/X%d", n)
		if _, err := os.Stat(sock); err == nil {
			continue
		}
		// A screen larger than twice the window keeps the pointer (at the
		// screen's centre) off the window: Fyne 2.7 can crash when the
		// pointer moves over a window that is closing (fyne-io/fyne#5981),
		// and the bench closes its windows within a second.
		cmd := exec.Command(xvfb, fmt.Sprintf(":%d", n), "-screen", "0", "2560x1800x24", "-nolisten", "tcp")
		if err := cmd.Start(); err != nil {
			return "", nil, err
		}
		stop := func() {
			cmd.Process.Kill()
			cmd.Wait()
		}
		for range 100 {
			if _, err := os.Stat(sock); err == nil {
				fmt.Fprintf(log, "Xvfb on :%d\n", n)
				return fmt.Sprintf(":%d", n), stop, nil
			}
			time.Sleep(50 * time.Millisecond)
		}
		stop()
	}
	return "", nil, errors.New("could not start Xvfb on displays :90 to :109")
}

func msUnit(d time.Duration) string {
	return fmt.Sprintf("%.1f ms", float64(d)/float64(time.Millisecond))
}

func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	return strings.Join(lines[max(0, len(lines)-n):], "\n")
}

package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"time"

	"cairn/core"
	"cairn/core/config"
	"cairn/core/domain"
	"cairn/core/fault"
)

func runIndex(ctx context.Context, env *cliEnv, args []string) error {
	fs := flag.NewFlagSet("index", flag.ContinueOnError)
	var kb kbFlags
	kb.add(fs)
	quiet := fs.Bool("quiet", false, "print only the summary")
	watching := fs.Bool("watch", false, "after the run, keep watching the folder and index what changes, until Ctrl+C")
	as := fs.String("as", "", "with store.backend weaviate: the folder's `name` in the team cluster, the same on every machine (default: its absolute path)")
	retry := fs.Bool("retry-failed", false, "read again every file an earlier run skipped or failed on, though it has not changed (otherwise such a file waits until it changes)")
	pos, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		return usageError{"index needs exactly one folder: cairn index DIR"}
	}
	if env.cfg.Store.Backend == config.BackendWeaviate {
		// A team run reads every file not indexed again: --retry-failed is
		// what it does anyway.
		return indexTeam(ctx, env, kb, pos[0], *as, *quiet, *watching)
	}
	if *as != "" {
		return usageError{"--as names a folder in a team cluster: it needs store.backend weaviate"}
	}
	eng, err := kb.openWrite(ctx, env)
	if err != nil {
		return err
	}
	defer eng.Close()

	first := *retry
	once := func() error {
		run := eng.IndexFolder
		if first { // the first run only: --watch's later runs are ordinary
			run, first = eng.RetryFailed, false
		}
		return indexOnce(ctx, env, run, pos[0], *quiet)
	}
	if !*watching {
		return once()
	}
	return keepIndexing(ctx, env, eng, pos[0], once, 0)
}

// keepIndexing runs once, then again after each settled burst of changes
// in folder, until Ctrl+C (ctx): `cairn index --watch`. A run that fails
// is reported and the watch goes on, trying again after retry when that is
// not 0: a team cluster's folder that another indexer holds, or a cluster
// not answering yet, is the normal state of a watcher started at boot.
// Without retry (a knowledge base file) a first run that fails ends it.
func keepIndexing(ctx context.Context, env *cliEnv, eng *core.Engine, folder string, once func() error, retry time.Duration) error {
	watch := func(ctx context.Context, changed func()) error {
		return eng.Watch(ctx, folder, 0, func([]string) { changed() })
	}
	return rerun(ctx, env.stderr, folder, once, watch, retry)
}

// rerun is keepIndexing's loop, with the folder's watcher as a function:
// watch calls changed on each settled burst of changes and returns when
// ctx ends or the folder cannot be watched.
func rerun(ctx context.Context, stderr io.Writer, folder string, once func() error, watch func(context.Context, func()) error, retry time.Duration) error {
	changed := make(chan struct{}, 1)
	due := func() {
		select {
		case changed <- struct{}{}:
		default: // a run is due already: it will see these changes too
		}
	}
	var partial partialError
	failed := func(err error) {
		fmt.Fprintln(stderr, "cairn:", fault.Printable(err.Error()))
		if retry > 0 {
			fmt.Fprintf(stderr, "trying again in %s\n", retry)
			time.AfterFunc(retry, due)
		}
	}
	err := once()
	if ctx.Err() != nil {
		return err
	}
	if err != nil && !errors.As(err, &partial) {
		if retry == 0 {
			return err
		}
		failed(err)
	}
	fmt.Fprintf(stderr, "watching %s; Ctrl+C stops\n", fault.Printable(folder))
	werr := make(chan error, 1)
	go func() { werr <- watch(ctx, due) }()
	for {
		select {
		case <-changed:
			if err := once(); err != nil && !errors.As(err, &partial) {
				if ctx.Err() != nil {
					<-werr
					return ctx.Err()
				}
				failed(err)
			}
		case err := <-werr:
			return err // ctx.Err() after Ctrl+C, or why the folder cannot be watched
		}
	}
}

// indexOnce runs one index run of folder with run (Engine.IndexFolder or
// RetryFailed), printing its progress and summary; files that failed in
// this run are a partialError, and files that failed before and were not
// read again are said in a line.
func indexOnce(ctx context.Context, env *cliEnv, run indexRun, folder string, quiet bool) error {
	progress := make(chan domain.Progress, 64)
	done := make(chan failures, 1)
	go func() { done <- printProgress(env.stderr, progress, quiet, isTerminal(env.stderr)) }()
	r, err := run(ctx, folder, progress)
	failed := <-done
	if r.ID != 0 {
		printRun(env.stdout, r)
	}
	if err != nil {
		return err
	}
	if failed.before > 0 {
		if failed.before == 1 {
			fmt.Fprintln(env.stderr, "1 file failed before and has not changed: not read again; `cairn status --issues` says why, `cairn index --retry-failed` reads it again")
		} else {
			fmt.Fprintf(env.stderr, "%d files failed before and have not changed: not read again; `cairn status --issues` says why, `cairn index --retry-failed` reads them again\n", failed.before)
		}
	}
	if failed.now > 0 {
		return partialError{failed.message(r.FilesSeen)}
	}
	return nil
}

// indexRun is Engine.IndexFolder or Engine.RetryFailed.
type indexRun func(ctx context.Context, folder string, progress chan<- domain.Progress) (domain.Run, error)

// failures counts the failed files of a run: those that failed in it, of
// them those the next run reads again, and those that failed before and
// were not read.
type failures struct{ now, retried, before int }

// message is the last line of a run in which files failed.
func (f failures) message(seen int) string {
	msg := fmt.Sprintf("%d of %d files failed", f.now, seen)
	switch {
	case f.retried == f.now:
		msg += " and will be retried on the next run"
	case f.retried == 0:
		msg += "; they are read again when they change, or with --retry-failed"
	default:
		msg += fmt.Sprintf("; %d will be retried on the next run, the others when they change or with --retry-failed", f.retried)
	}
	return msg + "; `cairn status --issues` lists them with the reason"
}

// printRun prints a run's summary line.
func printRun(w io.Writer, run domain.Run) {
	fmt.Fprintf(w, "%s: %d files seen, %d indexed, %d unchanged, %d skipped, %d failed, %d removed; %d chunks, %.1f MB in %s\n",
		fault.Printable(run.Folder), run.FilesSeen, run.FilesIndexed, run.FilesUnchanged, run.FilesSkipped, run.FilesFailed,
		run.FilesRemoved, run.Chunks, float64(run.Bytes)/(1<<20), time.Since(run.StartedAt).Round(time.Millisecond))
}

// indexTeam indexes folder into the team cluster (store.backend weaviate),
// and with watching again whenever it changes, each run under the folder's
// lease (so that another indexer, or a removal, may take it between runs).
// The run and the files not indexed are recorded in the local knowledge
// base (--kb, --db), not in the cluster; when it cannot be opened, the
// run goes on, reported here and in the log only.
func indexTeam(ctx context.Context, env *cliEnv, kb kbFlags, folder, as string, quiet, watching bool) error {
	eng, err := kb.openWrite(ctx, env)
	if err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		fmt.Fprintln(env.stderr, "cairn: warning: this run is not recorded in the local knowledge base:", err)
		opt := kb.options(env)
		opt.NoKB = true
		if eng, err = core.Open(ctx, env.cfg, env.dirs, opt); err != nil {
			return err
		}
	}
	defer eng.Close()
	once := func() error {
		progress := make(chan domain.Progress, 64)
		done := make(chan failures, 1)
		go func() { done <- printProgress(env.stderr, progress, quiet, isTerminal(env.stderr)) }()
		run, err := eng.IndexTeam(ctx, folder, as, progress)
		<-done
		if !run.StartedAt.IsZero() {
			printRun(env.stdout, run)
		}
		if err == nil && run.FilesFailed > 0 {
			return partialError{fmt.Sprintf("%d of %d files failed and will be retried on the next run; `cairn status --issues` lists them with the reason",
				run.FilesFailed, run.FilesSeen)}
		}
		return err
	}
	if !watching {
		return once()
	}
	return keepIndexing(ctx, env, eng, folder, once, teamRetry)
}

// teamRetry is how long `cairn index --watch` waits to run again after a
// run into the team cluster failed: another indexer held the folder, the
// cluster did not answer.
const teamRetry = time.Minute

// printProgress shows a live status line on a terminal and one line per
// skipped or failed file, so no file is silently missing, and counts the
// failed ones.
func printProgress(w io.Writer, ch <-chan domain.Progress, quiet, tty bool) failures {
	var last time.Time
	var failed failures
	for p := range ch {
		if f := p.File; f != nil && f.Status == domain.StatusFailed {
			switch {
			case f.Unchanged:
				failed.before++
			case f.Retry:
				failed.now++
				failed.retried++
			default:
				failed.now++
			}
		}
		if f := p.File; f != nil && !quiet && (f.Status == domain.StatusSkipped || f.Status == domain.StatusFailed) && !f.Unchanged {
			if tty {
				fmt.Fprint(w, "\r\033[K")
			}
			// Paths and reasons quote file names and documents' own text
			// (a mail header): their control characters are shown, not
			// acted on.
			fmt.Fprintf(w, "%s: %s: %s\n", f.Status, fault.Printable(f.Path), fault.Printable(f.Reason))
		}
		if tty && (time.Since(last) > 100*time.Millisecond || p.Phase == domain.PhaseDone) {
			last = time.Now()
			fmt.Fprint(w, "\r\033[K"+statusLine(p))
			if p.Phase == domain.PhaseDone {
				fmt.Fprintln(w)
			}
		}
	}
	return failed
}

func statusLine(p domain.Progress) string {
	switch p.Phase {
	case domain.PhaseScanning:
		return fmt.Sprintf("scanning: %d files found", p.FilesSeen)
	case domain.PhaseEmbedding:
		return fmt.Sprintf("embedding: %d/%d chunks%s", p.FilesDone, p.FilesTotal, eta(p.ETA))
	case domain.PhaseDone:
		return fmt.Sprintf("done: %d indexed, %d unchanged, %d skipped, %d failed", p.Indexed, p.Unchanged, p.Skipped, p.Failed)
	}
	rate := 0.0
	if s := p.Elapsed.Seconds(); s > 0 {
		rate = float64(p.Bytes) / (1 << 20) / s
	}
	cur := shortPath(fault.Printable(p.Current), 40)
	return fmt.Sprintf("%s: %d/%d files, %d chunks, %.1f MB, %.1f MB/s%s  %s",
		p.Phase, p.FilesDone, p.FilesTotal, p.Chunks, float64(p.Bytes)/(1<<20), rate, eta(p.ETA), cur)
}

func eta(d time.Duration) string {
	if d <= 0 {
		return ""
	}
	return ", ETA " + d.Round(time.Second).String()
}

// isTerminal reports whether w is a character device (a terminal).
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}

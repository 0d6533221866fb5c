package ui

import (
	"context"
	"os"
	"runtime"
	"strconv"
	"strings"
	"time"

	"cairn/core/kb"
	"cairn/panels"
)

// statusEvery is how often the status bar refreshes.
const statusEvery = 3 * time.Second

// statusWorker reports the knowledge base's state to the status bar every
// few seconds, and at once when poked (after an indexing run).
type statusWorker struct {
	eng    Engine
	events chan<- panels.StatusReport
	poke   <-chan struct{}
	every  time.Duration
	api    func() string // where the window's local service listens, "" when off
	// changed, if set, runs when a report finds the knowledge base changed
	// since the last one (its documents, chunks or last run): another
	// process, `cairn index` in a terminal, may have indexed it.
	changed func()

	last *kbMark // of the last report; nil before the first
}

// kbMark is what tells one state of a knowledge base's contents from
// another in a status report.
type kbMark struct {
	documents, chunks int
	run               int64
	status            string
	finished          time.Time
}

func (w *statusWorker) run(ctx context.Context) {
	t := time.NewTicker(w.every)
	defer t.Stop()
	for {
		w.report(ctx)
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		case <-w.poke:
		}
	}
}

func (w *statusWorker) report(ctx context.Context) {
	st, err := w.eng.Status(ctx)
	if err != nil && ctx.Err() != nil {
		return
	}
	r := panels.StatusReport{Err: err, Memory: residentMemory()}
	if w.api != nil {
		r.API = w.api()
	}
	if err == nil {
		w.mark(st)
		r.KB, r.Documents, r.Chunks, r.Vectors, r.Bytes = st.Path, st.Documents, st.Chunks, st.Vectors, st.Bytes
		r.EmbeddingModel, r.ChatModel, r.NetworkMode, r.LastRun = st.EmbeddingModel, st.ChatModel, st.NetworkMode, st.LastRun
		r.Device = st.Device
		if st.Team {
			r.Cluster = st.Store
		}
		if c := st.MeaningCoverage(); c != nil {
			r.Meaning = c.Short()
		}
	}
	send(ctx, w.events, r)
}

// mark notes st's contents and calls changed when they differ from the
// last report's.
func (w *statusWorker) mark(st kb.Status) {
	m := &kbMark{documents: st.Documents, chunks: st.Chunks}
	if r := st.LastRun; r != nil {
		m.run, m.status, m.finished = r.ID, r.Status, r.FinishedAt
	}
	if w.last != nil && *w.last != *m && w.changed != nil {
		w.changed()
	}
	w.last = m
}

// residentMemory is the process's resident set (Go heap, SQLite and any
// model weights), from /proc; the Go runtime's own figure elsewhere.
func residentMemory() int64 {
	if b, err := os.ReadFile("/proc/self/statm"); err == nil {
		if f := strings.Fields(string(b)); len(f) > 1 {
			if pages, err := strconv.ParseInt(f[1], 10, 64); err == nil {
				return pages * int64(os.Getpagesize())
			}
		}
	}
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return int64(m.Sys)
}

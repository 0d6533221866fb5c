package ui

import (
	"context"
	"os"
	"runtime"
	"strconv"
	"strings"
	"time"

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

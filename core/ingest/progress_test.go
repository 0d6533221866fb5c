package ingest

import (
	"cairn/core/domain"
	"testing"
	"time"
)

// TestReporterNeverSendsUnderItsLock: with nobody reading yet, reporting a
// file returns at once, and the run's counts can be read meanwhile; the
// events then arrive in order and close closes the channel after them.
func TestReporterNeverSendsUnderItsLock(t *testing.T) {
	ch := make(chan domain.Progress) // unbuffered: a send waits for the reader
	r := newReporter(ch)
	returned := make(chan struct{})
	go func() {
		r.phase(domain.PhaseIndexing)
		r.file(domain.FileEvent{Path: "a", Status: domain.StatusIndexed, Chunks: 2})
		r.file(domain.FileEvent{Path: "b", Status: domain.StatusFailed})
		close(returned)
	}()
	select {
	case <-returned:
	case <-time.After(5 * time.Second):
		t.Fatal("reporting blocked on a reader that is not reading")
	}
	var run struct{ Indexed, Failed, Chunks int }
	r.mu.Lock() // as fillWith reads them
	run.Indexed, run.Failed, run.Chunks = r.p.Indexed, r.p.Failed, r.p.Chunks
	r.mu.Unlock()
	if run.Indexed != 1 || run.Failed != 1 || run.Chunks != 2 {
		t.Errorf("counts %+v", run)
	}
	go r.close()
	var got []string
	for ev := range ch {
		if ev.File != nil {
			got = append(got, ev.File.Path)
		}
	}
	if len(got) != 2 || got[0] != "a" || got[1] != "b" {
		t.Errorf("file events %q", got)
	}
}

package ui

import (
	"context"
	"slices"
	"testing"
	"time"

	"fyne.io/fyne/v2/test"

	"cairn/panels"
)

func TestMailboxKeepsOrderAndNeverBlocksThePoster(t *testing.T) {
	m := newMailbox[int]()
	for i := range 1000 { // nobody receives yet: posting must still return
		m.post(i)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { m.run(ctx); close(done) }()
	var got []int
	for range 1000 {
		got = append(got, <-m.out)
	}
	m.post(1000)
	got = append(got, <-m.out)
	want := make([]int, 1001)
	for i := range want {
		want[i] = i
	}
	if !slices.Equal(got, want) {
		t.Errorf("out of order: %v...", got[:10])
	}
	cancel()
	<-done
	m.post(1001) // after the worker stopped: dropped, without blocking
	select {
	case r := <-m.out:
		t.Errorf("delivered %d after close", r)
	case <-time.After(20 * time.Millisecond):
	}
}

// With the workers stopped, so that nothing receives the panels' requests,
// clicking and dragging in every panel returns at once: the window cannot
// freeze on a worker.
func TestPanelActionsReturnWhenTheWorkersStopped(t *testing.T) {
	h := newHarness(t, newFakeEngine(t.TempDir()))
	s := h.shell()
	stopped := make(chan struct{})
	go func() { s.stop(); close(stopped) }()
	h.until("the workers to stop", func() bool {
		select {
		case <-stopped:
			return true
		default:
			return false
		}
	})
	folder := t.TempDir()
	done := make(chan struct{})
	go func() {
		defer close(done)
		rrf := s.Tuning.Knob("retrieval.rrf_k").Slider
		for i := range 200 {
			s.Query.Question.SetText("router")
			test.Tap(s.Query.AskButton)
			rrf.SetValue(float64(i % 100)) // re-rank to the query worker
			drag(rrf, 0.5)                 // and save to the settings worker
			s.IndexTab.Folder.SetText(folder)
			test.Tap(s.IndexTab.StartButton)
			s.IndexTab.Apply(panels.IndexReady{})
		}
	}()
	// A deadline for a hang, not a speed check: 200 rounds take well under
	// a second, and an action waiting on a stopped worker never returns.
	select {
	case <-done:
	case <-time.After(time.Minute):
		t.Fatal("panel actions blocked with the workers stopped")
	}
}

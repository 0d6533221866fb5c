package ingest

import (
	"cairn/core/domain"
	"sync"
	"time"
)

// reporter owns the running Progress and sends copies on the channel. It
// never sends under its lock: events queue in order, and a goroutine of
// its own delivers them, so a slow reader slows nobody but that goroutine
// (the extraction workers and the writer keep going).
type reporter struct {
	mu      sync.Mutex
	ch      chan<- domain.Progress
	p       domain.Progress
	began   time.Time
	t0      time.Time         // start of the indexing phase, for the rate
	queue   []domain.Progress // events not yet delivered, oldest first
	closing bool
	wake    chan struct{} // the deliverer has events (or must finish)
	drained chan struct{} // closed when the deliverer is done

	// eta estimates the indexing phase's time left (etaModel); reading
	// lists the files being read, by when they began, so that Current
	// names the one read longest: a large PDF, not the small file that
	// happened to start last.
	eta     *etaModel
	reading map[string]time.Time
	// beat stops the heartbeat that reports while no file ends (a large
	// file's minute), so that the time left and the file being read stay
	// current.
	beat chan struct{}
}

// heartbeat is how often a run reports while no file ends.
const heartbeat = time.Second

func newReporter(ch chan<- domain.Progress) *reporter {
	r := &reporter{ch: ch, began: time.Now()}
	if ch != nil {
		r.wake, r.drained = make(chan struct{}, 1), make(chan struct{})
		go r.deliver() // close waits for it
	}
	return r
}

// send queues a copy of the current progress; r.mu is held.
func (r *reporter) send() {
	r.p.Elapsed = time.Since(r.began)
	if r.ch == nil {
		return
	}
	r.queue = append(r.queue, r.p)
	r.nudge()
}

func (r *reporter) nudge() {
	select {
	case r.wake <- struct{}{}:
	default: // already nudged
	}
}

// deliver sends the queued events in order until close has been called and
// the queue is empty.
func (r *reporter) deliver() {
	defer close(r.drained)
	for range r.wake {
		for {
			r.mu.Lock()
			q, closing := r.queue, r.closing
			r.queue = nil
			r.mu.Unlock()
			if len(q) == 0 {
				if closing {
					return
				}
				break
			}
			for _, p := range q {
				r.ch <- p
			}
		}
	}
}

func (r *reporter) start(folder string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.p.Folder = folder
}

func (r *reporter) phase(ph domain.Phase) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.p.Phase = ph
	if ph == domain.PhaseIndexing || ph == domain.PhaseEmbedding {
		r.t0 = time.Now()
	}
	r.p.File = nil
	r.send()
	r.stopBeat()
	if ph == domain.PhaseIndexing && r.ch != nil {
		r.beat = make(chan struct{})
		go r.beating(r.beat)
	}
}

// beating reports every heartbeat until stop is closed.
func (r *reporter) beating(stop chan struct{}) {
	t := time.NewTicker(heartbeat)
	defer t.Stop()
	for {
		select {
		case <-stop:
			return
		case <-t.C:
		}
		r.mu.Lock()
		if r.beat == stop {
			r.estimate(time.Now())
			r.p.File = nil
			r.send()
		}
		r.mu.Unlock()
	}
}

// stopBeat stops the heartbeat; r.mu is held.
func (r *reporter) stopBeat() {
	if r.beat != nil {
		close(r.beat)
		r.beat = nil
	}
}

// plan tells the reporter the files the indexing phase reads, and how
// many workers read them (large tells the files read in the large lane).
func (r *reporter) plan(jobs []job, workers int, large func(job) bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.eta = newETAModel(workers)
	r.reading = map[string]time.Time{}
	for _, j := range jobs {
		r.eta.plan(j.path, j.size, large(j))
	}
}

// estimate sets the time left and the file being read; r.mu is held.
func (r *reporter) estimate(now time.Time) {
	if r.eta == nil || r.p.Phase != domain.PhaseIndexing {
		return
	}
	r.p.ETA = r.eta.left(now)
	var first time.Time
	for path, at := range r.reading {
		if first.IsZero() || at.Before(first) || at.Equal(first) && path < r.p.Current {
			first, r.p.Current = at, path
		}
	}
}

func (r *reporter) scanned(n int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.p.FilesSeen = n
	r.p.File = nil
	r.send()
}

func (r *reporter) planned(seen, total int, bytes int64) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.p.FilesSeen, r.p.FilesTotal, r.p.BytesTotal = seen, total, bytes
}

// embedTotal sets the chunk count of a re-embedding pass, reported through
// FilesTotal/FilesDone so a progress bar needs no special case.
func (r *reporter) embedTotal(n int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.p.FilesTotal = n
}

func (r *reporter) embedded(n int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.p.FilesDone += n
	r.p.Chunks += n
	r.p.ETA = r.extrapolate(float64(r.p.FilesDone), float64(r.p.FilesTotal))
	r.p.File = nil
	r.send()
}

// current notes that path is being read from now on.
func (r *reporter) current(path string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	now := time.Now()
	if r.eta != nil {
		r.eta.started(path, now)
		r.reading[path] = now
	}
	if len(r.reading) <= 1 {
		r.p.Current = path
	}
}

// wrote notes that the writer stored batch's files, taking took.
func (r *reporter) wrote(batch []result, took time.Duration) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.eta == nil {
		return
	}
	paths, chunks := make([]string, len(batch)), make([]int, len(batch))
	for i, res := range batch {
		paths[i], chunks[i] = res.path, len(res.chunks)
	}
	r.eta.wrote(paths, chunks, took)
}

// read notes that path's extraction ended.
func (r *reporter) read(path string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.eta != nil {
		r.eta.read(path, time.Now())
		delete(r.reading, path)
	}
}

func (r *reporter) file(ev domain.FileEvent) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if count(&r.p, ev) {
		if r.eta != nil {
			r.estimate(time.Now())
		} else {
			r.p.ETA = r.extrapolate(float64(r.p.Bytes), float64(r.p.BytesTotal))
		}
	}
	r.p.File = &ev
	r.send()
}

// count adds one file's outcome to p's counts, reporting whether it was
// read in the indexing phase (and so moves the ETA).
func count(p *domain.Progress, ev domain.FileEvent) bool {
	switch ev.Status {
	case domain.StatusIndexed:
		p.Indexed++
	case domain.StatusUnchanged:
		p.Unchanged++
	case domain.StatusSkipped:
		p.Skipped++
	case domain.StatusFailed:
		p.Failed++
	case domain.StatusRemoved:
		p.Removed++
	}
	p.Chunks += ev.Chunks
	if !ev.Unchanged && ev.Status != domain.StatusRemoved && p.Phase == domain.PhaseIndexing {
		p.FilesDone++
		p.Bytes += ev.Bytes
		return true
	}
	return false
}

// extrapolate extrapolates the rate of the current phase (embedding, whose
// passages cost alike; a run without a plan).
func (r *reporter) extrapolate(done, total float64) time.Duration {
	el := time.Since(r.t0)
	if done <= 0 || total <= done || el < 500*time.Millisecond {
		return 0
	}
	return time.Duration(float64(el) / done * (total - done))
}

// fill copies the counts into the run record.
func (r *reporter) fill(run *domain.Run) { r.fillWith(run, nil) }

// fillWith copies into the run record the counts as they will be once
// pending, the events of a transaction not yet committed, are reported:
// the transaction records them with its files.
func (r *reporter) fillWith(run *domain.Run, pending []domain.FileEvent) {
	r.mu.Lock()
	p := r.p
	r.mu.Unlock()
	for _, ev := range pending {
		count(&p, ev)
	}
	run.FilesSeen, run.FilesIndexed, run.FilesUnchanged = p.FilesSeen, p.Indexed, p.Unchanged
	run.FilesSkipped, run.FilesFailed, run.FilesRemoved = p.Skipped, p.Failed, p.Removed
	run.Chunks, run.Bytes = p.Chunks, p.Bytes
}

func (r *reporter) finish(run domain.Run) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.stopBeat()
	r.p.Phase = domain.PhaseDone
	r.p.Current = ""
	r.p.ETA = 0
	r.p.File = nil
	r.p.Run = &run
	r.send()
}

// close delivers what is queued, then closes the channel.
func (r *reporter) close() {
	if r.ch == nil {
		return
	}
	r.mu.Lock()
	r.closing = true
	r.stopBeat()
	r.mu.Unlock()
	r.nudge()
	<-r.drained
	close(r.ch)
}

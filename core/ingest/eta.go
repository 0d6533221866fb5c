package ingest

import (
	"math"
	"path/filepath"
	"strings"
	"time"
)

// etaModel estimates the time an indexing run has left from the bytes it
// has to read and the throughput measured so far, kind of file by kind of
// file: a folder of text files and large PDFs reads its text in seconds
// and its PDFs at a fraction of that rate, so one rate for every byte
// said "about 0:07 left" with 29 s to go.
//
// A kind's cost to read a file is fitted to what its finished files took
// (before the first is read, at least what its files being read have
// taken so far); the writer's, to what its transactions took, shared among
// their files by their passages. The time left is the run's
// remaining schedule at those costs, laid out as the pipeline runs it:
// the large files one after another in a lane of their own, the small
// ones by the other workers (and the large lane once it is free), each
// file written after it is read, one transaction at a time. No time is
// given while a kind that holds a good part of the remaining bytes has
// not been measured (unmeasured).
type etaModel struct {
	workers int
	order   []string            // the files in the order the pipeline takes them
	files   map[string]*etaFile // not written yet, by path
	kinds   map[string]*etaKind // reading's cost, by kind
	cost    etaKind             // reading's, every kind together
	writes  map[string]*etaKind // writing's cost, by kind
	written etaKind             // writing's, every kind together

	// The last estimate, and when it was made: a run of many small files
	// reports thousands of times a second, and laying out its schedule
	// each time would cost more than the run.
	last   time.Duration
	lastAt time.Time
}

type etaFile struct {
	kind    string
	size    int64
	large   bool      // read in the large files' lane
	started time.Time // zero until it is being read
	read    time.Time // zero until its extraction ended; it then waits for the writer
}

// etaKind is what files of a kind cost: took = fixed + perByte*bytes,
// fitted to each of them (a file's fixed part, such as starting
// pdftotext, weighs on small files; measured per byte alone, a kind of
// small files made its large ones look slow).
type etaKind struct {
	bytes int64
	took  time.Duration
	n     float64
	sx    float64 // sizes
	sy    float64 // times
	sxx   float64
	sxy   float64
}

// add adds a file of size bytes that took took.
func (k *etaKind) add(size int64, took time.Duration) {
	k.bytes += size
	k.took += took
	x, y := float64(size), float64(took)
	k.n++
	k.sx += x
	k.sy += y
	k.sxx += x * x
	k.sxy += x * y
}

// of is what a file of size costs, in nanoseconds.
func (k *etaKind) of(size int64) float64 {
	a, b := k.cost()
	return a + b*float64(size)
}

// cost is the fitted fixed part and cost of a byte, in nanoseconds; with
// fewer than three files, or sizes too alike to tell the parts apart, all
// of it a byte's.
func (k *etaKind) cost() (fixed, perByte float64) {
	if k.bytes <= 0 {
		return 0, 0
	}
	ratio := k.sy / k.sx
	if k.n < 3 {
		return 0, ratio
	}
	mean := k.sx / k.n
	spread := k.sxx/k.n - mean*mean // the sizes' variance
	if spread <= 0 || math.Sqrt(spread) < 0.2*mean {
		return 0, ratio
	}
	b := (k.sxy/k.n - mean*k.sy/k.n) / spread
	a := k.sy/k.n - b*mean
	switch {
	case b < 0: // larger files no slower: the same time each
		return k.sy / k.n, 0
	case a < 0:
		return 0, ratio
	}
	return a, b
}

func newETAModel(workers int) *etaModel {
	return &etaModel{workers: max(workers, 1), files: map[string]*etaFile{}, kinds: map[string]*etaKind{}, writes: map[string]*etaKind{}}
}

// kindOf is the kind a file's cost is measured by: its extension.
func kindOf(path string) string { return strings.ToLower(filepath.Ext(path)) }

// plan adds a file the run has to read, in the order the pipeline takes
// them.
func (m *etaModel) plan(path string, size int64, large bool) {
	m.files[path] = &etaFile{kind: kindOf(path), size: max(size, 1), large: large}
	m.order = append(m.order, path)
}

// started notes that a file is being read from now on.
func (m *etaModel) started(path string, now time.Time) {
	if f := m.files[path]; f != nil {
		f.started = now
	}
}

// read notes that a file's extraction ended, and what it cost.
func (m *etaModel) read(path string, now time.Time) {
	f := m.files[path]
	if f == nil || !f.read.IsZero() || f.started.IsZero() {
		return
	}
	f.read = now
	addCost(m.kinds, &m.cost, f, now.Sub(f.started))
}

// addCost adds a file's cost to its kind's and to all's.
func addCost(kinds map[string]*etaKind, all *etaKind, f *etaFile, took time.Duration) {
	k := kinds[f.kind]
	if k == nil {
		k = &etaKind{}
		kinds[f.kind] = k
	}
	k.add(f.size, took)
	all.add(f.size, took)
}

// wrote notes that the writer stored the files of paths in one
// transaction that took took; chunks are their passages, by which the
// time is shared among them: a file's passages, each written with its
// full-text index, are what costs the writer.
func (m *etaModel) wrote(paths []string, chunks []int, took time.Duration) {
	total := 0
	for _, n := range chunks {
		total += max(n, 1)
	}
	for i, p := range paths {
		f := m.files[p]
		if f == nil {
			continue
		}
		delete(m.files, p)
		addCost(m.writes, &m.written, f, took*time.Duration(max(chunks[i], 1))/time.Duration(max(total, 1)))
	}
}

// writeCost is what writing a file of kind and size costs, in
// nanoseconds: as its kind's files did, or every kind's.
func (m *etaModel) writeCost(kind string, size int64) float64 {
	k := m.writes[kind]
	if k == nil || k.bytes == 0 {
		k = &m.written
	}
	return k.of(size)
}

// readCost is what reading a file of kind and size costs, in nanoseconds:
// as its kind's files did; for a kind no finished file has measured, as
// every kind's did, or bound a byte when more (the least it can be from
// its files being read).
func (m *etaModel) readCost(kind string, size int64, bound float64) float64 {
	if k := m.kinds[kind]; k != nil && k.bytes > 0 {
		return k.of(size)
	}
	return max(m.cost.of(size), bound*float64(size))
}

// unmeasured is the share of the remaining bytes whose kind no finished
// file has measured above which no time is estimated: a kind's first file
// can take many times what the others' bytes took (a PDF beside text), so
// a time left before it would be a guess, however it was made.
const unmeasured = 0.05

// estimateEvery spaces the schedules laid out.
const estimateEvery = 250 * time.Millisecond

// left is the estimated time the run has left at now; 0 while it cannot
// be estimated yet: nothing is read and written yet, or a kind that holds
// more than unmeasured of the remaining bytes has no file read, or written.
func (m *etaModel) left(now time.Time) time.Duration {
	if !m.lastAt.IsZero() && now.Sub(m.lastAt) < estimateEvery {
		return max(m.last-now.Sub(m.lastAt), 0)
	}
	m.last, m.lastAt = m.schedule(now), now
	return m.last
}

// schedule lays out what the run has left from now and returns when it
// ends; 0 when it cannot be estimated (left).
func (m *etaModel) schedule(now time.Time) time.Duration {
	var rest, unknown int64
	bounds := map[string]float64{} // the least a byte of each kind costs, from its files being read
	for _, f := range m.files {
		rest += f.size
		k, w := m.kinds[f.kind], m.writes[f.kind]
		if f.read.IsZero() && (k == nil || k.bytes == 0) || w == nil || w.bytes == 0 {
			unknown += f.size
		}
		if !f.started.IsZero() && f.read.IsZero() {
			bounds[f.kind] = max(bounds[f.kind], float64(now.Sub(f.started))/float64(f.size))
		}
	}
	if rest == 0 || m.written.bytes == 0 || float64(unknown) > unmeasured*float64(rest) {
		return 0
	}
	// Each worker is free from when it ends the file it reads; the large
	// lane is worker 0.
	free := make([]float64, m.workers)
	type readEnd struct {
		at   float64
		file *etaFile
	}
	var ends []readEnd // in the order the writer gets them
	next := 1          // the small files' worker that takes the next one
	for _, p := range m.order {
		f := m.files[p]
		if f == nil || f.started.IsZero() || !f.read.IsZero() {
			continue
		}
		// Being read: as much to go as its kind's cost leaves, and a
		// little at least; it is not done.
		work := m.readCost(f.kind, f.size, bounds[f.kind])
		spent := float64(now.Sub(f.started))
		at := max(work-spent, max(work, spent)*0.05)
		w := 0
		if !f.large && m.workers > 1 {
			w, next = next, next%(m.workers-1)+1
		}
		free[w] = max(free[w], at)
	}
	for _, p := range m.order {
		f := m.files[p]
		if f == nil {
			continue
		}
		if !f.read.IsZero() {
			ends = append(ends, readEnd{0, f}) // waits for the writer now
		}
	}
	for _, large := range []bool{true, false} {
		for _, p := range m.order {
			f := m.files[p]
			if f == nil || !f.started.IsZero() || f.large != large {
				continue
			}
			// The large lane takes the large files; the small ones go to
			// whichever worker is free first, the large lane among them
			// once its own are read.
			w := 0
			if !large { // the large lane is free once its own are read
				for i := range free {
					if free[i] < free[w] {
						w = i
					}
				}
			}
			free[w] += m.readCost(f.kind, f.size, bounds[f.kind])
			ends = append(ends, readEnd{free[w], f})
		}
	}
	// The writer stores them one after another, each once it is read.
	var writer float64
	for _, e := range ends {
		writer = max(writer, e.at) + m.writeCost(e.file.kind, e.file.size)
	}
	read := 0.0
	for _, at := range free {
		read = max(read, at)
	}
	return time.Duration(max(writer, read))
}

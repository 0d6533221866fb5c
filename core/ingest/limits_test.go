package ingest

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/ncruces/go-sqlite3"

	"cairn/core/chunk"
	"cairn/core/domain"
	"cairn/core/extract"
	"cairn/core/fault"
	"cairn/core/store"
	"cairn/core/store/storetest"
)

// writeDocs writes n Markdown files of random words, a few chunks each.
func writeDocs(t *testing.T, n int) string {
	t.Helper()
	dir := t.TempDir()
	rng := rand.New(rand.NewPCG(3, 4))
	words := strings.Fields("pump valve seal reset device router network firmware warranty schedule patient ward budget invoice")
	for i := range n {
		var b strings.Builder
		fmt.Fprintf(&b, "# Document %d\n\n", i)
		for j := range 600 {
			b.WriteString(words[rng.IntN(len(words))])
			if j%12 == 11 {
				b.WriteString(".\n")
			} else {
				b.WriteByte(' ')
			}
		}
		os.WriteFile(filepath.Join(dir, fmt.Sprintf("doc%03d.md", i)), []byte(b.String()), 0o644)
	}
	return dir
}

// TestDiskFullStopsCleanly fills the knowledge base's size cap (SQLite
// reports SQLITE_FULL exactly as for a full disk) in the middle of a run:
// the run stops with the disk-full fault, the database passes every check,
// every stored file has all its chunks, and a run with room finishes the job.
func TestDiskFullStopsCleanly(t *testing.T) {
	dir := writeDocs(t, 200)
	clean, cleanDB := newIndexer(t, Options{Workers: 2})
	runCollect(t, clean, dir)
	want := storetest.ChunkCounts(t, cleanDB.Path())

	path := filepath.Join(t.TempDir(), "full.db")
	db, err := store.Open(path, store.Options{MaxBytes: 1 << 20})
	if err != nil {
		t.Fatal(err)
	}
	ix := New(db, extract.NewRegistry(extract.DefaultLimits()), Options{Workers: 2})
	run, err := ix.Run(ctx, dir, nil)
	db.Close()
	if !errors.Is(err, sqlite3.FULL) || fault.CodeOf(err) != fault.StoreFull || !strings.Contains(err.Error(), "the disk is full") {
		t.Fatalf("err = %v (code %q); want the disk-full fault", err, fault.CodeOf(err))
	}
	if fix := fault.FixLine(err); !strings.Contains(fix, "free space") || !strings.HasSuffix(fix, "[STORE-004]") {
		t.Errorf("fix %q", fix)
	}
	if run.Status != domain.RunFailed {
		t.Errorf("run status %q", run.Status)
	}

	db, err = store.Open(path, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	healthy(t, db)
	got := storetest.ChunkCounts(t, path)
	if len(got) == 0 || len(got) >= len(want) {
		t.Fatalf("%d of %d files stored before the disk filled; the test needs a run stopped half-way", len(got), len(want))
	}
	for p, n := range got {
		if n != want[p] {
			t.Errorf("%s has %d chunks, a complete run gives it %d", p, n, want[p])
		}
	}
	// With room again, the next run finishes the job.
	runCollect(t, New(db, extract.NewRegistry(extract.DefaultLimits()), Options{Workers: 2}), dir)
	healthy(t, db)
	if got := storetest.ChunkCounts(t, path); len(got) != len(want) {
		t.Errorf("after the second run: %d files, want %d", len(got), len(want))
	}
}

// sizeRecorder records the passages of each embedding call.
type sizeRecorder struct {
	fakeEmbedder
	calls [][]Passage
}

func (s *sizeRecorder) EmbedPassages(ctx context.Context, ps []Passage) ([][]float32, error) {
	s.calls = append(s.calls, slices.Clone(ps))
	return s.fakeEmbedder.EmbedPassages(ctx, ps)
}

// TestEmbedBudgetBoundsEachCall indexes a file of many chunks with a large
// batch size and a small memory budget: no call may exceed the budget, and
// the vectors are the ones an unbounded call gives.
func TestEmbedBudgetBoundsEachCall(t *testing.T) {
	dir := t.TempDir()
	text := strings.Repeat("The pressure sensor needs calibration before the valve opens. ", 2000) // ~120 KB, ~100 chunks
	os.WriteFile(filepath.Join(dir, "long.txt"), []byte(text), 0o644)
	const budget = 16 << 10
	emb := &sizeRecorder{fakeEmbedder: fakeEmbedder{id: "f", dim: 8}}
	ix, db := newIndexer(t, Options{Embedder: emb, EmbedBatch: 1000, EmbedBudget: budget})
	runCollect(t, ix, dir)
	st, _ := db.Stats(ctx)
	if st.Vectors != st.Chunks || st.Chunks < 50 {
		t.Fatalf("stats %+v", st)
	}
	total := 0
	for i, call := range emb.calls {
		var cost int64
		for _, p := range call {
			cost += passageCost(len(p.Title)+len(p.Text), 8)
		}
		if cost > budget && len(call) > 1 {
			t.Errorf("call %d: %d passages, estimated %d bytes over the %d budget", i, len(call), cost, budget)
		}
		total += len(call)
	}
	if total != st.Chunks || len(emb.calls) < st.Chunks*int(passageCost(1200, 8))/budget {
		t.Errorf("%d passages in %d calls for %d chunks", total, len(emb.calls), st.Chunks)
	}
	// The same vectors as one unbounded call: splitting changes no result.
	doc := &extract.Document{Text: text}
	cs := chunk.Split(doc, chunk.DefaultParams())
	ps := make([]Passage, len(cs))
	for i, c := range cs {
		ps[i] = PassageOf("long", c.Heading, c.Text)
	}
	whole, _ := (&fakeEmbedder{dim: 8}).EmbedPassages(ctx, ps)
	ix2 := New(db, nil, Options{Embedder: &fakeEmbedder{dim: 8}, EmbedBatch: 1000, EmbedBudget: budget})
	split, err := ix2.embed(ctx, ps)
	if err != nil || len(split) != len(whole) {
		t.Fatalf("%d vectors, %v", len(split), err)
	}
	for i := range whole {
		if !slices.Equal(split[i], whole[i]) {
			t.Fatalf("vector %d differs when the call is split", i)
		}
	}
}

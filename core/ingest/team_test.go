package ingest

import (
	"context"
	"errors"
	"fmt"
	"math"
	"net/http"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"cairn/core/chunk"
	"cairn/core/domain"
	"cairn/core/extract"
	"cairn/core/store"
	"cairn/core/teamstore"
	"cairn/core/teamstore/teamtest"
	"cairn/internal/skip"
)

// teamNode starts a one-node Weaviate cluster on 127.0.0.1 for the test
// (CAIRN_WEAVIATE_BIN; skipped without it, as core/teamstore's tests are).
func teamNode(t *testing.T) *teamtest.Node {
	t.Helper()
	bin, err := teamtest.Bin()
	if err != nil {
		skip.Because(t, err.Error())
	}
	cfg, err := teamtest.SingleNode(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	n := teamtest.New(bin, cfg)
	t.Cleanup(n.Stop)
	if err := n.Start(); err != nil {
		t.Fatal(err)
	}
	return n
}

func openTeam(t *testing.T, n *teamtest.Node, collection string) *teamstore.Store {
	t.Helper()
	ts, err := teamstore.Open(ctx, teamstore.Options{URL: n.URL, Key: teamtest.Key, Collection: collection, BatchSize: 7})
	if err != nil {
		t.Fatal(err)
	}
	return ts
}

const teamFolder = "share/corpus"

// smallChunks makes several chunks of every fixture file.
var smallChunks = chunk.Params{Size: 150, Overlap: 30, MaxHeadingLen: 160}

// teamIndexer is an indexer with no SQLite knowledge base, as `cairn index`
// builds for a team cluster.
func teamIndexer(emb Embedder) *Indexer {
	opt := Options{Chunk: smallChunks, Workers: 2}
	if emb != nil {
		opt.Embedder = emb
	}
	return New(nil, extract.NewRegistry(extract.DefaultLimits()), opt)
}

// runTeam runs a team index of dir into ts, recording it in local when
// one is given, and returns the run and the file events.
func runTeam(t *testing.T, ix *Indexer, ts *teamstore.Store, dir string, local ...*store.DB) (domain.Run, []domain.FileEvent, error) {
	t.Helper()
	ch := make(chan domain.Progress, 16)
	var events []domain.FileEvent
	done := make(chan struct{})
	go func() {
		defer close(done)
		for p := range ch {
			if p.File != nil {
				events = append(events, *p.File)
			}
		}
	}()
	team := Team{Store: ts, Folder: teamFolder, Holder: "test indexer", LeaseTTL: 3 * time.Second}
	if len(local) > 0 {
		team.Local = local[0]
	}
	run, err := ix.RunTeam(ctx, team, dir, ch)
	<-done
	return run, events, err
}

// assertParity checks that the cluster holds, for every file, exactly the
// chunks the SQLite path stores for it: count, text, heading, page, lines
// and vectors; and no file the SQLite store does not hold.
func assertParity(t *testing.T, db *store.DB, ts *teamstore.Store, dir string) int {
	t.Helper()
	sqlite := map[string]bool{}
	total := 0
	fs, err := db.Folders(ctx)
	if err != nil || len(fs) != 1 {
		t.Fatalf("folders %v, %v", fs, err)
	}
	states, err := db.FileStates(ctx, fs[0].ID)
	if err != nil {
		t.Fatal(err)
	}
	for p, st := range states {
		if st.DocumentID == 0 {
			continue // an issue: not indexed
		}
		rel, _ := filepath.Rel(dir, p)
		rel = filepath.ToSlash(rel)
		sqlite[rel] = true
		want, err := db.DocumentChunks(ctx, p)
		if err != nil {
			t.Fatal(err)
		}
		got, vecs, err := ts.ReadDocument(ctx, teamFolder, rel)
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != len(want) || len(want) == 0 {
			t.Errorf("%s: %d chunks in the cluster, %d in SQLite", rel, len(got), len(want))
			continue
		}
		wantVecs := sqliteVectors(t, db, want)
		for i, w := range want {
			g := got[i]
			if g.Ordinal != w.Ordinal || g.Text != w.Text || g.Heading != w.Heading || g.Page != w.Page || g.LineStart != w.LineStart || g.LineEnd != w.LineEnd {
				t.Errorf("%s chunk %d: cluster %+v, SQLite %+v", rel, i, g, w)
			}
			if (vecs == nil) != (wantVecs == nil) {
				t.Fatalf("%s: vectors in the cluster %v, in SQLite %v", rel, vecs != nil, wantVecs != nil)
			}
			if vecs != nil && !near(vecs[i], wantVecs[i]) {
				t.Errorf("%s chunk %d: vector %v, SQLite %v", rel, i, vecs[i], wantVecs[i])
			}
		}
		total += len(want)
	}
	docs, err := ts.Documents(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var have []string
	for _, d := range docs {
		have = append(have, d.Path)
		if !sqlite[d.Path] {
			t.Errorf("the cluster holds %s, SQLite does not", d.Path)
		}
	}
	if len(have) != len(sqlite) {
		t.Errorf("the cluster holds %v; SQLite %d files", have, len(sqlite))
	}
	n, err := ts.CountChunks(ctx, teamFolder, "")
	if err != nil || n != total {
		t.Errorf("the cluster holds %d chunks, SQLite %d (%v)", n, total, err)
	}
	return total
}

// sqliteVectors are the stored vectors of chunks, nil when they have none.
func sqliteVectors(t *testing.T, db *store.DB, cs []domain.ChunkInfo) [][]float32 {
	t.Helper()
	model, _, err := db.VectorModel(ctx)
	if err != nil || model == "" {
		return nil
	}
	ids := make([]int64, len(cs))
	for i, c := range cs {
		ids[i] = c.ID
	}
	vs, err := db.Vectors(ctx, ids)
	if err != nil {
		t.Fatal(err)
	}
	out := make([][]float32, len(cs))
	for i, id := range ids {
		out[i] = vs[id]
	}
	return out
}

func near(a, b []float32) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if math.Abs(float64(a[i]-b[i])) > 1e-6 {
			return false
		}
	}
	return true
}

// indexedAt maps each file the cluster holds to when it was written, to
// tell which a run wrote.
func indexedAt(t *testing.T, ts *teamstore.Store) map[string]time.Time {
	t.Helper()
	docs, err := ts.Documents(ctx)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]time.Time{}
	for _, d := range docs {
		out[d.Path] = d.IndexedAt
	}
	return out
}

// TestTeamRunMatchesTheSQLiteRunAndStaysInStep: `cairn index` onto a
// cluster stores, file by file, exactly the chunks and vectors the SQLite
// path stores for the same folder; a second run writes nothing; a changed
// file is the only one written again, a touched one only has its time
// recorded, a deleted one loses its chunks, and a bad file is reported and
// kept out, in both stores alike.
func TestTeamRunMatchesTheSQLiteRunAndStaysInStep(t *testing.T) {
	n := teamNode(t)
	ts := openTeam(t, n, "Feed")
	dir := copyCorpus(t)
	// A file no extractor can read: reported, not indexed, in both stores.
	os.WriteFile(filepath.Join(dir, "data", "broken.pdf"), []byte("%PDF-1.4 not really"), 0o644)
	emb := &fakeEmbedder{id: "fake-a", dim: 8}
	sq, db := newIndexer(t, Options{Chunk: smallChunks, Embedder: &fakeEmbedder{id: "fake-a", dim: 8}})
	// The local knowledge base of the team's indexer: its runs and issues.
	_, local := newIndexer(t, Options{})
	index := func() (domain.Run, []domain.FileEvent) {
		t.Helper()
		if _, err := sq.Run(ctx, dir, nil); err != nil {
			t.Fatal(err)
		}
		run, events, err := runTeam(t, teamIndexer(emb), ts, dir, local)
		if err != nil {
			t.Fatal(err)
		}
		return run, events
	}

	run, events := index()
	total := assertParity(t, db, ts, dir)
	if run.FilesIndexed != 8 || run.FilesSeen != 9 || run.Chunks != total || run.Status != domain.RunDone {
		t.Errorf("first run: %+v, %d chunks stored", run, total)
	}
	var bad []domain.FileEvent
	for _, ev := range events {
		if ev.Status == domain.StatusSkipped || ev.Status == domain.StatusFailed {
			bad = append(bad, ev)
		}
	}
	if len(bad) != 1 || !strings.HasSuffix(bad[0].Path, "broken.pdf") || bad[0].Reason == "" {
		t.Errorf("bad files reported: %+v", bad)
	}
	if model, dim, err := ts.VectorModel(ctx); model != "fake-a" || dim != 8 || err != nil {
		t.Errorf("the cluster's vector model: %q %d %v", model, dim, err)
	}

	// The run and the broken file are recorded locally, as a SQLite run
	// records them; no document is.
	checkLocal := func(runs int) {
		t.Helper()
		rs, err := local.Runs(ctx, 10)
		if err != nil || len(rs) != runs || rs[0].ID != run.ID || rs[0].Status != domain.RunDone || rs[0].FilesSeen != 9 || rs[0].Folder != dir {
			t.Fatalf("local runs: %+v, %v (this run %+v)", rs, err, run)
		}
		is, err := local.Issues(ctx, 0)
		if err != nil || len(is) != 1 || is[0].Path != filepath.Join(dir, "data", "broken.pdf") || is[0].Kind != "failed" && is[0].Kind != "skipped" || is[0].RunID != run.ID {
			t.Errorf("local issues: %+v, %v", is, err)
		}
		if docs, _ := local.Documents(ctx, 0); len(docs) != 0 {
			t.Errorf("the local knowledge base holds %d documents", len(docs))
		}
	}
	checkLocal(1)

	before := indexedAt(t, ts)
	run, _ = index()
	checkLocal(2)
	if run.FilesIndexed != 0 || run.FilesUnchanged != 8 || run.Chunks != 0 || run.FilesRemoved != 0 {
		t.Errorf("second run: %+v", run)
	}
	if after := indexedAt(t, ts); !reflect.DeepEqual(after, before) {
		t.Errorf("a run over an unchanged folder wrote: %v, before %v", after, before)
	}

	// Change one file, touch another.
	changed := filepath.Join(dir, "manuals", "router-x200.md")
	b, _ := os.ReadFile(changed)
	os.WriteFile(changed, append(b, []byte("\n\n## Factory reset\n\nHold the reset button for thirty seconds until the lights blink amber.\n")...), 0o644)
	touched := filepath.Join(dir, "data", "parts.csv")
	later := time.Now().Add(time.Hour)
	os.Chtimes(touched, later, later)
	run, _ = index()
	if run.FilesIndexed != 1 || run.FilesUnchanged != 7 {
		t.Errorf("after one change: %+v", run)
	}
	after := indexedAt(t, ts)
	for p, at := range after {
		if wrote := !at.Equal(before[p]); wrote != (p == "manuals/router-x200.md" || p == "data/parts.csv") {
			t.Errorf("%s written again: %v", p, wrote)
		}
	}
	states, _ := ts.FileStates(ctx, teamFolder)
	if st := states["data/parts.csv"]; st.MTimeNS != later.UnixNano() {
		t.Errorf("the touched file's time in the cluster: %d, want %d", st.MTimeNS, later.UnixNano())
	}
	assertParity(t, db, ts, dir)

	// Delete one.
	os.Remove(filepath.Join(dir, "mail", "ward-move.eml"))
	run, _ = index()
	if run.FilesRemoved != 1 || run.FilesIndexed != 0 {
		t.Errorf("after a delete: %+v", run)
	}
	if c, err := ts.CountChunks(ctx, teamFolder, "mail/ward-move.eml"); c != 0 || err != nil {
		t.Errorf("the deleted file keeps %d chunks (%v)", c, err)
	}
	assertParity(t, db, ts, dir)
}

// TestTeamRunIsRefusedWhileAnotherIndexerHoldsTheFolder: a second indexer
// is refused with the holder's name, and writes nothing.
func TestTeamRunIsRefusedWhileAnotherIndexerHoldsTheFolder(t *testing.T) {
	n := teamNode(t)
	ts := openTeam(t, n, "Held")
	l, err := ts.AcquireLease(ctx, teamFolder, "cairn index on build-7 by ann (pid 42)", time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	_, _, err = runTeam(t, teamIndexer(nil), ts, copyCorpus(t))
	var held *teamstore.LeaseHeldError
	if !errors.As(err, &held) || held.Holder != "cairn index on build-7 by ann (pid 42)" ||
		!strings.Contains(err.Error(), "already being indexed into the team cluster by cairn index on build-7 by ann (pid 42)") {
		t.Fatalf("second indexer: %v", err)
	}
	if docs, _ := ts.Documents(ctx); len(docs) != 0 {
		t.Errorf("the refused indexer wrote %d files", len(docs))
	}
	l.Release(ctx)
	dir := copyCorpus(t)
	if _, _, err := runTeam(t, teamIndexer(nil), ts, dir); err != nil {
		t.Fatalf("after the release: %v", err)
	}

	// A model that fails: every file is reported, none is written without
	// vectors, and the keyword-only version stays until the next run.
	run, events, err := runTeam(t, teamIndexer(&fakeEmbedder{id: "fake-a", dim: 8, fail: true}), ts, dir)
	if err != nil || run.FilesFailed != 8 || run.FilesIndexed != 0 {
		t.Fatalf("with a failing model: %+v, %v", run, err)
	}
	for _, ev := range events {
		if ev.Status == domain.StatusFailed && (!strings.HasPrefix(ev.Reason, "not written without its vectors: ") || !strings.Contains(ev.Reason, "embedding failed")) {
			t.Errorf("reason: %s", ev.Reason)
		}
	}
	if docs, _ := ts.Documents(ctx); len(docs) != 8 {
		t.Errorf("after the failed embedding the cluster holds %d files", len(docs))
	}
	if run, _, err := runTeam(t, teamIndexer(&fakeEmbedder{id: "fake-a", dim: 8}), ts, dir); err != nil || run.FilesIndexed != 8 {
		t.Errorf("once the model works: %+v, %v", run, err)
	}
}

// blockingEmbedder embeds like fakeEmbedder, but its first call first
// runs hook and waits until the run's context ends (a slow model while
// something happens to the run).
type blockingEmbedder struct {
	fakeEmbedder
	once sync.Once
	hook func()
}

func (b *blockingEmbedder) EmbedPassages(ctx context.Context, ps []Passage) ([][]float32, error) {
	first := false
	b.once.Do(func() { first = true })
	if first {
		b.hook()
		<-ctx.Done()
		return nil, ctx.Err()
	}
	return b.fakeEmbedder.EmbedPassages(ctx, ps)
}

// TestTeamRunStopsWhenItsLeaseIsLostAndARerunFinishes: a run whose hold on
// the folder is taken away stops with ErrLeaseLost, and one cancelled
// half-way leaves what the next run completes, with no duplicates and
// exactly the chunks a whole run writes.
func TestTeamRunStopsWhenItsLeaseIsLostAndARerunFinishes(t *testing.T) {
	n := teamNode(t)
	ts := openTeam(t, n, "Lost")
	dir := copyCorpus(t)
	// The lease is taken away (as by an administrator, or an indexer that
	// took it over) while the model is busy.
	emb := &blockingEmbedder{fakeEmbedder: fakeEmbedder{id: "fake-a", dim: 8}, hook: func() { deleteAll(t, n, "LostLease") }}
	start := time.Now()
	_, _, err := runTeam(t, teamIndexer(emb), ts, dir)
	if !errors.Is(err, teamstore.ErrLeaseLost) || time.Since(start) > 30*time.Second {
		t.Fatalf("after %s: %v", time.Since(start), err)
	}

	// Cancelled half-way: the first file's write is done, the run stops.
	cctx, cancel := context.WithCancel(ctx)
	var once sync.Once
	ch := make(chan domain.Progress, 16)
	go func() {
		for p := range ch {
			if p.File != nil && p.File.Status == domain.StatusIndexed {
				once.Do(cancel)
			}
		}
	}()
	_, err = teamIndexer(&fakeEmbedder{id: "fake-a", dim: 8}).RunTeam(cctx, Team{Store: ts, Folder: teamFolder, Holder: "test"}, dir, ch)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled run: %v", err)
	}
	if _, _, err := runTeam(t, teamIndexer(&fakeEmbedder{id: "fake-a", dim: 8}), ts, dir); err != nil {
		t.Fatal(err)
	}
	_, db := newIndexer(t, Options{Chunk: smallChunks, Embedder: &fakeEmbedder{id: "fake-a", dim: 8}})
	sq := New(db, extract.NewRegistry(extract.DefaultLimits()), Options{Chunk: smallChunks, Embedder: &fakeEmbedder{id: "fake-a", dim: 8}})
	if _, err := sq.Run(ctx, dir, nil); err != nil {
		t.Fatal(err)
	}
	assertParity(t, db, ts, dir)
}

// TestTeamRunKeepsOneVectorModel: a keyword-only folder gets its vectors
// when a model is configured (every file written again, once), and a run
// with another model, or with none once the cluster has vectors, is
// refused naming the cluster's model.
func TestTeamRunKeepsOneVectorModel(t *testing.T) {
	n := teamNode(t)
	ts := openTeam(t, n, "Models")
	dir := copyCorpus(t)
	if _, _, err := runTeam(t, teamIndexer(nil), ts, dir); err != nil {
		t.Fatal(err)
	}
	if _, vecs, err := ts.ReadDocument(ctx, teamFolder, "manuals/router-x200.md"); vecs != nil || err != nil {
		t.Fatalf("keyword-only: vectors %v, %v", vecs != nil, err)
	}
	run, _, err := runTeam(t, teamIndexer(&fakeEmbedder{id: "fake-a", dim: 8}), ts, dir)
	if err != nil || run.FilesIndexed != 8 {
		t.Fatalf("with a model: %+v, %v", run, err)
	}
	if _, vecs, err := ts.ReadDocument(ctx, teamFolder, "manuals/router-x200.md"); vecs == nil || err != nil {
		t.Fatalf("after the model: vectors %v, %v", vecs != nil, err)
	}
	if run, _, err := runTeam(t, teamIndexer(&fakeEmbedder{id: "fake-a", dim: 8}), ts, dir); err != nil || run.FilesIndexed != 0 {
		t.Fatalf("again with the model: %+v, %v", run, err)
	}
	for _, c := range []struct {
		emb  Embedder
		want string
	}{
		{&fakeEmbedder{id: "fake-b", dim: 4}, "the team cluster's vectors come from the embedding model fake-a (8 dimensions), this computer's from fake-b (4)"},
		{nil, "the team cluster's chunks have vectors from the embedding model fake-a (8 dimensions) and no embedding model is loaded here"},
	} {
		if _, _, err := runTeam(t, teamIndexer(c.emb), ts, dir); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: %v", c.emb, err)
		}
	}
}

// deleteAll removes every object of class through the REST API.
func deleteAll(t *testing.T, n *teamtest.Node, class string) {
	body := fmt.Sprintf(`{"match":{"class":%q,"where":{"path":["folder"],"operator":"Like","valueText":"*"}}}`, class)
	req, _ := http.NewRequest("DELETE", n.URL+"/v1/batch/objects", strings.NewReader(body))
	req.Header.Set("Authorization", "Bearer "+teamtest.Key)
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Error(err)
		return
	}
	resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Errorf("delete %s: %s", class, resp.Status)
	}
}

// TestTeamRunReadsAgainWhatAnOlderExtractorRead: a folder whose record
// says its files were read by older extractors (or says nothing, as
// before versions were kept) has the files of every format whose
// extractor changed read again, and only those; the record is then
// brought up to date, and the next run reads nothing.
func TestTeamRunReadsAgainWhatAnOlderExtractorRead(t *testing.T) {
	n := teamNode(t)
	ts := openTeam(t, n, "Extractors")
	dir := copyCorpus(t)
	if run, _, err := runTeam(t, teamIndexer(nil), ts, dir); err != nil || run.FilesIndexed != 8 {
		t.Fatalf("first run: %+v, %v", run, err)
	}
	_, now := ExtractorChanges("")
	if rec, err := ts.FolderExtractors(ctx, teamFolder); rec != now || err != nil {
		t.Fatalf("record after the first run %q (%v), want %q", rec, err, now)
	}
	changed, _ := ExtractorChanges("")
	if len(changed) == 0 {
		skip.Because(t, "every extractor is at version 1: nothing to read again")
	}
	want := 0
	states, err := ts.FileStates(ctx, teamFolder)
	if err != nil {
		t.Fatal(err)
	}
	for _, st := range states {
		if changed.Has(st.Format) {
			want++
		}
	}
	if want == 0 {
		t.Fatalf("no fixture file is of a changed format (%v)", changed)
	}
	if err := ts.SetFolderExtractors(ctx, teamFolder, ""); err != nil {
		t.Fatal(err)
	}
	run, _, err := runTeam(t, teamIndexer(nil), ts, dir)
	if err != nil || run.FilesIndexed != want || run.FilesUnchanged != 8-want {
		t.Fatalf("after the record was lost: %+v, %v; want %d read again (%v)", run, err, want, changed)
	}
	if rec, err := ts.FolderExtractors(ctx, teamFolder); rec != now || err != nil {
		t.Errorf("record %q (%v), want %q", rec, err, now)
	}
	if run, _, err := runTeam(t, teamIndexer(nil), ts, dir); err != nil || run.FilesIndexed != 0 {
		t.Errorf("again: %+v, %v", run, err)
	}
}

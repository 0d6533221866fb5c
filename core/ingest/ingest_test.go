package ingest

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"io/fs"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"syscall"
	"testing"
	"time"

	"cairn/core/chunk"
	"cairn/core/domain"
	"cairn/core/extract"
	"cairn/core/search"
	"cairn/core/store"
)

var ctx = context.Background()

// copyCorpus copies the repository's fixture corpus into a fresh folder.
func copyCorpus(t *testing.T) string {
	t.Helper()
	dst := filepath.Join(t.TempDir(), "corpus")
	src := filepath.Join("..", "..", "testdata", "corpus")
	err := filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		if d.IsDir() {
			return os.MkdirAll(filepath.Join(dst, rel), 0o755)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dst, rel), b, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
	return dst
}

func newIndexer(t *testing.T, opt Options) (*Indexer, *store.DB) {
	t.Helper()
	db, err := store.Open(filepath.Join(t.TempDir(), "kb.db"), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return New(db, extract.NewRegistry(extract.DefaultLimits()), opt), db
}

// runCollect indexes dir and returns the run and every file event.
func runCollect(t *testing.T, ix *Indexer, dir string) (domain.Run, map[string]domain.FileEvent) {
	t.Helper()
	ch := make(chan domain.Progress, 16)
	events := map[string]domain.FileEvent{}
	done := make(chan struct{})
	go func() {
		defer close(done)
		for p := range ch {
			if p.File != nil {
				events[p.File.Path] = *p.File
			}
		}
	}()
	run, err := ix.Run(ctx, dir, ch)
	<-done
	if err != nil {
		t.Fatal(err)
	}
	return run, events
}

func healthy(t *testing.T, db *store.DB) {
	t.Helper()
	problems, err := db.Check(ctx)
	if err != nil || len(problems) > 0 {
		t.Fatalf("check: %v %v", problems, err)
	}
}

func topFile(t *testing.T, db *store.DB, q string) *search.Result {
	t.Helper()
	resp, err := search.New(db, nil, nil).Search(ctx, search.Request{Query: q, Params: search.DefaultParams()})
	if err != nil {
		t.Fatal(err)
	}
	if len(resp.Results) == 0 {
		t.Fatalf("no results for %q", q)
	}
	return &resp.Results[0]
}

func TestFixtureCorpusRanking(t *testing.T) {
	dir := copyCorpus(t)
	ix, db := newIndexer(t, Options{})
	run, _ := runCollect(t, ix, dir)
	if run.FilesSeen != 8 || run.FilesIndexed != 8 || run.FilesSkipped != 0 || run.FilesFailed != 0 || run.Status != domain.RunDone {
		t.Fatalf("run %+v", run)
	}
	for _, tt := range []struct{ q, file string }{
		{"how do I reset the device", "manuals/router-x200.md"},
		{"what is the warranty period", "manuals/coffee-machine.txt"},
		{"XK-200-B", "data/parts.csv"},
		{"guest wifi subnet", "manuals/network-setup.html"},
		{"where are chest pain patients assessed", "mail/ward-move.eml"},
		{"doubling the wait between attempts", "data/retry.go"},
		{"joint de la pompe", "data/pieces-latin1.txt"},
		{"database pool size", "data/service.yaml"},
	} {
		r := topFile(t, db, tt.q)
		if want := filepath.Join(dir, tt.file); r.Path != want {
			t.Errorf("%q: first is %s, want %s", tt.q, r.Path, want)
		}
	}
	r := topFile(t, db, "VLAN printers")
	if !strings.Contains(r.Text, "VLAN: 20 | Purpose: Printers | Subnet: 10.0.20.0/24") || r.Title != "Office network setup" {
		t.Errorf("table passage: %q title %q", r.Text, r.Title)
	}
	healthy(t, db)
}

func TestPassageLocation(t *testing.T) {
	dir := copyCorpus(t)
	ix, db := newIndexer(t, Options{Chunk: chunk.Params{Size: 300, Overlap: 50}})
	runCollect(t, ix, dir)
	r := topFile(t, db, "factory settings RESET button")
	if r.Path != filepath.Join(dir, "manuals/router-x200.md") || !strings.HasPrefix(r.Text, "Factory reset   \n\nTo reset the device") ||
		r.Heading != "Router X200 user manual > Factory reset" || r.LineStart != 8 || r.LineEnd != 12 {
		t.Errorf("reset passage: %s lines %d-%d heading %q text %q", r.Path, r.LineStart, r.LineEnd, r.Heading, r.Text)
	}
}

// TestEmbedStageBatchesAcrossFiles feeds eight ready one-chunk files to the
// embedding stage: they must go to the model in one call.
func TestEmbedStageBatchesAcrossFiles(t *testing.T) {
	emb := &fakeEmbedder{id: "f", dim: 4}
	ix := New(nil, nil, Options{Embedder: emb, EmbedBatch: 32})
	in := make(chan result, 8)
	for i := range 8 {
		in <- result{status: domain.StatusIndexed, doc: &extract.Document{Title: "t"}, chunks: []chunk.Chunk{{Text: fmt.Sprint(i)}}}
	}
	close(in)
	out := make(chan result, 8)
	if err := ix.embedStage(ctx, in, out); err != nil {
		t.Fatal(err)
	}
	close(out)
	n := 0
	for r := range out {
		if len(r.vectors) != 1 || len(r.vectors[0]) != 4 {
			t.Errorf("result %d vectors %v", n, r.vectors)
		}
		n++
	}
	if n != 8 || emb.calls != 1 {
		t.Errorf("%d results in %d calls, want 8 in 1", n, emb.calls)
	}
}

func TestIncremental(t *testing.T) {
	dir := copyCorpus(t)
	ix, db := newIndexer(t, Options{})
	first, _ := runCollect(t, ix, dir)
	st1, _ := db.Stats(ctx)

	touched := filepath.Join(dir, "data/service.yaml")
	later := time.Now().Add(time.Hour)
	if err := os.Chtimes(touched, later, later); err != nil {
		t.Fatal(err)
	}
	changed := filepath.Join(dir, "manuals/coffee-machine.txt")
	if err := os.WriteFile(changed, []byte("DESCALING\n\nUse citric acid, never vinegar.\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	deleted := filepath.Join(dir, "data/parts.csv")
	os.Remove(deleted)
	added := filepath.Join(dir, "manuals/kettle.md")
	os.WriteFile(added, []byte("# Kettle\n\nBoil water with the lid closed.\n"), 0o644)

	run, events := runCollect(t, ix, dir)
	if run.FilesSeen != 8 || run.FilesIndexed != 2 || run.FilesUnchanged != 6 || run.FilesRemoved != 1 || run.FilesSkipped != 0 {
		t.Fatalf("second run %+v (first %+v)", run, first)
	}
	read := 0
	for p, ev := range events {
		switch {
		case p == touched && (ev.Status != domain.StatusUnchanged || ev.Unchanged):
			t.Errorf("touched file: %+v, want read, hashed and found unchanged", ev)
		case p == changed || p == added:
			if ev.Status != domain.StatusIndexed {
				t.Errorf("%s: %+v", p, ev)
			}
		case p == deleted:
			if ev.Status != domain.StatusRemoved {
				t.Errorf("deleted file: %+v", ev)
			}
		}
		if !ev.Unchanged && ev.Status != domain.StatusRemoved {
			read++
		}
	}
	if read != 3 {
		t.Errorf("%d files were read, want exactly the touched, changed and added ones", read)
	}
	if r := topFile(t, db, "citric acid"); r.Path != changed {
		t.Errorf("changed content not found: %s", r.Path)
	}
	if resp, _ := search.New(db, nil, nil).Search(ctx, search.Request{Query: "XK-200-B", Params: search.DefaultParams()}); len(resp.Results) != 0 {
		t.Errorf("deleted file still found: %+v", resp.Results[0].Path)
	}
	st2, _ := db.Stats(ctx)
	if st2.Documents != st1.Documents {
		t.Errorf("documents %d -> %d", st1.Documents, st2.Documents)
	}
	// A third run reads nothing.
	run, _ = runCollect(t, ix, dir)
	if run.FilesUnchanged != 8 || run.FilesIndexed != 0 {
		t.Errorf("third run %+v", run)
	}
	healthy(t, db)
}

func TestHostileFiles(t *testing.T) {
	dir := t.TempDir()
	write := func(name string, b []byte) string {
		p := filepath.Join(dir, name)
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	good := write("good.txt", []byte("a perfectly normal file about turbines"))
	invalid := write("invalid.txt", []byte("turbine \xff\xfe blades \xc3\x28"))
	empty := write("empty.txt", nil)
	binary := write("tool.bin", append([]byte{0x7f, 'E', 'L', 'F', 0, 0}, make([]byte, 100)...))
	write(".hidden/secret.txt", []byte("hidden text"))
	write("node_modules/lib.js", []byte("ignored"))
	// 200 MB on a single line, over the 64 MB cap: skipped without reading.
	huge := filepath.Join(dir, "huge.log")
	f, _ := os.Create(huge)
	line := []byte(strings.Repeat("x", 1<<20))
	for range 200 {
		f.Write(line)
	}
	f.Close()
	fifo := filepath.Join(dir, "pipe")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	os.MkdirAll(filepath.Join(dir, "sub"), 0o755)
	os.Symlink(dir, filepath.Join(dir, "sub", "loop"))       // a loop back to the root
	os.Symlink(good, filepath.Join(dir, "sub", "alias.txt")) // a link to a file: indexed under its own path
	broken := filepath.Join(dir, "dangling.txt")
	os.Symlink(filepath.Join(dir, "nowhere"), broken)

	ix, db := newIndexer(t, Options{Ignore: []string{"node_modules"}})
	run, events := runCollect(t, ix, dir)
	want := map[string]struct {
		st     domain.Status
		reason string
	}{
		good:                                {domain.StatusIndexed, ""},
		filepath.Join(dir, "sub/alias.txt"): {domain.StatusIndexed, ""},
		invalid:                             {domain.StatusIndexed, "decoded as windows-1252"},
		empty:                               {domain.StatusSkipped, "no text: empty file"},
		binary:                              {domain.StatusSkipped, "binary file"},
		huge:                                {domain.StatusSkipped, "file too large: 200.0 MB is over the 64.0 MB limit"},
		fifo:                                {domain.StatusSkipped, "not a regular file"},
		broken:                              {domain.StatusSkipped, "broken symbolic link"},
	}
	for p, w := range want {
		ev, ok := events[p]
		if !ok || ev.Status != w.st || !strings.Contains(ev.Reason, w.reason) {
			t.Errorf("%s: %+v, want %s %q", filepath.Base(p), ev, w.st, w.reason)
		}
	}
	if len(events) != len(want) {
		var got []string
		for p := range events {
			got = append(got, p)
		}
		sort.Strings(got)
		t.Errorf("events for %d files, want %d: %v", len(events), len(want), got)
	}
	if run.FilesIndexed != 3 || run.FilesSkipped != 5 || run.Status != domain.RunDone {
		t.Errorf("run %+v", run)
	}
	issues, _ := db.Issues(ctx, 0)
	if len(issues) != 5 {
		t.Errorf("%d issues recorded, want 5: %+v", len(issues), issues)
	}
	// Unchanged skipped files are not read again.
	run, events = runCollect(t, ix, dir)
	if ev := events[huge]; !ev.Unchanged || ev.Status != domain.StatusSkipped {
		t.Errorf("second run, huge file: %+v", ev)
	}
	if run.FilesIndexed != 0 {
		t.Errorf("second run %+v", run)
	}
	healthy(t, db)
}

func TestCancelLeavesConsistentIndexAndResumes(t *testing.T) {
	dir := t.TempDir()
	for i := range 300 {
		os.WriteFile(filepath.Join(dir, fmt.Sprintf("f%03d.txt", i)), []byte(strings.Repeat(fmt.Sprintf("word%d text ", i), 300)), 0o644)
	}
	ix, db := newIndexer(t, Options{Workers: 2})
	cctx, cancel := context.WithCancel(ctx)
	ch := make(chan domain.Progress)
	go func() {
		for p := range ch {
			if p.Indexed >= 40 {
				cancel()
			}
		}
	}()
	run, err := ix.Run(cctx, dir, ch)
	if err == nil || run.Status != domain.RunCancelled {
		t.Fatalf("run %+v err %v", run, err)
	}
	if run.FilesIndexed < 40 || run.FilesIndexed >= 300 {
		t.Fatalf("indexed %d before the cancel took effect", run.FilesIndexed)
	}
	healthy(t, db)
	st, _ := db.Stats(ctx)
	if st.Documents != run.FilesIndexed || st.Issues != 0 {
		t.Errorf("stats %+v after run %+v: cancelled files must not be recorded as failed", st, run)
	}
	run2, _ := runCollect(t, ix, dir)
	if run2.FilesIndexed != 300-run.FilesIndexed || run2.FilesUnchanged != run.FilesIndexed {
		t.Errorf("resume %+v after %+v", run2, run)
	}
	runs, _ := db.Runs(ctx, 5)
	if runs[1].Status != domain.RunCancelled || runs[0].Status != domain.RunDone {
		t.Errorf("runs %+v", runs)
	}
}

func TestConcurrentRunIsRefused(t *testing.T) {
	ix, db := newIndexer(t, Options{})
	unlock, err := db.LockIndexing()
	if err != nil {
		t.Fatal(err)
	}
	defer unlock()
	if _, err := ix.Run(ctx, t.TempDir(), nil); err == nil || !strings.Contains(err.Error(), "another indexing run") {
		t.Errorf("err = %v", err)
	}
}

// fakeEmbedder maps text to a deterministic unit vector, standing in for a
// model where the test is about the pipeline, not the model.
type fakeEmbedder struct {
	id    string
	dim   int
	calls int
	fail  bool
}

func (f *fakeEmbedder) ModelID() string { return f.id }
func (f *fakeEmbedder) Dim() int        { return f.dim }
func (f *fakeEmbedder) EmbedPassages(_ context.Context, ps []Passage) ([][]float32, error) {
	f.calls++
	if f.fail {
		return nil, fmt.Errorf("model crashed")
	}
	out := make([][]float32, len(ps))
	for i, p := range ps {
		h := sha256.Sum256([]byte(p.Title + "\x00" + p.Text))
		v := make([]float32, f.dim)
		var n float64
		for j := range v {
			v[j] = float32(int8(h[j%32])) + float32(j)
			n += float64(v[j]) * float64(v[j])
		}
		for j := range v {
			v[j] /= float32(math.Sqrt(n))
		}
		out[i] = v
	}
	return out, nil
}

func TestEmbeddingAndModelChange(t *testing.T) {
	dir := copyCorpus(t)
	emb := &fakeEmbedder{id: "fake-a", dim: 8}
	ix, db := newIndexer(t, Options{Embedder: emb, EmbedBatch: 64})
	run, _ := runCollect(t, ix, dir)
	st, _ := db.Stats(ctx)
	if st.Vectors != st.Chunks || st.VectorModel != "fake-a" || st.VectorDim != 8 || run.FilesIndexed != 8 {
		t.Fatalf("stats %+v", st)
	}
	healthy(t, db)
	// A new model: the next run re-embeds every stored chunk without
	// re-reading a single file.
	emb2 := &fakeEmbedder{id: "fake-b", dim: 4}
	ix2 := New(db, extract.NewRegistry(extract.DefaultLimits()), Options{Embedder: emb2})
	run, events := runCollect(t, ix2, dir)
	for p, ev := range events {
		if !ev.Unchanged {
			t.Errorf("%s was read again: %+v", p, ev)
		}
	}
	st, _ = db.Stats(ctx)
	if st.Vectors != st.Chunks || st.VectorModel != "fake-b" || st.VectorDim != 4 || run.Chunks != st.Chunks {
		t.Fatalf("after model change: %+v, run %+v", st, run)
	}
	healthy(t, db)
	// The stored vector is the one the model gives for the passage.
	resp, err := search.New(db, queryFake{emb2}, nil).Search(ctx, search.Request{
		Query: "x", Mode: search.ModeVector, Params: search.DefaultParams()})
	if err != nil || len(resp.Results) == 0 {
		t.Fatal(resp, err)
	}
	top := resp.Results[0]
	if top.VecSim < 0.9999 {
		t.Errorf("a passage embedded like the query should have similarity 1, got %v", top.VecSim)
	}
}

// queryFake embeds a query as the fake embedder embeds the passage of the
// router manual's first chunk, so vector search must return that chunk.
type queryFake struct{ e *fakeEmbedder }

func (q queryFake) EmbedQuery(ctx context.Context, _ string) ([]float32, error) {
	b, _ := os.ReadFile(filepath.Join("..", "..", "testdata", "corpus", "data", "service.yaml"))
	doc := &extract.Document{Text: string(b)}
	cs := chunk.Split(doc, chunk.DefaultParams())
	v, err := q.e.EmbedPassages(ctx, []Passage{PassageOf("service", cs[0].Heading, cs[0].Text)})
	if err != nil {
		return nil, err
	}
	return v[0], nil
}

func TestEmbeddingFailureKeepsFiles(t *testing.T) {
	dir := copyCorpus(t)
	emb := &fakeEmbedder{id: "flaky", dim: 4, fail: true}
	ix, db := newIndexer(t, Options{Embedder: emb})
	_, err := ix.Run(ctx, dir, nil)
	if err == nil || !strings.Contains(err.Error(), "model crashed") {
		t.Fatalf("err = %v", err)
	}
	st, _ := db.Stats(ctx)
	if st.Documents != 8 || st.Vectors != 0 {
		t.Fatalf("stats %+v: files must be stored for keyword search even when embedding fails", st)
	}
	emb.fail = false
	if err := ix.Reembed(ctx, nil); err != nil {
		t.Fatal(err)
	}
	st, _ = db.Stats(ctx)
	if st.Vectors != st.Chunks {
		t.Errorf("after recovery %+v", st)
	}
	healthy(t, db)
}

// TestUnreadable needs permissions to bite, which root ignores: as root the
// indexing runs in a child process with the nobody user's credentials.
func TestUnreadable(t *testing.T) {
	base, err := os.MkdirTemp("", "cairn-perm")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(base)
	os.Chmod(base, 0o777)
	dir := filepath.Join(base, "docs")
	os.MkdirAll(filepath.Join(dir, "locked"), 0o755)
	os.WriteFile(filepath.Join(dir, "open.txt"), []byte("readable text"), 0o644)
	os.WriteFile(filepath.Join(dir, "secret.txt"), []byte("secret text"), 0o600)
	os.WriteFile(filepath.Join(dir, "locked", "inside.txt"), []byte("inside text"), 0o644)
	os.Chmod(filepath.Join(dir, "secret.txt"), 0o000)
	os.Chmod(filepath.Join(dir, "locked"), 0o000)
	if os.Geteuid() == 0 {
		for _, p := range []string{dir, filepath.Join(dir, "open.txt")} {
			os.Chown(p, 65534, 65534)
		}
	}
	dbPath := filepath.Join(base, "kb.db")
	// The test binary's own folder is private to root; run a copy.
	self, err := os.ReadFile(os.Args[0])
	if err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(base, "index.test")
	if err := os.WriteFile(bin, self, 0o755); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, "-test.run=^TestChildIndex$")
	cmd.Env = append(os.Environ(), "CAIRN_CHILD_INDEX="+dir, "CAIRN_CHILD_DB="+dbPath)
	if os.Geteuid() == 0 {
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}}
	}
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("child: %v\n%s", err, out)
	}
	var got map[string]string
	if err := json.Unmarshal(out[strings.IndexByte(string(out), '{'):strings.LastIndexByte(string(out), '}')+1], &got); err != nil {
		t.Fatalf("child output %s: %v", out, err)
	}
	want := map[string]string{
		filepath.Join(dir, "open.txt"):   "indexed",
		filepath.Join(dir, "secret.txt"): "failed: cannot open: permission denied",
		filepath.Join(dir, "locked"):     "failed: folder not readable: permission denied",
	}
	if len(got) != len(want) {
		t.Errorf("got %v", got)
	}
	for p, w := range want {
		if got[p] != w {
			t.Errorf("%s: %q, want %q", p, got[p], w)
		}
	}
}

// TestChildIndex is the child process of TestUnreadable.
func TestChildIndex(t *testing.T) {
	dir := os.Getenv("CAIRN_CHILD_INDEX")
	if dir == "" {
		t.Skip("only runs as TestUnreadable's child process")
	}
	db, err := store.Open(os.Getenv("CAIRN_CHILD_DB"), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	ix := New(db, extract.NewRegistry(extract.DefaultLimits()), Options{})
	_, events := runCollect(t, ix, dir)
	out := map[string]string{}
	for p, ev := range events {
		out[p] = string(ev.Status)
		if ev.Reason != "" {
			out[p] += ": " + ev.Reason
		}
	}
	b, _ := json.Marshal(out)
	fmt.Println(string(b))
}

func TestAChangedExtractorReadsItsFormatAgain(t *testing.T) {
	dir := t.TempDir()
	md, txt := filepath.Join(dir, "notes.md"), filepath.Join(dir, "plain.txt")
	os.WriteFile(md, []byte("## Kettle\n\nBoil water with the lid **closed**.\n"), 0o644)
	os.WriteFile(txt, []byte("Descale the kettle monthly.\n"), 0o644)
	ix, db := newIndexer(t, Options{})
	runCollect(t, ix, dir)
	// A knowledge base from before the Markdown extractor's version 2:
	// its record says every extractor was at version 1.
	if err := db.SetMeta(ctx, metaExtractors, ""); err != nil {
		t.Fatal(err)
	}
	run, events := runCollect(t, ix, dir)
	if run.FilesIndexed != 1 || run.FilesUnchanged != 1 || events[md].Status != domain.StatusIndexed || !events[txt].Unchanged {
		t.Fatalf("after the upgrade: %+v, notes.md %+v, plain.txt %+v; want only the Markdown file read again", run, events[md], events[txt])
	}
	if _, now := ExtractorChanges(""); !strings.Contains(now, "markdown=2") {
		t.Errorf("this build's versions %q", now)
	} else if v, _, _ := db.Meta(ctx, metaExtractors); v != now {
		t.Errorf("recorded versions %q, want %q", v, now)
	}
	if run, _ = runCollect(t, ix, dir); run.FilesUnchanged != 2 || run.FilesIndexed != 0 {
		t.Errorf("the next run read files again: %+v", run)
	}
	healthy(t, db)
}

// probeEmbedder is fakeEmbedder that, at its first call, records how many
// documents the store holds and the passages it is asked for.
type probeEmbedder struct {
	fakeEmbedder
	db        *store.DB
	docsFirst int
	first     []Passage
}

func (p *probeEmbedder) EmbedPassages(ctx context.Context, ps []Passage) ([][]float32, error) {
	if p.calls == 0 {
		st, err := p.db.Stats(ctx)
		if err != nil {
			return nil, err
		}
		p.docsFirst, p.first = st.Documents, ps
	}
	return p.fakeEmbedder.EmbedPassages(ctx, ps)
}

func TestFilesAreSearchableBeforeTheirEmbeddings(t *testing.T) {
	dir := copyCorpus(t)
	emb := &probeEmbedder{fakeEmbedder: fakeEmbedder{id: "fake", dim: 4}}
	ix, db := newIndexer(t, Options{Embedder: emb, EmbedBatch: 1})
	emb.db = db
	if _, err := ix.Run(ctx, dir, nil); err != nil {
		t.Fatal(err)
	}
	if emb.docsFirst != 8 {
		t.Errorf("%d of 8 files were stored when the first embedding began, want all: keyword search must not wait for meaning", emb.docsFirst)
	}
	st, _ := db.Stats(ctx)
	if st.Vectors != st.Chunks {
		t.Errorf("stats %+v: every chunk must be embedded by the run's end", st)
	}
}

func TestEmbeddingsBeginWithTheDocumentsShown(t *testing.T) {
	dir := copyCorpus(t)
	var shown []int64
	emb := &probeEmbedder{fakeEmbedder: fakeEmbedder{id: "fake", dim: 4}}
	ix, db := newIndexer(t, Options{Embedder: emb, EmbedBatch: 1,
		Interest: func() Interest { return Interest{Documents: shown} }})
	emb.db = db
	// Index without the model, then "show" one document: its chunks are
	// the first the model embeds.
	plain := New(db, extract.NewRegistry(extract.DefaultLimits()), Options{})
	if _, err := plain.Run(ctx, dir, nil); err != nil {
		t.Fatal(err)
	}
	chunks, err := db.DocumentChunks(ctx, filepath.Join(dir, "data", "service.yaml"))
	if err != nil || len(chunks) == 0 {
		t.Fatal(chunks, err)
	}
	shown = []int64{chunks[0].DocumentID}
	if err := ix.Reembed(ctx, nil); err != nil {
		t.Fatal(err)
	}
	if len(emb.first) != 1 || !strings.Contains(emb.first[0].Text, chunks[0].Text) {
		t.Errorf("first passage embedded %+v, want service.yaml's first chunk %q", emb.first, chunks[0].Text)
	}
}

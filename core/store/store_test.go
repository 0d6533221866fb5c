package store

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ncruces/go-sqlite3"

	"cairn/core/chunk"
	"cairn/core/domain"
	"cairn/core/store/storetest"
)

var ctx = context.Background()

func openTemp(t *testing.T) *DB {
	t.Helper()
	db, err := Open(filepath.Join(t.TempDir(), "test.db"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

func chunks(texts ...string) []chunk.Chunk {
	out := make([]chunk.Chunk, len(texts))
	for i, s := range texts {
		out[i] = chunk.Chunk{Ordinal: i, Text: s, Start: i * 100, End: i*100 + len(s), LineStart: i + 1, LineEnd: i + 1}
	}
	return out
}

func put(t *testing.T, db *DB, folder int64, path, title string, texts ...string) int64 {
	t.Helper()
	id, _, err := db.PutDocument(ctx, Document{FolderID: folder, Path: path, Size: 10, MTimeNS: 1, Hash: "h", Title: title, Format: "text"}, chunks(texts...), nil)
	if err != nil {
		t.Fatal(err)
	}
	return id
}

func ftsIDs(t *testing.T, db *DB, match string) []int64 {
	t.Helper()
	hits, err := db.SearchFTS(ctx, match, 100, domain.Filter{})
	if err != nil {
		t.Fatal(err)
	}
	var ids []int64
	for _, h := range hits {
		ids = append(ids, h.ChunkID)
	}
	return ids
}

func healthy(t *testing.T, db *DB) {
	t.Helper()
	problems, err := db.Check(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(problems) > 0 {
		t.Fatalf("check: %v", problems)
	}
}

func TestOpenCreatesPrivateFileAndMigrates(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "kb.db")
	db, err := Open(path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	st, err := db.Stats(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if st.SchemaVersion != SchemaVersion || st.Documents != 0 {
		t.Errorf("stats %+v", st)
	}
	db.Close()
	db.Close() // safe twice
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != 0o600 {
		t.Errorf("database mode %v, want 0600", fi.Mode().Perm())
	}
	if app := storetest.Int(t, path, `PRAGMA application_id`); app != ApplicationID {
		t.Errorf("application_id %#x, want %#x", app, ApplicationID)
	}
	// Reopening keeps the data and does not migrate twice.
	db, err = Open(path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	healthy(t, db)
}

func TestPutReplaceDeleteKeepsFTSInStep(t *testing.T) {
	db := openTemp(t)
	f, err := db.AddFolder(ctx, "/docs")
	if err != nil {
		t.Fatal(err)
	}
	put(t, db, f.ID, "/docs/a.txt", "Alpha", "the pump needs priming", "valve maintenance schedule")
	put(t, db, f.ID, "/docs/b.txt", "Beta", "pump warranty terms")
	if got := ftsIDs(t, db, `"pump"`); len(got) != 2 {
		t.Fatalf("pump matches %v", got)
	}
	// The document title is indexed too.
	if got := ftsIDs(t, db, `"alpha"`); len(got) != 2 {
		t.Errorf("title matches %v, want both chunks of Alpha", got)
	}
	// Replacing a document removes its old chunks from the index.
	put(t, db, f.ID, "/docs/a.txt", "Alpha", "completely new text about filters")
	if got := ftsIDs(t, db, `"priming"`); len(got) != 0 {
		t.Errorf("old chunk still matches: %v", got)
	}
	if got := ftsIDs(t, db, `"filters"`); len(got) != 1 {
		t.Errorf("new chunk matches %v", got)
	}
	healthy(t, db)
	if err := db.DeletePaths(ctx, []string{"/docs/b.txt"}); err != nil {
		t.Fatal(err)
	}
	if got := ftsIDs(t, db, `"warranty"`); len(got) != 0 {
		t.Errorf("deleted document still matches: %v", got)
	}
	st, _ := db.Stats(ctx)
	if st.Documents != 1 || st.Chunks != 1 {
		t.Errorf("stats %+v", st)
	}
	healthy(t, db)
}

func TestPorterStemmingAndDiacritics(t *testing.T) {
	db := openTemp(t)
	f, _ := db.AddFolder(ctx, "/d")
	put(t, db, f.ID, "/d/x.txt", "", "Resetting the café router")
	for _, q := range []string{`"reset"`, `"resets"`, `"cafe"`, `"café"`} {
		if got := ftsIDs(t, db, q); len(got) != 1 {
			t.Errorf("%s matches %v", q, got)
		}
	}
}

func TestFilter(t *testing.T) {
	db := openTemp(t)
	f, _ := db.AddFolder(ctx, "/d")
	put(t, db, f.ID, "/d/work/plan.md", "", "budget plan")
	put(t, db, f.ID, "/d/home/plan.txt", "", "budget for holidays")
	hits, err := db.SearchFTS(ctx, `"budget"`, 10, domain.Filter{PathPrefixes: []string{"/d/work/"}})
	if err != nil || len(hits) != 1 {
		t.Fatalf("path filter: %v %v", hits, err)
	}
	hits, err = db.SearchFTS(ctx, `"budget"`, 10, domain.Filter{Types: []string{"txt"}})
	if err != nil || len(hits) != 1 {
		t.Fatalf("type filter: %v %v", hits, err)
	}
	info, err := db.Chunks(ctx, []int64{hits[0].ChunkID})
	if err != nil || info[hits[0].ChunkID].Path != "/d/home/plan.txt" {
		t.Errorf("chunk info %+v %v", info, err)
	}
}

func TestFolders(t *testing.T) {
	db := openTemp(t)
	a, err := db.AddFolder(ctx, "/home/me/docs/sub")
	if err != nil {
		t.Fatal(err)
	}
	put(t, db, a.ID, "/home/me/docs/sub/x.txt", "", "text")
	again, err := db.AddFolder(ctx, "/home/me/docs/sub/")
	if err != nil || again.ID != a.ID {
		t.Errorf("re-adding gave %+v, %v", again, err)
	}
	// A parent folder absorbs the child and its documents.
	p, err := db.AddFolder(ctx, "/home/me/docs")
	if err != nil {
		t.Fatal(err)
	}
	fs, err := db.Folders(ctx)
	if err != nil || len(fs) != 1 || fs[0].ID != p.ID || fs[0].Documents != 1 {
		t.Fatalf("folders %+v %v", fs, err)
	}
	if _, err := db.AddFolder(ctx, "/home/me/docs/other"); !errors.Is(err, ErrNestedFolder) {
		t.Errorf("nested folder: %v", err)
	}
	if err := db.RemoveFolder(ctx, "/home/me/docs"); err != nil {
		t.Fatal(err)
	}
	st, _ := db.Stats(ctx)
	if st.Documents != 0 || st.Chunks != 0 || st.Folders != 0 {
		t.Errorf("after remove: %+v", st)
	}
	healthy(t, db)
}

func TestIssues(t *testing.T) {
	db := openTemp(t)
	f, _ := db.AddFolder(ctx, "/d")
	put(t, db, f.ID, "/d/a.txt", "", "indexed once")
	// The file became unreadable: its document goes, the issue stays.
	if err := db.RecordIssue(ctx, f.ID, domain.Issue{Path: "/d/a.txt", Kind: "failed", Reason: "permission denied", Size: 3, MTimeNS: 9}); err != nil {
		t.Fatal(err)
	}
	states, err := db.FileStates(ctx, f.ID)
	if err != nil {
		t.Fatal(err)
	}
	if s := states["/d/a.txt"]; s.DocumentID != 0 || s.Issue != "failed" || s.MTimeNS != 9 {
		t.Errorf("state %+v", s)
	}
	// Indexing it again clears the issue.
	put(t, db, f.ID, "/d/a.txt", "", "readable again")
	is, _ := db.Issues(ctx, 0)
	if len(is) != 0 {
		t.Errorf("issues %+v", is)
	}
	healthy(t, db)
}

func TestRuns(t *testing.T) {
	db := openTemp(t)
	unlock, err := db.LockIndexing()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.LockIndexing(); !errors.Is(err, domain.ErrIndexing) {
		t.Errorf("second lock: %v", err)
	}
	id, err := db.StartRun(ctx, "/d")
	if err != nil {
		t.Fatal(err)
	}
	// A run left "running" by a dead process is marked interrupted by the
	// next run.
	id2, err := db.StartRun(ctx, "/d")
	if err != nil {
		t.Fatal(err)
	}
	if err := db.FinishRun(ctx, domain.Run{ID: id2, Status: domain.RunDone, FilesIndexed: 3, Chunks: 7}); err != nil {
		t.Fatal(err)
	}
	unlock()
	runs, err := db.Runs(ctx, 10)
	if err != nil || len(runs) != 2 {
		t.Fatal(runs, err)
	}
	if runs[0].ID != id2 || runs[0].Status != domain.RunDone || runs[0].Chunks != 7 || runs[1].ID != id || runs[1].Status != domain.RunInterrupted {
		t.Errorf("runs %+v", runs)
	}
	if _, err := db.LockIndexing(); err != nil {
		t.Errorf("lock after unlock: %v", err)
	}
}

func TestVectors(t *testing.T) {
	db := openTemp(t)
	f, _ := db.AddFolder(ctx, "/d")
	if changed, err := db.SetVectorModel(ctx, "model-a", 3); err != nil || !changed {
		t.Fatal(changed, err)
	}
	docID, ids, err := db.PutDocument(ctx, Document{FolderID: f.ID, Path: "/d/a", Hash: "h"}, chunks("x", "y", "z"),
		[][]float32{{1, 0, 0}, {0, 1, 0}, {0.6, 0.8, 0}})
	if err != nil || docID == 0 || len(ids) != 3 {
		t.Fatal(docID, ids, err)
	}
	hits, err := db.KNN(ctx, []float32{1, 0, 0}, 2)
	if err != nil {
		t.Fatal(err)
	}
	if len(hits) != 2 || hits[0].ChunkID != ids[0] || hits[0].Distance > 1e-6 || hits[1].ChunkID != ids[2] || abs(hits[1].Distance-0.4) > 1e-6 {
		t.Errorf("hits %+v", hits)
	}
	if _, err := db.KNN(ctx, []float32{1, 0}, 2); err == nil || !strings.Contains(err.Error(), "dimension 2") {
		t.Errorf("dimension mismatch: %v", err)
	}
	// A wrong-sized vector is refused and the document not half-written.
	if _, _, err := db.PutDocument(ctx, Document{FolderID: f.ID, Path: "/d/b", Hash: "h"}, chunks("w"), [][]float32{{1, 2}}); err == nil {
		t.Error("wrong dimension accepted")
	}
	healthy(t, db)
	// Same model: nothing changes. Another model: vectors dropped, chunks kept.
	if changed, _ := db.SetVectorModel(ctx, "model-a", 3); changed {
		t.Error("same model reported as a change")
	}
	if changed, err := db.SetVectorModel(ctx, "model-b", 2); err != nil || !changed {
		t.Fatal(changed, err)
	}
	if n, _ := db.CountWithoutVectors(ctx); n != 3 {
		t.Errorf("%d chunks await vectors, want 3", n)
	}
	todo, err := db.ChunksWithoutVectors(ctx, 0, 2)
	if err != nil || len(todo) != 2 || todo[0].ID != ids[0] || todo[0].Text != "x" {
		t.Fatal(todo, err)
	}
	if err := db.PutVectors(ctx, []int64{ids[0], ids[1]}, [][]float32{{1, 0}, {0, 1}}); err != nil {
		t.Fatal(err)
	}
	todo, _ = db.ChunksWithoutVectors(ctx, ids[1], 10)
	if len(todo) != 1 || todo[0].ID != ids[2] {
		t.Errorf("resume after id %d: %+v", ids[1], todo)
	}
	healthy(t, db)
	// Deleting the document deletes its vectors.
	if err := db.DeletePaths(ctx, []string{"/d/a"}); err != nil {
		t.Fatal(err)
	}
	hits, _ = db.KNN(ctx, []float32{1, 0}, 5)
	if len(hits) != 0 {
		t.Errorf("vectors of a deleted document: %+v", hits)
	}
	healthy(t, db)
}

func abs(x float64) float64 {
	if x < 0 {
		return -x
	}
	return x
}

func TestReadersWorkWhileWriterHoldsTransaction(t *testing.T) {
	db := openTemp(t)
	f, _ := db.AddFolder(ctx, "/d")
	put(t, db, f.ID, "/d/a", "", "searchable while writing")
	done := make(chan error)
	err := db.tx(ctx, func(*sqlite3.Conn) error {
		go func() { _, err := db.SearchFTS(ctx, `"searchable"`, 5, domain.Filter{}); done <- err }()
		return <-done
	})
	if err != nil {
		t.Fatal(err)
	}
}

func TestJudgments(t *testing.T) {
	db := openTemp(t)
	if err := db.AddJudgment(ctx, " reset device ", "/d/a.md", 7); err != nil {
		t.Fatal(err)
	}
	db.AddJudgment(ctx, "reset device", "/d/a.md", 9) // same pair: updated, not duplicated
	db.AddJudgment(ctx, "warranty", "/d/b.txt", 3)
	js, err := db.Judgments(ctx)
	if err != nil || len(js) != 2 || js[0].Query != "reset device" || js[0].ChunkID != 9 || js[1].Path != "/d/b.txt" {
		t.Fatalf("%+v %v", js, err)
	}
	db.RemoveJudgment(ctx, "warranty", "/d/b.txt")
	if js, _ := db.Judgments(ctx); len(js) != 1 {
		t.Errorf("%+v", js)
	}
}

func TestWriteAheadLogStaysBoundedWhileSearchesNeverStop(t *testing.T) {
	const limit = 256 << 10
	db, err := Open(filepath.Join(t.TempDir(), "test.db"), Options{WALLimit: limit})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	f, _ := db.AddFolder(ctx, "/d")
	put(t, db, f.ID, "/d/0", "", "seed")

	// Two searchers take turns so that one of them is always inside a read
	// transaction: SQLite's own checkpoint never finds a moment to start
	// the log over.
	stop := make(chan struct{})
	var wg sync.WaitGroup
	for i := range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			time.Sleep(time.Duration(i) * 15 * time.Millisecond)
			for {
				select {
				case <-stop:
					return
				default:
				}
				db.read(ctx, func(c *sqlite3.Conn) error {
					if err := c.Exec(`BEGIN; SELECT count(*) FROM chunks;`); err != nil {
						return err
					}
					time.Sleep(30 * time.Millisecond)
					return c.Exec(`COMMIT`)
				})
			}
		}()
	}
	text := strings.Repeat("words that fill the write-ahead log quickly ", 200)
	var largest int64
	for i := range 300 {
		put(t, db, f.ID, fmt.Sprintf("/d/%d", i+1), "", text)
		if fi, err := os.Stat(db.Path() + "-wal"); err == nil {
			largest = max(largest, fi.Size())
		}
	}
	close(stop)
	wg.Wait()
	if largest > 4*limit {
		t.Errorf("the write-ahead log reached %d KB with a limit of %d KB", largest>>10, limit>>10)
	}
	healthy(t, db)
}

// TestChunkIDsAreNeverReused re-indexes the newest document: SQLite alone
// would give its new chunks the ids of the old ones.
func TestChunkIDsAreNeverReused(t *testing.T) {
	ctx := context.Background()
	db, err := Open(filepath.Join(t.TempDir(), "ids.db"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	f, _ := db.AddFolder(ctx, "/d")
	put := func(path, text string) []int64 {
		t.Helper()
		_, ids, err := db.PutDocument(ctx, Document{FolderID: f.ID, Path: path, Hash: text},
			[]chunk.Chunk{{Text: text}, {Ordinal: 1, Text: text + " again"}}, nil)
		if err != nil {
			t.Fatal(err)
		}
		return ids
	}
	a := put("/d/a", "first")
	b := put("/d/b", "second")
	b2 := put("/d/b", "second, edited")
	if !slices.Equal(a, []int64{1, 2}) || !slices.Equal(b, []int64{3, 4}) || !slices.Equal(b2, []int64{5, 6}) {
		t.Fatalf("ids %v %v %v, want [1 2] [3 4] [5 6]", a, b, b2)
	}
	before, err := db.ChunkVersion(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if err := db.Update(ctx, func(tx *Tx) error { return tx.DeletePath("/d/b") }); err != nil {
		t.Fatal(err)
	}
	after, _ := db.ChunkVersion(ctx)
	if after.MaxID != 2 || after.Deletes != before.Deletes+2 || before.Deletes != 2 {
		t.Fatalf("version %+v after deleting from %+v", after, before)
	}
	if c := put("/d/c", "third"); !slices.Equal(c, []int64{7, 8}) {
		t.Fatalf("after deleting the newest chunks, new ones got %v, want [7 8]", c)
	}
}

// TestCancelledWriteRollsBack cancels a write transaction's context in the
// middle (Cancel during indexing): the rollback must still run, not be
// interrupted too (the driver panics when a rollback fails), and nothing
// of the transaction may stay.
func TestCancelledWriteRollsBack(t *testing.T) {
	db, err := Open(filepath.Join(t.TempDir(), "c.db"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	f, _ := db.AddFolder(context.Background(), "/d")
	ctx, cancel := context.WithCancel(context.Background())
	err = db.Update(ctx, func(tx *Tx) error {
		if _, _, err := tx.PutDocument(Document{FolderID: f.ID, Path: "/d/a", Hash: "h"},
			[]chunk.Chunk{{Text: "half written"}}, nil); err != nil {
			return err
		}
		cancel()
		return ctx.Err()
	})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err %v, want the cancellation", err)
	}
	st, err := db.Stats(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if st.Documents != 0 || st.Chunks != 0 {
		t.Fatalf("after a cancelled transaction: %d documents, %d chunks", st.Documents, st.Chunks)
	}
}

func TestPendingChunksMostRecentlyModifiedFirst(t *testing.T) {
	db := openTemp(t)
	f, _ := db.AddFolder(ctx, "/d")
	doc := func(path string, mtime int64, texts ...string) {
		t.Helper()
		if _, _, err := db.PutDocument(ctx, Document{FolderID: f.ID, Path: path, Hash: "h", MTimeNS: mtime}, chunks(texts...), nil); err != nil {
			t.Fatal(err)
		}
	}
	doc("/d/old.txt", 100, "old 1", "old 2")
	doc("/d/new.txt", 300, "new 1")
	doc("/d/mid.txt", 200, "mid 1")
	pending, err := db.PendingChunks(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var ids []int64
	var paths []string
	for _, p := range pending {
		ids, paths = append(ids, p.ID), append(paths, p.Path)
	}
	if want := []string{"/d/new.txt", "/d/mid.txt", "/d/old.txt", "/d/old.txt"}; !slices.Equal(paths, want) {
		t.Errorf("pending %q, want %q", paths, want)
	}
	slices.Reverse(ids)
	texts, err := db.ChunkTexts(ctx, append(ids, 999999))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, c := range texts {
		got = append(got, c.Text)
	}
	if want := []string{"old 2", "old 1", "mid 1", "new 1"}; !slices.Equal(got, want) {
		t.Errorf("texts %q, want %q in the order asked, the missing id left out", got, want)
	}
	missing, total, err := db.Unembedded(ctx)
	if err != nil || missing != 4 || total != 4 {
		t.Errorf("unembedded %d of %d, %v; want 4 of 4", missing, total, err)
	}
}

// BenchmarkPendingChunks lists 100,000 chunks without vectors (10,000
// documents) in embedding order: what an embedding run pays once.
func BenchmarkPendingChunks(b *testing.B) {
	db, err := Open(filepath.Join(b.TempDir(), "bench.db"), Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	f, _ := db.AddFolder(ctx, "/d")
	texts := make([]string, 10)
	for i := range texts {
		texts[i] = strings.Repeat("word ", 200)
	}
	for i := range 10000 {
		_, _, err := db.PutDocument(ctx, Document{FolderID: f.ID, Path: fmt.Sprintf("/d/%d/f%d.txt", i%100, i), Hash: "h", MTimeNS: int64(i)}, chunks(texts...), nil)
		if err != nil {
			b.Fatal(err)
		}
	}
	b.ResetTimer()
	for b.Loop() {
		if ps, err := db.PendingChunks(ctx); err != nil || len(ps) != 100000 {
			b.Fatal(len(ps), err)
		}
	}
}

// TestChunkNeighbours: the chunks before and after a chunk are those of
// the same document with the ordinals either side; none past either end,
// none across documents; an unknown id is not found.
func TestChunkNeighbours(t *testing.T) {
	db := openTemp(t)
	f, _ := db.AddFolder(ctx, "/d")
	_, a, err := db.PutDocument(ctx, Document{FolderID: f.ID, Path: "/d/a", Hash: "h"}, chunks("a0", "a1", "a2"), nil)
	if err != nil {
		t.Fatal(err)
	}
	_, b, err := db.PutDocument(ctx, Document{FolderID: f.ID, Path: "/d/b", Hash: "h"}, chunks("b0"), nil)
	if err != nil {
		t.Fatal(err)
	}
	text := func(c *domain.ChunkInfo) string {
		if c == nil {
			return "-"
		}
		return c.Text
	}
	for _, tt := range []struct {
		id              int64
		prev, cur, next string
	}{
		{a[0], "-", "a0", "a1"},
		{a[1], "a0", "a1", "a2"},
		{a[2], "a1", "a2", "-"},
		{b[0], "-", "b0", "-"},
	} {
		n, ok, err := db.ChunkNeighbours(ctx, tt.id)
		if err != nil || !ok || text(n.Prev) != tt.prev || n.Passage.Text != tt.cur || text(n.Next) != tt.next {
			t.Errorf("neighbours of %d: %s, %s, %s (%v, %v); want %s, %s, %s", tt.id, text(n.Prev), n.Passage.Text, text(n.Next), ok, err, tt.prev, tt.cur, tt.next)
		}
	}
	if n, _, _ := db.ChunkNeighbours(ctx, a[1]); n.Prev == nil || n.Prev.Path != "/d/a" || n.Prev.Ordinal != 0 || n.Prev.ID != a[0] {
		t.Errorf("the previous chunk's citation: %+v", n.Prev)
	}
	if n, ok, err := db.ChunkNeighbours(ctx, b[0]+100); ok || err != nil || n.Prev != nil || n.Next != nil {
		t.Errorf("an unknown id: %+v, %v, %v", n, ok, err)
	}
}

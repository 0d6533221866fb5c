package bm25

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"cairn/core/chunk"
	"cairn/core/domain"
	"cairn/core/store"
)

// corpus puts the guide's paragraphs into a store, a few per document,
// with the guide page as the title and its first line as the heading, so
// all three indexed columns carry words.
func corpus(t *testing.T) (*store.DB, []string) {
	t.Helper()
	ctx := context.Background()
	db, err := store.Open(filepath.Join(t.TempDir(), "kb.db"), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	f, err := db.AddFolder(ctx, "/docs")
	if err != nil {
		t.Fatal(err)
	}
	pages, _ := filepath.Glob("../../resources/guide/*.md")
	var paths []string
	for _, p := range pages {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		paras := strings.Split(string(b), "\n\n")
		for i := 0; i < len(paras); i += 4 {
			var chunks []chunk.Chunk
			for j, para := range paras[i:min(i+4, len(paras))] {
				heading, _, _ := strings.Cut(para, "\n")
				chunks = append(chunks, chunk.Chunk{Ordinal: j, Text: para, Heading: heading})
			}
			path := fmt.Sprintf("/docs/%s-%d.md", filepath.Base(p), i)
			doc := store.Document{FolderID: f.ID, Path: path, Title: strings.TrimSuffix(filepath.Base(p), ".md")}
			if _, _, err := db.PutDocument(ctx, doc, chunks, nil); err != nil {
				t.Fatal(err)
			}
			paths = append(paths, path)
		}
	}
	return db, paths
}

// synced is corpus with an index built over it.
func synced(t *testing.T) (*store.DB, []string, *Index) {
	t.Helper()
	db, paths := corpus(t)
	ix := New(db)
	t.Cleanup(ix.Close)
	if err := ix.Sync(context.Background()); err != nil {
		t.Fatal(err)
	}
	return db, paths, ix
}

// queries draws OR queries of 1 to 5 words from the corpus's own words,
// with a few that occur nowhere.
func queries(t *testing.T, n int) [][]string {
	t.Helper()
	var vocab []string
	pages, _ := filepath.Glob("../../resources/guide/*.md")
	seen := map[string]bool{}
	for _, p := range pages {
		b, _ := os.ReadFile(p)
		for _, w := range strings.FieldsFunc(string(b), func(r rune) bool {
			return !('a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || '0' <= r && r <= '9')
		}) {
			if !seen[w] {
				seen[w] = true
				vocab = append(vocab, w)
			}
		}
	}
	vocab = append(vocab, "zyzzyva", "qwxq")
	rng := rand.New(rand.NewPCG(1, 2))
	qs := make([][]string, n)
	for i := range qs {
		for range 1 + rng.IntN(5) {
			qs[i] = append(qs[i], vocab[rng.IntN(len(vocab))])
		}
	}
	return qs
}

func fts5(t *testing.T, db *store.DB, words []string, k int) []domain.FTSHit {
	t.Helper()
	quoted := make([]string, len(words))
	for i, w := range words {
		quoted[i] = `"` + w + `"`
	}
	hits, err := db.SearchFTS(context.Background(), strings.Join(quoted, " OR "), k, domain.Filter{})
	if err != nil {
		t.Fatal(err)
	}
	return hits
}

// sameRanking checks that got ranks as FTS5 does: the same scores at every
// rank, and the same chunk wherever a score is not tied (FTS5 orders ties
// as it likes).
func sameRanking(t *testing.T, q []string, got, want []domain.FTSHit) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%q: %d hits, FTS5 has %d", q, len(got), len(want))
	}
	for i := range got {
		if math.Abs(got[i].BM25-want[i].BM25) > 1e-9 {
			t.Fatalf("%q rank %d: score %.12f, FTS5 %.12f", q, i+1, got[i].BM25, want[i].BM25)
		}
		tied := (i > 0 && math.Abs(want[i-1].BM25-want[i].BM25) < 1e-9) ||
			(i+1 < len(want) && math.Abs(want[i+1].BM25-want[i].BM25) < 1e-9)
		if !tied && got[i].ChunkID != want[i].ChunkID {
			t.Fatalf("%q rank %d: chunk %d, FTS5 %d", q, i+1, got[i].ChunkID, want[i].ChunkID)
		}
	}
}

func TestSearchRanksAsFTS5(t *testing.T) {
	ctx := context.Background()
	db, _ := corpus(t)
	ix := New(db)
	defer ix.Close()
	if _, ok, _ := ix.Search(ctx, []string{"index"}, nil, 10); ok {
		t.Fatal("an index that was never synced answered")
	}
	if err := ix.Sync(ctx); err != nil {
		t.Fatal(err)
	}
	st := ix.Stats()
	if st.Chunks < 100 || st.Terms < 500 {
		t.Fatalf("index holds %+v; the guide has more", st)
	}
	answered := 0
	for _, q := range queries(t, 300) {
		got, ok, err := ix.Search(ctx, q, nil, 20)
		if err != nil || !ok {
			t.Fatalf("%q: ok %v, %v", q, ok, err)
		}
		sameRanking(t, q, got, fts5(t, db, q, 20))
		if len(got) > 0 {
			answered++
		}
	}
	if answered < 250 {
		t.Fatalf("only %d of 300 queries found anything", answered)
	}
}

// TestDocFreqsMatchTheStore holds the index's document frequencies to the
// store's (which ask FTS5's vocabulary), for words, phrases and words no
// chunk holds: a search weighs the question's words with whichever of the
// two answers.
func TestDocFreqsMatchTheStore(t *testing.T) {
	ctx := context.Background()
	db, _ := corpus(t)
	ix := New(db)
	defer ix.Close()
	if _, _, ok, _ := ix.DocFreqs(ctx, []string{"index"}); ok {
		t.Fatal("an index that was never synced answered")
	}
	if err := ix.Sync(ctx); err != nil {
		t.Fatal(err)
	}
	terms := []string{"index", "search", "zzqxv", "cairn index", "the", "model"}
	for _, q := range queries(t, 50) {
		terms = append(terms, q...)
	}
	got, n, ok, err := ix.DocFreqs(ctx, terms)
	if err != nil || !ok {
		t.Fatalf("ok %v, %v", ok, err)
	}
	want, wantN, err := db.TermDocFreqs(ctx, terms)
	if err != nil {
		t.Fatal(err)
	}
	if n != wantN || !slices.Equal(got, want) {
		t.Errorf("index: %d chunks %v\nstore: %d chunks %v", n, got, wantN, want)
	}
	if got[2] != 0 || got[0] == 0 {
		t.Errorf("index %d, zzqxv %d", got[0], got[2])
	}
}

// TestPhrasesAreScoredByFTS5 mixes phrases (which need word positions the
// index does not keep) with words: FTS5 scores the phrases, the index the
// words, and the sum ranks as FTS5's whole query does.
func TestPhrasesAreScoredByFTS5(t *testing.T) {
	ctx := context.Background()
	db, _, ix := synced(t)
	for _, q := range [][]string{
		{"knowledge base", "index"},
		{"search", "embedding model", "top k"},
		{"nowhere phrase", "answer"},
		{"cairn index"},
	} {
		got, ok, err := ix.Search(ctx, q, nil, 20)
		if err != nil || !ok {
			t.Fatalf("%q: ok %v, %v", q, ok, err)
		}
		want := fts5(t, db, q, 20)
		if len(want) == 0 {
			t.Fatalf("%q finds nothing; pick words the guide has", q)
		}
		sameRanking(t, q, got, want)
	}
}

func TestIndexFollowsTheStore(t *testing.T) {
	ctx := context.Background()
	db, paths, ix := synced(t)
	q := []string{"quokka", "model"}
	before := ix.Stats().Chunks

	// A new document: the index is behind until it syncs, then finds it.
	folders, _ := db.Folders(ctx)
	_, ids, err := db.PutDocument(ctx, store.Document{FolderID: folders[0].ID, Path: "/docs/new.md", Title: "new"},
		[]chunk.Chunk{{Text: "The quokka model answers quickly."}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok, _ := ix.Search(ctx, q, nil, 10); ok {
		t.Fatal("answered while a new chunk was missing")
	}
	if err := ix.Sync(ctx); err != nil {
		t.Fatal(err)
	}
	got, ok, err := ix.Search(ctx, q, nil, 10)
	if err != nil || !ok || len(got) == 0 || got[0].ChunkID != ids[0] {
		t.Fatalf("after sync: %v %v %v, want chunk %d first", got, ok, err, ids[0])
	}
	sameRanking(t, q, got, fts5(t, db, q, 10))
	if n := ix.Stats().Chunks; n != before+1 {
		t.Fatalf("%d chunks, want %d", n, before+1)
	}

	// Deleted: never returned, and left out of the statistics, though
	// its postings stay until a rebuild.
	if err := db.Update(ctx, func(tx *store.Tx) error { return tx.DeletePath("/docs/new.md") }); err != nil {
		t.Fatal(err)
	}
	if _, ok, _ := ix.Search(ctx, q, nil, 10); ok {
		t.Fatal("answered while a deleted chunk was still live")
	}
	if err := ix.Sync(ctx); err != nil {
		t.Fatal(err)
	}
	got, ok, _ = ix.Search(ctx, q, nil, 100)
	if !ok || slices.ContainsFunc(got, func(h domain.FTSHit) bool { return h.ChunkID == ids[0] }) {
		t.Fatalf("deleted chunk %d returned: %v", ids[0], got)
	}
	if n := ix.Stats().Chunks; n != before {
		t.Fatalf("%d live chunks, want %d", n, before)
	}
	sameRanking(t, q, got, fts5(t, db, q, 100))

	// Deleting a tenth of the chunks and more rebuilds: exact again.
	for _, p := range paths[:len(paths)/3] {
		if err := db.Update(ctx, func(tx *store.Tx) error { return tx.DeletePath(p) }); err != nil {
			t.Fatal(err)
		}
	}
	if err := ix.Sync(ctx); err != nil {
		t.Fatal(err)
	}
	for _, q := range queries(t, 100) {
		got, ok, err := ix.Search(ctx, q, nil, 20)
		if err != nil || !ok {
			t.Fatalf("%q: ok %v, %v", q, ok, err)
		}
		sameRanking(t, q, got, fts5(t, db, q, 20))
	}
}

func TestSearchCatchesUpInTheBackground(t *testing.T) {
	ctx := context.Background()
	db, _ := corpus(t)
	ix := New(db)
	defer ix.Close()
	if _, ok, _ := ix.Search(ctx, []string{"index"}, nil, 10); ok {
		t.Fatal("answered before any sync")
	}
	if syncing(ix) {
		t.Fatal("a search started an index nobody asked for")
	}
	ix.Start()
	if answered(t, ix, "index") == nil {
		t.Fatalf("the background build did not finish: %v", ix.Err())
	}
	if err := ix.Err(); err != nil {
		t.Fatal(err)
	}
}

// TestSearchesWhileTheStoreChanges runs searches while documents come and
// go and the index follows: every answer it gives holds only live chunks
// of its snapshot, and nothing races (make test-race).
func TestSearchesWhileTheStoreChanges(t *testing.T) {
	ctx := context.Background()
	db, paths, ix := synced(t)
	folders, _ := db.Folders(ctx)
	done := make(chan error, 1)
	go func() {
		for i := range 30 {
			path := fmt.Sprintf("/docs/extra-%d.md", i)
			_, _, err := db.PutDocument(ctx, store.Document{FolderID: folders[0].ID, Path: path, Title: "extra"},
				[]chunk.Chunk{{Text: fmt.Sprintf("index model answer number %d", i)}}, nil)
			if err == nil && i%3 == 0 {
				err = db.Update(ctx, func(tx *store.Tx) error { return tx.DeletePath(paths[i]) })
			}
			if err == nil {
				err = ix.Sync(ctx)
			}
			if err != nil {
				done <- err
				return
			}
		}
		done <- nil
	}()
	answered := 0
	for running := true; running; {
		select {
		case err := <-done:
			if err != nil {
				t.Fatal(err)
			}
			running = false
		default:
			if _, ok, err := ix.Search(ctx, []string{"index", "model", "knowledge base"}, nil, 10); err != nil {
				t.Fatal(err)
			} else if ok {
				answered++
			}
		}
	}
	if err := ix.Sync(ctx); err != nil {
		t.Fatal(err)
	}
	got, ok, err := ix.Search(ctx, []string{"index", "model", "knowledge base"}, nil, 20)
	if !ok || err != nil {
		t.Fatalf("after the last sync: ok %v, %v", ok, err)
	}
	sameRanking(t, []string{"index", "model", "knowledge base"}, got, fts5(t, db, []string{"index", "model", "knowledge base"}, 20))
	t.Logf("%d searches answered by the index while it followed the store", answered)
}

// TestHoldKeepsSyncsAwayFromAnIndexRun: while an index run holds the
// index, searches that find it behind start no sync; the release catches
// it up in the background.
func TestHoldKeepsSyncsAwayFromAnIndexRun(t *testing.T) {
	ctx := context.Background()
	db, _, ix := synced(t)
	ix.Start() // the window asked for it; nothing to do yet
	for syncing(ix) {
		time.Sleep(time.Millisecond)
	}
	ix.Hold()
	folders, _ := db.Folders(ctx)
	if _, _, err := db.PutDocument(ctx, store.Document{FolderID: folders[0].ID, Path: "/docs/held.md", Title: "held"},
		[]chunk.Chunk{{Text: "wombat"}}, nil); err != nil {
		t.Fatal(err)
	}
	for range 20 {
		if _, ok, _ := ix.Search(ctx, []string{"wombat"}, nil, 10); ok {
			t.Fatal("answered while behind")
		}
	}
	if syncing(ix) {
		t.Fatal("a search started a sync during the hold")
	}
	ix.Release()
	hits := answered(t, ix, "wombat")
	if hits == nil {
		t.Fatal("the release did not catch the index up")
	}
	if len(hits) != 1 {
		t.Fatalf("after the release: %v", hits)
	}
}

// syncing reports whether a background sync is under way.
func syncing(ix *Index) bool {
	ix.stateMu.Lock()
	defer ix.stateMu.Unlock()
	return ix.running
}

// answered searches for word until the index answers, for up to 30
// seconds (a background sync is catching up); nil when it never did.
func answered(t *testing.T, ix *Index, word string) []domain.FTSHit {
	t.Helper()
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		hits, ok, err := ix.Search(context.Background(), []string{word}, nil, 10)
		if err != nil {
			t.Fatal(err)
		}
		if ok {
			if hits == nil {
				hits = []domain.FTSHit{}
			}
			return hits
		}
	}
	return nil
}

// failingStore fails to read chunk text, as a damaged knowledge base would.
type failingStore struct{ *store.DB }

func (failingStore) ScanChunkText(context.Context, int64, int64, int, func(int64, []byte, []byte, []byte) error) (int, error) {
	return 0, errors.New("disk I/O error")
}

func TestABackgroundFailureIsReportedAndSearchesFallBack(t *testing.T) {
	ctx := context.Background()
	db, _ := corpus(t)
	ix := New(failingStore{db})
	defer ix.Close()
	heard := make(chan error, 1)
	ix.OnError = func(err error) { heard <- err }
	ix.Start()
	if _, ok, err := ix.Search(ctx, []string{"index"}, nil, 10); ok || err != nil {
		t.Fatalf("ok %v, %v: want no answer and no error (FTS5 answers)", ok, err)
	}
	select {
	case err := <-heard:
		if !strings.Contains(err.Error(), "disk I/O error") || ix.Err() == nil {
			t.Fatalf("heard %v; Err %v", err, ix.Err())
		}
	case <-time.After(30 * time.Second):
		t.Fatal("the failed background sync was not reported")
	}
}

// slowStore holds the sync's first read of chunk text until proceed is
// closed, and says when it got there.
type slowStore struct {
	*store.DB
	reading chan struct{}
	proceed chan struct{}
	once    *sync.Once
}

func (s slowStore) ScanChunkText(ctx context.Context, afterID, upTo int64, limit int, fn func(int64, []byte, []byte, []byte) error) (int, error) {
	s.once.Do(func() { close(s.reading) })
	<-s.proceed
	return s.DB.ScanChunkText(ctx, afterID, upTo, limit, fn)
}

// While a background sync catches up, Behind lets no more FTS5 searches
// run at once than it has slots (one fewer than the cores, one at least),
// and one waiting for a slot when the sync ends is told to ask the index
// again; with no sync under way, every search goes at once.
func TestBehindRationsFTS5SearchesDuringASync(t *testing.T) {
	ctx := context.Background()
	db, _ := corpus(t)
	st := slowStore{DB: db, reading: make(chan struct{}), proceed: make(chan struct{}), once: &sync.Once{}}
	ix := New(st)
	defer ix.Close()
	if release, caughtUp, err := ix.Behind(ctx); err != nil || caughtUp || release == nil {
		t.Fatalf("before any sync: %v, caught up %v", err, caughtUp)
	}
	ix.Start()
	<-st.reading
	if want := max(1, min(runtime.NumCPU(), runtime.GOMAXPROCS(0))-1); cap(ix.slots) != want {
		t.Fatalf("%d slots, want %d", cap(ix.slots), want)
	}
	var releases []func()
	for i := range cap(ix.slots) {
		release, caughtUp, err := ix.Behind(ctx)
		if err != nil || caughtUp {
			t.Fatalf("search %d: %v, caught up %v", i+1, err, caughtUp)
		}
		releases = append(releases, release)
	}
	// Every slot is taken: only the context can end the wait.
	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	if _, _, err := ix.Behind(cancelled); !errors.Is(err, context.Canceled) {
		t.Fatalf("with every slot taken: %v, want it to wait until its context ends", err)
	}
	releases[0]()
	release, caughtUp, err := ix.Behind(ctx)
	if err != nil || caughtUp {
		t.Fatalf("after a release: %v, caught up %v", err, caughtUp)
	}
	releases[0] = release

	// The next search sees the sync under way before it ends (without
	// this, a goroutine scheduled late sees no sync and is not waiting).
	seen := make(chan struct{})
	ix.waits = func() { close(seen) }
	waited := make(chan bool)
	go func() {
		_, caughtUp, err := ix.Behind(ctx)
		if err != nil {
			t.Error(err)
		}
		waited <- caughtUp
	}()
	<-seen
	ix.waits = nil
	close(st.proceed)
	if !<-waited {
		t.Error("a search waiting when the sync ended was not told the index caught up")
	}
	if _, ok, err := ix.Search(ctx, []string{"index"}, nil, 10); !ok || err != nil {
		t.Fatalf("after the sync: ok %v, %v", ok, err)
	}
	if _, caughtUp, err := ix.Behind(ctx); err != nil || caughtUp {
		t.Errorf("with no sync under way and every slot still taken: %v, caught up %v; want at once", err, caughtUp)
	}
	for _, r := range releases {
		r()
	}
}

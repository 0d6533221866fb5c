package core

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"cairn/core/answer"
	"cairn/core/config"
	"cairn/core/domain"
	"cairn/core/llm/models"
	"cairn/core/llm/testmodel"
	"cairn/core/migrate"
	"cairn/core/netgate/netgatetest"
	"cairn/core/remote"
	"cairn/core/remote/remotetest"
	"cairn/core/search"
	"cairn/core/teamsearch"
	"cairn/core/teamstore"
	"cairn/core/teamstore/teamtest"
	"cairn/internal/skip"
)

// startNode starts a one-node cluster on 127.0.0.1, or skips the test
// without CAIRN_WEAVIATE_BIN (`make test-team` sets it).
func startNode(t *testing.T) *teamtest.Node {
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

// twoStores opens two engines with a new user's settings and no models
// (keyword search, extractive answers, as the quality suite runs), one on
// a knowledge base file and one on the team cluster at url, and indexes
// testdata/corpus and the user guide into each: the cluster's folders are
// named by their absolute paths, so both cite the same files. d records
// the cluster engine's dials.
func twoStores(t *testing.T, url string, d *netgatetest.Dialer, embedder ...testmodel.Spec) (sqlite, team *Engine) {
	return twoStoresAs(t, url, d, "", embedder...)
}

// twoStoresOf is twoStores with folders of its own, named by their paths.
func twoStoresOf(t *testing.T, url string, d *netgatetest.Dialer, folders ...string) (sqlite, team *Engine) {
	return twoStoresIn(t, url, d, "", folders, nil)
}

// twoStoresAs is twoStores with the cluster's folders named
// as+"/corpus" and as+"/guide" (cairn index --as) when as is not "", and
// store.folders saying where they are here.
func twoStoresAs(t *testing.T, url string, d *netgatetest.Dialer, as string, embedder ...testmodel.Spec) (sqlite, team *Engine) {
	corpus, _ := filepath.Abs("../testdata/corpus")
	guide, _ := filepath.Abs("../resources/guide")
	return twoStoresIn(t, url, d, as, []string{corpus, guide}, embedder)
}

func twoStoresIn(t *testing.T, url string, d *netgatetest.Dialer, as string, folders []string, embedder []testmodel.Spec) (sqlite, team *Engine) {
	t.Helper()
	t.Setenv(remote.WeaviateKeyEnv, teamtest.Key)
	for _, k := range []string{"CAIRN_NETWORK_MODE", "CAIRN_STORE_BACKEND", "CAIRN_STORE_URL"} {
		t.Setenv(k, "")
		os.Unsetenv(k)
	}
	open := func(edit func(*config.Config)) *Engine {
		h := t.TempDir()
		dirs := config.Dirs{Config: filepath.Join(h, "config"), Data: filepath.Join(h, "data"), State: filepath.Join(h, "state")}
		cfg, err := config.Load(dirs)
		if err != nil {
			t.Fatal(err)
		}
		cfg.Embedding.Model, cfg.Generation.Model = models.None, models.None
		for _, m := range embedder {
			if err := os.MkdirAll(cfg.Paths.ModelsDir, 0o700); err != nil {
				t.Fatal(err)
			}
			cfg.Embedding.Model = filepath.Join(cfg.Paths.ModelsDir, m.Name+".gguf")
			if err := testmodel.Write(cfg.Embedding.Model, m); err != nil {
				t.Fatal(err)
			}
		}
		edit(&cfg)
		e, err := Open(context.Background(), cfg, dirs, Options{Write: true, Dial: d.Dial, Keyring: remotetest.Keyring{}})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { e.Close() })
		return e
	}
	sqlite = open(func(*config.Config) {})
	for _, f := range folders {
		if _, err := sqlite.IndexFolder(context.Background(), f, nil); err != nil {
			t.Fatal(err)
		}
	}
	team = open(func(c *config.Config) {
		c.Store = config.Store{Backend: config.BackendWeaviate, URL: url}
		if as != "" {
			c.Store.Folders = map[string]string{}
			for _, f := range folders {
				c.Store.Folders[as+"/"+filepath.Base(f)] = f
			}
		}
		c.Network.Mode = "team"
	})
	for _, f := range folders {
		var run domain.Run
		var err error
		if as != "" {
			run, err = team.IndexTeam(context.Background(), f, as+"/"+filepath.Base(f), nil)
		} else {
			// The window's Index feeds the cluster when it is the store in use.
			run, err = team.IndexFolder(context.Background(), f, nil)
		}
		if err != nil || run.FilesIndexed == 0 {
			t.Fatalf("index %s into the cluster: %+v, %v", f, run, err)
		}
	}
	return sqlite, team
}

// paritySearches are questions over testdata/corpus and the user guide:
// answerable ones, a phrase, accents, stemming, words of headings and
// titles, off-topic ones, and every kind of filter.
func paritySearches(corpus string) []struct {
	q string
	f domain.Filter
} {
	day := func(s string) time.Time { t, _ := time.Parse("2006-01-02", s); return t }
	return []struct {
		q string
		f domain.Filter
	}{
		{q: "how do I reset the router"},
		{q: "what is the default admin password"},
		{q: "coffee machine descaling"},
		{q: "XK-200-B part number"},
		{q: "retry backoff"},
		{q: "pièces détachées"},
		{q: "network setup DHCP gateway"},
		{q: "moving to the new ward"},
		{q: "service port replicas"},
		{q: "What is the capital of Peru?"},
		{q: "quantum chromodynamics lattice"},
		{q: "router", f: domain.Filter{Types: []string{"md"}}},
		{q: "settings", f: domain.Filter{PathPrefixes: []string{filepath.Join(corpus, "manuals")}}},
		{q: "settings", f: domain.Filter{Contains: []string{"NETWORK"}}},
		{q: "How do I add a folder to index?"},
		{q: "which models does Cairn use for embeddings"},
		{q: "why does Cairn refuse to answer"},
		{q: "privacy network offline mode"},
		{q: "troubleshooting a crash"},
		{q: "searching with filters by date and type"},
		{q: "settings", f: domain.Filter{Types: []string{"md"}}},
		{q: "settings", f: domain.Filter{Types: []string{"html", "txt"}}},
		{q: "port", f: domain.Filter{Contains: []string{"NETWORK"}}},
		{q: "port", f: domain.Filter{Contains: []string{"Office network"}}},
		{q: "model", f: domain.Filter{PathPrefixes: []string{filepath.Join(corpus, "..", "..", "resources", "guide", "05")}}},
		{q: "reset settings", f: domain.Filter{Since: day("2000-01-01"), Until: day("2100-01-01")}},
		{q: "reset settings", f: domain.Filter{Until: day("2000-01-01")}},
	}
}

// TestTeamSearchAndAnswersAreTheSameOnBothStores: on the same corpus, a
// knowledge base file and a real Weaviate node give every question the
// same results in the same order, with the same BM25 scores and relevance
// (FTS5's formula over the cluster's own counts), the same filters' files,
// the same per-document cap and min_score cut, and the same answers: the
// same text, sources, citations and refusals. Nothing is dialled but the
// node.
func TestTeamSearchAndAnswersAreTheSameOnBothStores(t *testing.T) {
	n := startNode(t)
	d := &netgatetest.Dialer{Loopback: true}
	sqlite, team := twoStores(t, n.URL, d)
	corpus, _ := filepath.Abs("../testdata/corpus")
	ctx := context.Background()
	found, refused := 0, 0
	for _, c := range paritySearches(corpus) {
		name := c.q
		if !c.f.Empty() {
			name += fmt.Sprintf(" %+v", c.f)
		}
		req := sqlite.SearchRequest(c.q)
		req.Filter = c.f
		want, err := sqlite.Search(ctx, req)
		if err != nil {
			t.Fatalf("%s: sqlite: %v", name, err)
		}
		got, err := team.Search(ctx, req)
		if err != nil {
			t.Fatalf("%s: cluster: %v", name, err)
		}
		if len(want.Candidates.BM25) != len(got.Candidates.BM25) {
			t.Errorf("%s: keyword list of %d chunks, SQLite's %d", name, len(got.Candidates.BM25), len(want.Candidates.BM25))
		}
		sameResults(t, name, got.Results, want.Results)
		found += len(want.Results)

		wa, err := sqlite.Ask(ctx, req, nil)
		if err != nil {
			t.Fatalf("%s: ask sqlite: %v", name, err)
		}
		ga, err := team.Ask(ctx, req, nil)
		if err != nil {
			t.Fatalf("%s: ask cluster: %v", name, err)
		}
		sameAnswer(t, name, ga, wa)
		if wa.Refused {
			refused++
		}
	}
	// The questions exercise both answers and refusals.
	if found < 20 || refused < 3 {
		t.Errorf("%d results, %d refusals: the fixture no longer tests much", found, refused)
	}
	// The per-document cap and min_score cut the cluster's results as
	// SQLite's.
	req := sqlite.SearchRequest("router reset password port")
	req.PerDocCap, req.MinScore, req.TopK = 1, 0.3, 20
	want, _ := sqlite.Search(ctx, req)
	got, err := team.Search(ctx, req)
	if err != nil {
		t.Fatal(err)
	}
	sameResults(t, "cap 1, min_score 0.3", got.Results, want.Results)
	for _, a := range d.Calls() {
		if a != strings.TrimPrefix(n.URL, "http://") {
			t.Errorf("dialled %s; only the node %s may be", a, n.URL)
		}
	}
}

func sameResults(t *testing.T, name string, got, want []search.Result) {
	t.Helper()
	if len(got) != len(want) {
		t.Errorf("%s: %d results on the cluster, %d on SQLite:\n%s\n%s", name, len(got), len(want), listed(got), listed(want))
		return
	}
	for i := range want {
		g, w := got[i], want[i]
		if g.Path != w.Path || g.Page != w.Page || g.LineStart != w.LineStart || g.LineEnd != w.LineEnd || g.Heading != w.Heading ||
			g.Text != w.Text || g.Title != w.Title || g.Format != w.Format || g.UnitKind != w.UnitKind || g.Label != w.Label || g.Snippet != w.Snippet {
			t.Errorf("%s: result %d is %s:%d-%d %q, SQLite's %s:%d-%d %q", name, i+1, g.Path, g.LineStart, g.LineEnd, g.Heading, w.Path, w.LineStart, w.LineEnd, w.Heading)
			continue
		}
		if g.BM25Rank != w.BM25Rank || math.Abs(g.BM25Score-w.BM25Score) > 1e-9 || math.Abs(g.Relevance-w.Relevance) > 1e-9 || math.Abs(g.Score-w.Score) > 1e-9 {
			t.Errorf("%s: result %d: BM25 rank %d score %.12f relevance %.12f, SQLite's %d %.12f %.12f", name, i+1,
				g.BM25Rank, g.BM25Score, g.Relevance, w.BM25Rank, w.BM25Score, w.Relevance)
		}
	}
}

func listed(rs []search.Result) string {
	var b strings.Builder
	for _, r := range rs {
		fmt.Fprintf(&b, "  %s:%d %.4f\n", filepath.Base(r.Path), r.LineStart, r.BM25Score)
	}
	return b.String()
}

func sameAnswer(t *testing.T, name string, got, want *answer.Answer) {
	t.Helper()
	if got.Text != want.Text || got.Refused != want.Refused || got.NoSources != want.NoSources || got.Mode != want.Mode || got.Verdict != want.Verdict {
		t.Errorf("%s: answer %q (refused %v), SQLite's %q (refused %v)", name, got.Text, got.Refused, want.Text, want.Refused)
	}
	if len(got.Sources) != len(want.Sources) {
		t.Errorf("%s: %d sources, SQLite's %d", name, len(got.Sources), len(want.Sources))
	} else {
		for i := range want.Sources {
			g, w := got.Sources[i], want.Sources[i]
			if g.N != w.N || g.Path != w.Path || g.Page != w.Page || g.LineStart != w.LineStart || g.LineEnd != w.LineEnd || g.Text != w.Text {
				t.Errorf("%s: source %d is [%d] %s:%d, SQLite's [%d] %s:%d", name, i, g.N, g.Path, g.LineStart, w.N, w.Path, w.LineStart)
			}
		}
	}
	if len(got.Citations) != len(want.Citations) {
		t.Errorf("%s: %d citations, SQLite's %d", name, len(got.Citations), len(want.Citations))
		return
	}
	for i := range want.Citations {
		g, w := got.Citations[i], want.Citations[i]
		g.ChunkID, w.ChunkID = 0, 0 // each store's own numbering
		if g != w {
			t.Errorf("%s: citation %+v, SQLite's %+v", name, g, w)
		}
	}
}

// TestTeamHybridSearchIsTheSameOnBothStores: with an embedding model, the
// cluster's near-vector list and its fusion with the keyword list rank as
// the knowledge base file's exact search (sqlite-vec) does: the same
// results, vector ranks and similarities (to float32 rounding), keyword
// scores. (The window's fast path over the file, vecindex, re-scores with
// int8 copies, within about 5e-4 of these similarities.) The model's
// random weights make some questions' similarities degenerate: both
// stores then fall back to keywords alike.
func TestTeamHybridSearchIsTheSameOnBothStores(t *testing.T) {
	n := startNode(t)
	sqlite, team := twoStores(t, n.URL, &netgatetest.Dialer{Loopback: true}, testmodel.Tiny())
	ctx := context.Background()
	// The same vectors on both sides: llama.cpp's embeddings move in the
	// fourth decimal with how passages are batched, which two index runs
	// do differently. Migrating the file's into a collection of their own
	// copies them as stored.
	ts, err := teamstore.Open(ctx, teamstore.Options{URL: n.URL, Key: teamtest.Key, Collection: "Copy"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := migrate.ToTeam(ctx, sqlite.db, ts, migrate.Options{Holder: "test"}); err != nil {
		t.Fatal(err)
	}
	team.team.ts = teamsearch.New(ts, teamsearch.Options{})
	// The cluster counts the vectors the file holds (cairn status).
	stFile, err := sqlite.Status(ctx)
	if err != nil {
		t.Fatal(err)
	}
	stTeam, err := team.Status(ctx)
	if err != nil || stFile.Vectors == 0 || stTeam.Vectors != stFile.Vectors || stTeam.Chunks != stFile.Chunks {
		t.Errorf("the cluster counts %d vectors of %d chunks (%v), the file %d of %d", stTeam.Vectors, stTeam.Chunks, err, stFile.Vectors, stFile.Chunks)
	}
	vectors := 0
	for _, c := range []struct {
		q string
		f domain.Filter
	}{
		{q: "how do I reset the router"}, {q: "the warranty period"}, {q: "which models does Cairn use for embeddings"},
		{q: "What is the capital of Peru?"}, {q: "how do I reset the router", f: domain.Filter{Types: []string{"txt", "csv"}}},
	} {
		q := c.q
		req := sqlite.SearchRequest(q)
		req.Mode, req.Filter = search.ModeHybrid, c.f
		emb, err := sqlite.embedder(ctx)
		if err != nil || emb == nil {
			t.Fatalf("embedder %v, %v", emb, err)
		}
		want, err := search.New(sqlite.db, emb, nil).Search(ctx, req) // exact KNN in the store
		if err != nil {
			t.Fatal(err)
		}
		got, err := team.Search(ctx, req)
		if err != nil {
			t.Fatal(err)
		}
		if got.Candidates.Mode != want.Candidates.Mode {
			t.Fatalf("%s: mode %s, SQLite's %s", q, got.Candidates.Mode, want.Candidates.Mode)
		}
		if len(got.Results) != len(want.Results) {
			t.Errorf("%s: %d results on the cluster, %d on SQLite:\n%s\n%s", q, len(got.Results), len(want.Results), listed(got.Results), listed(want.Results))
			continue
		}
		for i := range want.Results {
			g, w := got.Results[i], want.Results[i]
			if g.Path != w.Path || g.LineStart != w.LineStart || g.VecRank != w.VecRank || g.BM25Rank != w.BM25Rank ||
				math.Abs(g.VecSim-w.VecSim) > 1e-5 || math.Abs(g.BM25Score-w.BM25Score) > 1e-9 {
				t.Errorf("%s: result %d is %s:%d (vector rank %d, %.6f), SQLite's %s:%d (%d, %.6f)", q, i+1,
					filepath.Base(g.Path), g.LineStart, g.VecRank, g.VecSim, filepath.Base(w.Path), w.LineStart, w.VecRank, w.VecSim)
			}
			if w.VecRank > 0 {
				vectors++
			}
		}
	}
	if vectors == 0 {
		t.Error("no result came from the vector search")
	}
}

// TestTeamFoldersNamedInTheClusterAreFoundHere: folders indexed under names
// (cairn index --as) and mapped to where they are here (store.folders)
// give the paths of this computer: the same results as the file's, a
// folder filter given with a path here, a document read by its path.
func TestTeamFoldersNamedInTheClusterAreFoundHere(t *testing.T) {
	n := startNode(t)
	sqlite, team := twoStoresAs(t, n.URL, &netgatetest.Dialer{Loopback: true}, "share")
	corpus, _ := filepath.Abs("../testdata/corpus")
	ctx := context.Background()
	for _, c := range []struct {
		q string
		f domain.Filter
	}{
		{q: "how do I reset the router"},
		{q: "settings", f: domain.Filter{PathPrefixes: []string{filepath.Join(corpus, "manuals")}}},
		{q: "settings", f: domain.Filter{PathPrefixes: []string{corpus}}},
	} {
		req := sqlite.SearchRequest(c.q)
		req.Filter = c.f
		want, err := sqlite.Search(ctx, req)
		if err != nil {
			t.Fatal(err)
		}
		got, err := team.Search(ctx, req)
		if err != nil {
			t.Fatal(err)
		}
		if len(want.Results) == 0 {
			t.Fatalf("%s: nothing found", c.q)
		}
		sameResults(t, c.q, got.Results, want.Results)
	}
	router := filepath.Join(corpus, "manuals", "router-x200.md")
	want, err := sqlite.DocumentChunks(ctx, router)
	if err != nil {
		t.Fatal(err)
	}
	got, err := team.DocumentChunks(ctx, router)
	if err != nil || len(got) != len(want) {
		t.Fatalf("document: %d chunks (%v), the file's %d", len(got), err, len(want))
	}
	for i := range want {
		if got[i].Path != router || got[i].Text != want[i].Text || got[i].LineStart != want[i].LineStart {
			t.Errorf("chunk %d: %s:%d, the file's %s:%d", i, got[i].Path, got[i].LineStart, want[i].Path, want[i].LineStart)
		}
	}
	// A passage's neighbours, read from the cluster's copy of its
	// document: the same as the file's.
	text := func(c *domain.ChunkInfo) string {
		if c == nil {
			return "-"
		}
		return c.Text
	}
	if len(want) < 2 {
		t.Fatalf("%s has %d chunks: no neighbours to compare", router, len(want))
	}
	for i := range min(len(got), 3) {
		w, err := sqlite.ChunkNeighbours(ctx, want[i].ID)
		if err != nil {
			t.Fatal(err)
		}
		g, err := team.ChunkNeighbours(ctx, got[i].ID)
		if err != nil || g.Passage.Text != w.Passage.Text || text(g.Prev) != text(w.Prev) || text(g.Next) != text(w.Next) || g.Before() != w.Before() || g.After() != w.After() {
			t.Errorf("neighbours of chunk %d: %.20q, %.20q (%v); the file's %.20q, %.20q", i, text(g.Prev), text(g.Next), err, text(w.Prev), text(w.Next))
		}
	}
}

// writeZipfCorpus writes files documents of about chunks passages each, of
// words drawn from a vocabulary of vocab made-up words with Zipf's law, as
// real text's are (seeded: the same corpus every run), and returns the
// folder and some mid-frequency words.
func writeZipfCorpus(t *testing.T, files, chunks, vocab int) (string, []string) {
	t.Helper()
	dir := t.TempDir()
	rng := rand.New(rand.NewPCG(19, 2026))
	words := make([]string, vocab)
	for i := range words {
		var b strings.Builder
		for range 2 + rng.IntN(3) {
			b.WriteString([]string{"ka", "lo", "mi", "ru", "sen", "ta", "vo", "zel", "pra", "dun"}[rng.IntN(10)])
		}
		words[i] = fmt.Sprintf("%s%d", b.String(), i)
	}
	zipf := rand.NewZipf(rng, 1.1, 2, uint64(vocab-1))
	for f := range files {
		var b strings.Builder
		fmt.Fprintf(&b, "# %s %s\n\n", words[zipf.Uint64()], words[zipf.Uint64()])
		for range chunks * 170 { // about 170 words a chunk
			b.WriteString(words[zipf.Uint64()])
			if rng.IntN(12) == 0 {
				b.WriteString(".\n\n")
			} else {
				b.WriteByte(' ')
			}
		}
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("doc%03d.md", f)), []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir, words[vocab/50 : vocab/5]
}

// TestTeamKeywordListsAreTheSameOnALargerCorpus: on a corpus of about 2,400
// chunks of Zipf-distributed words, 60 questions of two to four words get
// the same keyword list from the cluster as from the knowledge base file,
// chunk for chunk and score for score: Weaviate's wider list held FTS5's
// top every time. (On a node left with BlockMax WAND it does not.)
func TestTeamKeywordListsAreTheSameOnALargerCorpus(t *testing.T) {
	n := startNode(t)
	dir, mid := writeZipfCorpus(t, 120, 20, 6000)
	sqlite, team := twoStoresOf(t, n.URL, &netgatetest.Dialer{Loopback: true}, dir)
	ctx := context.Background()
	rng := rand.New(rand.NewPCG(7, 7))
	compared := 0
	for i := range 60 {
		var q []string
		for range 2 + i%3 {
			q = append(q, mid[rng.IntN(len(mid))])
		}
		req := sqlite.SearchRequest(strings.Join(q, " "))
		req.Mode = search.ModeBM25
		want, err := sqlite.Search(ctx, req)
		if err != nil {
			t.Fatal(err)
		}
		got, err := team.Search(ctx, req)
		if err != nil {
			t.Fatal(err)
		}
		if msg := sameKeywordList(got.Candidates, want.Candidates); msg != "" {
			t.Errorf("%q: %s", req.Query, msg)
		}
		compared += len(want.Candidates.BM25)
	}
	if compared < 60*20 {
		t.Errorf("only %d hits compared: the corpus no longer tests much", compared)
	}
}

// sameKeywordList compares two keyword lists: the same scores in the same
// order (to 1e-9), and the same chunks, but that chunks of equal scores
// come in each store's own order (FTS5's is the order rows were written).
// A run of equal scores cut by the list's end may hold different chunks.
// It returns what differs, "" for nothing.
func sameKeywordList(got, want *search.Candidates) string {
	if len(got.BM25) != len(want.BM25) {
		return fmt.Sprintf("%d keyword hits on the cluster, %d on SQLite", len(got.BM25), len(want.BM25))
	}
	key := func(c *search.Candidates, h search.Hit) string {
		p := c.Passages[h.ChunkID]
		return fmt.Sprintf("%s:%d", filepath.Base(p.Path), p.LineStart)
	}
	for i := 0; i < len(want.BM25); {
		j := i
		for j < len(want.BM25) && math.Abs(want.BM25[j].Score-want.BM25[i].Score) <= 1e-9 {
			j++
		}
		var g, w []string
		for k := i; k < j; k++ {
			if math.Abs(got.BM25[k].Score-want.BM25[k].Score) > 1e-9 {
				return fmt.Sprintf("hit %d is %s (%.6f), SQLite's %s (%.6f)", k+1, key(got, got.BM25[k]), got.BM25[k].Score, key(want, want.BM25[k]), want.BM25[k].Score)
			}
			g, w = append(g, key(got, got.BM25[k])), append(w, key(want, want.BM25[k]))
		}
		slices.Sort(g)
		slices.Sort(w)
		if j < len(want.BM25) && !slices.Equal(g, w) {
			return fmt.Sprintf("hits %d to %d (score %.6f) are %v, SQLite's %v", i+1, j, want.BM25[i].Score, g, w)
		}
		i = j
	}
	return ""
}

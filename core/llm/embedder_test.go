package llm

import (
	"context"
	"errors"
	"math"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"cairn/core/llm/testmodel"
)

// writeModel writes a test model into a fresh temporary directory.
func writeModel(t testing.TB, s testmodel.Spec, file string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), file)
	if err := testmodel.Write(p, s); err != nil {
		t.Fatal(err)
	}
	return p
}

func loadEmbedder(t testing.TB, s testmodel.Spec, opt EmbedderOptions) *Embedder {
	t.Helper()
	e, err := LoadEmbedder(writeModel(t, s, "embed.gguf"), opt)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e.Close() })
	return e
}

func norm(v []float32) float64 {
	var s float64
	for _, x := range v {
		s += float64(x) * float64(x)
	}
	return math.Sqrt(s)
}

func cosine(a, b []float32) float64 {
	var s float64
	for i := range a {
		s += float64(a[i]) * float64(b[i])
	}
	return s / norm(a) / norm(b)
}

func maxDiff(a, b []float32) float64 {
	var d float64
	for i := range a {
		d = max(d, math.Abs(float64(a[i]-b[i])))
	}
	return d
}

var passages = []Passage{
	{Title: "Install", Text: "Run the installer and choose a folder for the index."},
	{Text: "The default port is 8080; change it in the settings file."},
	{Title: "Backup", Text: "Copy the database file while the application is closed."},
	{Text: "short"},
	{Title: "Network", Text: "The program never connects to the network unless you allow a host."},
}

func TestEmbedderDimensionAndUnitNorm(t *testing.T) {
	for _, s := range []testmodel.Spec{testmodel.Tiny(), testmodel.TinyLastToken()} {
		t.Run(s.Name, func(t *testing.T) {
			e := loadEmbedder(t, s, EmbedderOptions{})
			if e.Dim() != s.Hidden {
				t.Fatalf("Dim() = %d, want %d", e.Dim(), s.Hidden)
			}
			vecs, infos, err := e.EmbedPassages(context.Background(), passages)
			if err != nil {
				t.Fatal(err)
			}
			if len(vecs) != len(passages) || len(infos) != len(passages) {
				t.Fatalf("got %d vectors, %d infos for %d passages", len(vecs), len(infos), len(passages))
			}
			for i, v := range vecs {
				if len(v) != s.Hidden {
					t.Errorf("vector %d has %d components, want %d", i, len(v), s.Hidden)
				}
				if n := norm(v); math.Abs(n-1) > 1e-5 {
					t.Errorf("vector %d has norm %v, want 1", i, n)
				}
				if infos[i].Windows != 1 || infos[i].Tokens < 2 {
					t.Errorf("info %d = %+v, want 1 window and a few tokens", i, infos[i])
				}
			}
			q, err := e.EmbedQuery(context.Background(), "which port does it use")
			if err != nil {
				t.Fatal(err)
			}
			if len(q) != s.Hidden || math.Abs(norm(q)-1) > 1e-5 {
				t.Errorf("query vector: len %d norm %v", len(q), norm(q))
			}
			if cosine(vecs[0], vecs[1]) > 0.9999 {
				t.Error("different passages gave the same vector")
			}
		})
	}
}

func TestEmbedderDeterministic(t *testing.T) {
	e := loadEmbedder(t, testmodel.Tiny(), EmbedderOptions{})
	ctx := context.Background()
	a, _, err := e.EmbedPassages(ctx, passages)
	if err != nil {
		t.Fatal(err)
	}
	b, _, err := e.EmbedPassages(ctx, passages)
	if err != nil {
		t.Fatal(err)
	}
	for i := range a {
		if d := maxDiff(a[i], b[i]); d != 0 {
			t.Errorf("passage %d: repeated embedding differs by %g", i, d)
		}
	}
	// A second file written from the same spec is the same model.
	e2 := loadEmbedder(t, testmodel.Tiny(), EmbedderOptions{})
	if e.ModelID() != e2.ModelID() {
		t.Errorf("same spec, different ModelID: %s vs %s", e.ModelID(), e2.ModelID())
	}
	c, _, err := e2.EmbedPassages(ctx, passages)
	if err != nil {
		t.Fatal(err)
	}
	for i := range a {
		if d := maxDiff(a[i], c[i]); d != 0 {
			t.Errorf("same spec, passage %d: vectors differ by %g", i, d)
		}
	}
}

func TestEmbedderModelIDChangesWithWeightsAndDim(t *testing.T) {
	a := loadEmbedder(t, testmodel.Tiny(), EmbedderOptions{})
	s := testmodel.Tiny()
	s.Seed = 99
	b := loadEmbedder(t, s, EmbedderOptions{})
	if a.ModelID() == b.ModelID() {
		t.Errorf("different weights share ModelID %s", a.ModelID())
	}
	if !strings.HasPrefix(a.ModelID(), "tiny-minilm-test-32-") {
		t.Errorf("ModelID %q should start with the model name and dimension", a.ModelID())
	}
	q := testmodel.TinyLastToken()
	full := loadEmbedder(t, q, EmbedderOptions{})
	cut := loadEmbedder(t, q, EmbedderOptions{Dim: 32})
	if full.ModelID() == cut.ModelID() || !strings.Contains(cut.ModelID(), "-32-") {
		t.Errorf("ModelID must record the output dimension: %s vs %s", full.ModelID(), cut.ModelID())
	}
}

func TestEmbedderBatchEqualsOneAtATime(t *testing.T) {
	for _, s := range []testmodel.Spec{testmodel.Tiny(), testmodel.TinyLastToken()} {
		t.Run(s.Name, func(t *testing.T) {
			// A small batch budget forces several decodes with several
			// sequences each.
			e := loadEmbedder(t, s, EmbedderOptions{BatchTokens: 64, MaxSequences: 3})
			ctx := context.Background()
			batch, _, err := e.EmbedPassages(ctx, passages)
			if err != nil {
				t.Fatal(err)
			}
			for i, p := range passages {
				one, _, err := e.EmbedPassages(ctx, []Passage{p})
				if err != nil {
					t.Fatal(err)
				}
				if d := maxDiff(batch[i], one[0]); d > 1e-4 {
					t.Errorf("passage %d: batched and single vectors differ by %g", i, d)
				}
			}
		})
	}
}

func TestEmbedderAppliesFamilyPrefixPerRole(t *testing.T) {
	ctx := context.Background()
	e5 := testmodel.Tiny()
	e5.Name = "multilingual-e5-small-test"
	path := writeModel(t, e5, "e5.gguf")
	fam, err := LoadEmbedder(path, EmbedderOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer fam.Close()
	plain, err := LoadEmbedder(path, EmbedderOptions{Family: FamilyGeneric})
	if err != nil {
		t.Fatal(err)
	}
	defer plain.Close()

	if fam.Family() != FamilyE5 {
		t.Fatalf("Family() = %q, want e5", fam.Family())
	}
	if got := fam.FormatQuery("port"); got != "query: port" {
		t.Errorf("FormatQuery = %q", got)
	}
	if got := fam.FormatPassage(Passage{Title: "Setup", Text: "port 80"}); got != "passage: Setup\nport 80" {
		t.Errorf("FormatPassage = %q", got)
	}

	// The family's query vector is the plain model's vector of the
	// prefixed text, and not the vector of the bare text.
	q, err := fam.EmbedQuery(ctx, "default port")
	if err != nil {
		t.Fatal(err)
	}
	want, _, err := plain.EmbedPassages(ctx, []Passage{{Text: "query: default port"}})
	if err != nil {
		t.Fatal(err)
	}
	bare, _, err := plain.EmbedPassages(ctx, []Passage{{Text: "default port"}})
	if err != nil {
		t.Fatal(err)
	}
	if d := maxDiff(q, want[0]); d > 1e-6 {
		t.Errorf("query vector differs from the prefixed text's by %g", d)
	}
	if cosine(q, bare[0]) > 0.9999 {
		t.Error("query prefix was not applied")
	}

	p, _, err := fam.EmbedPassages(ctx, []Passage{{Title: "Setup", Text: "default port"}})
	if err != nil {
		t.Fatal(err)
	}
	wantP, _, err := plain.EmbedPassages(ctx, []Passage{{Text: "passage: Setup\ndefault port"}})
	if err != nil {
		t.Fatal(err)
	}
	if d := maxDiff(p[0], wantP[0]); d > 1e-6 {
		t.Errorf("passage vector differs from the prefixed text's by %g", d)
	}
}

func TestFamilyConventions(t *testing.T) {
	tests := []struct {
		family       Family
		query        string
		passage      Passage
		wantQuery    string
		wantPassage  string
		wantPooling  Pooling
		wantTruncate bool
	}{
		{FamilyMiniLM, "q", Passage{"T", "x"}, "q", "T\nx", PoolingMean, false},
		{FamilyBGE, "q", Passage{"", "x"}, "Represent this sentence for searching relevant passages: q", "x", PoolingCLS, false},
		{FamilyE5, "q", Passage{"", "x"}, "query: q", "passage: x", PoolingMean, false},
		{FamilyNomic, "q", Passage{"", "x"}, "search_query: q", "search_document: x", PoolingMean, true},
		{FamilyEmbeddingGemma, "q", Passage{"", "x"}, "task: search result | query: q", "title: none | text: x", PoolingMean, true},
		{FamilyEmbeddingGemma, "q", Passage{"Guide", "x"}, "task: search result | query: q", "title: Guide | text: x", PoolingMean, true},
		{FamilyQwen3Embedding, "q", Passage{"", "x"}, "Instruct: Given a web search query, retrieve relevant passages that answer the query\nQuery: q", "x", PoolingLast, true},
		{Family("no-such-family"), "q", Passage{"", "x"}, "q", "x", PoolingNone, false},
	}
	for _, tc := range tests {
		t.Run(string(tc.family), func(t *testing.T) {
			c := Convention(tc.family)
			if got := c.QueryPrefix + tc.query; got != tc.wantQuery {
				t.Errorf("query = %q, want %q", got, tc.wantQuery)
			}
			if got := c.PassagePrefix(tc.passage.Title) + tc.passage.Text; got != tc.wantPassage {
				t.Errorf("passage = %q, want %q", got, tc.wantPassage)
			}
			if c.Pooling != tc.wantPooling {
				t.Errorf("pooling = %v, want %v", c.Pooling, tc.wantPooling)
			}
			if (len(c.Matryoshka) > 0) != tc.wantTruncate {
				t.Errorf("Matryoshka = %v", c.Matryoshka)
			}
		})
	}
}

func TestDetectFamily(t *testing.T) {
	tests := []struct {
		name, file, arch string
		pooling          Pooling
		want             Family
	}{
		{"all-MiniLM-L6-v2", "x.gguf", "bert", PoolingMean, FamilyMiniLM},
		{"", "bge-small-en-v1.5-q8_0.gguf", "bert", PoolingCLS, FamilyBGE},
		{"bge-small-zh-v1.5", "x.gguf", "bert", PoolingCLS, FamilyBGEChinese},
		{"bge-m3", "x.gguf", "xlm-roberta", PoolingCLS, FamilyGeneric},
		{"multilingual-e5-base", "x.gguf", "xlm-roberta", PoolingMean, FamilyE5},
		{"", "e5-small-v2.Q8_0.gguf", "bert", PoolingMean, FamilyE5},
		{"nomic-embed-text-v1.5", "x.gguf", "nomic-bert", PoolingMean, FamilyNomic},
		{"", "x.gguf", "nomic-bert", PoolingMean, FamilyNomic},
		{"embeddinggemma-300m", "x.gguf", "gemma-embedding", PoolingMean, FamilyEmbeddingGemma},
		{"Qwen3-Embedding-0.6B", "x.gguf", "qwen3", PoolingLast, FamilyQwen3Embedding},
		{"", "mystery.gguf", "qwen3", PoolingLast, FamilyQwen3Embedding},
		{"Some Fine Model", "model.gguf", "bert", PoolingMean, FamilyGeneric},
		{"gte-base-e50", "x.gguf", "bert", PoolingMean, FamilyGeneric}, // "e5" inside a word is not E5
	}
	for _, tc := range tests {
		md := &Metadata{Path: "/models/" + tc.file, Name: tc.name, Architecture: tc.arch, Pooling: tc.pooling, KV: map[string]any{}}
		if got := DetectFamily(md); got != tc.want {
			t.Errorf("DetectFamily(%q, %q, %q) = %q, want %q", tc.name, tc.file, tc.arch, got, tc.want)
		}
	}
}

func TestEmbedderSplitsLongInputs(t *testing.T) {
	ctx := context.Background()
	e := loadEmbedder(t, testmodel.Tiny(), EmbedderOptions{}) // 64-token context
	long := strings.Repeat("the index stores every chunk of text with its page and line so answers can cite sources. ", 12)
	vecs, infos, err := e.EmbedPassages(ctx, []Passage{{Text: long}, {Text: "short text"}})
	if err != nil {
		t.Fatal(err)
	}
	if infos[0].Windows < 3 || infos[0].Tokens <= e.Window() {
		t.Fatalf("long input info = %+v, want >= 3 windows and > %d tokens", infos[0], e.Window())
	}
	if infos[1].Windows != 1 {
		t.Errorf("short input info = %+v, want 1 window", infos[1])
	}
	if math.Abs(norm(vecs[0])-1) > 1e-5 {
		t.Errorf("long input norm %v", norm(vecs[0]))
	}
	// Not silently truncated: the vector differs from that of the text the
	// first window holds.
	toks, err := e.tokenize(long, false)
	if err != nil {
		t.Fatal(err)
	}
	first := strings.Join(strings.Fields(long)[:40], " ")
	head, _, err := e.EmbedPassages(ctx, []Passage{{Text: first}})
	if err != nil {
		t.Fatal(err)
	}
	if cosine(vecs[0], head[0]) > 0.9999 {
		t.Errorf("long input (%d tokens) embedded like its beginning: truncated", len(toks))
	}
	// And it is the normalised, weighted mean of its windows.
	ws, err := e.windows("", long)
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range ws {
		if len(w.tokens) > e.Window() || w.tokens[0] != e.head[0] || w.tokens[len(w.tokens)-1] != e.tail[0] {
			t.Fatalf("window of %d tokens is not a valid input: %v", len(w.tokens), w.tokens)
		}
	}
	wv, err := e.embedWindows(ctx, ws)
	if err != nil {
		t.Fatal(err)
	}
	if d := maxDiff(e.combine(ws, wv), vecs[0]); d > 1e-4 {
		t.Errorf("long vector differs from the mean of its windows by %g", d)
	}
}

func TestEmbedderMatryoshka(t *testing.T) {
	ctx := context.Background()
	path := writeModel(t, testmodel.TinyLastToken(), "qwen3-embedding.gguf")
	full, err := LoadEmbedder(path, EmbedderOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer full.Close()
	cut, err := LoadEmbedder(path, EmbedderOptions{Dim: 32})
	if err != nil {
		t.Fatal(err)
	}
	defer cut.Close()
	if cut.Dim() != 32 || full.Dim() != 64 {
		t.Fatalf("Dim() = %d and %d, want 32 and 64", cut.Dim(), full.Dim())
	}
	a, err := full.EmbedQuery(ctx, "backup the database")
	if err != nil {
		t.Fatal(err)
	}
	b, err := cut.EmbedQuery(ctx, "backup the database")
	if err != nil {
		t.Fatal(err)
	}
	want := Normalize(append([]float32(nil), a[:32]...))
	if len(b) != 32 || maxDiff(b, want) > 1e-5 {
		t.Errorf("truncated vector is not the renormalised head of the full one (len %d)", len(b))
	}

	// Families not trained for truncation refuse it.
	_, err = LoadEmbedder(writeModel(t, testmodel.Tiny(), "minilm.gguf"), EmbedderOptions{Dim: 16})
	if err == nil || !strings.Contains(err.Error(), "Matryoshka") {
		t.Errorf("MiniLM with Dim 16: err = %v, want a Matryoshka refusal", err)
	}
}

func TestLoadEmbedderErrors(t *testing.T) {
	dir := t.TempDir()
	notGGUF := filepath.Join(dir, "notes.gguf")
	if err := os.WriteFile(notGGUF, []byte("just some text, not a model"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := LoadEmbedder(notGGUF, EmbedderOptions{})
	if !errors.Is(err, ErrNotGGUF) || !strings.Contains(err.Error(), notGGUF) {
		t.Errorf("non-GGUF file: err = %v, want ErrNotGGUF naming the file", err)
	}

	chat := writeModel(t, testmodel.TinyChat(), "chat.gguf")
	_, err = LoadEmbedder(chat, EmbedderOptions{})
	if err == nil || !strings.Contains(err.Error(), "no pooling and is not an embedding model") || !strings.Contains(err.Error(), chat) {
		t.Errorf("generation model: err = %v", err)
	}

	_, err = LoadEmbedder(filepath.Join(dir, "missing.gguf"), EmbedderOptions{})
	if !errors.Is(err, os.ErrNotExist) {
		t.Errorf("missing file: err = %v, want os.ErrNotExist", err)
	}

	// A GGUF whose header promises more layers than it holds tensors for.
	s := testmodel.Tiny()
	s.Extra = map[string]any{"bert.block_count": uint32(9)}
	broken := writeModel(t, s, "broken.gguf")
	_, err = LoadEmbedder(broken, EmbedderOptions{})
	if err == nil || !strings.Contains(err.Error(), "could not load") || !strings.Contains(err.Error(), broken) {
		t.Errorf("inconsistent model: err = %v", err)
	}
}

func TestEmbedderConcurrentUse(t *testing.T) {
	e := loadEmbedder(t, testmodel.Tiny(), EmbedderOptions{BatchTokens: 64, MaxSequences: 2})
	ctx := context.Background()
	want, _, err := e.EmbedPassages(ctx, passages)
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for range 8 {
		wg.Go(func() {
			got, _, err := e.EmbedPassages(ctx, passages)
			if err != nil {
				errs <- err
				return
			}
			for i := range got {
				if d := maxDiff(got[i], want[i]); d > 1e-4 {
					errs <- errors.New("concurrent result differs")
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}

func TestEmbedderCancelledAndClosed(t *testing.T) {
	e := loadEmbedder(t, testmodel.Tiny(), EmbedderOptions{})
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, _, err := e.EmbedPassages(ctx, passages); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: err = %v", err)
	}
	e.Close()
	e.Close() // idempotent
	if _, err := e.EmbedQuery(context.Background(), "x"); !errors.Is(err, ErrClosed) {
		t.Errorf("closed: err = %v", err)
	}
	var nilE *Embedder
	if err := nilE.Close(); err != nil {
		t.Error(err)
	}
}

func TestScalarAttention(t *testing.T) {
	for _, tc := range []struct {
		head, step int
		want       bool
	}{
		{32, 64, true},   // all-MiniLM, bge-small, e5-small built for AVX-512
		{32, 32, false},  // the same built for x86-64-v3 (AVX2)
		{64, 64, false},  // nomic-embed, Qwen2.5-0.5B
		{128, 64, false}, // Qwen3-Embedding
		{96, 64, true},
		{32, 0, false}, // no AVX: nothing to avoid
		{0, 64, false}, // unknown width
	} {
		if got := scalarAttention(tc.head, tc.step); got != tc.want {
			t.Errorf("scalarAttention(%d, %d) = %v, want %v", tc.head, tc.step, got, tc.want)
		}
	}
	md := &Metadata{Architecture: "bert", EmbeddingLength: 384, HeadCount: 12, KV: map[string]any{}}
	if w := headWidth(md); w != 32 {
		t.Errorf("MiniLM's head width %d, want 32", w)
	}
	md.KV["bert.attention.key_length"] = uint32(64)
	if w := headWidth(md); w != 64 {
		t.Errorf("declared key length: head width %d, want 64", w)
	}
}

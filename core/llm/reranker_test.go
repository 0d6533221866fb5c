package llm

import (
	"context"
	"math"
	"slices"
	"strings"
	"testing"

	"cairn/core/llm/testmodel"
)

func loadReranker(t testing.TB, s testmodel.Spec) *Reranker {
	t.Helper()
	r, err := LoadReranker(writeModel(t, s, "rerank.gguf"), RerankerOptions{Threads: 2})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close() })
	return r
}

var rerankDocs = []string{
	"To reset the router hold the button on the back for ten seconds.",
	"Descale the coffee machine every month with citric acid.",
	"The invoice lists the hours worked in March.",
	"Grep prints the lines of a file that match a pattern.",
}

func TestRerankerScoresComeFromTheModel(t *testing.T) {
	r := loadReranker(t, testmodel.TinyReranker())
	ctx := context.Background()
	q := "how do I reset the router"
	a, err := r.Score(ctx, q, rerankDocs)
	if err != nil {
		t.Fatal(err)
	}
	b, err := r.Score(ctx, q, rerankDocs)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(a, b) {
		t.Errorf("the same pairs scored %v, then %v", a, b)
	}
	// A pair alone scores as it does packed with others.
	for i, d := range rerankDocs {
		one, err := r.Score(ctx, q, []string{d})
		if err != nil {
			t.Fatal(err)
		}
		if math.Abs(one[0]-a[i]) > 1e-4 {
			t.Errorf("pair %d: %v alone, %v in a batch", i, one[0], a[i])
		}
	}
	// Different passages and different questions give different scores:
	// the classification head reads both texts.
	if a[0] == a[1] || a[1] == a[2] {
		t.Errorf("scores do not depend on the passage: %v", a)
	}
	c, err := r.Score(ctx, "list the invoices from March", rerankDocs[:1])
	if err != nil {
		t.Fatal(err)
	}
	if c[0] == a[0] {
		t.Errorf("score %v does not depend on the question", c[0])
	}
	if r.PerPair() <= 0 {
		t.Errorf("per-pair cost %v was not measured", r.PerPair())
	}
}

func TestRerankerPairIsTheTokenizersPairEncoding(t *testing.T) {
	r := loadReranker(t, testmodel.TinyReranker())
	got, err := r.Pair("reset router", "hold the button")
	if err != nil {
		t.Fatal(err)
	}
	q, _ := r.model.Tokenize("reset router", false, false)
	d, _ := r.model.Tokenize("hold the button", false, false)
	const cls, sep = 2, 3 // the test vocabulary's [CLS] and [SEP]
	want := slices.Concat([]int{cls}, q, []int{sep}, d, []int{sep})
	if !slices.Equal(got, want) {
		t.Errorf("pair %v, want [CLS] q [SEP] d [SEP] = %v", got, want)
	}
	// A long passage is cut to the window, the closing token kept.
	long, err := r.Pair("reset router", strings.Repeat("hold the button ", 200))
	if err != nil {
		t.Fatal(err)
	}
	if len(long) != r.Window() || long[len(long)-1] != sep {
		t.Errorf("long pair: %d tokens ending in %d, want %d ending in [SEP]", len(long), long[len(long)-1], r.Window())
	}
}

func TestRerankerTemplateFromTheFile(t *testing.T) {
	s := testmodel.TinyReranker()
	s.Extra = map[string]any{RerankTemplateKey: "question: {query} passage: {document} [SEP]"}
	r := loadReranker(t, s)
	got, err := r.Pair("reset router", "hold the button")
	if err != nil {
		t.Fatal(err)
	}
	want, _ := r.model.Tokenize("question: reset router passage: ", false, true)
	d, _ := r.model.Tokenize("hold the button", false, false)
	end, _ := r.model.Tokenize(" [SEP]", false, true)
	want = slices.Concat(want, d, end)
	if !slices.Equal(got, want) {
		t.Errorf("pair %v, want the template's %v", got, want)
	}
}

func TestRerankerRefusesOtherModels(t *testing.T) {
	if _, err := LoadReranker(writeModel(t, testmodel.Tiny(), "embed.gguf"), RerankerOptions{}); err == nil ||
		!strings.Contains(err.Error(), "not a reranker: its pooling is mean") {
		t.Errorf("an embedding model loaded as a reranker: %v", err)
	}
	if _, err := LoadEmbedder(writeModel(t, testmodel.TinyReranker(), "rerank.gguf"), EmbedderOptions{}); err == nil ||
		!strings.Contains(err.Error(), "is a reranker") {
		t.Errorf("a reranker loaded as an embedding model: %v", err)
	}
}

// A Qwen3 reranker without a prompt in its file gets Qwen3-Reranker's
// yes/no prompt, and its score is P(yes): llama.cpp's softmax over the
// head's two outputs, read at the last token.
func TestQwen3RerankerUsesItsPromptAndScoresAProbability(t *testing.T) {
	r := loadReranker(t, testmodel.TinyQwen3Reranker())
	got, err := r.Pair("reset router", "hold the button")
	if err != nil {
		t.Fatal(err)
	}
	prompt := strings.NewReplacer("{query}", "reset router", "{document}", "hold the button").Replace(Qwen3RerankTemplate)
	before, after, _ := strings.Cut(prompt, "hold the button")
	pre, _ := r.model.Tokenize(before, false, true)
	d, _ := r.model.Tokenize("hold the button", false, false)
	post, _ := r.model.Tokenize(after, false, true)
	if want := slices.Concat(pre, d, post); !slices.Equal(got, want) {
		t.Errorf("pair %v, want the Qwen3-Reranker prompt %v", got, want)
	}
	imStart, _ := r.model.Tokenize("<|im_start|>", false, true)
	if len(imStart) != 1 || got[0] != imStart[0] {
		t.Errorf("the prompt does not open with the special token <|im_start|> (%v): %v", imStart, got[:3])
	}
	ctx := context.Background()
	a, err := r.Score(ctx, "how do I reset the router", rerankDocs)
	if err != nil {
		t.Fatal(err)
	}
	b, err := r.Score(ctx, "how do I reset the router", rerankDocs)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(a, b) {
		t.Errorf("the same pairs scored %v, then %v", a, b)
	}
	for i, s := range a {
		if s <= 0 || s >= 1 {
			t.Errorf("pair %d: score %v is not a probability", i, s)
		}
	}
	if a[0] == a[1] {
		t.Errorf("scores do not depend on the passage: %v", a)
	}
}

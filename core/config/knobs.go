package config

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
)

// Knob describes one number setting once, for every part of Cairn that
// shows, takes or checks it: Validate reads its bounds, `cairn search`
// and the API register its flag and parameter, the Engineering tab builds
// its slider, and search.NewRequest carries a retrieval knob to the
// request's field of its name (search.requestKnobs). Adding a knob is an
// entry here, the settings field it points at, and the field of the code
// that uses it.
type Knob struct {
	Key string // section.key as in settings.json: "retrieval.top_k"
	// Field points at the setting in c: an *int or a *float64. It is code,
	// not a name looked up at run time, so a misspelt field does not
	// compile (TestKnobKeysNameTheirFields holds Key to the field's JSON
	// name).
	Field func(c *Config) any
	Flag  string // `cairn search` flag without dashes ("top-k"); "" for none
	Label string // the slider's name in the Engineering tab
	Help  string // what it does: the slider's hint and the flag's usage

	Min, Max float64 // valid values, bounds included; every setting has both
	Lo, Hi   float64 // the slider's range, within Min..Max
	Step     float64 // the slider's step
	Int      bool    // a whole number
	Places   int     // decimals shown for a float
	Zero     string  // what 0 means when it is special ("no cap"); shown instead of 0
}

// RetrievalKnobs are the search knobs, in the order the Engineering tab
// shows them. Their names (Name) are search.Request's knob tags and
// search.Inert's keys.
var RetrievalKnobs = []Knob{
	{Key: "retrieval.top_k", Field: func(c *Config) any { return &c.Retrieval.TopK }, Flag: "top-k", Label: "top_k", Help: "results kept",
		Min: 1, Max: 1000, Lo: 1, Hi: 50, Step: 1, Int: true},
	{Key: "retrieval.min_score", Field: func(c *Config) any { return &c.Retrieval.MinScore }, Flag: "min-score", Label: "minimum relevance",
		Help: "drop passages covering less of the question (0..1)",
		Min:  0, Max: 1, Lo: 0, Hi: 1, Step: 0.01, Places: 2},
	{Key: "retrieval.rrf_k", Field: func(c *Config) any { return &c.Retrieval.RRFK }, Flag: "rrf-k", Label: "rrf_k", Help: "RRF smoothing: higher flattens rank differences",
		Min: 0, Max: 10000, Lo: 0, Hi: 200, Step: 1},
	{Key: "retrieval.vector_weight", Field: func(c *Config) any { return &c.Retrieval.VectorWeight }, Flag: "vector-weight", Label: "vector weight",
		Help: "weighted fusion: share of the vector score", Min: 0, Max: 1, Lo: 0, Hi: 1, Step: 0.05, Places: 2},
	{Key: "retrieval.per_doc_cap", Field: func(c *Config) any { return &c.Retrieval.PerDocCap }, Flag: "per-doc", Label: "per-document cap", Help: "most results from one file",
		Min: 0, Max: 1000, Lo: 0, Hi: 10, Step: 1, Int: true, Zero: "no cap"},
	{Key: "retrieval.bm25_pool", Field: func(c *Config) any { return &c.Retrieval.BM25Pool }, Flag: "bm25-pool", Label: "BM25 pool", Help: "keyword candidates (new search)",
		Min: 0, Max: 10000, Lo: 10, Hi: 200, Step: 10, Int: true, Zero: "60 candidates"},
	{Key: "retrieval.vector_pool", Field: func(c *Config) any { return &c.Retrieval.VectorPool }, Flag: "vector-pool", Label: "vector pool", Help: "vector candidates (new search)",
		Min: 0, Max: 10000, Lo: 10, Hi: 200, Step: 10, Int: true, Zero: "60 candidates"},
}

// AnswerKnobs are the chat model's, the answer's and the reranker's knobs,
// in the order the Engineering tab shows them.
var AnswerKnobs = []Knob{
	{Key: "rerank.budget_sec", Field: func(c *Config) any { return &c.Rerank.BudgetSec }, Label: "rerank budget (s)",
		Help: "the most reranking may add to a search; how many passages are reranked follows from it and this machine's measured speed",
		Min:  0.1, Max: 60, Lo: 0.25, Hi: 10, Step: 0.25, Places: 2},
	{Key: "generation.temperature", Field: func(c *Config) any { return &c.Generation.Temperature }, Label: "temperature", Help: "0 picks the likeliest words; higher varies the wording",
		Min: 0, Max: 2, Lo: 0, Hi: 1.5, Step: 0.05, Places: 2},
	{Key: "generation.max_tokens", Field: func(c *Config) any { return &c.Generation.MaxTokens }, Label: "max answer tokens", Help: "the answer stops at this length",
		Min: 0, Max: 1 << 20, Lo: 0, Hi: 4096, Step: 64, Int: true, Zero: "the default, 512"},
	{Key: "answer.timeout_sec", Field: func(c *Config) any { return &c.Answer.TimeoutSec }, Label: "answer timeout (s)", Help: "the most one answer may take",
		Min: 0, Max: 86400, Lo: 0, Hi: 600, Step: 10, Int: true, Zero: "no limit"},
	{Key: "answer.price_per_mtok_in", Field: func(c *Config) any { return &c.Answer.PricePerMTokIn }, Label: "price, 1M tokens in", Help: "the online model's price of a million prompt tokens, for the cost estimate",
		Min: 0, Max: 1e6, Lo: 0, Hi: 30, Step: 0.05, Places: 2, Zero: "no estimate"},
	{Key: "answer.price_per_mtok_out", Field: func(c *Config) any { return &c.Answer.PricePerMTokOut }, Label: "price, 1M tokens out", Help: "the online model's price of a million answer tokens, for the cost estimate",
		Min: 0, Max: 1e6, Lo: 0, Hi: 30, Step: 0.05, Places: 2, Zero: "no estimate"},
}

// Knobs lists every knob with a slider.
func Knobs() []Knob { return append(slices.Clip(RetrievalKnobs), AnswerKnobs...) }

// NumberSettings are the number settings without a slider: Validate checks
// each against its bounds as it does the knobs, so a value that would
// start a billion workers, overflow a byte count or a duration, or mean
// nothing to the model (top_p 7, a negative context) is refused when the
// settings load. Every number setting is a knob or one of these
// (TestEveryNumberSettingHasBounds); chunking.overlap, bounded by
// chunking.size, is checked by Validate itself.
var NumberSettings = []Knob{
	{Key: "index.max_file_mb", Field: func(c *Config) any { return &c.Indexing.MaxFileMB }, Help: "larger files are skipped", Min: 1, Max: 65536, Int: true},
	{Key: "index.workers", Field: func(c *Config) any { return &c.Indexing.Workers }, Help: "extraction workers", Min: 0, Max: 256, Int: true, Zero: "one per CPU"},
	{Key: "index.timeout_sec", Field: func(c *Config) any { return &c.Indexing.TimeoutSec }, Help: "the longest one file's extraction may go without progress (new parts of the file read, pages done); a file that keeps progressing is not stopped", Min: 0, Max: 86400, Int: true, Zero: "the default"},
	{Key: "chunking.size", Field: func(c *Config) any { return &c.Chunking.Size }, Help: "characters of a passage", Min: 100, Max: 100000, Int: true},
	{Key: "chunking.max_heading_len", Field: func(c *Config) any { return &c.Chunking.MaxHeadingLen }, Help: "heading context kept with a passage", Min: 0, Max: 10000, Int: true, Zero: "the default, 160"},
	{Key: "embedding.dim", Field: func(c *Config) any { return &c.Embedding.Dim }, Help: "vector length (Matryoshka truncation)", Min: 0, Max: 65536, Int: true, Zero: "the model's full dimension"},
	{Key: "embedding.batch_size", Field: func(c *Config) any { return &c.Embedding.BatchSize }, Help: "passages per embedding call", Min: 0, Max: 4096, Int: true, Zero: "the default, 32"},
	{Key: "embedding.batch_mb", Field: func(c *Config) any { return &c.Embedding.BatchMB }, Help: "estimated memory of one embedding call", Min: 1, Max: 4096, Int: true},
	{Key: "embedding.threads", Field: func(c *Config) any { return &c.Embedding.Threads }, Help: "threads of the embedding model", Min: 0, Max: 1024, Int: true, Zero: "one per CPU"},
	{Key: "generation.context_size", Field: func(c *Config) any { return &c.Generation.ContextSize }, Help: "tokens prompt and answer share", Min: 0, Max: 1 << 20, Int: true, Zero: "the model's, up to 4096"},
	{Key: "generation.top_p", Field: func(c *Config) any { return &c.Generation.TopP }, Help: "nucleus sampling", Min: 0, Max: 1, Zero: "1"},
	{Key: "generation.seed", Field: func(c *Config) any { return &c.Generation.Seed }, Help: "sampling seed", Min: -1, Max: math.MaxUint32, Int: true},
	{Key: "generation.threads", Field: func(c *Config) any { return &c.Generation.Threads }, Help: "threads of the chat model", Min: 0, Max: 1024, Int: true, Zero: "one per CPU"},
	{Key: "rerank.threads", Field: func(c *Config) any { return &c.Rerank.Threads }, Help: "threads of the reranker", Min: 0, Max: 1024, Int: true, Zero: "one per CPU"},
	{Key: "answer.top_k", Field: func(c *Config) any { return &c.Answer.TopK }, Help: "passages given to the model", Min: 0, Max: 100, Int: true, Zero: "the default, 8"},
	{Key: "serve.port", Field: func(c *Config) any { return &c.Serve.Port }, Help: "the local service's port on 127.0.0.1", Min: 0, Max: 65535, Int: true, Zero: "a free one"},
}

// KnobByKey finds a knob by its settings key.
func KnobByKey(key string) (Knob, bool) {
	for _, k := range Knobs() {
		if k.Key == key {
			return k, true
		}
	}
	return Knob{}, false
}

// Name is the key within its section: "top_k".
func (k Knob) Name() string {
	_, name, _ := strings.Cut(k.Key, ".")
	return name
}

// Get reads the knob's value from c.
func (k Knob) Get(c Config) float64 {
	v, ok := Number(k.Field(&c))
	if !ok {
		panic("config: knob " + k.Key + " points at no number") // the table is wrong: TestKnobKeysNameTheirFields says so
	}
	return v
}

// Set writes v into c; a whole-number knob takes v rounded (SetNumber).
func (k Knob) Set(c *Config, v float64) {
	if !SetNumber(k.Field(c), v) {
		panic("config: knob " + k.Key + " points at no number")
	}
}

// Number reads the number p points at, an *int or a *float64 (a knob's
// Field, or the field of the code that uses the knob); false for any
// other pointer.
func Number(p any) (float64, bool) {
	switch p := p.(type) {
	case *int:
		return float64(*p), true
	case *float64:
		return *p, true
	}
	return 0, false
}

// SetNumber writes v where p points, an *int or a *float64: an int takes
// v rounded, and held within int64 (past it, conversion wraps round to
// the most negative number, which the check would then quote instead of
// what was typed). False for any other pointer.
func SetNumber(p any, v float64) bool {
	switch p := p.(type) {
	case *int:
		switch v = math.Round(v); {
		case v >= math.MaxInt64:
			*p = math.MaxInt64
		case v <= math.MinInt64:
			*p = math.MinInt64
		default:
			*p = int(v)
		}
	case *float64:
		*p = v
	default:
		return false
	}
	return true
}

// Format shows v as the slider's value label does.
func (k Knob) Format(v float64) string {
	switch {
	case v == 0 && k.Zero != "":
		return k.Zero
	case k.Int:
		return strconv.Itoa(int(math.Round(v)))
	}
	return strconv.FormatFloat(v, 'f', k.Places, 64)
}

// problem says what is wrong with the knob's value in c, or "" when it is
// valid. A whole number is shown as the setting holds it: through a
// float64, 2^63-1 would read as 2^63.
func (k Knob) problem(c Config) string {
	v, shown := 0.0, ""
	switch p := k.Field(&c).(type) {
	case *int:
		v, shown = float64(*p), strconv.Itoa(*p)
	case *float64:
		v, shown = *p, fmt.Sprint(*p)
	}
	if v >= k.Min && v <= k.Max && (!k.Int || v == math.Trunc(v)) {
		return ""
	}
	zero := ""
	if k.Zero != "" {
		zero = " (0: " + k.Zero + ")"
	}
	num := func(x float64) string { return strconv.FormatFloat(x, 'f', -1, 64) }
	switch {
	case v < k.Min && k.Min == 0:
		return fmt.Sprintf("must not be negative%s, not %s", zero, shown)
	case v < k.Min:
		return fmt.Sprintf("must be at least %s%s, not %s", num(k.Min), zero, shown)
	case v > k.Max:
		return fmt.Sprintf("must be between %s and %s%s, not %s", num(k.Min), num(k.Max), zero, shown)
	}
	return fmt.Sprintf("must be a whole number, not %s", shown)
}

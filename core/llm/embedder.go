package llm

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"github.com/ollama/ollama/llama"
	"github.com/ollama/ollama/ml"
)

// FlashAttention selects llama.cpp's fused attention kernel.
type FlashAttention int

// FlashAttention settings; the zero value lets llama.cpp decide.
const (
	FlashAttentionAuto FlashAttention = iota
	FlashAttentionOn
	FlashAttentionOff
)

func (f FlashAttention) ml() ml.FlashAttentionType {
	switch f {
	case FlashAttentionOn:
		return ml.FlashAttentionEnabled
	case FlashAttentionOff:
		return ml.FlashAttentionDisabled
	}
	return ml.FlashAttentionAuto
}

// EmbedderOptions tunes LoadEmbedder. Zero values pick the defaults noted.
type EmbedderOptions struct {
	// Threads is the number of CPU threads llama.cpp uses per decode;
	// 0 means DefaultThreads().
	Threads int
	// ContextSize caps the window, in tokens, one sequence may fill; longer
	// inputs are split into windows. 0 means the model's context length,
	// capped at DefaultEmbedWindow.
	ContextSize int
	// BatchTokens is how many tokens go into one llama_decode, packed from
	// as many inputs as fit; 0 means DefaultEmbedBatchTokens (raised to
	// the window if that is longer, since a window cannot be split).
	BatchTokens int
	// MaxSequences bounds the inputs packed into one decode; 0 means 64
	// for encoders and 4 for causal models, whose KV cache grows with it.
	MaxSequences int
	// Dim truncates vectors to this many leading components (Matryoshka)
	// before normalising; 0 keeps the native size. Only families trained
	// for it accept a smaller size.
	Dim int
	// Family overrides the family detected from the model's metadata.
	Family Family
	// FlashAttention selects the attention kernel.
	FlashAttention FlashAttention
	// Device is where the model runs: DeviceAuto ("" too), DeviceCPU or a
	// GPU's name (SelectDevice).
	Device string
}

// Defaults for EmbedderOptions.
const (
	// DefaultEmbedWindow caps the window for long-context embedders
	// (Qwen3-Embedding declares 32768): attention cost grows with the
	// square of the window, and retrieval chunks are far shorter.
	DefaultEmbedWindow = 2048
	// DefaultEmbedBatchTokens was the fastest setting per CPU-second for a
	// MiniLM-shaped model on 256-token chunks (BenchEmbed, 512 to 2048
	// tried): sequences packed together still pay for attention across the
	// whole batch, so bigger batches stop paying off early.
	DefaultEmbedBatchTokens = 512
)

// Passage is one piece of a document to embed: its title (document title or
// heading; may be empty) and text.
type Passage struct {
	Title string
	Text  string
}

// EmbedInfo says how one input was embedded.
type EmbedInfo struct {
	// Tokens is the number of tokens of the formatted input, special
	// tokens included, counted once even when split.
	Tokens int
	// Windows is 1 when the input fit the model's context; more when it
	// was split into that many windows whose vectors were averaged.
	Windows int
}

// Embedder turns text into unit-length vectors with a GGUF embedding model.
// It is safe for concurrent use: decodes are serialized on one llama
// context, and throughput comes from packing many inputs into each decode.
type Embedder struct {
	path   string
	md     *Metadata
	conv   FamilyConvention
	native int // width of the model's pooled output
	dim    int // width of the vectors returned
	window int
	// batchTokens and maxSeqs bound one decode.
	batchTokens, maxSeqs int
	// head and tail are the special tokens the tokenizer wraps a text in
	// ([CLS] ... [SEP] for BERT), repeated around every window.
	head, tail []int
	// causal models keep a KV cache, which bounds how many sequences fit.
	causal bool
	device Device

	decoder
}

// LoadEmbedder loads the GGUF embedding model at path.
func LoadEmbedder(path string, opt EmbedderOptions) (*Embedder, error) {
	md, err := ReadMetadata(path)
	if err != nil {
		return nil, err
	}
	switch md.Pooling {
	case PoolingNone:
		return nil, fmt.Errorf("%s: model has no pooling and is not an embedding model (architecture %q has no %s.pooling_type); choose an embedding GGUF such as all-MiniLM-L6-v2",
			path, md.Architecture, md.Architecture)
	case PoolingRank:
		return nil, fmt.Errorf("%s: model is a reranker (rank pooling), not an embedding model", path)
	}
	e := &Embedder{path: path, md: md, causal: md.Causal}
	family := opt.Family
	if family == "" {
		family = DetectFamily(md)
	}
	e.conv = Convention(family)

	e.window = md.ContextLength
	if e.window <= 0 {
		e.window = 512 // BERT's; llama.cpp needs the key to load anyway
	}
	limit := opt.ContextSize
	if limit <= 0 {
		limit = DefaultEmbedWindow
	}
	e.window = min(e.window, limit)
	e.batchTokens = opt.BatchTokens
	if e.batchTokens <= 0 {
		e.batchTokens = DefaultEmbedBatchTokens
	}
	e.batchTokens = max(e.batchTokens, e.window)
	e.maxSeqs = opt.MaxSequences
	if e.maxSeqs <= 0 {
		e.maxSeqs = 64
		if e.causal {
			e.maxSeqs = 4
		}
	}
	e.maxSeqs = min(e.maxSeqs, 256) // llama.cpp's LLAMA_MAX_SEQ
	// llama.cpp sizes its worst-case graph for n_ubatch/n_seq_max tokens per
	// sequence and fails an assertion when that does not divide evenly.
	e.batchTokens = (e.batchTokens + e.maxSeqs - 1) / e.maxSeqs * e.maxSeqs
	threads := opt.Threads
	if threads <= 0 {
		threads = DefaultThreads()
	}

	dev, mp, err := modelParams(opt.Device)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	e.device = dev
	e.model, err = llama.LoadModelFromFile(path, mp)
	if err != nil {
		return nil, fmt.Errorf("%s: llama.cpp could not load the model: %s", path, orUnknown(takeLlamaErrors()))
	}
	e.native = e.model.NEmbd()
	if err := e.setDim(opt.Dim); err != nil {
		llama.FreeModel(e.model)
		return nil, err
	}
	if err := e.findSpecials(); err != nil {
		llama.FreeModel(e.model)
		return nil, err
	}
	// Every sequence may fill a window; the KV cache (causal models only)
	// gives each sequence its own stream of window cells.
	// llama.cpp rounds each sequence's share up to a multiple of 256.
	perSeq := (e.window + 255) / 256 * 256
	fa := opt.FlashAttention
	if fa == FlashAttentionAuto && dev.IsCPU() && scalarAttention(headWidth(md), f16Step) {
		// llama.cpp's auto turns flash attention on for the CPU; with
		// heads off ggml's vector step it runs in scalar code, and the
		// plain path's matrix products (llamafile's sgemm) are faster.
		fa = FlashAttentionOff
	}
	params := llama.NewContextParams(perSeq*e.maxSeqs, e.batchTokens, e.maxSeqs, threads, fa.ml(), "")
	e.lc, err = llama.NewContextWithModel(e.model, params)
	if err != nil {
		llama.FreeModel(e.model)
		return nil, fmt.Errorf("%s: creating llama context (window %d, %d sequences): %w: %s",
			path, e.window, e.maxSeqs, err, orUnknown(takeLlamaErrors()))
	}
	// One seq id per token: sequences are packed side by side.
	e.batch, err = llama.NewBatch(e.batchTokens, 1, 0)
	if err != nil {
		e.Close()
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return e, nil
}

func orUnknown(s string) string {
	if s == "" {
		return "no reason given (run with debug logging for llama.cpp's log)"
	}
	return s
}

func (e *Embedder) setDim(dim int) error {
	e.dim = e.native
	if dim == 0 || dim == e.native {
		return nil
	}
	if dim < 0 || dim > e.native {
		return fmt.Errorf("%s: dimension %d is outside 1..%d", e.path, dim, e.native)
	}
	m := e.conv.Matryoshka
	if !slices.Contains(m, dim) && !slices.Contains(m, matryoshkaAny) {
		if len(m) == 0 {
			return fmt.Errorf("%s: family %s was not trained for truncated (Matryoshka) vectors; leave the dimension at %d",
				e.path, e.conv.Family, e.native)
		}
		return fmt.Errorf("%s: family %s supports dimensions %v, not %d", e.path, e.conv.Family, m, dim)
	}
	e.dim = dim
	return nil
}

// findSpecials learns which tokens the tokenizer adds around a text by
// comparing a tokenization with and without them.
func (e *Embedder) findSpecials() error {
	var err error
	if e.head, e.tail, err = wrapTokens(e.model, e.path); err != nil {
		return fmt.Errorf("%w; cannot split long inputs", err)
	}
	return nil
}

// Dim is the length of the vectors the embedder returns.
func (e *Embedder) Dim() int { return e.dim }

// Family is the family whose conventions the embedder applies.
func (e *Embedder) Family() Family { return e.conv.Family }

// Device is where the model runs.
func (e *Embedder) Device() Device { return e.device }

// Window is the most tokens one sequence may hold; longer inputs are split.
func (e *Embedder) Window() int { return e.window }

// Metadata is the model's GGUF metadata.
func (e *Embedder) Metadata() *Metadata { return e.md }

// ModelID identifies the weights and the output size, so a store can tell
// when vectors came from a different model: the model name (or file name),
// the dimension and the start of the file's fingerprint, for example
// "all-MiniLM-L6-v2-384-1a2b3c4d".
func (e *Embedder) ModelID() string {
	name := e.md.Name
	if name == "" {
		name = strings.TrimSuffix(filepath.Base(e.path), filepath.Ext(e.path))
	}
	name = strings.Map(func(r rune) rune {
		if r == ' ' || r == '/' || r == '\\' {
			return '-'
		}
		return r
	}, name)
	return fmt.Sprintf("%s-%d-%s", name, e.dim, e.md.Fingerprint[:8])
}

// FormatQuery returns a query as the family wants it embedded.
func (e *Embedder) FormatQuery(q string) string { return e.conv.QueryPrefix + q }

// FormatPassage returns a passage as the family wants it embedded.
func (e *Embedder) FormatPassage(p Passage) string { return e.conv.PassagePrefix(p.Title) + p.Text }

// Tokenize returns the token ids of text, with the special tokens an
// embedding input gets.
func (e *Embedder) Tokenize(text string) ([]int, error) {
	return e.tokenize(text, true)
}

func (e *Embedder) tokenize(text string, special bool) ([]int, error) {
	e.life.RLock()
	defer e.life.RUnlock()
	if e.closed {
		return nil, fmt.Errorf("%s: %w", e.path, ErrClosed)
	}
	toks, err := e.model.Tokenize(text, special, false)
	if err != nil {
		return nil, fmt.Errorf("%s: tokenizing: %w", e.path, err)
	}
	return toks, nil
}

// EmbedQuery embeds a search query.
func (e *Embedder) EmbedQuery(ctx context.Context, q string) ([]float32, error) {
	ws, err := e.windows(e.conv.QueryPrefix, q)
	if err != nil {
		return nil, err
	}
	vecs, err := e.embedWindows(ctx, ws)
	if err != nil {
		return nil, err
	}
	return e.combine(ws, vecs), nil
}

// EmbedPassages embeds passages (formatted per the family's convention,
// title included) and reports, for each, how many tokens and windows it
// took. Vectors are in input order and of length Dim.
func (e *Embedder) EmbedPassages(ctx context.Context, ps []Passage) ([][]float32, []EmbedInfo, error) {
	var all []window
	bounds := make([]int, len(ps)+1)
	infos := make([]EmbedInfo, len(ps))
	for i, p := range ps {
		ws, err := e.windows(e.conv.PassagePrefix(p.Title), p.Text)
		if err != nil {
			return nil, nil, fmt.Errorf("passage %d: %w", i, err)
		}
		infos[i] = EmbedInfo{Tokens: ws[0].total, Windows: len(ws)}
		all = append(all, ws...)
		bounds[i+1] = len(all)
	}
	vecs, err := e.embedWindows(ctx, all)
	if err != nil {
		return nil, nil, err
	}
	out := make([][]float32, len(ps))
	for i := range ps {
		out[i] = e.combine(all[bounds[i]:bounds[i+1]], vecs[bounds[i]:bounds[i+1]])
	}
	return out, infos, nil
}

// Close frees the model. It waits for a decode in progress; calls after the
// first, and calls on nil, do nothing.
func (e *Embedder) Close() error {
	if e != nil {
		e.free()
	}
	return nil
}

// ErrClosed is returned for calls on a closed Embedder or Generator: a
// model switched while a call was using it.
var ErrClosed = errors.New("model is closed")

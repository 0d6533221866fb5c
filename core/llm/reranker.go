package llm

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/ollama/ollama/llama"
)

// RerankerOptions tunes LoadReranker. Zero values pick the defaults noted.
type RerankerOptions struct {
	// Threads is the number of CPU threads per decode; 0 means
	// DefaultThreads().
	Threads int
	// Window caps the tokens of one (question, passage) pair; the passage
	// is cut to fit. 0 means the model's context, capped at
	// DefaultRerankWindow.
	Window int
	// FlashAttention selects the attention kernel.
	FlashAttention FlashAttention
	// Device is where the model runs: DeviceAuto ("" too), DeviceCPU or a
	// GPU's name (SelectDevice).
	Device string
}

// DefaultRerankWindow caps a pair: cross-encoders are trained on pairs of
// at most 512 tokens (bge-reranker-v2-m3 reads up to 8192, at a cost that
// grows with the square), and Cairn's chunks are far shorter.
const DefaultRerankWindow = 512

// RerankTemplateKey is the GGUF key of a reranker's prompt, as llama.cpp's
// llama_model_chat_template(model, "rerank") reads it: {query} and
// {document} are replaced, and the result is tokenized with its special
// tokens (Qwen3-Reranker's converter writes one).
const RerankTemplateKey = "tokenizer.chat_template.rerank"

// Qwen3RerankTemplate is Qwen3-Reranker's yes/no prompt, used when a qwen3
// reranker's file carries no RerankTemplateKey: the model scores P(yes)
// after "<think>\n\n</think>\n\n".
const Qwen3RerankTemplate = "<|im_start|>system\nJudge whether the Document meets the requirements based on the Query and the Instruct provided. Note that the answer can only be \"yes\" or \"no\".<|im_end|>\n" +
	"<|im_start|>user\n<Instruct>: Given a web search query, retrieve relevant passages that answer the query\n<Query>: {query}\n<Document>: {document}<|im_end|>\n" +
	"<|im_start|>assistant\n<think>\n\n</think>\n\n"

// Reranker scores (question, passage) pairs with a GGUF cross-encoder run
// through llama.cpp's rank pooling (LLAMA_POOLING_TYPE_RANK): the model
// reads both texts at once and its classification head gives one number,
// higher for a passage that answers the question. The numbers only order
// passages for one question; they are not on a scale shared across
// questions. It is safe for concurrent use; decodes are serialized.
type Reranker struct {
	path   string
	md     *Metadata
	window int
	// A pair is head + question + sep + passage + tail (the tokenizer's
	// own pair encoding), unless template is set.
	head, sep, tail []int
	// template, when set, is the model's rerank prompt; pre and post are
	// its tokens around {document} once the question is in.
	template string

	batchTokens, maxSeqs int
	device               Device

	decoder // its mu also guards perPair
	// perPair is the measured cost of one pair on this machine: a first
	// measurement at load, then a moving average over every Score call.
	perPair time.Duration
}

// LoadReranker loads the GGUF cross-encoder at path and measures what one
// pair costs on this machine (PerPair).
func LoadReranker(path string, opt RerankerOptions) (*Reranker, error) {
	md, err := ReadMetadata(path)
	if err != nil {
		return nil, err
	}
	if md.Pooling != PoolingRank {
		return nil, fmt.Errorf("%s: not a reranker: its pooling is %s, a reranker's is rank (a cross-encoder such as bge-reranker-v2-m3 converted to GGUF)", path, md.Pooling)
	}
	r := &Reranker{path: path, md: md, template: md.String(RerankTemplateKey)}
	if r.template == "" && md.Architecture == "qwen3" {
		r.template = Qwen3RerankTemplate
	}
	r.window = md.ContextLength
	if r.window <= 0 {
		r.window = 512
	}
	limit := opt.Window
	if limit <= 0 {
		limit = DefaultRerankWindow
	}
	r.window = min(r.window, limit)
	r.maxSeqs = 8
	if md.Causal {
		r.maxSeqs = 4 // a KV cache per sequence
	}
	r.batchTokens = max(DefaultEmbedBatchTokens, r.window)
	r.batchTokens = (r.batchTokens + r.maxSeqs - 1) / r.maxSeqs * r.maxSeqs
	threads := opt.Threads
	if threads <= 0 {
		threads = DefaultThreads()
	}

	dev, mp, err := modelParams(opt.Device)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	r.device = dev
	r.model, err = llama.LoadModelFromFile(path, mp)
	if err != nil {
		return nil, fmt.Errorf("%s: llama.cpp could not load the reranker: %s", path, orUnknown(takeLlamaErrors()))
	}
	if err := r.findSpecials(); err != nil {
		llama.FreeModel(r.model)
		return nil, err
	}
	perSeq := (r.window + 255) / 256 * 256
	params := llama.NewContextParams(perSeq*r.maxSeqs, r.batchTokens, r.maxSeqs, threads, opt.FlashAttention.ml(), "")
	r.lc, err = llama.NewContextWithModel(r.model, params)
	if err != nil {
		llama.FreeModel(r.model)
		return nil, fmt.Errorf("%s: creating llama context (window %d, %d sequences): %w: %s",
			path, r.window, r.maxSeqs, err, orUnknown(takeLlamaErrors()))
	}
	if r.batch, err = llama.NewBatch(r.batchTokens, 1, 0); err != nil {
		r.Close()
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if err := r.calibrate(); err != nil {
		r.Close()
		return nil, err
	}
	return r, nil
}

// findSpecials learns the tokenizer's own pair encoding: the tokens it
// wraps one text in ([CLS] … [SEP] for BERT, <s> … </s> for XLM-RoBERTa),
// and between the two texts of a pair one closing token for WordPiece
// (BERT: "[CLS] q [SEP] d [SEP]") or two for the BPE and SentencePiece
// families (RoBERTa, bge-reranker-v2-m3: "<s> q </s></s> d </s>"), as
// Hugging Face tokenizers encode the pairs these models were trained on.
func (r *Reranker) findSpecials() error {
	var err error
	if r.head, r.tail, err = wrapTokens(r.model, r.path); err != nil {
		return fmt.Errorf("%w; cannot build pairs", err)
	}
	r.sep = slices.Clone(r.tail)
	if r.md.TokenizerModel != "bert" {
		r.sep = slices.Concat(r.tail, r.tail)
	}
	return nil
}

// calibrate scores a pair of a typical length (a question of a dozen
// words, a passage of about 300 tokens: Cairn's 1200-character chunks) so
// that PerPair has a measurement before the first question; one pair only,
// since a large reranker on a small machine takes seconds for it. A short
// pair first lets llama.cpp allocate its buffers outside the measurement.
func (r *Reranker) calibrate() error {
	ctx := context.Background()
	q := strings.Repeat("how does the system work ", 3)
	d := strings.Repeat("the manual describes each part of the system and how it works in practice ", 20)
	if _, err := r.Score(ctx, q, []string{q}); err != nil {
		return fmt.Errorf("%s: first scoring: %w", r.path, err)
	}
	r.mu.Lock()
	r.perPair = 0
	r.mu.Unlock()
	if _, err := r.Score(ctx, q, []string{d}); err != nil {
		return fmt.Errorf("%s: first scoring: %w", r.path, err)
	}
	return nil
}

// Name is the model's general.name, else its file name.
func (r *Reranker) Name() string {
	if r.md.Name != "" {
		return r.md.Name
	}
	return strings.TrimSuffix(filepath.Base(r.path), filepath.Ext(r.path))
}

// Path is the model's file.
func (r *Reranker) Path() string { return r.path }

// Window is the most tokens one pair may hold.
func (r *Reranker) Window() int { return r.window }

// Device is where the model runs.
func (r *Reranker) Device() Device { return r.device }

// PerPair is the measured cost of scoring one pair on this machine.
func (r *Reranker) PerPair() time.Duration {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.perPair
}

// Pair returns the tokens of the pair (query, doc) as the model reads it,
// the document cut to fit the window.
func (r *Reranker) Pair(query, doc string) ([]int, error) {
	r.life.RLock()
	defer r.life.RUnlock()
	if r.closed {
		return nil, fmt.Errorf("%s: %w", r.path, ErrClosed)
	}
	return r.pair(query, doc)
}

func (r *Reranker) pair(query, doc string) ([]int, error) {
	var pre, post []int
	var err error
	q, err := r.model.Tokenize(query, false, false)
	if err != nil {
		return nil, fmt.Errorf("%s: tokenizing: %w", r.path, err)
	}
	d, err := r.model.Tokenize(doc, false, false)
	if err != nil {
		return nil, fmt.Errorf("%s: tokenizing: %w", r.path, err)
	}
	if r.template != "" {
		// The prompt's own words around the document, tokenized with
		// their special tokens; the question keeps the place it has.
		before, after, _ := strings.Cut(r.template, "{document}")
		qt := q[:min(len(q), r.window/4)]
		if len(qt) < len(q) {
			query = r.detokenize(qt)
		}
		if pre, err = r.model.Tokenize(strings.ReplaceAll(before, "{query}", query), false, true); err != nil {
			return nil, fmt.Errorf("%s: tokenizing the rerank prompt: %w", r.path, err)
		}
		if post, err = r.model.Tokenize(strings.ReplaceAll(after, "{query}", query), false, true); err != nil {
			return nil, fmt.Errorf("%s: tokenizing the rerank prompt: %w", r.path, err)
		}
	} else {
		// A long question keeps its first quarter of the window; the
		// passage gets the rest.
		pre = slices.Concat(r.head, q[:min(len(q), r.window/4)], r.sep)
		post = r.tail
	}
	room := r.window - len(pre) - len(post)
	if room < minWindowText {
		return nil, fmt.Errorf("%s: the rerank prompt takes %d of the model's %d-token window", r.path, len(pre)+len(post), r.window)
	}
	return slices.Concat(pre, d[:min(len(d), room)], post), nil
}

func (r *Reranker) detokenize(toks []int) string {
	var b strings.Builder
	for _, t := range toks {
		b.WriteString(r.model.TokenToPiece(t))
	}
	return b.String()
}

// Score returns the model's score of each of docs for query, in docs'
// order: the same pair always gets the same score. It checks ctx between
// decodes, and updates PerPair with what the call took.
func (r *Reranker) Score(ctx context.Context, query string, docs []string) ([]float64, error) {
	if len(docs) == 0 {
		return nil, nil
	}
	start := time.Now()
	pairs := make([][]int, len(docs))
	for i, d := range docs {
		p, err := r.Pair(query, d)
		if err != nil {
			return nil, fmt.Errorf("passage %d: %w", i, err)
		}
		pairs[i] = p
	}
	out := make([]float64, len(docs))
	for i := 0; i < len(pairs); {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		j, total := i, 0
		for j < len(pairs) && j-i < r.maxSeqs && total+len(pairs[j]) <= r.batchTokens {
			total += len(pairs[j])
			j++
		}
		if err := r.decode(pairs[i:j], out[i:j]); err != nil {
			return nil, err
		}
		i = j
	}
	r.measure(time.Since(start), len(docs))
	return out, nil
}

// measure folds a call's cost per pair into perPair: the calibration's
// measurement first, then each call weighs a quarter, so that a busy
// moment moves N without swinging it.
func (r *Reranker) measure(took time.Duration, pairs int) {
	each := took / time.Duration(pairs)
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.perPair == 0 {
		r.perPair = each
		return
	}
	r.perPair = (3*r.perPair + each) / 4
}

// decode runs one llama_decode over pairs (one sequence each) and stores
// the first output of each sequence's classification head in out.
func (r *Reranker) decode(pairs [][]int, out []float64) error {
	unlock, err := r.lockDecode(r.path)
	if err != nil {
		return err
	}
	defer unlock()
	r.lc.KvCacheClear()
	r.batch.Clear()
	for seq, p := range pairs {
		for pos, t := range p {
			r.batch.Add(t, nil, pos, true, seq)
		}
	}
	if err := r.lc.Decode(r.batch); err != nil {
		if errors.Is(err, llama.ErrKvCacheFull) {
			return fmt.Errorf("%s: no room in the KV cache for %d pairs: %w", r.path, len(pairs), err)
		}
		return fmt.Errorf("%s: scoring %d pairs: %w: %s", r.path, len(pairs), err, orUnknown(takeLlamaErrors()))
	}
	for seq := range pairs {
		s, ok := rankScore(r.lc, seq)
		if !ok {
			return fmt.Errorf("%s: llama.cpp returned no rank score for pair %d", r.path, seq)
		}
		out[seq] = float64(s)
	}
	return nil
}

// Close frees the model. It waits for a decode in progress; calls after the
// first, and calls on nil, do nothing.
func (r *Reranker) Close() error {
	if r != nil {
		r.free()
	}
	return nil
}

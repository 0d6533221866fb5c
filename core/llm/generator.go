package llm

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/ollama/ollama/llama"
	"github.com/ollama/ollama/ml"
)

// ErrPromptTooLong is returned (wrapped) when a prompt does not fit the
// generator's context; budget sources with TokenCount and ContextSize.
var ErrPromptTooLong = errors.New("prompt does not fit the context window")

// GeneratorOptions tunes LoadGenerator. Zero values pick the defaults noted.
type GeneratorOptions struct {
	// ContextSize is the KV cache size in tokens, prompt and answer
	// together; 0 means the model's context length capped at
	// DefaultGeneratorContext.
	ContextSize int
	// Threads is the number of CPU threads; 0 means DefaultThreads().
	Threads int
	// BatchSize is how many prompt tokens one decode processes; 0 means 512.
	BatchSize int
	// Device is where the model runs: DeviceAuto ("" too), DeviceCPU or a
	// GPU's name (SelectDevice).
	Device string
}

// DefaultGeneratorContext bounds the default KV cache: enough for a
// question, a dozen sources and an answer, small enough for a laptop (a 0.5B
// model's 4096-token F16 cache is about 50 MB; an 8B model's about 512 MB).
const DefaultGeneratorContext = 4096

// GenerateRequest is one chat completion.
type GenerateRequest struct {
	Messages []Message
	// MaxTokens caps the answer; 0 means until the model ends its turn
	// or the context is full.
	MaxTokens int
	// Temperature 0 picks the most likely token every time (greedy, fully
	// deterministic); higher values sample.
	Temperature float32
	// TopP keeps the smallest set of tokens whose probabilities reach it;
	// 0 means 1 (off).
	TopP float32
	// TopK keeps the K most likely tokens; 0 means 40.
	TopK int
	// Seed makes sampling reproducible: the same request and seed give the
	// same answer.
	Seed uint32
	// Stop ends generation when any of these strings appears; the stop
	// string itself is not returned.
	Stop []string
}

// StopReason says why generation ended.
type StopReason string

// Stop reasons.
const (
	StopEndOfTurn StopReason = "end"       // the model ended its turn
	StopSequence  StopReason = "stop"      // a stop string appeared
	StopMaxTokens StopReason = "length"    // MaxTokens reached
	StopContext   StopReason = "context"   // the context window is full
	StopCancelled StopReason = "cancelled" // the request's context ended
	StopError     StopReason = "error"
)

// Stats describes one generation.
type Stats struct {
	PromptTokens int
	// CachedTokens are the prompt's first tokens that an earlier request
	// left in the cache, so they were not processed again.
	CachedTokens    int
	GeneratedTokens int
	// Queued is the time spent waiting for another request to finish.
	Queued time.Duration
	// TimeToFirstToken runs from the Generate call to the first sampled
	// token, queueing and prompt processing included.
	TimeToFirstToken time.Duration
	// PromptDuration is the prompt processing time; GenerationDuration the
	// time from the first sampled token to the last.
	PromptDuration     time.Duration
	GenerationDuration time.Duration
	// PromptTokensPerSecond and GenerationTokensPerSecond are the rates of
	// the two phases (0 when a phase had nothing to measure).
	PromptTokensPerSecond     float64
	GenerationTokensPerSecond float64
	StopReason                StopReason
}

// Token is one message on the stream Generate returns: a piece of answer
// text, or, last, Done with the generation's Stats (and Err if it failed or
// was cancelled). The channel closes after the Done token.
type Token struct {
	Text  string
	Err   error
	Done  bool
	Stats *Stats
}

// Generator writes chat answers with a GGUF instruct model. One generation
// runs at a time (they share one KV cache); further requests wait their
// turn, and may be cancelled while waiting.
type Generator struct {
	path      string
	md        *Metadata
	model     *llama.Model
	nCtx      int
	batchSize int
	device    Device

	// sem is held by the goroutine that owns lc and batch; acquiring it
	// can be abandoned when a request is cancelled, which a mutex cannot.
	sem   chan struct{}
	lc    *llama.Context
	batch *llama.Batch
	// cached are the tokens whose keys and values lc holds, from position
	// 0: the next prompt that starts with them (the same rules and
	// sources) skips their decoding. Guarded by sem.
	cached []int

	// life guards the model against Close while tokenizing; Close takes it
	// for writing after sem, so it never frees under a generation.
	life   sync.RWMutex
	closed bool
}

// LoadGenerator loads the GGUF instruct model at path.
func LoadGenerator(path string, opt GeneratorOptions) (*Generator, error) {
	md, err := ReadMetadata(path)
	if err != nil {
		return nil, err
	}
	if md.Pooling != PoolingNone || !md.Causal {
		return nil, fmt.Errorf("%s: model is an embedding model (%s pooling), not a text generator", path, md.Pooling)
	}
	g := &Generator{path: path, md: md, sem: make(chan struct{}, 1)}
	g.nCtx = opt.ContextSize
	if g.nCtx <= 0 {
		g.nCtx = DefaultGeneratorContext
		if md.ContextLength > 0 {
			g.nCtx = min(g.nCtx, md.ContextLength)
		}
	}
	g.batchSize = opt.BatchSize
	if g.batchSize <= 0 {
		g.batchSize = 512
	}
	g.batchSize = min(g.batchSize, g.nCtx)
	threads := opt.Threads
	if threads <= 0 {
		threads = DefaultThreads()
	}

	dev, mp, err := modelParams(opt.Device)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	g.device = dev
	g.model, err = llama.LoadModelFromFile(path, mp)
	if err != nil {
		return nil, fmt.Errorf("%s: llama.cpp could not load the model: %s", path, orUnknown(takeLlamaErrors()))
	}
	g.lc, err = llama.NewContextWithModel(g.model, llama.NewContextParams(g.nCtx, g.batchSize, 1, threads, ml.FlashAttentionAuto, ""))
	if err != nil {
		llama.FreeModel(g.model)
		return nil, fmt.Errorf("%s: creating a %d-token context: %w: %s", path, g.nCtx, err, orUnknown(takeLlamaErrors()))
	}
	g.batch, err = llama.NewBatch(g.batchSize, 1, 0)
	if err != nil {
		freeContext(g.lc)
		llama.FreeModel(g.model)
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return g, nil
}

// Path is the model file.
func (g *Generator) Path() string { return g.path }

// Device is where the model runs.
func (g *Generator) Device() Device { return g.device }

// ContextSize is the number of tokens prompt and answer share.
func (g *Generator) ContextSize() int { return g.nCtx }

// Metadata is the model's GGUF metadata.
func (g *Generator) Metadata() *Metadata { return g.md }

// TokenCount is the number of tokens text takes (no special tokens added).
func (g *Generator) TokenCount(text string) int {
	toks, err := g.tokenize(text, false)
	if err != nil {
		return len(text) // tokenization only fails on absurd sizes; never undercount
	}
	return len(toks)
}

// FormatPrompt renders messages with the model's chat template (ChatML if
// it has none that llama.cpp recognises), ending with the opening of the
// assistant's turn.
func (g *Generator) FormatPrompt(msgs []Message) (string, error) {
	p, _, err := FormatChat(g.md.ChatTemplate, msgs)
	if err != nil {
		return "", fmt.Errorf("%s: %w", g.path, err)
	}
	return p, nil
}

// PromptTokens is the number of tokens msgs take once formatted, exactly
// as Generate will feed them: with ContextSize, what is left for sources
// and the answer.
func (g *Generator) PromptTokens(msgs []Message) (int, error) {
	prompt, err := g.FormatPrompt(msgs)
	if err != nil {
		return 0, err
	}
	toks, err := g.tokenize(prompt, true)
	return len(toks), err
}

// streamBuffer is how many tokens a stream holds unread. After a cancel no
// new token is sent, but up to this many sent before it may still arrive.
const streamBuffer = 8

// Generate starts a chat completion and streams its tokens. Errors in the
// request (no messages, a prompt too long for the context) are returned at
// once; later failures arrive on the Done token. The caller must read the
// channel until it closes or cancel ctx; cancelling stops generation within
// one token.
func (g *Generator) Generate(ctx context.Context, req GenerateRequest) (<-chan Token, error) {
	start := time.Now()
	prompt, err := g.FormatPrompt(req.Messages)
	if err != nil {
		return nil, err
	}
	tokens, err := g.tokenize(prompt, true)
	if err != nil {
		return nil, err
	}
	if len(tokens) == 0 {
		return nil, fmt.Errorf("%s: prompt is empty", g.path)
	}
	if len(tokens) >= g.nCtx {
		return nil, fmt.Errorf("%s: prompt is %d tokens and the context holds %d: %w", g.path, len(tokens), g.nCtx, ErrPromptTooLong)
	}
	// A small buffer keeps decoding while the reader is busy; requests wait
	// their turn in any order, so a reader draining one stream before
	// another's must not stall the model on an unread channel.
	out := make(chan Token, streamBuffer)
	go g.run(ctx, req, tokens, start, out)
	return out, nil
}

// run owns the llama context for one request, from waiting for its turn to
// closing out.
func (g *Generator) run(ctx context.Context, req GenerateRequest, prompt []int, start time.Time, out chan<- Token) {
	defer close(out)
	st := &Stats{PromptTokens: len(prompt)}
	finish := func(reason StopReason, err error) {
		st.StopReason = reason
		if st.PromptDuration > 0 {
			st.PromptTokensPerSecond = float64(st.PromptTokens-st.CachedTokens) / st.PromptDuration.Seconds()
		}
		if st.GeneratedTokens > 1 && st.GenerationDuration > 0 {
			// The first token comes out of the prompt pass; the rate
			// covers the decodes after it.
			st.GenerationTokensPerSecond = float64(st.GeneratedTokens-1) / st.GenerationDuration.Seconds()
		}
		final := Token{Done: true, Err: err, Stats: st}
		if reason == StopCancelled {
			select { // nobody may be reading any more
			case out <- final:
			default:
			}
			return
		}
		out <- final
	}

	select {
	case g.sem <- struct{}{}:
	case <-ctx.Done():
		finish(StopCancelled, ctx.Err())
		return
	}
	defer func() { <-g.sem }()
	st.Queued = time.Since(start)
	g.life.RLock()
	closed := g.closed
	g.life.RUnlock()
	if closed {
		finish(StopError, fmt.Errorf("%s: %w", g.path, ErrClosed))
		return
	}
	reason, err := g.generate(ctx, req, prompt, start, st, out)
	finish(reason, err)
}

// tokenize tokenizes text; special marks a whole prompt, which gets the
// model's BOS and may contain the template's control tokens.
func (g *Generator) tokenize(text string, special bool) ([]int, error) {
	g.life.RLock()
	defer g.life.RUnlock()
	if g.closed {
		return nil, fmt.Errorf("%s: %w", g.path, ErrClosed)
	}
	toks, err := g.model.Tokenize(text, special, special)
	if err != nil {
		return nil, fmt.Errorf("%s: tokenizing: %w", g.path, err)
	}
	return toks, nil
}

// generate decodes the prompt, then samples until a stop condition. It must
// be called with sem held.
func (g *Generator) generate(ctx context.Context, req GenerateRequest, prompt []int, start time.Time, st *Stats, out chan<- Token) (StopReason, error) {
	// Reuse the cache for the prompt's first tokens when they are the ones
	// it holds; at least the last prompt token is decoded again, for its
	// logits. One sequence is cached: with query rewriting on, the rewrite
	// request (another system prompt) evicts the answer rules each time.
	keep := min(commonPrefix(g.cached, prompt), len(prompt)-1)
	if keep == 0 || !g.lc.KvCacheSeqRm(0, keep, -1) {
		g.lc.KvCacheClear()
		keep = 0
	}
	g.cached = prompt[:keep:keep]
	st.CachedTokens = keep
	topP := req.TopP
	if topP <= 0 {
		topP = 1
	}
	topK := req.TopK
	if topK <= 0 {
		topK = 40
	}
	sampler, err := llama.NewSamplingContext(g.model, llama.SamplingParams{
		TopK: topK, TopP: topP, MinP: 0, TypicalP: 1, Temp: req.Temperature,
		RepeatLastN: 64, PenaltyRepeat: 1, Seed: req.Seed,
	})
	if err != nil {
		return StopError, fmt.Errorf("%s: %w", g.path, err)
	}

	tPrompt := time.Now()
	for i := keep; i < len(prompt); i += g.batchSize {
		if err := ctx.Err(); err != nil {
			return StopCancelled, err
		}
		end := min(i+g.batchSize, len(prompt))
		g.batch.Clear()
		for j := i; j < end; j++ {
			g.batch.Add(prompt[j], nil, j, j == len(prompt)-1, 0)
		}
		if err := g.lc.Decode(g.batch); err != nil {
			g.cached = nil // the cache holds part of a batch
			return StopError, fmt.Errorf("%s: processing prompt: %w: %s", g.path, err, orUnknown(takeLlamaErrors()))
		}
		g.cached = append(g.cached, prompt[i:end]...)
	}
	for _, t := range prompt {
		sampler.Accept(t, false) // so repetition penalties see the prompt
	}

	maxTokens := g.nCtx - len(prompt)
	if req.MaxTokens > 0 && req.MaxTokens < maxTokens {
		maxTokens = req.MaxTokens
	}
	filter := stopFilter{stops: req.Stop}
	send := func(text string) bool {
		if text == "" {
			return true
		}
		if ctx.Err() != nil {
			return false
		}
		select {
		case out <- Token{Text: text}:
			return true
		case <-ctx.Done():
			return false
		}
	}
	var tGen time.Time
	pos := len(prompt)
	idx := g.batch.NumTokens() - 1 // the prompt's last token holds the logits
	for {
		if err := ctx.Err(); err != nil {
			return StopCancelled, err
		}
		tok := sampler.Sample(g.lc, idx)
		sampler.Accept(tok, true)
		if st.GeneratedTokens == 0 {
			tGen = time.Now()
			st.TimeToFirstToken = tGen.Sub(start)
			st.PromptDuration = tGen.Sub(tPrompt)
		}
		st.GeneratedTokens++
		st.GenerationDuration = time.Since(tGen)
		if g.model.TokenIsEog(tok) {
			st.GeneratedTokens-- // the end-of-turn marker is not answer text
			send(filter.flush())
			return StopEndOfTurn, nil
		}
		text, stopped := filter.push(tokenText(g.model, tok))
		if !send(text) {
			return StopCancelled, ctx.Err()
		}
		if stopped {
			return StopSequence, nil
		}
		if st.GeneratedTokens >= maxTokens {
			send(filter.flush())
			if maxTokens < g.nCtx-len(prompt) {
				return StopMaxTokens, nil
			}
			return StopContext, nil
		}
		g.batch.Clear()
		g.batch.Add(tok, nil, pos, true, 0)
		pos++
		idx = 0
		if err := g.lc.Decode(g.batch); err != nil {
			g.cached = nil
			return StopError, fmt.Errorf("%s: generating: %w: %s", g.path, err, orUnknown(takeLlamaErrors()))
		}
		g.cached = append(g.cached, tok)
	}
}

// commonPrefix is the number of leading tokens a and b share.
func commonPrefix(a, b []int) int {
	n := 0
	for n < len(a) && n < len(b) && a[n] == b[n] {
		n++
	}
	return n
}

// Close frees the model once any generation in progress has finished
// (cancel it first to make that prompt). Calls after the first, and calls on
// nil, do nothing.
func (g *Generator) Close() error {
	if g == nil {
		return nil
	}
	g.sem <- struct{}{}
	defer func() { <-g.sem }()
	g.life.Lock()
	defer g.life.Unlock()
	if g.closed {
		return nil
	}
	g.closed = true
	g.batch.Free()
	freeContext(g.lc)
	llama.FreeModel(g.model)
	return nil
}

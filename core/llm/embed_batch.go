package llm

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/ollama/ollama/llama"
)

// window is one sequence for llama_decode: an input, or a part of an input
// too long for the model's context.
type window struct {
	tokens []int
	// weight is the number of the input's own tokens this window holds, so
	// averaging windows weighs each part of the text equally.
	weight int
	// total is the formatted input's whole token count (same in every
	// window of an input).
	total int
}

// minWindowText is the fewest text tokens a window may carry after the
// prefix and special tokens; below that, splitting would be meaningless.
const minWindowText = 8

// windows tokenizes prefix+text and splits it to fit the model's window.
// An input that fits is tokenized as one string, exactly as the family's
// convention writes it; a longer one repeats the prefix (instruction,
// title) and special tokens in every window so each is a valid input.
func (e *Embedder) windows(prefix, text string) ([]window, error) {
	whole, err := e.tokenize(prefix+text, true)
	if err != nil {
		return nil, err
	}
	if len(whole) == 0 {
		return nil, fmt.Errorf("%s: input is empty", e.path)
	}
	if len(whole) <= e.window {
		return []window{{tokens: whole, weight: len(whole), total: len(whole)}}, nil
	}
	var pre []int
	if prefix != "" {
		if pre, err = e.tokenize(prefix, false); err != nil {
			return nil, err
		}
	}
	body, err := e.tokenize(text, false)
	if err != nil {
		return nil, err
	}
	room := e.window - len(e.head) - len(e.tail) - len(pre)
	if room < minWindowText {
		return nil, fmt.Errorf("%s: the prefix and title take %d of the model's %d-token window; shorten the title",
			e.path, len(pre), e.window)
	}
	// Equal-sized windows, so the last is not a stub that would weigh as
	// much in meaning as a full one while saying little.
	n := (len(body) + room - 1) / room
	size := (len(body) + n - 1) / n
	ws := make([]window, 0, n)
	for start := 0; start < len(body); start += size {
		part := body[start:min(start+size, len(body))]
		toks := slices.Concat(e.head, pre, part, e.tail)
		ws = append(ws, window{tokens: toks, weight: len(part), total: len(whole)})
	}
	return ws, nil
}

// embedWindows embeds every window, packing as many as fit into each
// decode. It checks ctx between decodes and holds the context lock only for
// one decode at a time, so concurrent callers interleave.
func (e *Embedder) embedWindows(ctx context.Context, ws []window) ([][]float32, error) {
	out := make([][]float32, len(ws))
	for i := 0; i < len(ws); {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		j, total := i, 0
		for j < len(ws) && j-i < e.maxSeqs && total+len(ws[j].tokens) <= e.batchTokens {
			total += len(ws[j].tokens)
			j++
		}
		if err := e.decode(ws[i:j], out[i:j]); err != nil {
			return nil, err
		}
		i = j
	}
	return out, nil
}

// decode runs one llama_decode over ws (one sequence each) and stores the
// pooled vector of each in out.
func (e *Embedder) decode(ws []window, out [][]float32) error {
	unlock, err := e.lockDecode(e.path)
	if err != nil {
		return err
	}
	defer unlock()
	// Every batch starts its sequences at position 0. Encoders have no
	// KV cache and this does nothing; clearing unconditionally keeps a
	// model whose causality we misjudged from filling its cache.
	e.lc.KvCacheClear()
	e.batch.Clear()
	for seq, w := range ws {
		for pos, t := range w.tokens {
			// Every token is an output: mean pooling reads them all.
			e.batch.Add(t, nil, pos, true, seq)
		}
	}
	if err := e.lc.Decode(e.batch); err != nil {
		if errors.Is(err, llama.ErrKvCacheFull) {
			return fmt.Errorf("%s: no room in the KV cache for %d sequences: %w", e.path, len(ws), err)
		}
		return fmt.Errorf("%s: embedding %d sequences: %w: %s", e.path, len(ws), err, orUnknown(takeLlamaErrors()))
	}
	for seq := range ws {
		v := e.lc.GetEmbeddingsSeq(seq)
		if v == nil {
			return fmt.Errorf("%s: llama.cpp returned no pooled embedding for sequence %d", e.path, seq)
		}
		out[seq] = v
	}
	return nil
}

// combine truncates each window's vector to Dim and normalises it, then
// averages an input's windows weighted by their share of the text and
// normalises again.
func (e *Embedder) combine(ws []window, vecs [][]float32) []float32 {
	if len(vecs) == 1 {
		return Normalize(vecs[0][:e.dim:e.dim])
	}
	sum := make([]float32, e.dim)
	for i, v := range vecs {
		v = Normalize(v[:e.dim])
		w := float32(ws[i].weight)
		for k, x := range v {
			sum[k] += w * x
		}
	}
	return Normalize(sum)
}

package llm

import (
	"context"
	"fmt"
)

// The embedding benchmark (bench/llmbench) compares EmbedPassages with the
// bare llama.cpp loop below, on the same windows. Both need the Embedder's
// insides, so they live here; the benchmark itself, and the random-weight
// models it writes, do not.

// Windows are passages tokenized and cut into windows exactly as
// EmbedPassages cuts them, for RawDecode.
type Windows struct{ ws []window }

// Windows prepares ps as EmbedPassages would (each passage's prefix, its
// title, its windows).
func (e *Embedder) Windows(ps []Passage) (Windows, error) {
	var out Windows
	for _, p := range ps {
		pw, err := e.windows(e.conv.PassagePrefix(p.Title), p.Text)
		if err != nil {
			return Windows{}, err
		}
		out.ws = append(out.ws, pw...)
	}
	return out, nil
}

// BatchShape reports the batch's size in tokens, its most sequences, and
// the window's length in tokens.
func (e *Embedder) BatchShape() (batchTokens, maxSeqs, window int) {
	return e.batchTokens, e.maxSeqs, e.window
}

// RawDecode is the bare llama.cpp loop the embedding benchmark compares
// against: the same packing into batches, llama_decode, and one
// llama_get_embeddings_seq per sequence, without tokenizing, averaging or
// normalising.
func (e *Embedder) RawDecode(ctx context.Context, w Windows) error {
	ws := w.ws
	e.mu.Lock()
	defer e.mu.Unlock()
	for i := 0; i < len(ws); {
		if err := ctx.Err(); err != nil {
			return err
		}
		e.lc.KvCacheClear()
		e.batch.Clear()
		j, total := i, 0
		for j < len(ws) && j-i < e.maxSeqs && total+len(ws[j].tokens) <= e.batchTokens {
			for pos, t := range ws[j].tokens {
				e.batch.Add(t, nil, pos, true, j-i)
			}
			total += len(ws[j].tokens)
			j++
		}
		if err := e.lc.Decode(e.batch); err != nil {
			return err
		}
		for s := range j - i {
			if e.lc.GetEmbeddingsSeq(s) == nil {
				return fmt.Errorf("no embedding for sequence %d", s)
			}
		}
		i = j
	}
	return nil
}

package llm

import (
	"fmt"
	"slices"
	"sync"

	"github.com/ollama/ollama/llama"
)

// decoder is what the Embedder and the Reranker share: a model with one
// context and batch for its decodes, and the locks that keep Close from
// freeing them under a decode or a tokenization.
type decoder struct {
	model *llama.Model

	mu    sync.Mutex // serializes decodes: guards lc and batch
	lc    *llama.Context
	batch *llama.Batch

	// life guards the model against Close while tokenizing or decoding.
	life   sync.RWMutex
	closed bool
}

// lockDecode takes the decode lock for a model still open; the error names
// path when it was closed (a model switched meanwhile).
func (d *decoder) lockDecode(path string) (unlock func(), err error) {
	d.mu.Lock()
	d.life.RLock()
	if d.closed {
		d.life.RUnlock()
		d.mu.Unlock()
		return nil, fmt.Errorf("%s: %w", path, ErrClosed)
	}
	return func() {
		d.life.RUnlock()
		d.mu.Unlock()
	}, nil
}

// free frees the model, waiting for a decode in progress; calls after the
// first do nothing.
func (d *decoder) free() {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.life.Lock()
	defer d.life.Unlock()
	if d.closed {
		return
	}
	d.closed = true
	if d.batch != nil {
		d.batch.Free()
	}
	if d.lc != nil {
		freeContext(d.lc)
	}
	llama.FreeModel(d.model)
}

// wrapTokens learns which tokens the tokenizer of model adds around a text
// ([CLS] … [SEP] for BERT, <s> … </s> for XLM-RoBERTa) by comparing a
// tokenization with and without them.
func wrapTokens(model *llama.Model, path string) (head, tail []int, err error) {
	const probe = "the"
	with, err := model.Tokenize(probe, true, false)
	if err != nil {
		return nil, nil, fmt.Errorf("%s: tokenizer: %w", path, err)
	}
	bare, err := model.Tokenize(probe, false, false)
	if err != nil {
		return nil, nil, fmt.Errorf("%s: tokenizer: %w", path, err)
	}
	for i := 0; i+len(bare) <= len(with); i++ {
		if slices.Equal(with[i:i+len(bare)], bare) {
			return slices.Clone(with[:i]), slices.Clone(with[i+len(bare):]), nil
		}
	}
	return nil, nil, fmt.Errorf("%s: tokenizer adds tokens inside the text", path)
}

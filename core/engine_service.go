package core

import (
	"context"
	"fmt"
	"path/filepath"

	"cairn/core/domain"
	"cairn/core/llm"
)

// The engine's part of what the local service offers beyond searching and
// answering: embeddings with the loaded model (an OpenAI-compatible
// client's /v1/embeddings), token counts in the models' own tokens, and
// the list of indexed documents (MCP's resources/list).

// Embed embeds texts with the embedding model the settings name, loading
// it on first use, as passages (what clients embed to search later are
// mostly documents; a model that tells queries from passages gets the
// passage prefix). domain.ErrNoEmbedder when there is none.
func (e *Engine) Embed(ctx context.Context, texts []string) (domain.Embeddings, error) {
	emb, err := e.embedder(ctx)
	if err != nil {
		return domain.Embeddings{}, err
	}
	if emb == nil {
		return domain.Embeddings{}, domain.ErrNoEmbedder
	}
	ps := make([]llm.Passage, len(texts))
	for i, t := range texts {
		ps[i] = llm.Passage{Text: t}
	}
	vecs, infos, err := emb.EmbedPassages(ctx, ps)
	if err != nil {
		return domain.Embeddings{}, fmt.Errorf("embedding %d texts: %w", len(texts), err)
	}
	out := domain.Embeddings{Model: modelName(emb.Metadata(), emb.ModelID()), Vectors: vecs}
	for _, in := range infos {
		out.Tokens += in.Tokens
	}
	return out, nil
}

// EmbeddingModel names the embedding model the settings select, loading
// it; "" when there is none.
func (e *Engine) EmbeddingModel(ctx context.Context) (string, error) {
	emb, err := e.embedder(ctx)
	if err != nil || emb == nil {
		return "", err
	}
	return modelName(emb.Metadata(), emb.ModelID()), nil
}

// modelName is a model's name for a client: its GGUF name, else its id.
func modelName(md *llm.Metadata, id string) string {
	if md != nil && md.Name != "" {
		return md.Name
	}
	return id
}

// TokenCount counts text in the tokens of the chat model that answers
// (the local one; by is its name), else of the embedding model; with
// neither, or online, it estimates four bytes a token (by "estimate"). An
// extractive answer is counted as the model that would have written it
// counts it.
func (e *Engine) TokenCount(ctx context.Context, text string) (n int, by string) {
	if online, _ := e.Remote(); online == nil {
		if gen, err := e.generator(ctx); err == nil && gen != nil {
			return gen.TokenCount(text), filepath.Base(gen.Path())
		}
		if emb, err := e.embedder(ctx); err == nil && emb != nil {
			if toks, err := emb.Tokenize(text); err == nil {
				return len(toks), modelName(emb.Metadata(), emb.ModelID())
			}
		}
	}
	return (len(text) + 3) / 4, "estimate"
}

// Documents lists at most limit indexed documents after the path after
// ("" for the first), in path order. With a team cluster the list is
// empty: its documents are read by path (DocumentChunks).
func (e *Engine) Documents(ctx context.Context, after string, limit int) ([]domain.Document, error) {
	if e.team != nil {
		return nil, nil
	}
	return e.db.DocumentsAfter(ctx, after, limit)
}

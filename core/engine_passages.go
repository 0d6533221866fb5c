package core

import (
	"context"
	"fmt"

	"cairn/core/config"
	"cairn/core/domain"
	"cairn/core/kb"
	"cairn/core/search"
)

// SearchRequestWith returns a request for query with the retrieval knobs r
// (a caller's own, checked with config.Validate), as SearchRequest does
// with the configured ones.
func (e *Engine) SearchRequestWith(query string, r config.Retrieval) search.Request {
	return search.NewRequest(query, r)
}

// Passage returns the chunk a citation or a search result points to, by
// its chunk id: its text and where it is in its file.
func (e *Engine) Passage(ctx context.Context, id int64) (domain.ChunkInfo, error) {
	ps, err := e.passages(ctx)
	var m map[int64]domain.ChunkInfo
	if err == nil {
		m, err = ps.Chunks(ctx, []int64{id}) // over a cluster, ids this process gave out
	}
	if err != nil {
		return domain.ChunkInfo{}, fmt.Errorf("passage %d: %w", id, err)
	}
	ci, ok := m[id]
	if !ok {
		return domain.ChunkInfo{}, fmt.Errorf("no passage %d in the knowledge base: ids come from search results and citations (chunk_id), "+
			"and re-indexing gives a changed file new ones: %w", id, kb.ErrNotFound)
	}
	return ci, nil
}

// DocumentChunks returns the passages of the indexed file at path in
// reading order: the document as Cairn holds it. Only files in the
// knowledge base can be read this way, never any other file.
func (e *Engine) DocumentChunks(ctx context.Context, path string) ([]domain.ChunkInfo, error) {
	ps, err := e.passages(ctx)
	var cs []domain.ChunkInfo
	if err == nil {
		cs, err = ps.DocumentChunks(ctx, path)
	}
	if err != nil {
		return nil, fmt.Errorf("document %s: %w", path, err)
	}
	if len(cs) == 0 {
		return nil, fmt.Errorf("no indexed document at %s: give the path exactly as search results show it: %w", path, kb.ErrNotFound)
	}
	return cs, nil
}

// neighbourReader reads a passage's neighbours in one query: *store.DB.
type neighbourReader interface {
	ChunkNeighbours(ctx context.Context, id int64) (domain.Neighbours, bool, error)
}

// ChunkNeighbours returns passage id with the passages before and after it
// in its document (Prev, Next: nil where there is none). An answer whose
// best sentence sits at the edge of its passage reads the sentence beyond
// it there: Neighbours.Before and After give the text each adds, as
// neighbouring passages overlap.
func (e *Engine) ChunkNeighbours(ctx context.Context, id int64) (domain.Neighbours, error) {
	var n domain.Neighbours
	ps, err := e.passages(ctx)
	if err != nil {
		return n, fmt.Errorf("passage %d: %w", id, err)
	}
	ok := false
	if nr, is := ps.(neighbourReader); is {
		n, ok, err = nr.ChunkNeighbours(ctx, id)
	} else {
		n, ok, err = neighboursRead(ctx, ps, id) // a team cluster
	}
	if err != nil {
		return n, fmt.Errorf("neighbours of passage %d: %w", id, err)
	}
	if !ok {
		return n, fmt.Errorf("no passage %d in the knowledge base: %w", id, kb.ErrNotFound)
	}
	return n, nil
}

// neighboursRead finds passage id's neighbours in its document, read
// whole.
func neighboursRead(ctx context.Context, ps passageReader, id int64) (n domain.Neighbours, ok bool, err error) {
	m, err := ps.Chunks(ctx, []int64{id})
	if err != nil {
		return n, false, err
	}
	ci, found := m[id]
	if !found {
		return n, false, nil
	}
	cs, err := ps.DocumentChunks(ctx, ci.Path)
	if err != nil {
		return n, false, err
	}
	n.Passage = ci
	for i := range cs {
		if cs[i].ID != id {
			continue
		}
		if i > 0 {
			n.Prev = &cs[i-1]
		}
		if i+1 < len(cs) {
			n.Next = &cs[i+1]
		}
	}
	return n, true, nil
}

package ingest

import (
	"cairn/core/domain"
	"context"
	"errors"
	"fmt"
	"strings"
)

// Embedder computes passage embeddings for the vector index.
type Embedder interface {
	// ModelID identifies the weights and output dimension; vectors of
	// different ids are never mixed in one knowledge base.
	ModelID() string
	Dim() int
	EmbedPassages(ctx context.Context, ps []Passage) ([][]float32, error)
}

// Passage is what the embedder sees of a chunk: the document title and the
// chunk text with its heading trail in front, so a chunk that says "Press
// and hold for ten seconds" is embedded together with "Resetting the device".
type Passage struct {
	Title string
	Text  string
}

// PassageOf builds the embedder's view of a chunk.
func PassageOf(title, heading, text string) Passage {
	if heading != "" && !strings.HasPrefix(text, heading) {
		text = heading + "\n\n" + text
	}
	return Passage{Title: title, Text: text}
}

// embedStage embeds the chunks of indexed results, batching chunks of
// several small files into one call, and forwards every result. A failed
// embedding does not lose the file: it is stored without vectors and the
// catch-up pass after the run embeds it again.
func (ix *Indexer) embedStage(ctx context.Context, in <-chan result, out chan<- result) error {
	var batch []result
	pending := 0           // chunks in batch
	var pendingBytes int64 // their estimated embedding cost
	flush := func() error {
		if len(batch) == 0 {
			return nil
		}
		var ps []Passage
		for _, r := range batch {
			if r.status == domain.StatusIndexed {
				ps = append(ps, passagesOf(r)...)
			}
		}
		var vecs [][]float32
		var err error
		if len(ps) > 0 {
			vecs, err = ix.embed(ctx, ps)
			if err != nil && ctx.Err() != nil {
				return ctx.Err()
			}
		}
		for _, r := range batch {
			if r.status == domain.StatusIndexed {
				if err != nil {
					r.doc.Warnings = append(r.doc.Warnings, "embedding failed, keyword search only until the next run: "+err.Error())
				} else {
					r.vectors, vecs = vecs[:len(r.chunks)], vecs[len(r.chunks):]
				}
			}
			select {
			case out <- r:
			case <-ctx.Done():
				return ctx.Err()
			}
		}
		batch, pending, pendingBytes = batch[:0], 0, 0
		return nil
	}
	add := func(r result) {
		batch = append(batch, r)
		if r.status == domain.StatusIndexed {
			pending += len(r.chunks)
			for _, c := range r.chunks {
				pendingBytes += passageCost(len(c.Text)+len(c.Heading)+len(r.doc.Title), ix.opt.Embedder.Dim())
			}
		}
	}
	for {
		r, ok := <-in
		if !ok {
			return flush()
		}
		add(r)
		// Keep collecting while more files are ready and the batch is small.
	fill:
		for pending < ix.opt.EmbedBatch && pendingBytes < ix.opt.EmbedBudget {
			select {
			case r, ok := <-in:
				if !ok {
					return flush()
				}
				add(r)
			default:
				break fill
			}
		}
		if err := flush(); err != nil {
			return err
		}
	}
}

func passagesOf(r result) []Passage {
	title := strings.TrimSpace(r.doc.Title)
	if title == "" {
		title = baseTitle(r.path)
	}
	ps := make([]Passage, len(r.chunks))
	for i, c := range r.chunks {
		ps[i] = PassageOf(title, c.Heading, c.Text)
	}
	return ps
}

// Reembed embeds every stored chunk that has no vector yet (all of them
// after a model change), in batches, resumable: a run stopped half-way
// continues where it stopped. Progress events use phase "embedding" with
// FilesDone/FilesTotal counting chunks.
func (ix *Indexer) Reembed(ctx context.Context, progress chan<- domain.Progress) error {
	rep := newReporter(progress)
	defer rep.close()
	unlock, err := ix.db.LockIndexing()
	if err != nil {
		return err
	}
	defer unlock()
	if ix.opt.Embedder == nil {
		return errors.New("no embedding model loaded")
	}
	if _, err := ix.db.SetVectorModel(ctx, ix.opt.Embedder.ModelID(), ix.opt.Embedder.Dim()); err != nil {
		return err
	}
	return ix.reembed(ctx, rep)
}

func (ix *Indexer) reembed(ctx context.Context, rep *reporter) error {
	total, err := ix.db.CountWithoutVectors(ctx)
	if err != nil || total == 0 {
		return err
	}
	rep.embedTotal(total)
	rep.phase(domain.PhaseEmbedding)
	pending, err := ix.db.PendingChunks(ctx)
	if err != nil {
		return err
	}
	q := newEmbedQueue(pending)
	for q.left > 0 {
		// Asked again every batch: a document shown in a search meanwhile
		// comes next.
		var in Interest
		if ix.opt.Interest != nil {
			in = ix.opt.Interest()
		}
		cs, err := ix.db.ChunkTexts(ctx, q.next(ix.opt.EmbedBatch, in))
		if err != nil {
			return err
		}
		if len(cs) == 0 {
			continue // removed meanwhile
		}
		ps := make([]Passage, len(cs))
		ids := make([]int64, len(cs))
		for i, c := range cs {
			ps[i] = PassageOf(c.Title, c.Heading, c.Text)
			ids[i] = c.ID
		}
		vecs, err := ix.embed(ctx, ps)
		if err != nil {
			return fmt.Errorf("embed chunks %d-%d: %w", ids[0], ids[len(ids)-1], err)
		}
		if err := ix.db.PutVectors(ctx, ids, vecs); err != nil {
			return err
		}
		rep.embedded(len(cs))
	}
	return nil
}

// passageCost estimates the memory one passage takes while it is embedded:
// its text, its token ids (about one 8-byte id per 4 bytes of text) and its
// vector. llama.cpp's own buffers are sized when the model loads and do not
// grow with the call.
func passageCost(textBytes, dim int) int64 {
	return int64(textBytes)*3 + int64(dim)*4
}

// embed embeds ps in calls of at most EmbedBatch passages and EmbedBudget
// estimated bytes (a single larger passage goes alone), so a file of
// thousands of chunks never tokenizes them all at once.
func (ix *Indexer) embed(ctx context.Context, ps []Passage) ([][]float32, error) {
	dim := ix.opt.Embedder.Dim()
	out := make([][]float32, 0, len(ps))
	for i := 0; i < len(ps); {
		j, cost := i, int64(0)
		for j < len(ps) && j-i < ix.opt.EmbedBatch {
			c := passageCost(len(ps[j].Title)+len(ps[j].Text), dim)
			if j > i && cost+c > ix.opt.EmbedBudget {
				break
			}
			cost += c
			j++
		}
		vecs, err := ix.opt.Embedder.EmbedPassages(ctx, ps[i:j])
		if err != nil {
			return nil, err
		}
		if len(vecs) != j-i {
			return nil, fmt.Errorf("the embedding model returned %d vectors for %d passages", len(vecs), j-i)
		}
		out = append(out, vecs...)
		i = j
	}
	return out, nil
}

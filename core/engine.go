// Package core is the facade the window and the command line both drive:
// an Engine built once from the configuration owns the knowledge base, the
// extractors, the indexer and the searcher, so the GUI and the CLI cannot
// disagree on behaviour.
package core

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"cairn/core/chunk"
	"cairn/core/config"
	"cairn/core/extract"
	"cairn/core/index"
	"cairn/core/search"
	"cairn/core/store"
)

// Engine is one open knowledge base with everything needed to index and
// search it. Its methods are safe for concurrent use.
type Engine struct {
	cfg  config.Config
	dirs config.Dirs
	db   *store.DB
	reg  *extract.Registry

	mu       sync.RWMutex // guards searcher and indexer (models can change)
	searcher *search.Searcher
	indexer  *index.Indexer
}

// Options say which knowledge base to open.
type Options struct {
	KB string // knowledge base name under <data_dir>/kb; default cfg.Paths.KB
	DB string // explicit database path; overrides KB
}

// KBPath returns the database path of knowledge base name.
func KBPath(cfg config.Config, name string) string {
	return filepath.Join(cfg.Paths.DataDir, "kb", name+".db")
}

// Open opens (creating if needed) a knowledge base.
func Open(ctx context.Context, cfg config.Config, dirs config.Dirs, opt Options) (*Engine, error) {
	path := opt.DB
	if path == "" {
		name := opt.KB
		if name == "" {
			name = cfg.Paths.KB
		}
		if strings.ContainsAny(name, `/\`) || name == "." || name == ".." {
			return nil, fmt.Errorf("knowledge base name %q must not contain a path; use --db for a file path", name)
		}
		path = KBPath(cfg, name)
	}
	db, err := store.Open(path, store.Options{})
	if err != nil {
		return nil, err
	}
	lim := extract.DefaultLimits()
	lim.MaxFileBytes = int64(cfg.Index.MaxFileMB) << 20
	if t := cfg.IndexTimeout(); t > 0 {
		lim.Timeout = t
	}
	e := &Engine{cfg: cfg, dirs: dirs, db: db, reg: extract.NewRegistry(lim)}
	e.rebuild()
	return e, nil
}

// rebuild makes the searcher and indexer from the current models.
func (e *Engine) rebuild() {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.searcher = search.New(e.db, nil, nil)
	e.indexer = index.New(e.db, e.reg, index.Options{
		Chunk:         chunk.Params{Size: e.cfg.Chunking.Size, Overlap: e.cfg.Chunking.Overlap, MaxHeadingLen: e.cfg.Chunking.MaxHeadingLen},
		MaxFileBytes:  int64(e.cfg.Index.MaxFileMB) << 20,
		Workers:       e.cfg.Index.Workers,
		IncludeHidden: e.cfg.Index.IncludeHidden,
		Ignore:        e.cfg.Index.Ignore,
		EmbedBatch:    e.cfg.Embedding.BatchSize,
	})
}

// Close closes the knowledge base.
func (e *Engine) Close() error {
	if e == nil {
		return nil
	}
	return e.db.Close()
}

// Config returns the configuration the engine was built with.
func (e *Engine) Config() config.Config { return e.cfg }

// DB exposes the store for status views and tests.
func (e *Engine) DB() *store.DB { return e.db }

// Index indexes folder; see index.Indexer.Run.
func (e *Engine) Index(ctx context.Context, folder string, progress chan<- index.Progress) (store.Run, error) {
	e.mu.RLock()
	ix := e.indexer
	e.mu.RUnlock()
	return ix.Run(ctx, folder, progress)
}

// SearchRequest returns a request for query with the configured knobs.
func (e *Engine) SearchRequest(query string) search.Request {
	r := e.cfg.Retrieval
	return search.Request{
		Query:      query,
		Mode:       search.Mode(r.Mode),
		BM25Pool:   r.BM25Pool,
		VectorPool: r.VectorPool,
		Params: search.Params{TopK: r.TopK, MinScore: r.MinScore, Fusion: search.Fusion(r.Fusion),
			RRFK: r.RRFK, VectorWeight: r.VectorWeight, PerDocCap: r.PerDocCap},
	}
}

// Search runs a search.
func (e *Engine) Search(ctx context.Context, req search.Request) (*search.Response, error) {
	if strings.TrimSpace(req.Query) == "" {
		return nil, errors.New("empty question: type what you are looking for")
	}
	e.mu.RLock()
	s := e.searcher
	e.mu.RUnlock()
	return s.Search(ctx, req)
}

// Status describes the engine for status bars and `cairn status`.
type Status struct {
	store.Stats
	EmbeddingModel string // "" when BM25 only
	ChatModel      string // "" when answers are extractive
	NetworkMode    string
}

// Status reports what the knowledge base holds and which models are loaded.
func (e *Engine) Status(ctx context.Context) (Status, error) {
	st, err := e.db.Stats(ctx)
	if err != nil {
		return Status{}, err
	}
	return Status{Stats: st, NetworkMode: e.cfg.Network.Mode}, nil
}

// Folders lists the knowledge base's folders.
func (e *Engine) Folders(ctx context.Context) ([]store.Folder, error) { return e.db.Folders(ctx) }

// Issues lists files that are not indexed and why.
func (e *Engine) Issues(ctx context.Context) ([]store.Issue, error) { return e.db.Issues(ctx, 0) }

// RemoveFolder forgets a folder and everything indexed from it.
func (e *Engine) RemoveFolder(ctx context.Context, path string) error {
	return e.db.RemoveFolder(ctx, path)
}

// Judge records that path answers query (the personal test set).
func (e *Engine) Judge(ctx context.Context, query, path string, chunkID int64) error {
	return e.db.AddJudgment(ctx, query, path, chunkID)
}

// Unjudge forgets a judgment.
func (e *Engine) Unjudge(ctx context.Context, query, path string) error {
	return e.db.RemoveJudgment(ctx, query, path)
}

// Judgments lists the personal test set.
func (e *Engine) Judgments(ctx context.Context) ([]store.Judgment, error) { return e.db.Judgments(ctx) }

// IsEmpty reports whether the knowledge base has no folders yet.
func (e *Engine) IsEmpty(ctx context.Context) (bool, error) {
	fs, err := e.db.Folders(ctx)
	return len(fs) == 0, err
}

// ensureDir creates dir for the user only.
func ensureDir(dir string) error {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("create %s: %w", dir, err)
	}
	return nil
}

package core

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"cairn/core/config"
	"cairn/core/fault"
	"cairn/core/index"
	"cairn/core/llm"
)

// ModelInfo describes a GGUF file Cairn can use.
type ModelInfo struct {
	Path   string
	Name   string // general.name, else the file name
	Kind   llm.Kind
	Family llm.Family // embedding models
	Dim    int        // embedding width
	Size   int64
	InUse  bool
	Err    string // why the file cannot be used
}

// Kind of a GGUF from its metadata: a pooling type makes an embedding
// model; otherwise a causal model with a chat template is a chat model.
func modelKind(md *llm.Metadata) (llm.Kind, error) {
	switch {
	case md.Pooling != llm.PoolingNone:
		return llm.KindEmbedding, nil
	case md.Causal && md.ChatTemplate != "":
		return llm.KindGeneration, nil
	case md.Causal:
		return llm.KindGeneration, nil // no template: the ChatML fallback applies
	}
	return "", fmt.Errorf("%s: neither an embedding model (no pooling type) nor a chat model", filepath.Base(md.Path))
}

// Models lists the GGUF files of the models folder and the configured
// ones, marking those in use.
func (e *Engine) Models(ctx context.Context) ([]ModelInfo, error) {
	dir := e.cfg.Paths.ModelsDir
	var paths []string
	ents, err := os.ReadDir(dir)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("models folder %s: %w", dir, err)
	}
	for _, d := range ents {
		if !d.IsDir() && strings.EqualFold(filepath.Ext(d.Name()), ".gguf") {
			paths = append(paths, filepath.Join(dir, d.Name()))
		}
	}
	for _, p := range []string{e.cfg.Embedding.Model, e.cfg.Generation.Model} {
		if p != "" && strings.ContainsRune(p, filepath.Separator) && !slices.Contains(paths, p) {
			paths = append(paths, p)
		}
	}
	e.models.mu.Lock()
	var inUse []string
	if e.models.emb != nil {
		inUse = append(inUse, e.models.embPath)
	}
	if e.models.gen != nil {
		inUse = append(inUse, e.models.genPath)
	}
	e.models.mu.Unlock()
	var out []ModelInfo
	for _, p := range paths {
		mi := ModelInfo{Path: p, Name: filepath.Base(p), InUse: slices.Contains(inUse, p)}
		md, err := llm.ReadMetadata(p)
		if err != nil {
			mi.Err = err.Error()
			out = append(out, mi)
			continue
		}
		if md.Name != "" {
			mi.Name = md.Name
		}
		mi.Size = md.Size
		mi.Kind, err = modelKind(md)
		if err != nil {
			mi.Err = err.Error()
		}
		if mi.Kind == llm.KindEmbedding {
			mi.Family, mi.Dim = llm.DetectFamily(md), md.EmbeddingLength
		}
		out = append(out, mi)
	}
	return out, nil
}

// NoModel in the settings means "no model of this kind", as opposed to ""
// which means "the first one found in the models folder".
const NoModel = "none"

// models holds the loaded models; loading happens on first use, since a
// model can take seconds and most commands need none.
type models struct {
	mu      sync.Mutex
	embDone bool
	emb     *llm.Embedder
	embPath string
	embErr  error
	genDone bool
	gen     *llm.Generator
	genPath string
	genErr  error
}

// resolveModel finds the file for a configured model: a path, a file name
// in the models folder, or "" for the first model of that kind there.
func (e *Engine) resolveModel(ctx context.Context, setting string, kind llm.Kind) (string, error) {
	if setting == NoModel {
		return "", nil
	}
	if setting != "" {
		p := setting
		if !strings.ContainsRune(p, filepath.Separator) {
			p = filepath.Join(e.cfg.Paths.ModelsDir, p)
		}
		if _, err := os.Stat(p); err != nil {
			return "", fault.New(fault.ModelMissing, "model "+setting,
				"put the file in "+e.cfg.Paths.ModelsDir+" or choose another with `cairn models use PATH` (or the Engineering tab)", err)
		}
		return p, nil
	}
	all, err := e.Models(ctx)
	if err != nil {
		return "", err
	}
	for _, m := range all {
		if m.Kind == kind && m.Err == "" {
			return m.Path, nil
		}
	}
	return "", nil
}

// ChatModelPath is the chat model file the settings select ("" for none),
// without loading it.
func (e *Engine) ChatModelPath(ctx context.Context) (string, error) {
	return e.resolveModel(ctx, e.cfg.Generation.Model, llm.KindGeneration)
}

// Embedder returns the embedding model, loading it on first use; nil
// without error when none is configured or found (keyword search only).
func (e *Engine) Embedder(ctx context.Context) (*llm.Embedder, error) {
	m := &e.models
	m.mu.Lock()
	done := m.embDone
	m.mu.Unlock()
	if done {
		m.mu.Lock()
		defer m.mu.Unlock()
		return m.emb, m.embErr
	}
	// Resolving lists the models folder, which takes m.mu itself.
	path, err := e.resolveModel(ctx, e.cfg.Embedding.Model, llm.KindEmbedding)
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.embDone {
		return m.emb, m.embErr // loaded by a concurrent caller meanwhile
	}
	m.embDone = true
	if err != nil || path == "" {
		m.embErr = err
		return nil, err
	}
	start := time.Now()
	m.emb, m.embErr = llm.LoadEmbedder(path, llm.EmbedderOptions{Threads: e.cfg.Embedding.Threads, Dim: e.cfg.Embedding.Dim})
	m.embErr = modelFault(path, llm.KindEmbedding, m.embErr)
	m.embPath = path
	e.logLoad(path, llm.KindEmbedding, start, m.embErr)
	return m.emb, m.embErr
}

// Generator returns the chat model, loading it on first use; nil without
// error when none is configured or found (extractive answers).
func (e *Engine) Generator(ctx context.Context) (*llm.Generator, error) {
	m := &e.models
	m.mu.Lock()
	done := m.genDone
	m.mu.Unlock()
	if done {
		m.mu.Lock()
		defer m.mu.Unlock()
		return m.gen, m.genErr
	}
	// Resolving lists the models folder, which takes m.mu itself.
	path, err := e.resolveModel(ctx, e.cfg.Generation.Model, llm.KindGeneration)
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.genDone {
		return m.gen, m.genErr // loaded by a concurrent caller meanwhile
	}
	m.genDone = true
	if err != nil || path == "" {
		m.genErr = err
		return nil, err
	}
	start := time.Now()
	m.gen, m.genErr = llm.LoadGenerator(path, llm.GeneratorOptions{ContextSize: e.cfg.Generation.ContextSize, Threads: e.cfg.Generation.Threads})
	m.genErr = modelFault(path, llm.KindGeneration, m.genErr)
	m.genPath = path
	e.logLoad(path, llm.KindGeneration, start, m.genErr)
	return m.gen, m.genErr
}

// UseModel makes the GGUF at path the embedding or chat model (by its
// metadata), saves the choice in the settings and unloads the previous
// one. A new embedding model means re-embedding the knowledge base: the
// next index run (or Reembed) does it from the stored text.
func (e *Engine) UseModel(ctx context.Context, path string) (ModelInfo, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return ModelInfo{}, err
	}
	md, err := llm.ReadMetadata(abs)
	if err != nil {
		return ModelInfo{}, modelFault(abs, "", err)
	}
	kind, err := modelKind(md)
	if err != nil {
		return ModelInfo{}, fault.New(fault.ModelWrongUse, "", "choose an embedding model (with a pooling type) or a chat model; `cairn models list` says which kind each file is", err)
	}
	mi := ModelInfo{Path: abs, Name: md.Name, Kind: kind, Size: md.Size, InUse: true}
	if kind == llm.KindEmbedding {
		mi.Family, mi.Dim = llm.DetectFamily(md), md.EmbeddingLength
	}
	e.setModel(kind, abs)
	if err := config.Save(e.dirs, e.cfg); err != nil {
		return mi, err
	}
	return mi, nil
}

// UseEmbeddingModel switches the embedding model to path ("" for none,
// keyword search only), saves the choice, and re-embeds the stored chunks
// from their text, reporting on progress (closed on return).
func (e *Engine) UseEmbeddingModel(ctx context.Context, path string, progress chan<- index.Progress) error {
	if path == "" {
		e.setModel(llm.KindEmbedding, NoModel)
		if progress != nil {
			close(progress)
		}
		return config.Save(e.dirs, e.cfg)
	}
	mi, err := e.UseModel(ctx, path)
	if err == nil && mi.Kind != llm.KindEmbedding {
		err = fault.New(fault.ModelWrongUse, fmt.Sprintf("%s is a %s model, not an embedding model", filepath.Base(path), mi.Kind),
			"choose an embedding model; `cairn models list` says which kind each file is", nil)
	}
	if err == nil {
		_, err = e.Embedder(ctx)
	}
	if err != nil {
		if progress != nil {
			close(progress)
		}
		return err
	}
	return e.Reembed(ctx, progress)
}

// UseChatModel switches the chat model to path ("" for none: extractive
// answers) and saves the choice; the model loads on the next question.
func (e *Engine) UseChatModel(ctx context.Context, path string) error {
	if path == "" {
		e.setModel(llm.KindGeneration, NoModel)
		return config.Save(e.dirs, e.cfg)
	}
	mi, err := e.UseModel(ctx, path)
	if err == nil && mi.Kind != llm.KindGeneration {
		return fault.New(fault.ModelWrongUse, fmt.Sprintf("%s is an %s model, not a chat model", filepath.Base(path), mi.Kind),
			"choose a chat (instruct) model; `cairn models list` says which kind each file is", nil)
	}
	if err == nil {
		_, err = e.Generator(ctx)
	}
	return err
}

// setModel records the model setting for kind and unloads the current
// model of that kind.
func (e *Engine) setModel(kind llm.Kind, setting string) {
	m := &e.models
	m.mu.Lock()
	defer m.mu.Unlock()
	if kind == llm.KindEmbedding {
		e.cfg.Embedding.Model = setting
		if m.emb != nil {
			m.emb.Close()
		}
		m.emb, m.embDone, m.embErr = nil, false, nil
		return
	}
	e.cfg.Generation.Model = setting
	if m.gen != nil {
		m.gen.Close()
	}
	m.gen, m.genDone, m.genErr = nil, false, nil
}

// closeModels unloads every model.
func (e *Engine) closeModels() {
	m := &e.models
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.emb != nil {
		m.emb.Close()
	}
	if m.gen != nil {
		m.gen.Close()
	}
	m.emb, m.gen = nil, nil
}

// passageEmbedder adapts llm.Embedder to the indexer.
type passageEmbedder struct{ e *llm.Embedder }

func (p passageEmbedder) ModelID() string { return p.e.ModelID() }
func (p passageEmbedder) Dim() int        { return p.e.Dim() }

func (p passageEmbedder) EmbedPassages(ctx context.Context, ps []index.Passage) ([][]float32, error) {
	in := make([]llm.Passage, len(ps))
	for i, x := range ps {
		in[i] = llm.Passage{Title: x.Title, Text: x.Text}
	}
	vecs, _, err := p.e.EmbedPassages(ctx, in)
	return vecs, err
}

// modelFault gives a model's load error a code and a fix, telling a missing
// file, a file that is not a GGUF model, a model of the other kind and a
// model llama.cpp refused apart. want "" skips the kind check.
func modelFault(path string, want llm.Kind, err error) error {
	if err == nil {
		return nil
	}
	if _, ok := fault.As(err); ok {
		return err
	}
	list := "`cairn models list` says which kind each file is"
	if errors.Is(err, fs.ErrNotExist) {
		return fault.New(fault.ModelMissing, "", "put the file back, or choose another model with `cairn models use PATH`", err)
	}
	md, merr := llm.ReadMetadata(path)
	if merr != nil {
		return fault.New(fault.ModelNotGGUF, "", "the file is not a complete GGUF model: download it again (`cairn models pull NAME` checks its SHA-256) or choose another", err)
	}
	if want != "" {
		if kind, kerr := modelKind(md); kerr != nil || kind != want {
			return fault.New(fault.ModelWrongUse, "", "choose a "+string(want)+" model; "+list, err)
		}
	}
	return fault.New(fault.ModelLoad, "", "the file may be incomplete (download it again), need more memory than is free, or have an architecture llama.cpp does not run; `cairn doctor --load` tries it, or choose another model", err)
}

// logLoad records a model load in the log.
func (e *Engine) logLoad(path string, kind llm.Kind, start time.Time, err error) {
	if err != nil {
		e.log.Error("model load failed", "kind", string(kind), "path", path, "code", string(fault.CodeOf(err)), "err", err)
		return
	}
	e.log.Info("model loaded", "kind", string(kind), "path", path, "ms", time.Since(start).Milliseconds())
}

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
	return e.listModels(ctx, e.Config())
}

// listModels is Models under the settings c.
func (e *Engine) listModels(ctx context.Context, c config.Config) ([]ModelInfo, error) {
	dir := c.Paths.ModelsDir
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
	for _, p := range []string{c.Embedding.Model, c.Generation.Model} {
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
// in the models folder of c, or "" for the first model of that kind there.
func (e *Engine) resolveModel(ctx context.Context, c config.Config, setting string, kind llm.Kind) (string, error) {
	if setting == NoModel {
		return "", nil
	}
	if setting != "" {
		p := setting
		if !strings.ContainsRune(p, filepath.Separator) {
			p = filepath.Join(c.Paths.ModelsDir, p)
		}
		if _, err := os.Stat(p); err != nil {
			return "", fault.New(fault.ModelMissing, "model "+setting,
				"put the file in "+c.Paths.ModelsDir+" or choose another with `cairn models use PATH` (or the Engineering tab)", err)
		}
		return p, nil
	}
	all, err := e.listModels(ctx, c)
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

// modelSetting is the settings' model of kind.
func modelSetting(c config.Config, kind llm.Kind) string {
	if kind == llm.KindEmbedding {
		return c.Embedding.Model
	}
	return c.Generation.Model
}

// ChatModelPath is the chat model file the settings select ("" for none),
// without loading it.
func (e *Engine) ChatModelPath(ctx context.Context) (string, error) {
	c := e.Config()
	return e.resolveModel(ctx, c, c.Generation.Model, llm.KindGeneration)
}

// Embedder returns the embedding model, loading it on first use; nil
// without error when none is configured or found (keyword search only).
func (e *Engine) Embedder(ctx context.Context) (*llm.Embedder, error) {
	m := &e.models
	for {
		m.mu.Lock()
		if m.embDone {
			defer m.mu.Unlock()
			return m.emb, m.embErr
		}
		m.mu.Unlock()
		// Resolving lists the models folder, which takes m.mu itself.
		c := e.Config()
		path, err := e.resolveModel(ctx, c, c.Embedding.Model, llm.KindEmbedding)
		m.mu.Lock()
		if m.embDone || modelSetting(e.Config(), llm.KindEmbedding) != c.Embedding.Model {
			m.mu.Unlock()
			continue // loaded by a concurrent caller, or switched, meanwhile
		}
		defer m.mu.Unlock()
		m.embDone = true
		if err != nil || path == "" {
			m.embErr = err
			return nil, err
		}
		start := time.Now()
		m.emb, m.embErr = llm.LoadEmbedder(path, llm.EmbedderOptions{Threads: c.Embedding.Threads, Dim: c.Embedding.Dim})
		m.embErr = modelFault(path, llm.KindEmbedding, m.embErr)
		m.embPath = path
		e.logLoad(path, llm.KindEmbedding, start, m.embErr)
		return m.emb, m.embErr
	}
}

// Generator returns the chat model, loading it on first use; nil without
// error when none is configured or found (extractive answers).
func (e *Engine) Generator(ctx context.Context) (*llm.Generator, error) {
	m := &e.models
	for {
		m.mu.Lock()
		if m.genDone {
			defer m.mu.Unlock()
			return m.gen, m.genErr
		}
		m.mu.Unlock()
		// Resolving lists the models folder, which takes m.mu itself.
		c := e.Config()
		path, err := e.resolveModel(ctx, c, c.Generation.Model, llm.KindGeneration)
		m.mu.Lock()
		if m.genDone || modelSetting(e.Config(), llm.KindGeneration) != c.Generation.Model {
			m.mu.Unlock()
			continue // loaded by a concurrent caller, or switched, meanwhile
		}
		defer m.mu.Unlock()
		m.genDone = true
		if err != nil || path == "" {
			m.genErr = err
			return nil, err
		}
		start := time.Now()
		m.gen, m.genErr = llm.LoadGenerator(path, llm.GeneratorOptions{ContextSize: c.Generation.ContextSize, Threads: c.Generation.Threads})
		m.genErr = modelFault(path, llm.KindGeneration, m.genErr)
		m.genPath = path
		e.logLoad(path, llm.KindGeneration, start, m.genErr)
		return m.gen, m.genErr
	}
}

// inspectModel reads what the GGUF at path is, for a switch to it.
func inspectModel(path string) (ModelInfo, error) {
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
	return mi, nil
}

// UseModel makes the GGUF at path the embedding or chat model (by its
// metadata) and unloads the previous one; the model loads on first use. It
// does not save the settings: the caller writes Config. A new embedding
// model means re-embedding the knowledge base: the next index run (or
// Reembed) does it from the stored text.
func (e *Engine) UseModel(ctx context.Context, path string) (ModelInfo, error) {
	mi, err := inspectModel(path)
	if err != nil {
		return ModelInfo{}, err
	}
	e.setModel(mi.Kind, mi.Path)
	return mi, nil
}

// switchModel makes path ("" for none) the model of kind and loads it; a
// bare file name is one in the models folder, and is kept as such in the
// settings. A file of the other kind is refused without a change; a model
// that cannot be loaded is not kept, so the previous setting applies again.
func (e *Engine) switchModel(ctx context.Context, path string, kind llm.Kind) error {
	if path == "" {
		e.setModel(kind, NoModel)
		return nil
	}
	setting, file := path, path
	if !strings.ContainsRune(path, filepath.Separator) {
		file = filepath.Join(e.Config().Paths.ModelsDir, path)
	}
	mi, err := inspectModel(file)
	if err != nil {
		return err
	}
	if setting == file {
		setting = mi.Path // absolute
	}
	if mi.Kind != kind {
		what := map[llm.Kind]string{llm.KindEmbedding: "an embedding model", llm.KindGeneration: "a chat model"}
		return fault.New(fault.ModelWrongUse, fmt.Sprintf("%s is %s, not %s", filepath.Base(path), what[mi.Kind], what[kind]),
			"choose "+what[kind]+"; `cairn models list` says which kind each file is", nil)
	}
	prev := e.setModel(kind, setting)
	if kind == llm.KindEmbedding {
		_, err = e.Embedder(ctx)
	} else {
		_, err = e.Generator(ctx)
	}
	if err != nil {
		e.setModel(kind, prev)
	}
	return err
}

// UseEmbeddingModel switches the embedding model to path ("" for none,
// keyword search only; a file name for one in the models folder) and re-embeds the stored chunks from their text,
// reporting on progress (closed on return). The caller saves the settings.
func (e *Engine) UseEmbeddingModel(ctx context.Context, path string, progress chan<- index.Progress) error {
	if err := e.switchModel(ctx, path, llm.KindEmbedding); err != nil || path == "" {
		if progress != nil {
			close(progress)
		}
		return err
	}
	return e.Reembed(ctx, progress)
}

// UseChatModel switches the chat model to path ("" for none: extractive
// answers; a file name for one in the models folder) and loads it. The caller saves the settings.
func (e *Engine) UseChatModel(ctx context.Context, path string) error {
	return e.switchModel(ctx, path, llm.KindGeneration)
}

// setModel records the model setting for kind, unloads the current model
// of that kind, and returns the setting before.
func (e *Engine) setModel(kind llm.Kind, setting string) (prev string) {
	m := &e.models
	m.mu.Lock()
	defer m.mu.Unlock()
	e.mu.Lock()
	if kind == llm.KindEmbedding {
		prev, e.cfg.Embedding.Model = e.cfg.Embedding.Model, setting
	} else {
		prev, e.cfg.Generation.Model = e.cfg.Generation.Model, setting
	}
	e.mu.Unlock()
	if kind == llm.KindEmbedding {
		m.emb.Close()
		m.emb, m.embDone, m.embErr = nil, false, nil
		return prev
	}
	m.gen.Close()
	m.gen, m.genDone, m.genErr = nil, false, nil
	return prev
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

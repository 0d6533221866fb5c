package core

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"cairn/core/config"
	"cairn/core/domain"
	"cairn/core/fault"
	"cairn/core/ingest"
	"cairn/core/llm"
	"cairn/core/llm/models"
)

// Models lists the GGUF files of the models folder and the configured
// ones, marking those in use.
func (e *Engine) Models(ctx context.Context) ([]models.Info, error) {
	return e.listModels(e.Config())
}

// listModels is Models under the settings c.
func (e *Engine) listModels(c config.Config) ([]models.Info, error) {
	e.models.mu.Lock()
	var inUse []string
	for _, p := range []string{e.models.emb.path, e.models.gen.path, e.models.rr.path} {
		if p != "" {
			inUse = append(inUse, p)
		}
	}
	e.models.mu.Unlock()
	return models.List(c, inUse)
}

// loadedModels holds the loaded models; loading happens on first use, since a
// model can take seconds and most commands need none.
type loadedModels struct {
	mu  sync.Mutex
	emb lazy[*llm.Embedder]
	gen lazy[*llm.Generator]
	rr  lazy[*llm.Reranker]
}

// lazy is one model, loaded on first use: done once tried, with the model
// or why it could not load.
type lazy[M interface{ Close() error }] struct {
	done bool
	m    M
	path string
	err  error
}

// unload closes the model and forgets it, so that the next use loads the
// one the settings then name; m.mu is held.
func (l *lazy[M]) unload() {
	if l.done && l.err == nil && l.path != "" {
		l.m.Close()
	}
	*l = lazy[M]{}
}

// ChatModelPath is the chat model file the settings select ("" for none),
// without loading it.
func (e *Engine) ChatModelPath(ctx context.Context) (string, error) {
	c := e.Config()
	return models.Resolve(c, c.Generation.Model, llm.KindGeneration)
}

// embedder returns the embedding model, loading it on first use; nil
// without error when none is configured or found (keyword search only).
func (e *Engine) embedder(ctx context.Context) (*llm.Embedder, error) {
	return load(e, &e.models.emb, llm.KindEmbedding, func(path string, c config.Config) (*llm.Embedder, error) {
		return llm.LoadEmbedder(path, llm.EmbedderOptions{Threads: c.Embedding.Threads, Dim: c.Embedding.Dim, Device: c.LLM.Device})
	})
}

// generator returns the chat model, loading it on first use; nil without
// error when none is configured or found (extractive answers).
func (e *Engine) generator(ctx context.Context) (*llm.Generator, error) {
	return load(e, &e.models.gen, llm.KindGeneration, func(path string, c config.Config) (*llm.Generator, error) {
		return llm.LoadGenerator(path, llm.GeneratorOptions{ContextSize: c.Generation.ContextSize, Threads: c.Generation.Threads, Device: c.LLM.Device})
	})
}

// reranker returns the cross-encoder, loading it on first use; nil without
// error when reranking is off (rerank.enabled) or no reranker is
// configured or found.
func (e *Engine) reranker(ctx context.Context) (*llm.Reranker, error) {
	if !e.Config().Rerank.Enabled {
		return nil, nil
	}
	return load(e, &e.models.rr, llm.KindRerank, func(path string, c config.Config) (*llm.Reranker, error) {
		return llm.LoadReranker(path, llm.RerankerOptions{Threads: c.Rerank.Threads, Device: c.LLM.Device})
	})
}

// load returns the model of kind in slot, opening the file the settings
// name on first use. Resolving the setting lists the models folder, which
// takes the models' lock itself, so it runs unlocked; a model loaded by a
// concurrent caller, or a setting or device switched meanwhile, starts over.
func load[M interface{ Close() error }](e *Engine, slot *lazy[M], kind llm.Kind, open func(path string, c config.Config) (M, error)) (M, error) {
	mu := &e.models.mu
	for {
		mu.Lock()
		if slot.done {
			defer mu.Unlock()
			return slot.m, slot.err
		}
		mu.Unlock()
		c := e.Config()
		setting := models.Setting(c, kind)
		path, err := models.Resolve(c, setting, kind)
		mu.Lock()
		if now := e.Config(); slot.done || models.Setting(now, kind) != setting || now.LLM.Device != c.LLM.Device {
			mu.Unlock()
			continue
		}
		defer mu.Unlock()
		slot.done = true
		if err != nil || path == "" {
			slot.err = err
			return slot.m, err
		}
		start := time.Now()
		m, err := open(path, c)
		slot.err = models.Fault(path, kind, err)
		if slot.err == nil {
			slot.m, slot.path = m, path
		}
		e.logLoad(path, kind, start, slot.err)
		return slot.m, slot.err
	}
}

// UseModel makes the GGUF at path the embedding model, the reranker (and
// turns reranking on) or the chat model, by its metadata, and unloads the
// previous one; the model loads on first use. It
// does not save the settings: the caller writes Config. A new embedding
// model means re-embedding the knowledge base: the next index run (or
// Reembed) does it from the stored text.
func (e *Engine) UseModel(ctx context.Context, path string) (models.Info, error) {
	mi, err := models.Inspect(path)
	if err != nil {
		return models.Info{}, err
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
		e.setModel(kind, models.None)
		return nil
	}
	setting, file := path, path
	if !strings.ContainsRune(path, filepath.Separator) {
		file = filepath.Join(e.Config().Paths.ModelsDir, path)
	}
	mi, err := models.Inspect(file)
	if err != nil {
		return err
	}
	if setting == file {
		setting = mi.Path // absolute
	}
	if mi.Kind != kind {
		what := map[llm.Kind]string{llm.KindEmbedding: "an embedding model", llm.KindGeneration: "a chat model", llm.KindRerank: "a reranker"}
		return fault.New(fault.ModelWrongUse, fmt.Sprintf("%s is %s, not %s", filepath.Base(path), what[mi.Kind], what[kind]),
			"choose "+what[kind]+"; `cairn models list` says which kind each file is", nil)
	}
	prev := e.setModel(kind, setting)
	switch kind {
	case llm.KindEmbedding:
		_, err = e.embedder(ctx)
	case llm.KindRerank:
		_, err = e.reranker(ctx)
	default:
		_, err = e.generator(ctx)
	}
	if err != nil {
		e.setModel(kind, prev)
	}
	return err
}

// UseEmbeddingModel switches the embedding model to path ("" for none,
// keyword search only; a file name for one in the models folder) and re-embeds the stored chunks from their text,
// reporting on progress (closed on return). The caller saves the settings.
func (e *Engine) UseEmbeddingModel(ctx context.Context, path string, progress chan<- domain.Progress) error {
	if err := e.switchModel(ctx, path, llm.KindEmbedding); err != nil || path == "" {
		if progress != nil {
			close(progress)
		}
		return err
	}
	return e.Reembed(ctx, progress)
}

// UseReranker switches the reranker to path ("" for none; a file name for
// one in the models folder) and loads it. The caller saves the settings.
func (e *Engine) UseReranker(ctx context.Context, path string) error {
	return e.switchModel(ctx, path, llm.KindRerank)
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
	switch kind {
	case llm.KindEmbedding:
		prev, e.cfg.Embedding.Model = e.cfg.Embedding.Model, setting
	case llm.KindRerank:
		// Choosing a reranker is asking for reranking, on any profile.
		prev, e.cfg.Rerank.Model = e.cfg.Rerank.Model, setting
		e.cfg.Rerank.Enabled = setting != models.None
	default:
		prev, e.cfg.Generation.Model = e.cfg.Generation.Model, setting
	}
	e.mu.Unlock()
	switch kind {
	case llm.KindEmbedding:
		m.emb.unload()
	case llm.KindRerank:
		m.rr.unload()
	default:
		m.gen.unload()
	}
	return prev
}

// closeModels unloads every model.
func (e *Engine) closeModels() {
	m := &e.models
	m.mu.Lock()
	defer m.mu.Unlock()
	m.emb.unload()
	m.gen.unload()
	m.rr.unload()
}

// passageEmbedder adapts llm.Embedder to the indexer.
type passageEmbedder struct{ e *llm.Embedder }

func (p passageEmbedder) ModelID() string { return p.e.ModelID() }
func (p passageEmbedder) Dim() int        { return p.e.Dim() }

func (p passageEmbedder) EmbedPassages(ctx context.Context, ps []ingest.Passage) ([][]float32, error) {
	in := make([]llm.Passage, len(ps))
	for i, x := range ps {
		in[i] = llm.Passage{Title: x.Title, Text: x.Text}
	}
	vecs, _, err := p.e.EmbedPassages(ctx, in)
	return vecs, err
}

// logLoad records a model load in the log.
func (e *Engine) logLoad(path string, kind llm.Kind, start time.Time, err error) {
	if err != nil {
		e.log.Error("model load failed", "kind", string(kind), "path", path, "code", string(fault.CodeOf(err)), "err", err)
		return
	}
	e.log.Info("model loaded", "kind", string(kind), "path", path, "ms", time.Since(start).Milliseconds())
}

// LoadEmbeddingModel loads the embedding model the settings name, if it is
// not loaded yet, and says why it cannot be; no model is no error.
func (e *Engine) LoadEmbeddingModel(ctx context.Context) error {
	_, err := e.embedder(ctx)
	return err
}

// LoadReranker loads the reranker when reranking is on and names it; ""
// when it is off or no reranker is found, an error when it cannot load.
func (e *Engine) LoadReranker(ctx context.Context) (string, error) {
	rr, err := e.reranker(ctx)
	if err != nil || rr == nil {
		return "", err
	}
	return rr.Name(), nil
}

// LoadChatModel loads the chat model the settings name, if it is not
// loaded yet, and says why it cannot be; no model is no error.
func (e *Engine) LoadChatModel(ctx context.Context) error {
	_, err := e.generator(ctx)
	return err
}

// Devices are the values of llm.device this computer offers, for a picker:
// auto, cpu, and each GPU the GPU backend finds (a driver that runs on the
// CPU, such as lavapipe, is a "software GPU"). note says, when no GPU is
// listed, why. With llm.device "cpu" the backend is not loaded to look: a
// person may have chosen the CPU to keep a broken driver out of the
// process, so the choices are auto and cpu, and note says how to list the
// GPUs.
func (e *Engine) Devices() (choices []domain.DeviceChoice, note string) {
	choices = []domain.DeviceChoice{
		{Setting: llm.DeviceAuto, Label: "auto (the first GPU, else the CPU)"},
		{Setting: llm.DeviceCPU, Label: "CPU"},
	}
	if e.Config().LLM.Device == llm.DeviceCPU {
		return choices, "GPUs are not looked for while the device is the CPU; choose auto to use one."
	}
	gpus, reason := llm.GPUs()
	for _, d := range gpus {
		// "GPU: NVIDIA GeForce RTX 3060 (Vulkan0)"; lavapipe is a
		// "software GPU".
		choices = append(choices, domain.DeviceChoice{Setting: d.Name, Label: d.String()})
	}
	return choices, reason
}

// UseDevice makes setting ("auto", "cpu", or a GPU's name from Devices) the
// device the models run on, once it names one here, and unloads the loaded
// models: each loads again on the new device at its next use. The caller
// saves the settings.
func (e *Engine) UseDevice(setting string) error {
	c := config.Config{LLM: config.LLM{Device: setting}}
	c.Normalize()
	if _, err := llm.SelectDevice(c.LLM.Device); err != nil {
		return err
	}
	m := &e.models
	m.mu.Lock()
	defer m.mu.Unlock()
	if err := e.update(func(cfg *config.Config) { cfg.LLM.Device = c.LLM.Device }); err != nil {
		return err
	}
	m.emb.unload()
	m.rr.unload()
	m.gen.unload()
	return nil
}

package ui

import (
	"cairn/core"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"cairn/core/config"
	"cairn/core/index"
	"cairn/panels"
)

// saveDelay gathers a burst of knob changes into one write of the settings
// file.
const saveDelay = 500 * time.Millisecond

// settingsWorker owns the settings file: it persists the knobs, switches
// hardware profiles and records model choices, and lists the models folder.
type settingsWorker struct {
	eng      Engine
	cfg      config.Config
	save     saveFunc
	requests <-chan panels.SettingsRequest
	events   chan<- panels.EngineeringEvent
	indexEv  chan<- panels.IndexEvent // re-embedding progress, once models can switch
	// onNetwork, if set, runs after the network mode changed (the status
	// bar refreshes).
	onNetwork func()
	// onChange, if set, gets the settings after each change, on the
	// worker's goroutine.
	onChange func(config.Config)

	dirty    bool
	running  bool // a model switch is running
	switched chan switchResult
	jobs
}

type switchResult struct {
	kind, path string
	err        error
}

// saveFunc writes the settings file; the network mode in c is written only
// withMode, else the file's is kept (see config.SaveKeepingMode).
type saveFunc func(c config.Config, withMode bool) error

func newSettingsWorker(eng Engine, save saveFunc, requests <-chan panels.SettingsRequest,
	events chan<- panels.EngineeringEvent, indexEv chan<- panels.IndexEvent) *settingsWorker {
	return &settingsWorker{eng: eng, cfg: eng.Config(), save: save, requests: requests, events: events, indexEv: indexEv,
		switched: make(chan switchResult)}
}

func (w *settingsWorker) run(ctx context.Context) {
	w.emit(ctx, w.loaded())
	w.emit(ctx, w.models())
	timer := time.NewTimer(time.Hour)
	timer.Stop()
	defer func() {
		w.jobs.wait()
		if w.dirty { // the last change before closing is kept
			w.save(w.cfg, false)
		}
	}()
	for {
		select {
		case <-ctx.Done():
			return
		case r := <-w.requests:
			if w.handle(ctx, r) {
				w.changed()
				w.dirty = true
				timer.Reset(saveDelay)
			}
		case r := <-w.switched:
			w.running = false
			if r.err != nil {
				w.emit(ctx, panels.SettingsNotice{Text: "Could not load " + r.path + ": " + panels.ErrorText(r.err), Err: true})
				continue
			}
			w.setModel(r.kind, r.path)
			w.changed()
			w.emit(ctx, panels.SettingsNotice{Text: fmt.Sprintf("Now using %s as the %s model.", orNone(r.path), r.kind)})
			w.dirty = true
			timer.Reset(saveDelay)
		case <-timer.C:
			w.dirty = false
			if err := w.save(w.cfg, false); err != nil {
				w.emit(ctx, panels.SettingsNotice{Text: "Could not save the settings: " + err.Error() + ". Check that the config folder is writable.", Err: true})
			}
		}
	}
}

func (w *settingsWorker) changed() {
	if w.onChange != nil {
		w.onChange(w.cfg)
	}
}

func (w *settingsWorker) emit(ctx context.Context, ev panels.EngineeringEvent) {
	send(ctx, w.events, ev)
}

// handle applies a request and reports whether the settings changed.
func (w *settingsWorker) handle(ctx context.Context, r panels.SettingsRequest) bool {
	switch r := r.(type) {
	case panels.SaveTuning:
		storeTuning(&w.cfg.Retrieval, r.Tuning)
		return true
	case panels.UseProfile:
		if !slices.Contains(config.Profiles(), r.Name) || r.Name == w.cfg.Profile {
			return false
		}
		d := config.Default(r.Name)
		w.cfg.Profile = r.Name
		mode := w.cfg.Retrieval.Mode
		w.cfg.Retrieval = d.Retrieval
		w.cfg.Retrieval.Mode = mode
		w.cfg.Answer.TopK = d.Answer.TopK
		w.cfg.Embedding.BatchSize = d.Embedding.BatchSize
		w.cfg.Generation.ContextSize = d.Generation.ContextSize
		w.emit(ctx, w.loaded())
		w.emit(ctx, panels.SettingsNotice{Text: fmt.Sprintf("Profile %s: retrieval knobs reset to its defaults. "+
			"Its answer size (%d sources), embedding batch and context size apply when the knowledge base is next opened.",
			r.Name, d.Answer.TopK)})
		return true
	case panels.UseModel:
		return w.useModel(ctx, r)
	case panels.SetNetworkMode:
		return w.setNetworkMode(ctx, r.Mode)
	case panels.SetAnswering:
		a := w.cfg.Answer
		a.Verify, a.Rewrite = r.Verify, r.Rewrite
		if err := w.eng.SetAnswering(a); err != nil {
			w.emit(ctx, panels.SettingsNotice{Text: "Could not change the answer settings: " + err.Error(), Err: true})
			return false
		}
		w.cfg.Answer = a
		return true
	}
	return false
}

// setNetworkMode switches the engine's network gate and saves the mode at
// once, with the rest of the worker's settings (the engine saves nothing).
// When the settings cannot be saved the gate goes back, so that the mode
// shown is the one the next start uses too. It reports false: nothing is
// left to save.
func (w *settingsWorker) setNetworkMode(ctx context.Context, mode string) bool {
	old := w.eng.NetworkMode()
	err := w.eng.SetNetworkMode(mode)
	if now := w.eng.NetworkMode(); err == nil && now != old {
		c := w.cfg
		c.Network.Mode = now
		if err = w.save(c, true); err != nil {
			err = fmt.Errorf("could not save the settings: %w", err)
			if rerr := w.eng.SetNetworkMode(old); rerr != nil {
				err = fmt.Errorf("%w; switching back failed too: %v", err, rerr)
			}
		} else {
			w.cfg = c
			w.changed()
		}
	}
	now := w.eng.NetworkMode()
	w.emit(ctx, panels.NetworkModeChanged{Mode: now})
	if err != nil {
		w.emit(ctx, panels.SettingsNotice{Text: "The network gate stays " + now + ": " + err.Error(), Err: true})
		return false
	}
	text := map[string]string{
		"offline": "Network gate: offline. Only this computer can be reached.",
		"online":  "Network gate: online. The answer endpoint, the model catalogue and network.allow can be reached; every connection is in the audit log.",
		"admin":   "Network gate: admin. Any host can be reached, and every connection is in the audit log. Switch back when the maintenance is done.",
	}[now]
	w.emit(ctx, panels.SettingsNotice{Text: text})
	if w.onNetwork != nil {
		w.onNetwork()
	}
	return false
}

func (w *settingsWorker) loaded() panels.TuningLoaded {
	return panels.TuningLoaded{Tuning: tuningFromConfig(w.cfg.Retrieval), Profile: w.cfg.Profile, Profiles: config.Profiles(),
		NetworkMode: w.eng.NetworkMode(), Verify: w.cfg.Answer.Verify, Rewrite: w.cfg.Answer.Rewrite}
}

// useModel switches a model when the engine can, and otherwise records the
// choice in the settings and says that this build cannot load it yet.
func (w *settingsWorker) useModel(ctx context.Context, r panels.UseModel) bool {
	path := r.Path
	if path != "" && !filepath.IsAbs(path) {
		path = filepath.Join(w.cfg.Paths.ModelsDir, path)
	}
	sw, ok := w.eng.(ModelSwitcher)
	if !ok {
		w.setModel(r.Kind, r.Path)
		w.emit(ctx, panels.SettingsNotice{Text: fmt.Sprintf("Saved %s as the %s model. This build cannot load models yet "+
			"(the model runtime is not part of it), so answers stay extractive and search stays BM25 only.", orNone(r.Path), r.Kind)})
		return true
	}
	if w.running {
		w.emit(ctx, panels.SettingsNotice{Text: "A model is already being loaded; wait for it to finish.", Err: true})
		return false
	}
	// The seam for core/llm: load the model in a job and, for embeddings,
	// re-embed with progress on the index panel. The settings are saved
	// when it succeeds.
	w.running = true
	w.jobs.spawn(func() {
		err := w.switchModel(ctx, sw, r.Kind, path)
		send(ctx, w.switched, switchResult{kind: r.Kind, path: r.Path, err: err})
	})
	return false
}

func (w *settingsWorker) setModel(kind, path string) {
	if path == "" {
		path = core.NoModel // "" would mean "the first model found"
	}
	if kind == panels.ModelChat {
		w.cfg.Generation.Model = path
	} else {
		w.cfg.Embedding.Model = path
	}
}

func (w *settingsWorker) switchModel(ctx context.Context, sw ModelSwitcher, kind, path string) error {
	if kind == panels.ModelChat {
		return sw.UseChatModel(ctx, path)
	}
	progress := make(chan index.Progress, 16)
	errc := make(chan error, 1)
	go func() { errc <- sw.UseEmbeddingModel(ctx, path, progress) }() // closes progress; waited for below
	for p := range progress {
		send(ctx, w.indexEv, panels.IndexEvent(panels.Progressed{Progress: p}))
	}
	return <-errc
}

func orNone(s string) string {
	if s == "" || s == core.NoModel {
		return "none"
	}
	return s
}

// models lists the GGUF files of the models folder.
func (w *settingsWorker) models() panels.ModelsListed {
	dir := w.cfg.Paths.ModelsDir
	ev := panels.ModelsListed{Dir: dir, Embedding: w.cfg.Embedding.Model, Chat: w.cfg.Generation.Model}
	_, ev.Switchable = w.eng.(ModelSwitcher)
	entries, err := os.ReadDir(dir)
	for _, e := range entries {
		if !e.IsDir() && strings.EqualFold(filepath.Ext(e.Name()), ".gguf") {
			ev.Files = append(ev.Files, e.Name())
		}
	}
	switch {
	case !ev.Switchable:
		ev.Note = "Model switching is not in this build yet: the engine cannot load GGUF models (core/llm is being built). " +
			"A choice made here is saved in the settings and used once it can. Models folder: " + dir
	case err != nil || len(ev.Files) == 0:
		ev.Note = "No GGUF models in " + dir + ". Put an embedding model (e.g. all-MiniLM-L6-v2) and a chat model there."
	}
	return ev
}

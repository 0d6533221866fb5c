package ui

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"cairn/core/config"
	"cairn/core/domain"
	"cairn/core/netgate"
	"cairn/panels"
)

// saveDelay gathers a burst of knob changes into one write of the settings
// file.
const saveDelay = 500 * time.Millisecond

// settingsWorker is the window's one writer of the settings file: it
// applies the Engineering tab's changes (knobs, profile, answer settings,
// network mode, models) through the engine's setters, and saves the
// engine's settings after them. It holds no settings of its own.
type settingsWorker struct {
	eng  Engine
	save saveFunc
	// base is the configuration this worker read at its start or saved
	// last: a save writes what changed since (saveNow).
	base     config.Config
	requests <-chan panels.SettingsRequest
	events   chan<- panels.EngineeringEvent
	indexEv  chan<- panels.IndexEvent // re-embedding progress
	// onNetwork, if set, runs after the network mode changed (the status
	// bar refreshes).
	onNetwork func()
	// onServe, if set, starts or stops the window's local service; it
	// never blocks.
	onServe func(on bool)
	// apiModes are network modes switched through the window's local
	// service: the engine's gate is switched already, and this worker,
	// the settings file's one writer in the window, saves it.
	apiModes chan apiMode

	dirty    bool
	running  bool // a model switch is running
	switched chan switchResult

	// The model being downloaded ("" for none), what stops it, and the
	// download's end, back from its job.
	pulling  string
	stopPull context.CancelFunc
	paused   bool // stopPull was called by Pause
	pulled   chan pullResult
	jobs
}

type pullResult struct {
	name, kind string
	res        domain.ModelPull
	err        error
}

// apiMode is a network mode switched through the local API, to save; the
// service switches the gate back when saved answers an error.
type apiMode struct {
	mode  string
	saved chan<- error
}

type switchResult struct {
	kind, path string
	err        error
}

// saveFunc writes the settings of c that differ from base (what the window
// read or saved last) onto the settings file (config.Update): a slider
// keeps the network mode `cairn network` wrote meanwhile, and the model
// `cairn models use` chose.
type saveFunc func(base, c config.Config) error

func newSettingsWorker(eng Engine, save saveFunc, requests <-chan panels.SettingsRequest,
	events chan<- panels.EngineeringEvent, indexEv chan<- panels.IndexEvent) *settingsWorker {
	return &settingsWorker{eng: eng, save: save, base: eng.Config(), requests: requests, events: events, indexEv: indexEv,
		switched: make(chan switchResult), apiModes: make(chan apiMode), pulled: make(chan pullResult)}
}

func (w *settingsWorker) run(ctx context.Context) {
	w.emit(ctx, w.loaded())
	w.emit(ctx, w.models())
	w.emit(ctx, w.offers())
	timer := time.NewTimer(time.Hour)
	timer.Stop()
	defer func() {
		w.jobs.wait()
		if w.dirty { // the last change before closing is kept
			w.saveNow()
		}
	}()
	for {
		select {
		case <-ctx.Done():
			return
		case r := <-w.requests:
			if w.handle(ctx, r) {
				w.dirty = true
				timer.Reset(saveDelay)
			}
		case m := <-w.apiModes:
			w.saveAPIMode(ctx, m)
		case r := <-w.pulled:
			w.pullEnded(ctx, r)
		case r := <-w.switched:
			w.running = false
			w.emit(ctx, w.models())
			if r.err != nil {
				w.emit(ctx, panels.SettingsNotice{Text: "Could not load " + r.path + ": " + panels.ErrorText(r.err), Err: true})
				continue
			}
			w.emit(ctx, panels.SettingsNotice{Text: fmt.Sprintf("Now using %s as the %s model.", orNone(r.path), r.kind)})
			w.dirty = true
			timer.Reset(saveDelay)
		case <-timer.C:
			w.dirty = false
			if err := w.saveNow(); err != nil {
				w.emit(ctx, panels.SettingsNotice{Text: "Could not save the settings: " + err.Error() + ". Check that the config folder is writable.", Err: true})
			}
		}
	}
}

func (w *settingsWorker) emit(ctx context.Context, ev panels.EngineeringEvent) {
	send(ctx, w.events, ev)
}

// refused tells the panel that the engine refused a change.
func (w *settingsWorker) refused(ctx context.Context, what string, err error) bool {
	w.emit(ctx, panels.SettingsNotice{Text: "Could not change " + what + ": " + err.Error(), Err: true})
	return false
}

// handle applies a request and reports whether the settings changed.
func (w *settingsWorker) handle(ctx context.Context, r panels.SettingsRequest) bool {
	switch r := r.(type) {
	case panels.SaveTuning:
		if err := w.eng.SetRetrieval(r.Tuning); err != nil {
			return w.refused(ctx, "the retrieval knobs", err)
		}
		return true
	case panels.UseProfile:
		if r.Name == w.eng.Config().Profile {
			return false
		}
		if err := w.eng.SetProfile(r.Name); err != nil {
			return w.refused(ctx, "the profile", err)
		}
		w.emit(ctx, w.loaded())
		w.emit(ctx, panels.SettingsNotice{Text: fmt.Sprintf("Profile %s: retrieval knobs reset to its defaults. "+
			"Its answer size (%d sources) applies from the next question, its embedding batch from the next index run, "+
			"and its context size when the chat model next loads.", r.Name, w.eng.Config().Answer.TopK)})
		return true
	case panels.UseModel:
		return w.useModel(ctx, r)
	case panels.ListModels:
		w.emit(ctx, w.offers())
	case panels.PullModel:
		w.pull(ctx, r.Name)
	case panels.PausePull:
		if w.pulling == r.Name && w.stopPull != nil {
			w.paused = true
			w.stopPull()
		}
	case panels.UseDevice:
		return w.useDevice(ctx, r.Setting)
	case panels.SetNetworkMode:
		return w.setNetworkMode(ctx, r.Mode)
	case panels.SetServing:
		if err := w.eng.SetServing(r.On); err != nil {
			return w.refused(ctx, "the local service", err)
		}
		if w.onServe != nil {
			w.onServe(r.On)
		}
		return true
	case panels.SetKnob:
		if err := w.eng.SetKnob(r.Key, r.Value); err != nil {
			return w.refused(ctx, r.Key, err)
		}
		return true
	case panels.SetAnswering:
		a := w.eng.Config().Answer
		a.Verify, a.Rewrite = r.Verify, r.Rewrite
		if err := w.eng.SetAnswering(a); err != nil {
			return w.refused(ctx, "the answer settings", err)
		}
		return true
	}
	return false
}

// setNetworkMode switches the engine's network gate and saves the engine's
// settings at once, the new mode included (the engine saves nothing).
// When the settings cannot be saved the gate goes back, so that the mode
// shown is the one the next start uses too. It reports false: nothing is
// left to save.
func (w *settingsWorker) setNetworkMode(ctx context.Context, mode string) bool {
	old := w.eng.NetworkMode()
	err := w.eng.SetNetworkMode(mode)
	if now := w.eng.NetworkMode(); err == nil && now != old {
		if err = w.saveNow(); err != nil {
			err = fmt.Errorf("could not save the settings: %w", err)
			if rerr := w.eng.SetNetworkMode(old); rerr != nil {
				err = fmt.Errorf("%w; switching back failed too: %v", err, rerr)
			}
		}
	}
	now := w.eng.NetworkMode()
	w.emit(ctx, panels.NetworkModeChanged{Mode: now})
	if err != nil {
		w.emit(ctx, panels.SettingsNotice{Text: "The network gate stays " + now + ": " + err.Error(), Err: true})
		return false
	}
	w.emit(ctx, panels.SettingsNotice{Text: netgate.Mode(now).Info().Notice})
	if w.onNetwork != nil {
		w.onNetwork()
	}
	return false
}

// saveAPIMode saves a network mode switched through the local API, and
// shows it in the Engineering tab and the status bar as a switch made in
// the window would be.
func (w *settingsWorker) saveAPIMode(ctx context.Context, m apiMode) {
	err := w.saveNow()
	m.saved <- err // buffered
	if err != nil {
		w.emit(ctx, panels.SettingsNotice{Text: "The local API asked for network mode " + m.mode +
			", but the settings could not be saved: " + err.Error() + ". The gate stays as it was.", Err: true})
		return
	}
	w.emit(ctx, panels.NetworkModeChanged{Mode: m.mode})
	w.emit(ctx, panels.SettingsNotice{Text: "Network gate: " + m.mode + ", switched through the local API."})
	if w.onNetwork != nil {
		w.onNetwork()
	}
}

// saveModeFunc is the local service's SaveNetworkMode: it hands the save
// to this worker and waits for it.
func (w *settingsWorker) saveModeFunc(ctx context.Context) func(mode string) error {
	return func(mode string) error {
		saved := make(chan error, 1)
		if !send(ctx, w.apiModes, apiMode{mode: mode, saved: saved}) {
			return fmt.Errorf("the window is closing: %w", ctx.Err())
		}
		select {
		case err := <-saved:
			return err
		case <-ctx.Done():
			return fmt.Errorf("the window is closing: %w", ctx.Err())
		}
	}
}

func (w *settingsWorker) loaded() panels.TuningLoaded {
	c := w.eng.Config()
	return panels.TuningLoaded{Settings: c, Profiles: config.Profiles()}
}

// useDevice switches the device the models run on; the picker shows the
// device in force afterwards, the new one or, when the engine refuses it,
// the old one. Not while a model loads: the switch would wait for the load
// and then undo it.
func (w *settingsWorker) useDevice(ctx context.Context, setting string) bool {
	if setting == w.eng.Config().LLM.Device {
		return false
	}
	if w.running {
		w.emit(ctx, w.models())
		w.emit(ctx, panels.SettingsNotice{Text: "A model is being loaded; choose the device when it has finished.", Err: true})
		return false
	}
	err := w.eng.UseDevice(setting)
	ev := w.models()
	w.emit(ctx, ev)
	if err != nil {
		return w.refused(ctx, "the device", err)
	}
	label := setting
	for _, d := range ev.Devices {
		if d.Setting == setting {
			label = d.Label
		}
	}
	w.emit(ctx, panels.SettingsNotice{Text: "Models run on " + label + " from their next use."})
	return true
}

// useModel starts a model switch in a job: the engine loads the model and,
// for embeddings, re-embeds with progress on the index panel. The settings
// are saved when it succeeds.
func (w *settingsWorker) useModel(ctx context.Context, r panels.UseModel) bool {
	if w.running {
		w.emit(ctx, panels.SettingsNotice{Text: "A model is already being loaded; wait for it to finish.", Err: true})
		return false
	}
	w.running = true
	w.jobs.spawn(func() {
		err := w.switchModel(ctx, r.Kind, r.Path) // a file name is one in the models folder
		send(ctx, w.switched, switchResult{kind: r.Kind, path: r.Path, err: err})
	})
	return false
}

func (w *settingsWorker) switchModel(ctx context.Context, kind, path string) error {
	switch kind {
	case panels.ModelChat:
		return w.eng.UseChatModel(ctx, path)
	case panels.ModelReranker:
		return w.eng.UseReranker(ctx, path)
	}
	progress := make(chan domain.Progress, 16)
	errc := make(chan error, 1)
	go func() { errc <- w.eng.UseEmbeddingModel(ctx, path, progress) }() // closes progress; waited for below
	for p := range progress {
		send(ctx, w.indexEv, panels.IndexEvent(panels.Progressed{Progress: p}))
	}
	return <-errc
}

func orNone(s string) string {
	if s == "" || s == config.NoModel {
		return "none"
	}
	return s
}

// models lists the GGUF files of the models folder, with the models the
// settings choose, and the devices they can run on.
func (w *settingsWorker) models() panels.ModelsListed {
	c := w.eng.Config()
	dir := c.Paths.ModelsDir
	ev := panels.ModelsListed{Dir: dir, Embedding: c.Embedding.Model, Chat: c.Generation.Model, Device: c.LLM.Device}
	ev.Devices, ev.DeviceNote = w.eng.Devices()
	entries, err := os.ReadDir(dir)
	for _, e := range entries {
		if !e.IsDir() && strings.EqualFold(filepath.Ext(e.Name()), ".gguf") {
			ev.Files = append(ev.Files, e.Name())
		}
	}
	if err != nil || len(ev.Files) == 0 {
		ev.Note = "No GGUF models in " + dir + ". Put an embedding model (e.g. all-MiniLM-L6-v2) and a chat model there."
	}
	return ev
}

// offers are the catalogue's models as the Models dialog lists them.
func (w *settingsWorker) offers() panels.ModelsOffered {
	return panels.ModelsOffered{Offers: w.eng.ModelOffers(), Mode: w.eng.NetworkMode()}
}

// pullEvery spaces a download's progress reports, as the index panel's
// are spaced (progressEvery).
const pullEvery = 200 * time.Millisecond

// pull downloads a catalogue model in a job, one at a time, through the
// engine (and so the network gate); its progress goes to the panel,
// throttled, with the rate measured since it started or resumed.
func (w *settingsWorker) pull(ctx context.Context, name string) {
	if w.pulling != "" {
		w.emit(ctx, panels.SettingsNotice{Text: "One model downloads at a time: " + w.pulling + " is downloading.", Err: true})
		return
	}
	kind := ""
	var size, from int64
	for _, o := range w.eng.ModelOffers() {
		if o.Name == name {
			kind, size, from = o.Kind, o.Size, o.Partial
		}
	}
	pctx, stop := context.WithCancel(ctx)
	w.pulling, w.stopPull, w.paused = name, stop, false
	w.emit(ctx, panels.PullProgressed{Name: name, Done: from, Total: size})
	w.jobs.spawn(func() {
		defer stop()
		// The download notes its progress; a reporter sends the latest
		// every pullEvery, so that a download stalled on the network still
		// shows where it stands, and a fast one costs the window five
		// updates a second.
		var mu sync.Mutex
		var latest panels.PullProgressed
		fresh := false
		meter := &rateMeter{}
		reported := make(chan struct{})
		go func() {
			defer close(reported)
			t := time.NewTicker(pullEvery)
			defer t.Stop()
			for {
				select {
				case <-pctx.Done():
					return
				case <-t.C:
				}
				mu.Lock()
				ev, ok := latest, fresh
				fresh = false
				mu.Unlock()
				if ok {
					send(pctx, w.events, panels.EngineeringEvent(ev))
				}
			}
		}()
		res, err := w.eng.PullModel(pctx, name, "", func(done, total int64) {
			now := time.Now()
			mu.Lock()
			defer mu.Unlock()
			meter.add(now, done)
			latest = panels.PullProgressed{Name: name, Done: done, Total: total, Rate: meter.rate()}
			if total > 0 && latest.Rate > 0 {
				latest.Left = time.Duration(float64(total-done) / latest.Rate * float64(time.Second))
			}
			fresh = true
		})
		stop()
		<-reported
		send(ctx, w.pulled, pullResult{name: name, kind: kind, res: res, err: err})
	})
}

// pullEnded takes in the end of a download: the panel hears how it ended,
// and the list what the models folder holds now.
func (w *settingsWorker) pullEnded(ctx context.Context, r pullResult) {
	paused := w.paused && errors.Is(r.err, context.Canceled)
	w.pulling, w.stopPull, w.paused = "", nil, false
	ev := panels.PullEnded{Name: r.name, Kind: r.kind, Result: r.res, Paused: paused, Err: r.err}
	if paused {
		ev.Err = nil
	}
	w.emit(ctx, ev)
	w.emit(ctx, w.offers())
	w.emit(ctx, w.models()) // the pickers list the new file
}

// rateMeter measures a download's rate over its last few seconds, so that
// the time left follows the connection as it is now, not its start.
type rateMeter struct {
	samples []rateSample
}

type rateSample struct {
	at    time.Time
	bytes int64
}

// rateWindow is how far back the rate looks.
const rateWindow = 5 * time.Second

func (m *rateMeter) add(at time.Time, bytes int64) {
	m.samples = append(m.samples, rateSample{at, bytes})
	for len(m.samples) > 2 && at.Sub(m.samples[1].at) > rateWindow {
		m.samples = m.samples[1:]
	}
}

// rate is bytes a second over the samples kept; 0 before a second of them.
func (m *rateMeter) rate() float64 {
	if len(m.samples) < 2 {
		return 0
	}
	first, last := m.samples[0], m.samples[len(m.samples)-1]
	el := last.at.Sub(first.at).Seconds()
	if el < 0.5 {
		return 0
	}
	return float64(last.bytes-first.bytes) / el
}

// saveNow writes the engine's settings that changed since the worker's
// last save (or its start) onto the settings file.
func (w *settingsWorker) saveNow() error {
	c := w.eng.Config()
	if err := w.save(w.base, c); err != nil {
		return err
	}
	w.base = c
	return nil
}

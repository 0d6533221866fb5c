package panels

import (
	"time"

	"cairn/core/config"
	"cairn/core/domain"
	"cairn/core/search"
)

// Tune re-ranks the last question's candidates (and the personal test set)
// under new knobs; it goes to the query worker. A change of the pools or
// the mode needs a new search.
type Tune struct{ Tuning config.Retrieval }

func (Tune) queryRequest() {}

// SettingsRequest is a request to the settings worker: SaveTuning,
// SetKnob, SetAnswering, UseProfile, UseModel, UseDevice, SetNetworkMode or
// SetServing.
type SettingsRequest interface{ settingsRequest() }

// SaveTuning persists the knobs to the settings file.
type SaveTuning struct{ Tuning config.Retrieval }

// UseProfile switches to a hardware profile's defaults (laptop, desktop,
// server) and persists the choice.
type UseProfile struct{ Name string }

// UseDevice picks the device the models run on: a setting of llm.device
// ("auto", "cpu", "Vulkan0").
type UseDevice struct{ Setting string }

// UseModel picks the embedding model, the reranker or the chat model (a
// GGUF file; "" for none).
type UseModel struct {
	Kind string // ModelEmbedding, ModelReranker or ModelChat
	Path string
}

// Model kinds.
const (
	ModelEmbedding = domain.ModelEmbedding
	ModelReranker  = domain.ModelReranker
	ModelChat      = domain.ModelChat
)

// ListModels asks for the catalogue's models, with what the models folder
// holds of each (ModelsOffered).
type ListModels struct{}

// PullModel downloads a catalogue model into the models folder, resuming
// a download stopped part way.
type PullModel struct{ Name string }

// PausePull stops the download of a model; what arrived is kept, and
// PullModel resumes it.
type PausePull struct{ Name string }

func (ListModels) settingsRequest() {}
func (PullModel) settingsRequest()  {}
func (PausePull) settingsRequest()  {}

// SetNetworkMode switches the network gate (offline, online or admin) and
// persists the choice. The panel asks the person first when the new mode
// allows more than the current one.
type SetNetworkMode struct{ Mode string }

// SetAnswering changes how answers are checked and whether the question
// is rewritten into a search query first; it applies to the next question
// and is saved.
type SetAnswering struct {
	Verify  string // off, warn or block
	Rewrite bool
}

// SetKnob changes one of config.Knobs that no worker but the settings
// worker needs (the chat model's and the answer's), for the next question,
// and saves it.
type SetKnob struct {
	Key   string // "generation.temperature"
	Value float64
}

// SetServing turns the window's local service (the API and MCP of `cairn
// serve`, on 127.0.0.1) on or off, and saves the choice (serve.enabled).
type SetServing struct{ On bool }

func (SetServing) settingsRequest()     {}
func (SetKnob) settingsRequest()        {}
func (SetAnswering) settingsRequest()   {}
func (SaveTuning) settingsRequest()     {}
func (UseProfile) settingsRequest()     {}
func (UseModel) settingsRequest()       {}
func (UseDevice) settingsRequest()      {}
func (SetNetworkMode) settingsRequest() {}

// EngineeringEvent is news for the engineering panel.
type EngineeringEvent interface{ engineeringEvent() }

// TuningLoaded sets every knob, the profile, the gate's mode and the
// answer settings from the settings in force, e.g. at start or after a
// profile switch.
type TuningLoaded struct {
	Settings config.Config
	Profiles []string
}

// MetricsComputed is the personal test set's quality under the current
// knobs.
type MetricsComputed struct {
	K         int
	Queries   int
	Recall    float64
	MRR       float64
	Judgments []domain.Judgment
}

// LiveRanking is the last question's sources as the knobs rank them now,
// shown beside the knobs, and the knobs that cannot change that order,
// with why (search.Inert).
type LiveRanking struct {
	Question string // "" before the first question
	Results  []search.Result
	Inert    map[string]string // knob name -> why it cannot change the order
}

// ModelsListed is the GGUF files in the models folder and the models the
// settings choose; Note says when there is nothing to choose from.
type ModelsListed struct {
	Dir       string
	Files     []string
	Embedding string
	Chat      string
	Note      string
	// Devices are the devices the models can run on, Device the setting
	// in force, DeviceNote why no GPU is among them (or "").
	Devices    []domain.DeviceChoice
	Device     string
	DeviceNote string
}

// ModelsOffered is the catalogue's models, with what the models folder
// holds of each, and the network gate's mode downloads go through.
type ModelsOffered struct {
	Offers []domain.ModelOffer
	Mode   string
}

// PullProgressed is how far a model's download has gone: bytes done of
// the total (-1 when the server does not say), the rate measured since
// it started or resumed, and the time left at that rate.
type PullProgressed struct {
	Name        string
	Done, Total int64
	Rate        float64 // bytes a second
	Left        time.Duration
}

// PullEnded says a model's download ended: downloaded (Result), paused,
// or failed (Err).
type PullEnded struct {
	Name   string
	Kind   string
	Result domain.ModelPull
	Paused bool
	Err    error
}

func (ModelsOffered) engineeringEvent()  {}
func (PullProgressed) engineeringEvent() {}
func (PullEnded) engineeringEvent()      {}

// NetworkModeChanged is the network gate's mode after a switch, or after a
// failed one (the picker goes back to it).
type NetworkModeChanged struct{ Mode string }

// SettingsNotice is a message for the person.
type SettingsNotice struct {
	Text string
	Err  bool
}

// ServingChanged is whether the window's local service runs, and where.
type ServingChanged struct {
	On   bool
	Addr string // 127.0.0.1:PORT while on
}

func (ServingChanged) engineeringEvent()     {}
func (TuningLoaded) engineeringEvent()       {}
func (LiveRanking) engineeringEvent()        {}
func (MetricsComputed) engineeringEvent()    {}
func (ModelsListed) engineeringEvent()       {}
func (SettingsNotice) engineeringEvent()     {}
func (NetworkModeChanged) engineeringEvent() {}

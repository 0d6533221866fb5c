package panels

import (
	"fmt"
	"path/filepath"
	"slices"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"cairn/core/config"
	"cairn/core/domain"
	"cairn/core/netgate"
	"cairn/core/search"
)

// Knob is the slider of a setting of config.Knobs, with its value and
// what it does (or why it cannot change the order now).
type Knob struct {
	config.Knob
	Slider *widget.Slider
	Value  *widget.Label
	Help   *widget.Label
}

// Engineering is the tuning panel: retrieval sliders that re-rank the last
// question's sources as they move, the personal test set's Recall@k and MRR
// under the current values, model pickers and the hardware profile.
type Engineering struct {
	Retrieval []*Knob // a slider for each of config.RetrievalKnobs
	Answering []*Knob // a slider for each of config.AnswerKnobs
	Fusion    *widget.RadioGroup
	Mode      *widget.Select
	Profile   *widget.Select
	Metrics   *widget.Label
	LiveHead  *widget.Label   // the question whose sources are ranked
	Live      *fyne.Container // its sources as the knobs rank them now
	Judged    *List
	Forget    *Button
	Embedding *widget.Select
	Chat      *widget.Select
	ModelNote *widget.Label
	Device    *widget.Select // where the models run: auto, CPU, a GPU
	DevHint   *widget.Label  // what a device choice does, and why no GPU is listed
	Gate      *widget.Select
	Verify    *widget.Select // what happens to unsupported claims
	Rewrite   *widget.Check  // query rewriting before retrieval
	Serve     *widget.Check  // the local service while the window is open
	State     *widget.Label
	// Download opens the Models dialog, Models the last one opened.
	Download *Button
	Models   *ModelsDialog

	win      fyne.Window           // parent of the confirmation dialog
	gateMode string                // the gate's mode as the worker last reported it
	query    func(QueryRequest)    // to the query worker; never blocks
	settings func(SettingsRequest) // to the settings worker; never blocks
	content  fyne.CanvasObject

	ready     bool
	filling   bool // code is setting the knobs; do not send
	judgments []domain.Judgment
	selected  int
	devices   []domain.DeviceChoice // the Device picker's options, as listed
	downloads downloadState         // the models' downloads, for the Models dialog
}

// Mode choices of the retrieval mode picker.
const (
	modeAuto   = "auto"
	modeHybrid = "hybrid"
	modeBM25   = "bm25"
	modeVector = "vector"
	noModel    = "(none)"
)

// NewEngineering builds the engineering panel. Knob changes go to the query
// worker through query (to re-rank) and to the settings worker through
// settings (to persist); neither may block. win is the parent of its
// dialogs.
func NewEngineering(win fyne.Window, query func(QueryRequest), settings func(SettingsRequest)) *Engineering {
	e := &Engineering{win: win, query: query, settings: settings, selected: -1}
	for _, k := range config.RetrievalKnobs {
		e.Retrieval = append(e.Retrieval, e.newKnob(k, func() { e.changed(false) }, func(float64) { e.save() }))
	}
	for _, k := range config.AnswerKnobs {
		e.Answering = append(e.Answering, e.newKnob(k, nil, func(v float64) { e.setKnob(k.Key, v) }))
	}
	e.Fusion = widget.NewRadioGroup([]string{string(search.FusionRRF), string(search.FusionWeighted)}, func(string) { e.changed(true) })
	e.Fusion.Horizontal = true
	e.Fusion.Required = true
	e.Mode = widget.NewSelect([]string{modeAuto, modeHybrid, modeBM25, modeVector}, func(string) { e.changed(true) })
	e.Profile = widget.NewSelect(nil, func(name string) {
		if !e.filling {
			e.settings(UseProfile{Name: name})
		}
	})
	e.Metrics = widget.NewLabel("Mark a source as the right answer (in Ask) to build your personal test set; its Recall@k and MRR follow the sliders here.")
	e.Metrics.Wrapping = fyne.TextWrapWord
	e.Judged = NewList(
		func() int { return len(e.judgments) },
		func() fyne.CanvasObject {
			l := widget.NewLabel("")
			l.Truncation = fyne.TextTruncateEllipsis
			return l
		},
		func(id widget.ListItemID, o fyne.CanvasObject) {
			if id < len(e.judgments) {
				j := e.judgments[id]
				o.(*widget.Label).SetText(fmt.Sprintf("%q → %s", j.Query, filepath.Base(j.Path)))
			}
		})
	e.Judged.OnSelected = func(id widget.ListItemID) { e.selected = id; e.sync() }
	e.Judged.OnUnselected = func(widget.ListItemID) { e.selected = -1; e.sync() }
	e.Forget = NewButtonWithIcon("Forget", theme.DeleteIcon(), func() {
		if e.selected >= 0 && e.selected < len(e.judgments) {
			j := e.judgments[e.selected]
			e.query(JudgeSource{Question: j.Query, Path: j.Path, ChunkID: j.ChunkID, Right: false})
		}
	})
	e.Embedding = widget.NewSelect(nil, func(s string) { e.pickModel(ModelEmbedding, s) })
	e.Chat = widget.NewSelect(nil, func(s string) { e.pickModel(ModelChat, s) })
	e.ModelNote = widget.NewLabel("")
	e.ModelNote.Wrapping = fyne.TextWrapWord
	e.ModelNote.Importance = widget.WarningImportance
	e.Device = widget.NewSelect(nil, e.pickDevice)
	e.Device.Disable() // until the devices are listed
	e.DevHint = widget.NewLabel(deviceHint)
	e.DevHint.Wrapping = fyne.TextWrapWord
	e.DevHint.SizeName = theme.SizeNameCaptionText
	e.Gate = widget.NewSelect(gateModes(), e.pickGate)
	e.Verify = widget.NewSelect([]string{verifyWarn, verifyBlock, verifyOff}, func(string) { e.answering() })
	e.Rewrite = widget.NewCheck("let the chat model rewrite the question into a search query", func(bool) { e.answering() })
	e.Serve = widget.NewCheck("serve the API and MCP on 127.0.0.1 while the window is open", func(on bool) {
		if !e.filling {
			e.settings(SetServing{On: on})
		}
	})
	e.State = widget.NewLabel("")
	e.State.Wrapping = fyne.TextWrapWord
	e.Download = NewButtonWithIcon("Download models…", theme.DownloadIcon(), e.showModels)

	modeHelp := widget.NewLabel("which retrievers run (new search); auto: hybrid when an embedding model is loaded")
	modeHelp.Wrapping = fyne.TextWrapWord
	cells := append(knobCells(e.Retrieval),
		widget.NewLabel("fusion"), e.Fusion, widget.NewLabel("RRF ranks, or weighted scores"),
		widget.NewLabel("retrieval"), e.Mode, modeHelp)
	grid := container.New(newSteadyFormGrid(e.helpTexts), cells...)
	// The intro wraps: as a card's subtitle it would set the window's
	// smallest width.
	intro := widget.NewLabel("Moving a slider re-ranks the sources of the last question at once; its answer is marked when they no longer agree.")
	intro.Wrapping = fyne.TextWrapWord
	tuning := widget.NewCard("Retrieval", "", container.NewVBox(intro, grid))
	testSet := widget.NewCard("Personal test set", "", container.NewBorder(e.Metrics, e.Forget, nil, nil, e.Judged))
	e.LiveHead = widget.NewLabel(liveEmpty)
	e.LiveHead.Wrapping = fyne.TextWrapWord
	e.Live = container.NewVBox()
	live := widget.NewCard("Sources, as ranked now", "", container.NewBorder(e.LiveHead, nil, nil, nil, container.NewVScroll(e.Live)))
	gate := widget.NewFormItem("Network gate", e.Gate)
	// Wrapped, not the form's one-line hint, which set the window's
	// smallest width.
	gateHint := widget.NewLabel("offline: this computer · online: + answer endpoint, model catalogue, network.allow · admin: any host")
	gateHint.Wrapping = fyne.TextWrapWord
	gateHint.SizeName = theme.SizeNameCaptionText
	models := widget.NewCard("Models and profile", "", container.NewVBox(
		widget.NewForm(
			widget.NewFormItem("Profile", e.Profile),
			widget.NewFormItem("Embedding model", e.Embedding),
			widget.NewFormItem("Chat model", e.Chat),
			widget.NewFormItem("Device", e.Device),
			gate,
			widget.NewFormItem("Local service", e.Serve),
		),
		e.DevHint, gateHint, e.ModelNote, container.NewHBox(e.Download), e.State))
	verify := widget.NewFormItem("Unsupported claims", e.Verify)
	verify.HintText = "claims whose words, numbers or meaning are not in the sources they cite"
	rewrite := widget.NewFormItem("Query rewriting", e.Rewrite)
	rewrite.HintText = "your own words are searched too when the rewrite drifts from them"
	answers := widget.NewCard("Answers", "", container.NewVBox(widget.NewForm(verify, rewrite),
		container.New(newFormGrid(), knobCells(e.Answering)...)))
	left := container.NewVScroll(container.NewVBox(tuning, answers, models))
	right := container.NewVSplit(live, testSet)
	right.Offset = 0.6
	split := container.NewHSplit(left, right)
	split.Offset = 0.6
	e.content = split
	e.sync()
	return e
}

// newKnob builds the slider of c; moved (if not nil) runs as it moves,
// ended with its value when the drag ends.
func (e *Engineering) newKnob(c config.Knob, moved func(), ended func(float64)) *Knob {
	k := &Knob{Knob: c, Slider: widget.NewSlider(c.Lo, c.Hi), Value: widget.NewLabel(c.Format(c.Lo)), Help: widget.NewLabel(c.Help)}
	k.Help.Wrapping = fyne.TextWrapWord
	k.Slider.Step = c.Step
	k.Slider.OnChanged = func(v float64) {
		k.Value.SetText(c.Format(v))
		if moved != nil {
			moved()
		}
	}
	k.Slider.OnChangeEnded = ended
	return k
}

// setKnob sends a chat-model or answer knob to the settings worker.
func (e *Engineering) setKnob(key string, v float64) {
	if !e.filling && e.ready {
		e.settings(SetKnob{Key: key, Value: v})
	}
}

// helpTexts are the texts a retrieval knob's help can show: its own, and
// each reason it cannot change the order (search.Inert), so that its row
// is laid out as tall as the tallest from the start.
func (e *Engineering) helpTexts(help fyne.CanvasObject) []string {
	for _, k := range e.Retrieval {
		if k.Help == help {
			return append([]string{k.Knob.Help}, inertTexts[k.Name()]...)
		}
	}
	return nil
}

// inertTexts are, by knob name, the texts showLive gives a knob that
// cannot change the order: search.Inert's reasons under every mode and
// fusion, and over a single list of candidates.
var inertTexts = func() map[string][]string {
	out := map[string][]string{}
	add := func(m map[string]string) {
		for name, why := range m {
			t := inertText(why)
			if !slices.Contains(out[name], t) {
				out[name] = append(out[name], t)
			}
		}
	}
	p := search.DefaultParams()
	for _, mode := range []search.Mode{search.ModeBM25, search.ModeVector, search.ModeHybrid} {
		for _, f := range []search.Fusion{search.FusionRRF, search.FusionWeighted} {
			p.Fusion = f
			add(search.Inert(nil, mode, p))
		}
		// One list of one passage: rrf_k cannot reorder it.
		one := &search.Candidates{Mode: mode, Passages: map[int64]*search.Passage{1: {ChunkID: 1}}}
		hits := []search.Hit{{ChunkID: 1, Score: 1}}
		switch mode {
		case search.ModeBM25:
			one.BM25 = hits
		case search.ModeVector:
			one.Vector = hits
		default:
			continue
		}
		p.Fusion = search.FusionRRF
		add(search.Inert(one, mode, p))
	}
	return out
}()

// inertText is a knob's help when it cannot change the order, for why.
func inertText(why string) string { return "cannot change the order now: " + why }

// knobs are every slider, retrieval's first.
func (e *Engineering) knobs() []*Knob { return append(slices.Clip(e.Retrieval), e.Answering...) }

// knobCells are the grid cells of sliders: name, slider with value, help.
func knobCells(ks []*Knob) []fyne.CanvasObject {
	var cells []fyne.CanvasObject
	for _, k := range ks {
		cells = append(cells, widget.NewLabel(k.Label), container.NewBorder(nil, nil, nil, k.Value, k.Slider), k.Help)
	}
	return cells
}

// Knob is the slider of the setting key ("retrieval.top_k"); nil when
// there is none.
func (e *Engineering) Knob(key string) *Knob {
	for _, k := range e.knobs() {
		if k.Key == key {
			return k
		}
	}
	return nil
}

// Content is the panel's root object.
func (e *Engineering) Content() fyne.CanvasObject { return e.content }

// Tuning is the retrieval settings the knobs show.
func (e *Engineering) Tuning() config.Retrieval {
	var c config.Config
	for _, k := range e.Retrieval {
		k.Set(&c, k.Slider.Value)
	}
	c.Retrieval.Fusion = e.Fusion.Selected
	switch e.Mode.Selected {
	case modeHybrid, modeBM25, modeVector:
		c.Retrieval.Mode = e.Mode.Selected
	}
	return c.Retrieval
}

// changed sends the knobs to the query worker, and with persist to the
// settings worker too (pickers, which have no drag to wait for).
func (e *Engineering) changed(persist bool) {
	if e.filling || !e.ready {
		return
	}
	e.query(Tune{Tuning: e.Tuning()})
	if persist {
		e.save()
	}
}

func (e *Engineering) save() {
	if !e.filling && e.ready {
		e.settings(SaveTuning{Tuning: e.Tuning()})
	}
}

func (e *Engineering) pickModel(kind, choice string) {
	if e.filling {
		return
	}
	if choice == noModel {
		choice = ""
	}
	e.settings(UseModel{Kind: kind, Path: choice})
}

// deviceHint says what the Device picker's choice does.
const deviceHint = "device: auto is the first GPU, else the CPU; a change applies as each model next loads"

// pickDevice sends the device picked, by its llm.device setting.
func (e *Engineering) pickDevice(label string) {
	if e.filling {
		return
	}
	for _, d := range e.devices {
		if d.Label == label {
			e.settings(UseDevice{Setting: d.Setting})
		}
	}
}

// showDevices fills the Device picker: the devices listed, and the setting
// in force selected (shown as not found when it names a GPU that is not
// here).
func (e *Engineering) showDevices(ev ModelsListed) {
	e.devices = slices.Clone(ev.Devices)
	if !slices.ContainsFunc(e.devices, func(d domain.DeviceChoice) bool { return d.Setting == ev.Device }) && ev.Device != "" {
		e.devices = append(e.devices, domain.DeviceChoice{Setting: ev.Device, Label: ev.Device + " (not found here)"})
	}
	labels := make([]string, len(e.devices))
	selected := ""
	for i, d := range e.devices {
		labels[i] = d.Label
		if d.Setting == ev.Device {
			selected = d.Label
		}
	}
	e.Device.SetOptions(labels)
	e.Device.SetSelected(selected)
	hint := deviceHint
	if ev.DeviceNote != "" {
		hint += ".\nNo GPU listed: " + ev.DeviceNote
	}
	e.DevHint.SetText(hint)
	e.Device.Enable()
}

// Choices of the verification picker, and the answer.verify value of each.
const (
	verifyWarn  = "flag them (warn)"
	verifyBlock = "withhold the answer (block)"
	verifyOff   = "do not check (off)"
)

var verifyValues = map[string]string{verifyWarn: "warn", verifyBlock: "block", verifyOff: "off"}

// answering sends the answer settings to the settings worker.
func (e *Engineering) answering() {
	if e.filling || !e.ready {
		return
	}
	e.settings(SetAnswering{Verify: verifyValues[e.Verify.Selected], Rewrite: e.Rewrite.Checked})
}

// gateModes are the network gate's modes in the gate's own order.
func gateModes() []string {
	var out []string
	for _, m := range netgate.Modes() {
		out = append(out, string(m))
	}
	return out
}

// pickGate switches the network gate, after asking when the new mode lets
// more through than the current one.
func (e *Engineering) pickGate(mode string) {
	if e.filling || !e.ready || mode == e.gateMode {
		return
	}
	if !netgate.Mode(e.gateMode).Opens(netgate.Mode(mode)) {
		e.settings(SetNetworkMode{Mode: mode})
		return
	}
	what := netgate.Mode(mode).Info().Reaches
	msg := widget.NewLabel(fmt.Sprintf("In %s mode Cairn may connect to %s, besides this computer.\n"+
		"Questions and passages of your documents can then leave the machine when an online endpoint answers.\n"+
		"Every connection is recorded in the audit log.", mode, what))
	msg.Wrapping = fyne.TextWrapWord
	d := dialog.NewCustomConfirm("Switch the network gate to "+mode+"?", "Switch to "+mode, "Stay "+e.gateMode, msg,
		func(ok bool) {
			if ok {
				e.settings(SetNetworkMode{Mode: mode})
				return
			}
			e.showGate(e.gateMode)
		}, e.win)
	d.Resize(fyne.NewSize(520, 240))
	ConfirmKeys(d, e.win)
	d.Show()
}

// showGate sets the picker without sending anything.
func (e *Engineering) showGate(mode string) {
	e.filling = true
	e.Gate.SetSelected(mode)
	e.filling = false
}

// Apply shows the workers' events; call it on the window's goroutine.
func (e *Engineering) Apply(events ...EngineeringEvent) {
	for _, ev := range events {
		switch ev := ev.(type) {
		case TuningLoaded:
			e.load(ev)
		case LiveRanking:
			e.showLive(ev)
		case MetricsComputed:
			e.judgments = ev.Judgments
			e.selected = -1
			e.Judged.UnselectAll()
			e.Judged.Refresh()
			if ev.Queries == 0 {
				e.Metrics.SetText("No judged questions yet. In Ask, tick \"Right answer\" on the source that answers a question; " +
					"Recall@k and MRR of those questions then follow the sliders here.")
			} else {
				e.Metrics.SetText(fmt.Sprintf("%s judged · Recall@%d %.2f · MRR %.2f (under the current sliders)",
					plural(ev.Queries, "question", "questions"), ev.K, ev.Recall, ev.MRR))
			}
		case ModelsListed:
			e.filling = true
			opts := append([]string{noModel}, ev.Files...)
			e.Embedding.SetOptions(opts)
			e.Chat.SetOptions(opts)
			e.Embedding.SetSelected(orNone(ev.Embedding))
			e.Chat.SetSelected(orNone(ev.Chat))
			e.filling = false
			e.ModelNote.SetText(ev.Note)
			e.Embedding.Enable() // "(none)" is a choice even in an empty folder
			e.Chat.Enable()
			e.filling = true
			e.showDevices(ev)
			e.filling = false
		case ServingChanged:
			e.filling = true
			e.Serve.SetChecked(ev.On)
			e.filling = false
		case NetworkModeChanged:
			e.gateMode = ev.Mode
			e.showGate(ev.Mode)
			e.downloads.mode = ev.Mode
			e.showDownloads()
		case SettingsNotice:
			e.State.SetText(ev.Text)
		case ModelsOffered:
			e.downloads.offers, e.downloads.mode = ev.Offers, ev.Mode
			e.downloads.version++
			e.showDownloads()
		case PullProgressed:
			e.downloads.pulling, e.downloads.last = ev.Name, ev
			e.showDownloads()
		case PullEnded:
			if e.downloads.ended == nil {
				e.downloads.ended = map[string]PullEnded{}
			}
			e.downloads.pulling = ""
			e.downloads.ended[ev.Name] = ev
			e.showDownloads()
		}
	}
	e.sync()
}

// showDownloads brings the Models dialog, when open, up to date.
func (e *Engineering) showDownloads() {
	if e.Models != nil {
		e.Models.show(&e.downloads)
	}
}

// liveEmpty heads the live ranking before the first question.
const liveEmpty = "Ask a question in Ask: its sources appear here and move as you move the knobs."

// newLiveRow is a row of the live ranking: rank, name and place, cut with
// an ellipsis when the column is narrow, and the relevance in words beside
// them, always whole, since it is what the sliders change.
func newLiveRow() fyne.CanvasObject {
	title, match := widget.NewLabel(""), widget.NewLabel("")
	title.Truncation = fyne.TextTruncateEllipsis
	return container.NewBorder(nil, nil, nil, match, title)
}

// LiveRow returns the labels of a row of Live: the rank, name and place,
// and the relevance in words.
func LiveRow(o fyne.CanvasObject) (title, match *widget.Label) {
	c := o.(*fyne.Container) // Border: the centre first, then the right
	return c.Objects[0].(*widget.Label), c.Objects[1].(*widget.Label)
}

// showLive shows the sources as the knobs rank them, and beside each knob
// that cannot change that order, why.
func (e *Engineering) showLive(ev LiveRanking) {
	if ev.Question == "" {
		setText(e.LiveHead, liveEmpty)
	} else {
		setText(e.LiveHead, fmt.Sprintf("%q: %s", ev.Question, plural(len(ev.Results), "source", "sources")))
	}
	rows := e.Live.Objects
	for len(rows) < len(ev.Results) {
		rows = append(rows, newLiveRow())
	}
	for i, r := range ev.Results {
		where := location(r.Passage)
		if where != "" {
			where = " · " + where
		}
		title, match := LiveRow(rows[i])
		setText(title, fmt.Sprintf("%d. %s%s", r.Rank, sourceTitle(r.Passage), where))
		setText(match, r.MatchLabel())
	}
	if len(rows) != len(e.Live.Objects) || len(ev.Results) != len(e.Live.Objects) {
		e.Live.Objects = rows[:len(ev.Results)]
		e.Live.Refresh()
	}
	for _, k := range e.Retrieval {
		why, inert := ev.Inert[k.Name()]
		text, imp := k.Knob.Help, widget.MediumImportance
		if inert {
			text, imp = inertText(why), widget.WarningImportance
		}
		if k.Help.Text != text || k.Help.Importance != imp {
			k.Help.Importance = imp
			k.Help.SetText(text)
		}
	}
}

func orNone(s string) string {
	if s == "" {
		return noModel
	}
	return s
}

func (e *Engineering) load(ev TuningLoaded) {
	e.filling = true
	c := ev.Settings
	for _, k := range e.knobs() {
		k.Slider.SetValue(k.Get(c))
		k.Value.SetText(k.Format(k.Slider.Value))
	}
	t := c.Retrieval
	fusion := t.Fusion
	if fusion == "" {
		fusion = string(search.FusionRRF)
	}
	e.Fusion.SetSelected(fusion)
	mode := modeAuto
	if t.Mode != "" {
		mode = t.Mode
	}
	e.Mode.SetSelected(mode)
	e.Profile.SetOptions(ev.Profiles)
	e.Profile.SetSelected(c.Profile)
	e.Gate.SetSelected(c.Network.Mode)
	e.gateMode = c.Network.Mode
	for label, v := range verifyValues {
		if v == c.Answer.Verify {
			e.Verify.SetSelected(label)
		}
	}
	e.Rewrite.SetChecked(c.Answer.Rewrite)
	e.filling = false
	e.ready = true
	e.changed(false)
}

func (e *Engineering) sync() {
	for _, k := range e.knobs() {
		enable(k.Slider, e.ready)
	}
	enable(e.Fusion, e.ready)
	enable(e.Mode, e.ready)
	enable(e.Profile, e.ready)
	enable(e.Gate, e.ready)
	enable(e.Verify, e.ready)
	enable(e.Rewrite, e.ready)
	enable(e.Serve, e.ready)
	enable(e.Forget, e.ready && e.selected >= 0)
}

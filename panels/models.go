package panels

import (
	"fmt"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"cairn/core/domain"
	"cairn/core/humanize"
	"cairn/core/netgate"
)

// ModelsDialog lists the catalogue's models (embedding, reranker, chat)
// with their size and what each needs, and downloads one with progress,
// pause and resume, through the network gate; a downloaded model is one
// click from use. The downloads run in the settings worker: the dialog
// only shows them, and closing it leaves a download going.
type ModelsDialog struct {
	Note *widget.Label // why downloads are refused (offline), or the last outcome
	Rows []*ModelRow

	d       dialog.Dialog
	list    *fyne.Container
	post    func(SettingsRequest)
	shownAt int // the offers' version the rows show
}

// ModelRow is one model of the catalogue in the Models dialog.
type ModelRow struct {
	Name     *widget.Label
	About    *widget.Label // kind, size, what it needs, licence, notes
	Bar      *widget.ProgressBar
	Progress *widget.Label // bytes, rate, time left; the outcome
	Download *Button       // Download, Pause or Resume
	Use      *Button

	offer domain.ModelOffer
	box   *fyne.Container
}

// modelKinds names the kinds as the dialog lists them, in its order.
var modelKinds = []struct{ kind, title string }{
	{domain.ModelEmbedding, "embedding model (meaning search)"},
	{domain.ModelReranker, "reranker (orders the sources)"},
	{domain.ModelChat, "chat model (writes answers)"},
}

func kindTitle(kind string) string {
	for _, k := range modelKinds {
		if k.kind == kind {
			return k.title
		}
	}
	return kind
}

// downloadState is the models' downloads as the settings worker reports
// them, kept by the Engineering panel so that a dialog opened later shows
// them.
type downloadState struct {
	offers  []domain.ModelOffer
	mode    string // the network gate's mode
	pulling string // the model being downloaded; "" for none
	last    PullProgressed
	ended   map[string]PullEnded // each model's last outcome
	version int                  // counts the changes of offers
}

// showModels opens the Models dialog.
func (e *Engineering) showModels() {
	m := &ModelsDialog{post: e.settings, shownAt: -1}
	m.Note = widget.NewLabel("")
	m.Note.Wrapping = fyne.TextWrapWord
	m.list = container.NewVBox()
	intro := widget.NewLabel("Models from Cairn's catalogue, downloaded into the models folder through the network gate. " +
		"A download can be paused and resumed (here or with `cairn models pull`), and its SHA-256 is checked where the catalogue has one.")
	intro.Wrapping = fyne.TextWrapWord
	content := container.NewBorder(container.NewVBox(intro, m.Note), nil, nil, nil, container.NewVScroll(m.list))
	d := dialog.NewCustom("Models", "Close", content, e.win)
	size := e.win.Canvas().Size()
	d.Resize(fyne.NewSize(min(760, size.Width*0.95), min(520, size.Height*0.95)))
	m.d = d
	e.Models = m
	m.show(&e.downloads)
	DialogKeys(d, e.win)
	d.Show()
	e.settings(ListModels{})
}

// show brings the dialog up to date with the downloads.
func (m *ModelsDialog) show(st *downloadState) {
	if m.shownAt != st.version && !m.listsAll(st.offers) {
		m.shownAt = st.version
		m.Rows = nil
		var objs []fyne.CanvasObject
		for _, k := range modelKinds {
			for _, o := range st.offers {
				if o.Kind == k.kind {
					r := m.newRow(o)
					m.Rows = append(m.Rows, r)
					objs = append(objs, r.box)
				}
			}
		}
		m.list.Objects = objs
		m.list.Refresh()
	}
	note := ""
	if st.mode != "" && !netgate.Mode(st.mode).Info().Leaves {
		note = "The network gate is " + st.mode + ": downloads need it online. Switch it under Network gate in the Engineering tab " +
			"(online reaches only the model catalogue, the answer endpoint and network.allow), or run `cairn network online`."
	}
	setText(m.Note, note)
	m.Note.Importance = widget.WarningImportance
	if note == "" {
		m.Note.Hide()
	} else {
		m.Note.Show()
	}
	for _, r := range m.Rows {
		r.show(st)
	}
}

// listsAll says whether the rows are those of offers already: a new list
// of the same models (what the folder holds changed) updates the rows in
// place.
func (m *ModelsDialog) listsAll(offers []domain.ModelOffer) bool {
	if len(m.Rows) != len(offers) {
		return false
	}
	names := map[string]bool{}
	for _, o := range offers {
		names[o.Name] = true
	}
	for _, r := range m.Rows {
		if !names[r.offer.Name] {
			return false
		}
	}
	return true
}

func (m *ModelsDialog) newRow(o domain.ModelOffer) *ModelRow {
	r := &ModelRow{offer: o, Name: widget.NewLabel(o.Name), About: widget.NewLabel(""), Bar: widget.NewProgressBar(),
		Progress: widget.NewLabel("")}
	r.Name.TextStyle.Bold = true
	r.About.Wrapping = fyne.TextWrapWord
	r.About.SizeName = theme.SizeNameCaptionText
	about := fmt.Sprintf("%s · %s · %s", kindTitle(o.Kind), humanize.Bytes(o.Size), o.Needs)
	if o.Notes != "" {
		about += " · " + o.Notes
	}
	if o.License != "" {
		about += " · licence " + o.License
	}
	r.About.SetText(about)
	r.Progress.Wrapping = fyne.TextWrapWord
	r.Download = NewButtonWithIcon("Download", theme.DownloadIcon(), func() { r.toggle(m.post) })
	r.Use = NewButtonWithIcon("Use", theme.ConfirmIcon(), func() {
		m.post(UseModel{Kind: o.Kind, Path: o.File})
	})
	r.Use.Importance = widget.HighImportance
	head := container.NewBorder(nil, nil, nil, container.NewHBox(r.Download, r.Use), r.Name)
	r.box = container.NewVBox(head, r.About, r.Bar, r.Progress, widget.NewSeparator())
	return r
}

// toggle starts, pauses or resumes the row's download.
func (r *ModelRow) toggle(post func(SettingsRequest)) {
	if r.Download.Text == "Pause" {
		post(PausePull{Name: r.offer.Name})
		return
	}
	post(PullModel{Name: r.offer.Name})
}

// show brings the row up to date.
func (r *ModelRow) show(st *downloadState) {
	o := r.offer
	for _, n := range st.offers {
		if n.Name == o.Name {
			o = n
		}
	}
	r.offer = o
	pulling := st.pulling == o.Name
	ended, hasEnded := st.ended[o.Name]
	label, icon := "Download", theme.DownloadIcon()
	switch {
	case pulling:
		label, icon = "Pause", theme.MediaPauseIcon()
	case o.Partial > 0:
		label, icon = "Resume", theme.MediaPlayIcon()
	}
	if r.Download.Text != label {
		r.Download.SetText(label)
		r.Download.SetIcon(icon)
	}
	show(r.Download, !o.Have)
	enable(r.Download, pulling || st.pulling == "")
	show(r.Use, o.Have)
	switch {
	case pulling:
		p := st.last
		total := p.Total
		if total <= 0 { // the server did not say: the catalogue's size
			total = max(o.Size, p.Done)
		}
		r.Bar.SetValue(float64(p.Done) / float64(max(total, 1)))
		show(r.Bar, true)
		line := humanize.Bytes(p.Done) + " of " + humanize.Bytes(total)
		if p.Rate > 0 {
			line += fmt.Sprintf(" · %s/s", humanize.Bytes(int64(p.Rate)))
		}
		if p.Left > 0 {
			line += " · about " + formatClock(p.Left.Round(time.Second)) + " left"
		}
		setText(r.Progress, line)
	case o.Partial > 0:
		r.Bar.SetValue(float64(o.Partial) / float64(max(o.Size, o.Partial)))
		show(r.Bar, true)
		setText(r.Progress, "Paused at "+humanize.Bytes(o.Partial)+": Resume continues where it stopped.")
	default:
		show(r.Bar, false)
		setText(r.Progress, "")
	}
	if !pulling && hasEnded {
		setText(r.Progress, pullOutcome(ended))
	}
	r.Progress.Importance = widget.MediumImportance
	if hasEnded && ended.Err != nil && !ended.Paused {
		r.Progress.Importance = widget.DangerImportance
	}
	show(r.Progress, r.Progress.Text != "")
	r.Progress.Refresh()
}

// pullOutcome says how a download ended.
func pullOutcome(ev PullEnded) string {
	res := ev.Result
	switch {
	case ev.Paused:
		return "Paused: Resume continues where it stopped."
	case ev.Err != nil:
		return "Not downloaded: " + ErrorText(ev.Err)
	case res.Existed:
		return "Already in the models folder: " + res.Path
	case res.Checked:
		return fmt.Sprintf("Downloaded (%s), SHA-256 %s checked. Use makes it the %s.", humanize.Bytes(res.Bytes), res.SHA256, kindTitle(ev.Kind))
	default:
		return fmt.Sprintf("Downloaded (%s). SHA-256 %s: the catalogue has no digest for this model, compare it with the publisher's. "+
			"Use makes it the %s.", humanize.Bytes(res.Bytes), res.SHA256, kindTitle(ev.Kind))
	}
}

// show shows or hides o.
func show(o fyne.CanvasObject, on bool) {
	if on != o.Visible() {
		if on {
			o.Show()
		} else {
			o.Hide()
		}
	}
}

package panels

import (
	"fmt"
	"path/filepath"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/layout"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"cairn/core/search"
)

// PreviewPane shows a cited passage where it sits in its file, inside the
// window: a PDF's page drawn as an image beside its text, any other file's
// lines around the passage, the passage highlighted in the text. It works
// on every machine, whatever viewers are installed; Open in viewer is the
// extra, and when it fails the pane says so and offers Show in folder.
type PreviewPane struct {
	Title  *widget.Label
	Where  *widget.Label
	Note   *widget.Label // the file changed, the page could not be drawn, the viewer failed
	Page   *canvas.Image // the PDF page; hidden for other formats
	Text   *widget.RichText
	Viewer *Button // Open in viewer
	Folder *Button // Show in folder
	Close  *Button

	passage   *search.Passage
	notAnswer bool // the passage is one of the closest, not an answer
	textView  *container.Scroll
	pageView  *container.Scroll
	body      *container.Split
	content   *fyne.Container
	onOpen    func(*search.Passage)
	onFolder  func(path string)
	onClose   func()
	textWrap  *softWrap // lays Text out in rows (see softWrap)
}

func newPreviewPane(onOpen func(*search.Passage), onFolder func(string), onClose func()) *PreviewPane {
	p := &PreviewPane{
		Title:    widget.NewLabel(""),
		Where:    widget.NewLabel(""),
		Note:     widget.NewLabel(""),
		Page:     canvas.NewImageFromImage(nil),
		Text:     widget.NewRichText(),
		onOpen:   onOpen,
		onFolder: onFolder,
		onClose:  onClose,
	}
	p.Title.TextStyle.Bold = true
	p.Title.Truncation = fyne.TextTruncateEllipsis
	p.Note.Wrapping = fyne.TextWrapWord
	p.Note.Importance = widget.WarningImportance
	p.Note.Hide()
	p.Page.FillMode = canvas.ImageFillContain
	p.Page.ScaleMode = canvas.ImageScaleSmooth
	p.Text.Wrapping = fyne.TextWrapWord
	p.Viewer = NewButtonWithIcon("Open in viewer", theme.FileIcon(), func() {
		if p.passage != nil {
			p.onOpen(p.passage)
		}
	})
	p.Folder = NewButtonWithIcon("Show in folder", theme.FolderOpenIcon(), func() {
		if p.passage != nil {
			p.onFolder(p.passage.Path)
		}
	})
	p.Close = NewButtonWithIcon("", theme.CancelIcon(), onClose)
	p.Close.Importance = widget.LowImportance
	var textBox *fyne.Container
	p.textWrap, textBox = newSoftWrap(p.Text)
	p.textView = container.NewVScroll(textBox)
	p.pageView = container.NewScroll(p.Page)
	p.body = container.NewHSplit(p.pageView, p.textView)
	p.pageView.Hide()
	head := container.NewBorder(nil, nil, nil, p.Close, container.NewVBox(p.Title, p.Where))
	buttons := container.NewHBox(p.Viewer, p.Folder, layout.NewSpacer())
	p.content = container.NewBorder(container.NewVBox(head, p.Note), buttons, nil, nil, p.body)
	p.content.Hide()
	return p
}

// loading shows that passage's preview is on its way; notAnswer marks it
// as one of the closest passages of a question the documents do not
// cover, which must not read as an answer.
func (p *PreviewPane) loading(pass *search.Passage, notAnswer bool) {
	p.passage, p.notAnswer = pass, notAnswer
	p.Title.SetText(sourceTitle(pass))
	p.Title.Refresh()
	p.Where.SetText(location(pass) + " · loading…")
	p.setNote()
	if notAnswer {
		p.setNote(notAnswerNote)
	}
	p.Folder.Importance = widget.MediumImportance
	p.Folder.Refresh()
	p.content.Show()
}

// notAnswerNote heads the preview of a passage that is not an answer.
const notAnswerNote = "Closest passage — not an answer: your documents do not seem to cover the question."

// show fills the pane with a preview; image is the drawn page (nil for
// none), imageErr why a PDF page could not be drawn.
func (p *PreviewPane) show(ev PreviewShown) {
	if p.passage == nil || ev.Passage.ChunkID != p.passage.ChunkID {
		return // a preview replaced by a newer click
	}
	where := location(ev.Passage)
	if ev.Preview.FirstLine > 0 && ev.Err == nil {
		where += fmt.Sprintf(" · shown from line %d", ev.Preview.FirstLine)
	}
	p.Where.SetText(where)
	var notes []string
	if p.notAnswer {
		notes = append(notes, notAnswerNote)
	}
	if ev.Err != nil {
		notes = append(notes, "Cannot show the file: "+ErrorText(ev.Err)+". Shown is the passage as indexed.")
		p.textWrap.set(highlighted(ev.Passage.Text, []search.Span{{Start: 0, End: len(ev.Passage.Text)}}))
	} else {
		pv := ev.Preview
		if pv.Note != "" {
			notes = append(notes, pv.Note)
		}
		p.textWrap.set(highlighted(pv.Text, []search.Span{{Start: pv.Start, End: pv.End}}))
	}
	p.Page.Image = nil
	if ev.Image != nil {
		p.Page.Image = ev.Image
		b := ev.Image.Bounds()
		// Half the drawn size: a page drawn at 640 px shows whole in the pane.
		p.Page.SetMinSize(fyne.NewSize(float32(b.Dx())/2, float32(b.Dy())/2))
	}
	if ev.ImageErr != nil {
		notes = append(notes, "The page could not be drawn: "+ErrorText(ev.ImageErr)+".")
	}
	if p.Page.Image != nil {
		p.pageView.Show()
	} else {
		p.pageView.Hide()
	}
	p.Page.Refresh()
	p.body.Refresh()
	p.setNote(notes...)
	p.textView.ScrollToTop()
	p.scrollToPassage(ev)
}

// scrollToPassage brings the highlighted lines into view: the share of
// the text before the passage is the share of the scroll height.
func (p *PreviewPane) scrollToPassage(ev PreviewShown) {
	pv := ev.Preview
	if ev.Err != nil || !pv.Found || len(pv.Text) == 0 {
		return
	}
	h := p.Text.MinSize().Height
	p.textView.Offset.Y = max(0, h*float32(pv.Start)/float32(len(pv.Text))-40)
	p.textView.Refresh()
}

// openFailed says the external viewer did not start, and points at Show in
// folder.
func (p *PreviewPane) openFailed(err error) {
	p.setNote("Could not open the file in a viewer: " + ErrorText(err) +
		". The passage is shown here; Show in folder opens the folder that holds the file.")
	p.Folder.Importance = widget.HighImportance
	p.Folder.Refresh()
}

// folderFailed says the file manager did not start either.
func (p *PreviewPane) folderFailed(path string, err error) {
	p.setNote("Could not show the folder either: " + ErrorText(err) + ". The file is " + path + ".")
}

func (p *PreviewPane) setNote(notes ...string) {
	text := ""
	for i, n := range notes {
		if i > 0 {
			text += "\n"
		}
		text += n
	}
	p.Note.SetText(text)
	p.Note.Hidden = text == ""
	p.Note.Refresh()
}

func (p *PreviewPane) hide() {
	p.passage = nil
	p.Folder.Importance = widget.MediumImportance
	p.content.Hide()
}

// sourceTitle is how a passage's file is named: its file name with the
// extension. A document's own title can be a version ("2.39.0") or a
// project ("debian"), which says nothing about which file it is; Why
// shows it.
func sourceTitle(pass *search.Passage) string { return filepath.Base(pass.Path) }

// Visible says whether the pane is shown.
func (p *PreviewPane) Visible() bool { return p.content.Visible() }

// Passage is the passage shown, nil when none.
func (p *PreviewPane) Passage() *search.Passage { return p.passage }

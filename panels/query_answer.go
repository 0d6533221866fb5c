package panels

import (
	"fmt"
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"cairn/core/answer"
	"cairn/core/humanize"
)

// answerView shows an answer: its text as plain text (document text is
// never read as Markdown), with every [n] citation a link to the cited
// source once the answer is complete, and under it the verdict, the claims
// that failed verification, and the timing and mode lines. Above the text,
// a stale note with Answer again shows when the sliders have re-ranked the
// sources since the answer was written.
type answerView struct {
	Text        *widget.RichText
	Stale       *widget.Label
	AnswerAgain *Button
	// WordForms counts a question about the collection again, every form
	// of its words (shown under a count of whole words).
	WordForms *Button
	Verdict   *widget.Label
	Claims    *widget.Label
	Timing    *widget.Label
	Mode      *widget.Label

	verdictIcon *widget.Icon
	badge       *fyne.Container
	staleBox    *fyne.Container
	content     fyne.CanvasObject
	buf         strings.Builder
	generated   bool // the text is a chat model's: its Markdown markers are taken away
	onCite      func(n int)
	textWrap    *softWrap // lays Text out in rows (see softWrap)
}

func newAnswerView(onCite func(n int), answerAgain, countForms func()) *answerView {
	v := &answerView{
		Text:        widget.NewRichText(),
		Stale:       widget.NewLabel(""),
		AnswerAgain: NewButtonWithIcon("Answer again", theme.ViewRefreshIcon(), answerAgain),
		WordForms:   NewButton("Count every form of the words", countForms),
		Verdict:     widget.NewLabel(""),
		Claims:      widget.NewLabel(""),
		Timing:      widget.NewLabel(""),
		Mode:        widget.NewLabel(""),
		verdictIcon: widget.NewIcon(nil),
		onCite:      onCite,
	}
	v.Text.Wrapping = fyne.TextWrapWord
	v.Stale.Wrapping = fyne.TextWrapWord
	v.Stale.Importance = widget.WarningImportance
	v.Claims.Wrapping = fyne.TextWrapWord
	// The verdict, timing and mode lines wrap: one line each, they set the
	// answer column's smallest width (the mode line alone 640 px), and with
	// the preview pane open the window's smallest width above a 1024 px
	// screen's.
	v.Verdict.Wrapping = fyne.TextWrapWord
	v.Timing.Wrapping = fyne.TextWrapWord
	v.Mode.Wrapping = fyne.TextWrapWord
	v.Timing.TextStyle.Italic = true
	v.Mode.TextStyle.Italic = true
	v.badge = container.NewBorder(nil, nil, v.verdictIcon, nil, v.Verdict)
	v.staleBox = container.NewBorder(nil, nil, widget.NewIcon(theme.WarningIcon()), v.AnswerAgain, v.Stale)
	v.hideVerdict()
	v.Claims.Hide()
	v.WordForms.Hide()
	v.staleBox.Hide()
	v.Timing.Hide()
	// Timing and mode close the answer, scrolling with it: as lines of
	// their own under the panel they took two sources' worth of height
	// from a small window.
	var textBox *fyne.Container
	v.textWrap, textBox = newSoftWrap(v.Text)
	v.content = container.NewVBox(v.staleBox, textBox, v.badge, v.Claims, container.NewHBox(v.WordForms), v.Timing, v.Mode)
	return v
}

// reset clears the answer for a new question; generated says whether a
// chat model will write it.
func (v *answerView) reset(generated bool) {
	v.buf.Reset()
	v.generated = generated
	v.render(nil, false)
	v.hideVerdict()
	v.Claims.Hide()
	v.WordForms.Hide()
	v.setStale(false, 0)
	showLine(v.Timing, "")
}

// showLine sets a line under the answer, hidden while it is empty: in a
// conversation of many answers, empty lines would take a row each.
func showLine(l *widget.Label, text string) {
	setText(l, text)
	if (text != "") != l.Visible() {
		if text != "" {
			l.Show()
		} else {
			l.Hide()
		}
	}
}

// showSaved shows an answer of a reopened conversation as it was saved,
// the citations of cited as links.
func (v *answerView) showSaved(text string, cited map[int]bool) {
	v.reset(false)
	v.buf.WriteString(text)
	v.render(cited, false)
	showLine(v.Mode, "")
}

// appendText adds streamed text.
func (v *answerView) appendText(s string) {
	v.buf.WriteString(s)
	v.render(nil, true)
}

// render lays the answer so far out as plain text, with the citations of
// cited as links and any other [n] as text; partial while it streams.
func (v *answerView) render(cited map[int]bool, partial bool) {
	text := v.buf.String()
	if v.generated {
		text = withoutMarkdown(text)
		if partial {
			text = withoutOpenMarkers(strings.TrimRight(text, partialMarkers))
		}
	}
	v.textWrap.set(citedText(text, cited, v.onCite))
}

// show renders a finished answer with live citations and its verdict.
func (v *answerView) show(a *answer.Answer) {
	v.buf.Reset()
	v.buf.WriteString(a.Text)
	// A withheld answer quotes the documents: their text stays as written.
	v.generated = a.Mode != answer.ModeExtractive && a.Mode != answer.ModeCollection && a.Verdict != answer.VerdictBlocked
	cited := map[int]bool{}
	for _, c := range a.Citations {
		cited[c.N] = true
	}
	v.render(cited, false)

	msg, icon, imp := verdictText(a)
	if msg == "" {
		v.hideVerdict()
	} else {
		v.Verdict.SetText(msg)
		v.Verdict.Importance = imp
		v.Verdict.Show()
		v.verdictIcon.SetResource(icon)
		v.badge.Show()
	}
	var notes []string
	for _, c := range a.Claims {
		if !c.Supported {
			notes = append(notes, fmt.Sprintf("Not supported by its sources: %q (%s)", c.Text, c.Reason))
		}
	}
	for _, n := range a.Removed {
		notes = append(notes, fmt.Sprintf("Citation [%d] pointed to no source and was removed.", n))
	}
	notes = append(notes, a.Notes...)
	if len(notes) == 0 {
		v.Claims.Hide()
	} else {
		v.Claims.SetText(strings.Join(notes, "\n"))
		v.Claims.Show()
	}
	showLine(v.Timing, timingLine(a))
	// A count of whole words is one click from the count of every form.
	if c := a.Collection; c != nil && len(c.Question.Terms)+len(c.Question.Not) > 0 && !c.Question.Forms && len(c.Question.Conflicts) == 0 {
		v.WordForms.Show()
	} else {
		v.WordForms.Hide()
	}
}

// setStale shows or hides the note that the list of sources changed since
// the answer, written from n sources, was shown.
func (v *answerView) setStale(stale bool, n int) {
	if !stale {
		v.staleBox.Hide()
		return
	}
	msg := "Retrieval settings changed the list of sources since this answer was written: " +
		"it no longer shows every one of the " + plural(n, "source", "sources") + " the answer was written from."
	if n == 0 {
		msg = "Retrieval settings changed the list of sources since this answer was written: under the earlier settings nothing matched."
	}
	setText(v.Stale, msg)
	v.staleBox.Show()
}

func (v *answerView) hideVerdict() {
	v.Verdict.SetText("")
	v.Verdict.Hide()
	v.badge.Hide()
}

// quotedLabel is the badge of an extractive answer.
const quotedLabel = "Quoted from your documents: passages copied word for word, nothing generated"

// verdictText is the badge for an answer's verdict; "" hides it.
func verdictText(a *answer.Answer) (string, fyne.Resource, widget.Importance) {
	switch {
	case a.Closest || a.NoSources:
		return "", nil, widget.MediumImportance
	// An extractive answer was never checked claim by claim: it quotes,
	// and "Verified" would promise a check that did not happen.
	case a.Verdict == answer.VerdictQuoted:
		return quotedLabel, theme.FileTextIcon(), widget.MediumImportance
	}
	switch a.Verdict {
	case answer.VerdictSupported:
		return "Verified: every claim is supported by a cited source", theme.ConfirmIcon(), widget.SuccessImportance
	case answer.VerdictPartial:
		return "Partly verified: some claims are not supported by their sources", theme.WarningIcon(), widget.WarningImportance
	case answer.VerdictUnsupported:
		return "Not verified: no claim is supported by its sources", theme.ErrorIcon(), widget.DangerImportance
	case answer.VerdictBlocked:
		return "Withheld: the answer's claims were not supported by the sources", theme.ErrorIcon(), widget.DangerImportance
	default:
		return "", nil, widget.MediumImportance
	}
}

// timingLine says where the answer's time went.
func timingLine(a *answer.Answer) string {
	t := a.Timing
	parts := []string{"Retrieval " + formatMs(t.Retrieval)}
	switch a.Mode {
	case answer.ModeExtractive:
		parts = append(parts, "no generation (extractive)")
	case answer.ModeCollection:
		parts = append(parts, "counted by the knowledge base, no model")
	default:
		parts = append(parts, "first token "+formatMs(t.PromptProcessing), "generation "+formatMs(t.Generation))
		if t.TokensPerSec > 0 {
			parts = append(parts, fmt.Sprintf("%.1f tokens/s", t.TokensPerSec))
		}
		if t.PromptTokens > 0 || t.Tokens > 0 {
			parts = append(parts, fmt.Sprintf("%d tokens in, %d out", t.PromptTokens, t.Tokens))
		}
	}
	parts = append(parts, "total "+formatMs(t.Total))
	if a.Cost > 0 {
		parts = append(parts, "estimated cost "+humanize.Cost(a.Cost))
	}
	return strings.Join(parts, " · ")
}

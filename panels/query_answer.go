package panels

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"cairn/core/answer"
)

// answerView shows an answer: its text as Markdown while it streams, then
// with every [n] citation turned into a link to the cited source, and under
// it the verification verdict, the claims that failed verification, and
// the timing and mode lines.
type answerView struct {
	Text    *widget.RichText
	Verdict *widget.Label
	Claims  *widget.Label
	Timing  *widget.Label
	Mode    *widget.Label

	verdictIcon *widget.Icon
	badge       *fyne.Container
	content     fyne.CanvasObject
	buf         strings.Builder
	onCite      func(n int)
}

func newAnswerView(onCite func(n int)) *answerView {
	v := &answerView{
		Text:        widget.NewRichText(),
		Verdict:     widget.NewLabel(""),
		Claims:      widget.NewLabel(""),
		Timing:      widget.NewLabel(""),
		Mode:        widget.NewLabel(""),
		verdictIcon: widget.NewIcon(nil),
		onCite:      onCite,
	}
	v.Text.Wrapping = fyne.TextWrapWord
	v.Claims.Wrapping = fyne.TextWrapWord
	v.Timing.TextStyle.Italic = true
	v.Mode.TextStyle.Italic = true
	v.badge = container.NewHBox(v.verdictIcon, v.Verdict)
	v.hideVerdict()
	v.Claims.Hide()
	v.content = container.NewVBox(v.Text, v.badge, v.Claims)
	return v
}

// reset clears the answer for a new question.
func (v *answerView) reset() {
	v.buf.Reset()
	v.Text.ParseMarkdown("")
	v.hideVerdict()
	v.Claims.Hide()
	v.Timing.SetText("")
}

// appendText adds streamed text.
func (v *answerView) appendText(s string) {
	v.buf.WriteString(s)
	v.render(nil)
}

// render parses the answer so far as Markdown, with the citations of cited
// as links and any other [n] as plain text. Citations are swapped for
// placeholders while the Markdown is parsed: the parser would take "[1]"
// for the start of a link and split it.
func (v *answerView) render(cited map[int]bool) {
	v.Text.ParseMarkdown(citationRE.ReplaceAllString(v.buf.String(), citeOpen+"$1"+citeClose))
	v.Text.Segments = linkCitations(v.Text.Segments, cited, v.onCite)
	v.Text.Refresh()
}

// show renders a finished answer with live citations and its verdict.
func (v *answerView) show(a *answer.Answer) {
	v.buf.Reset()
	v.buf.WriteString(a.Text)
	cited := map[int]bool{}
	for _, c := range a.Citations {
		cited[c.N] = true
	}
	v.render(cited)

	msg, icon, imp := verdictText(a.Verdict)
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
	v.Timing.SetText(timingLine(a))
}

func (v *answerView) hideVerdict() {
	v.Verdict.SetText("")
	v.Verdict.Hide()
	v.badge.Hide()
}

// verdictText is the badge for a verdict; "" hides it.
func verdictText(vd answer.Verdict) (string, fyne.Resource, widget.Importance) {
	switch vd {
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
	if a.Mode == answer.ModeExtractive {
		parts = append(parts, "no generation (extractive)")
	} else {
		parts = append(parts, "first token "+formatMs(t.PromptProcessing), "generation "+formatMs(t.Generation))
		if t.TokensPerSec > 0 {
			parts = append(parts, fmt.Sprintf("%.1f tokens/s", t.TokensPerSec))
		}
	}
	parts = append(parts, "total "+formatMs(t.Total))
	return strings.Join(parts, " · ")
}

// Citations are written [n]; while Markdown is parsed they are held as
// placeholders of private-use characters.
var (
	citationRE    = regexp.MustCompile(`\[(\d+)\]`)
	placeholderRE = regexp.MustCompile(citeOpen + `(\d+)` + citeClose)
)

const citeOpen, citeClose = "\ue000", "\ue001"

// linkCitations turns the citation placeholders in the text segments into
// links calling onCite(n) when n is in cited, and back into "[n]" text
// otherwise, descending into paragraphs and lists.
func linkCitations(segs []widget.RichTextSegment, cited map[int]bool, onCite func(int)) []widget.RichTextSegment {
	var out []widget.RichTextSegment
	for _, s := range segs {
		switch s := s.(type) {
		case *widget.TextSegment:
			out = append(out, splitCitations(s, cited, onCite)...)
		case *widget.ParagraphSegment:
			s.Texts = linkCitations(s.Texts, cited, onCite)
			out = append(out, s)
		case *widget.ListSegment:
			s.Items = linkCitations(s.Items, cited, onCite)
			out = append(out, s)
		default:
			out = append(out, s)
		}
	}
	return out
}

func splitCitations(s *widget.TextSegment, cited map[int]bool, onCite func(int)) []widget.RichTextSegment {
	locs := placeholderRE.FindAllStringSubmatchIndex(s.Text, -1)
	if len(locs) == 0 {
		return []widget.RichTextSegment{s}
	}
	var out []widget.RichTextSegment
	var plain strings.Builder
	flush := func(inline bool) {
		if plain.Len() == 0 && inline {
			return
		}
		st := s.Style
		st.Inline = inline
		out = append(out, &widget.TextSegment{Style: st, Text: plain.String()})
		plain.Reset()
	}
	at := 0
	for _, l := range locs {
		plain.WriteString(s.Text[at:l[0]])
		at = l[1]
		n, _ := strconv.Atoi(s.Text[l[2]:l[3]])
		label := "[" + strconv.Itoa(n) + "]"
		if !cited[n] {
			plain.WriteString(label)
			continue
		}
		flush(true)
		out = append(out, &widget.HyperlinkSegment{Text: label, OnTapped: func() { onCite(n) }})
	}
	plain.WriteString(s.Text[at:])
	// The last piece keeps the segment's block-ness, so that a paragraph
	// still ends where it ended.
	flush(s.Style.Inline)
	return out
}

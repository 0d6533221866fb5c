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
	v.Timing.Importance = widget.LowImportance
	v.Mode.Importance = widget.LowImportance
	v.badge = container.NewHBox(v.verdictIcon, v.Verdict)
	v.badge.Hide()
	v.Claims.Hide()
	v.content = container.NewVBox(v.Text, v.badge, v.Claims)
	return v
}

// reset clears the answer for a new question.
func (v *answerView) reset() {
	v.buf.Reset()
	v.Text.ParseMarkdown("")
	v.badge.Hide()
	v.Claims.Hide()
	v.Timing.SetText("")
}

// appendText adds streamed text.
func (v *answerView) appendText(s string) {
	v.buf.WriteString(s)
	v.Text.ParseMarkdown(v.buf.String())
}

// show renders a finished answer with live citations and its verdict.
func (v *answerView) show(a *answer.Answer) {
	v.buf.Reset()
	v.buf.WriteString(a.Text)
	v.Text.ParseMarkdown(a.Text)
	cited := map[int]bool{}
	for _, c := range a.Citations {
		cited[c.N] = true
	}
	v.Text.Segments = linkCitations(v.Text.Segments, cited, v.onCite)
	v.Text.Refresh()

	msg, icon, imp := verdictText(a.Verdict)
	if msg == "" {
		v.badge.Hide()
	} else {
		v.Verdict.SetText(msg)
		v.Verdict.Importance = imp
		v.Verdict.Refresh()
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

var citationRE = regexp.MustCompile(`\[(\d+)\]`)

// linkCitations replaces each [n] of cited in the text segments with a link
// calling onCite(n), descending into paragraphs and lists.
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
	locs := citationRE.FindAllStringSubmatchIndex(s.Text, -1)
	if len(locs) == 0 {
		return []widget.RichTextSegment{s}
	}
	var out []widget.RichTextSegment
	text := func(t string, inline bool) {
		if t == "" {
			return
		}
		st := s.Style
		st.Inline = inline
		out = append(out, &widget.TextSegment{Style: st, Text: t})
	}
	at := 0
	for _, l := range locs {
		n, _ := strconv.Atoi(s.Text[l[2]:l[3]])
		if !cited[n] {
			continue
		}
		text(s.Text[at:l[0]], true)
		out = append(out, &widget.HyperlinkSegment{Text: s.Text[l[0]:l[1]], OnTapped: func() { onCite(n) }})
		at = l[1]
	}
	// The segment's last piece keeps its block-ness, so paragraphs still
	// end where they ended.
	text(s.Text[at:], s.Style.Inline)
	return out
}

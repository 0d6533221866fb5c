package panels

import (
	"cmp"
	"slices"
	"strings"
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/widget"

	"cairn/core/answer"
	"cairn/core/search"
)

func TestHighlighted(t *testing.T) {
	segs := highlighted("reset the router now", []search.Span{{Start: 0, End: 5}, {Start: 10, End: 16}, {Start: 12, End: 14}})
	var got []string
	for _, s := range segs {
		ts := s.(*widget.TextSegment)
		mark := ""
		if ts.Style.TextStyle.Bold {
			mark = "*"
		}
		got = append(got, mark+ts.Text)
	}
	want := []string{"*reset", " the ", "*router", " now"} // the overlapping span is ignored
	if len(got) != len(want) {
		t.Fatalf("segments %q, want %q", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("segments %q, want %q", got, want)
		}
	}
}

func TestCitationsBecomeLinksOnlyWhenResolved(t *testing.T) {
	test.NewTempApp(t)
	var tapped []int
	v := newAnswerView(func(n int) { tapped = append(tapped, n) }, func() {}, func() {})
	v.show(&answer.Answer{
		Text:      "- Hold the pin [1].\n- Wait for the light [3].\n\nSee the manual [2].",
		Citations: []answer.Citation{{N: 1}, {N: 2}},
		Verdict:   answer.VerdictSupported,
	})
	var links []*widget.HyperlinkSegment
	var text strings.Builder
	var walk func([]widget.RichTextSegment)
	walk = func(segs []widget.RichTextSegment) {
		for _, s := range segs {
			switch s := s.(type) {
			case *widget.TextSegment:
				text.WriteString(s.Text)
			case *widget.HyperlinkSegment:
				links = append(links, s)
			case *widget.ListSegment:
				walk(s.Items)
			case *widget.ParagraphSegment:
				walk(s.Texts)
			}
		}
	}
	walk(v.Text.Segments)
	if len(links) != 2 || links[0].Text != "[1]" || links[1].Text != "[2]" {
		t.Fatalf("links %v; want [1] and [2] ([3] resolves to no source)", links)
	}
	links[1].OnTapped()
	if len(tapped) != 1 || tapped[0] != 2 {
		t.Errorf("tapping [2] opened %v", tapped)
	}
	if s := text.String(); !strings.Contains(s, "Wait for the light [3].") {
		t.Errorf("the unresolved citation is not shown as text: %q", s)
	}
	if v.Verdict.Text != "Verified: every claim is supported by a cited source" || v.Verdict.Importance != widget.SuccessImportance {
		t.Errorf("verdict %q %v", v.Verdict.Text, v.Verdict.Importance)
	}
}

// shownLines lays rt out in a window of the test driver and reads back the
// rows it draws, top to bottom: its text pieces and links, left to right.
func shownLines(t *testing.T, rt *widget.RichText) (lines []string, links []*widget.Hyperlink) {
	t.Helper()
	w := test.NewWindow(rt)
	t.Cleanup(w.Close)
	w.Resize(fyne.NewSize(900, 600))
	type piece struct {
		x, y float32
		text string
	}
	var pieces []piece
	for _, o := range test.WidgetRenderer(rt).Objects() {
		switch o := o.(type) {
		case *canvas.Text:
			pieces = append(pieces, piece{o.Position().X, o.Position().Y, o.Text})
		case *fyne.Container:
			for _, c := range o.Objects {
				if l, ok := c.(*widget.Hyperlink); ok {
					links = append(links, l)
					pieces = append(pieces, piece{o.Position().X, o.Position().Y, l.Text})
				}
			}
		}
	}
	slices.SortStableFunc(pieces, func(a, b piece) int {
		if c := cmp.Compare(a.y, b.y); c != 0 {
			return c
		}
		return cmp.Compare(a.x, b.x)
	})
	for i, p := range pieces {
		// A link sits a little lower than the text of its row (its own
		// padding): a row is the pieces within half a line of its first.
		if i > 0 && p.y-pieces[i-1].y < 8 {
			lines[len(lines)-1] += p.text
			continue
		}
		lines = append(lines, p.text)
	}
	return lines, links
}

func TestDocumentTextIsShownAsWrittenWithCitationLinks(t *testing.T) {
	test.NewTempApp(t)
	var tapped []int
	v := newAnswerView(func(n int) { tapped = append(tapped, n) }, func() {}, func() {})
	v.show(&answer.Answer{
		Mode:      answer.ModeExtractive,
		Text:      "-U, --binary\n    Treat the file(s) as binary. [1]\n**Note** ## not a heading [2]",
		Citations: []answer.Citation{{N: 1}},
		Verdict:   answer.VerdictQuoted,
	})
	lines, links := shownLines(t, v.Text)
	want := []string{"-U, --binary", "    Treat the file(s) as binary. [1]", "**Note** ## not a heading [2]"}
	if !slices.Equal(lines, want) {
		t.Errorf("shown lines %q\nwant        %q", lines, want)
	}
	if len(links) != 1 || links[0].Text != "[1]" {
		t.Fatalf("links %v, want [1] alone ([2] resolves to no source)", links)
	}
	links[0].OnTapped()
	if !slices.Equal(tapped, []int{1}) {
		t.Errorf("tapping [1] opened %v", tapped)
	}
}

func TestGeneratedMarkdownIsShownWithoutItsMarkers(t *testing.T) {
	test.NewTempApp(t)
	v := newAnswerView(func(int) {}, func() {}, func() {})
	v.show(&answer.Answer{
		Mode:      answer.ModeGenerative,
		Text:      "## Resetting\n\n**Hold** the pin for `10 s` [1].\n- Wait for the **green** light [2].\n  * then release",
		Citations: []answer.Citation{{N: 1}, {N: 2}},
		Verdict:   answer.VerdictSupported,
	})
	lines, links := shownLines(t, v.Text)
	want := []string{"Resetting", "", "Hold the pin for 10 s [1].", "• Wait for the green light [2].", "  • then release"}
	if !slices.Equal(lines, want) {
		t.Errorf("shown lines %q\nwant        %q", lines, want)
	}
	if len(links) != 2 {
		t.Errorf("%d links, want [1] and [2]", len(links))
	}
}

func TestStreamedMarkdownNeverShowsItsMarkers(t *testing.T) {
	test.NewTempApp(t)
	v := newAnswerView(func(int) {}, func() {}, func() {})
	v.reset(true)
	for _, tok := range []string{"#", "# Res", "et\n*", "*Ho", "ld*", "* the *pin*", " and `res", "et`"} {
		v.appendText(tok)
		if s := v.Text.String(); strings.ContainsAny(s, "*#`") {
			t.Fatalf("after %q the answer shows %q", tok, s)
		}
	}
	if lines, _ := shownLines(t, v.Text); !slices.Equal(lines, []string{"Reset", "Hold the pin and reset"}) {
		t.Errorf("shown lines %q", lines)
	}
}

func TestWithoutMarkdownKeepsStarsThatAreNotMarkers(t *testing.T) {
	for in, want := range map[string]string{
		"an *important* step":         "an important step",
		"2*3*4 and a lone * stay":     "2*3*4 and a lone * stay",
		"*one* and *two*":             "one and two",
		"**bold**, *em* and __init__": "bold, em and __init__",
		"-U, --binary\n    Treat [1]": "-U, --binary\n    Treat [1]",
	} {
		if got := withoutMarkdown(in); got != want {
			t.Errorf("withoutMarkdown(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestVerdictBadge(t *testing.T) {
	for _, c := range []struct {
		name string
		ans  answer.Answer
		want string
	}{
		{"quoted", answer.Answer{Mode: answer.ModeExtractive, Verdict: answer.VerdictQuoted}, quotedLabel},
		{"generated and checked", answer.Answer{Mode: answer.ModeGenerative, Verdict: answer.VerdictSupported}, "Verified: every claim is supported by a cited source"},
		{"closest, not an answer", answer.Answer{Mode: answer.ModeExtractive, Refused: true, Closest: true, Verdict: answer.VerdictNone}, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			test.NewTempApp(t)
			v := newAnswerView(func(int) {}, func() {}, func() {})
			v.show(&c.ans)
			if v.Verdict.Text != c.want || v.Verdict.Visible() != (c.want != "") {
				t.Errorf("badge %q (visible %v), want %q", v.Verdict.Text, v.Verdict.Visible(), c.want)
			}
		})
	}
	if quotedLabel != "Quoted from your documents: passages copied word for word, nothing generated" {
		t.Errorf("quoted label %q", quotedLabel)
	}
}

func TestSnippetIsPlainTextWithHighlights(t *testing.T) {
	test.NewTempApp(t)
	rt := widget.NewRichText()
	text := "-U, --binary\r\n    Treat the **file** as binary."
	at := func(s string) search.Span { i := strings.Index(text, s); return search.Span{Start: i, End: i + len(s)} }
	rt.Segments = highlighted(text, []search.Span{at("binary"), at("**file**")})
	lines, _ := shownLines(t, rt)
	if want := []string{"-U, --binary", "    Treat the **file** as binary."}; !slices.Equal(lines, want) {
		t.Errorf("shown lines %q\nwant        %q", lines, want)
	}
	var marked []string
	for _, s := range rt.Segments {
		if ts := s.(*widget.TextSegment); ts.Style.TextStyle.Bold {
			marked = append(marked, ts.Text)
		}
	}
	if !slices.Equal(marked, []string{"binary", "**file**"}) {
		t.Errorf("highlighted %q", marked)
	}
}

func TestModeLine(t *testing.T) {
	for _, c := range []struct {
		bm25Only bool
		sm       search.Mode
		chatless bool
		am       answer.Mode
		model    string
		want     string
	}{
		{true, "", true, "", "", "Retrieval: BM25 only (no embedding model) · Answers: extractive (best passages quoted; no chat model loaded)"},
		{false, search.ModeHybrid, false, answer.ModeGenerative, "qwen3-0.6b", "Retrieval: hybrid (BM25 + vectors) · Answers: generative, qwen3-0.6b"},
		{false, search.ModeBM25, false, answer.ModeOnline, "gpt-x", "Retrieval: BM25 only · Answers: online (through the network gate), gpt-x"},
	} {
		if got := modeLine(c.bm25Only, c.sm, c.chatless, c.am, c.model); got != c.want {
			t.Errorf("modeLine = %q\nwant       %q", got, c.want)
		}
	}
}

func TestTimingLineShowsTokensAndAnOnlineAnswersCost(t *testing.T) {
	a := &answer.Answer{Mode: answer.ModeOnline, Cost: 0.0021,
		Timing: answer.Timing{PromptTokens: 1200, Tokens: 300, Total: 2 * time.Second}}
	line := timingLine(a)
	for _, want := range []string{"1200 tokens in, 300 out", "estimated cost 0.0021"} {
		if !strings.Contains(line, want) {
			t.Errorf("%q lacks %q", line, want)
		}
	}
	a.Cost = 0
	if strings.Contains(timingLine(a), "cost") {
		t.Errorf("no prices, yet %q", timingLine(a))
	}
}

func TestACollectionAnswerSaysItWasCounted(t *testing.T) {
	a := &answer.Answer{Mode: answer.ModeCollection, Timing: answer.Timing{Retrieval: 3 * time.Millisecond, Total: 3 * time.Millisecond}}
	if line := timingLine(a); !strings.Contains(line, "counted by the knowledge base, no model") || strings.Contains(line, "generation") {
		t.Errorf("timing line %q", line)
	}
}

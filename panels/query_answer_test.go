package panels

import (
	"strings"
	"testing"

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
	v := newAnswerView(func(n int) { tapped = append(tapped, n) })
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

package ui

import (
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/widget"

	"cairn/core/search"
	"cairn/panels"
)

func TestAskStreamsAnswerWithVerdictTimingModeAndRankedSources(t *testing.T) {
	eng := newFakeEngine(t.TempDir())
	h := newHarness(t, eng)
	q := h.shell().Query

	h.ask("how do I reset the router")
	h.until("the answer", func() bool {
		return q.Answer.Text.String() == "Reset the router with the pin [1]. Hold it ten seconds [2]."
	})
	h.until("the sources", func() bool { return len(q.Rows()) == 4 })

	if got, want := titles(q), []string{"c.pdf", "b.md", "a.md", "d.html"}; !slices.Equal(got, want) {
		t.Errorf("sources %q, want %q (RRF, k = 60)", got, want)
	}
	first := q.Rows()[0]
	if first.Cite.Text != "[1]" || !first.Cite.Visible() || first.Where.Text != "page vii" {
		t.Errorf("first row: cite %q (visible %v), where %q", first.Cite.Text, first.Cite.Visible(), first.Where.Text)
	}
	if q.Rows()[3].Cite.Visible() {
		t.Errorf("Delta page is shown as cited, but the answer cites only [1] and [2]")
	}
	if got := q.Rows()[0].Snippet.String(); got != "reset the router with the pin" {
		t.Errorf("snippet %q", got)
	}
	var marked []string
	for _, s := range q.Rows()[0].Snippet.Segments {
		if ts, ok := s.(*widget.TextSegment); ok && ts.Style.TextStyle.Bold {
			marked = append(marked, ts.Text)
		}
	}
	if !slices.Equal(marked, []string{"reset", "router"}) {
		t.Errorf("highlighted terms %q, want [reset router]", marked)
	}
	if !q.Answer.Verdict.Visible() || !strings.Contains(q.Answer.Verdict.Text, "Partly verified") || q.Answer.Verdict.Importance != widget.WarningImportance {
		t.Errorf("verdict badge %q (importance %v)", q.Answer.Verdict.Text, q.Answer.Verdict.Importance)
	}
	if !strings.Contains(q.Answer.Claims.Text, `"Hold it ten seconds [2]." ("ten seconds" is not in source [2])`) {
		t.Errorf("unsupported claim not shown: %q", q.Answer.Claims.Text)
	}
	if got := q.Answer.Timing.Text; got != "Retrieval 12 ms · no generation (extractive) · total 15 ms" {
		t.Errorf("timing line %q", got)
	}
	if got := q.Answer.Mode.Text; got != "Retrieval: hybrid (BM25 + vectors) · Answers: extractive (best passages quoted; no chat model loaded)" {
		t.Errorf("mode line %q", got)
	}
	if q.AskButton.Disabled() || !q.CancelButton.Disabled() {
		t.Errorf("after the answer: Ask disabled %v, Cancel disabled %v", q.AskButton.Disabled(), q.CancelButton.Disabled())
	}
}

func TestAnswerStreamsBeforeItEnds(t *testing.T) {
	eng := newFakeEngine(t.TempDir())
	eng.askGate = make(chan struct{})
	h := newHarness(t, eng)
	q := h.shell().Query

	h.ask("how do I reset the router")
	// The first token, as written: plain text keeps its trailing space.
	h.until("the first words", func() bool { return q.Answer.Text.String() == "Reset the router " })
	if !q.AskButton.Disabled() || q.CancelButton.Disabled() {
		t.Errorf("while answering: Ask disabled %v, Cancel disabled %v", q.AskButton.Disabled(), q.CancelButton.Disabled())
	}
	close(eng.askGate)
	h.until("the whole answer", func() bool { return strings.HasSuffix(q.Answer.Text.String(), "ten seconds [2].") })
}

func TestCancelStopsTheQuestion(t *testing.T) {
	eng := newFakeEngine(t.TempDir())
	eng.askGate = make(chan struct{}) // never opened: only Cancel ends the question
	h := newHarness(t, eng)
	q := h.shell().Query

	h.ask("how do I reset the router")
	h.until("the question to start", func() bool { return q.Answer.Text.String() == "Reset the router " })
	if q.CancelButton.Disabled() || !q.AskButton.Disabled() {
		t.Fatalf("while answering: Cancel disabled %v, Ask disabled %v", q.CancelButton.Disabled(), q.AskButton.Disabled())
	}
	test.Tap(q.CancelButton)
	h.until("the cancellation", func() bool { return strings.HasPrefix(q.State.Text, "Cancelled") })
	eng.locked(func() {
		if eng.askCancelled != 1 {
			t.Errorf("the engine's Ask saw %d cancellations, want 1", eng.askCancelled)
		}
	})
	if q.AskButton.Disabled() || !q.CancelButton.Disabled() {
		t.Errorf("after cancel: Ask disabled %v, Cancel disabled %v", q.AskButton.Disabled(), q.CancelButton.Disabled())
	}
}

func TestEscapeInTheQuestionCancels(t *testing.T) {
	eng := newFakeEngine(t.TempDir())
	eng.askGate = make(chan struct{})
	h := newHarness(t, eng)
	q := h.shell().Query
	h.ask("how do I reset the router")
	h.until("the question to start", func() bool { return !q.CancelButton.Disabled() })
	q.Question.TypedKey(&fyne.KeyEvent{Name: fyne.KeyEscape})
	h.until("the cancellation", func() bool { return strings.HasPrefix(q.State.Text, "Cancelled") })
}

// highlightedText is the text the preview pane marks as the passage.
func highlightedText(p *panels.PreviewPane) string {
	var b strings.Builder
	for _, seg := range p.Text.Segments {
		if ts, ok := seg.(*widget.TextSegment); ok && ts.Style.TextStyle.Bold {
			b.WriteString(ts.Text)
		}
	}
	return b.String()
}

// A citation shows the cited passage inside the window, whatever viewers
// the machine has; the external viewer is an extra, and when it fails the
// pane says so and offers Show in folder.
func TestCitationShowsThePassageInThePreview(t *testing.T) {
	eng := newFakeEngine(t.TempDir())
	h := newHarness(t, eng)
	q := h.shell().Query
	h.ask("how do I reset the router")
	h.until("the answer", func() bool { return q.Answer.Verdict.Visible() })

	h.frame()
	links := find(q.Answer.Text, func(o fyne.CanvasObject) bool { _, ok := o.(*widget.Hyperlink); return ok })
	var texts []string
	for _, l := range links {
		texts = append(texts, l.(*widget.Hyperlink).Text)
	}
	if !slices.Equal(texts, []string{"[1]", "[2]"}) {
		t.Fatalf("citation links %q, want [1] and [2]", texts)
	}
	if q.Preview.Visible() {
		t.Fatal("the preview pane shows before any click")
	}
	link := links[0].(*widget.Hyperlink)
	test.TapAt(link, fyne.NewPos(link.Size().Width/2, link.Size().Height/2))
	h.until("the preview", func() bool { return highlightedText(q.Preview) != "" })
	if got := highlightedText(q.Preview); got != passC.Text {
		t.Errorf("highlighted %q, want the cited passage %q", got, passC.Text)
	}
	if !q.Preview.Visible() || q.Preview.Title.Text != "c.pdf" || !strings.HasPrefix(q.Preview.Where.Text, "page vii") {
		t.Errorf("preview pane visible %v, title %q, where %q", q.Preview.Visible(), q.Preview.Title.Text, q.Preview.Where.Text)
	}
	if len(h.openedSources()) != 0 {
		t.Errorf("a citation started the external viewer: %+v", h.openedSources())
	}

	test.Tap(q.Preview.Viewer)
	h.until("the viewer to be asked", func() bool { return len(h.openedSources()) == 1 })
	want := panels.OpenSource{Path: "/docs/c.pdf", Page: 7, Label: "vii"}
	if got := h.openedSources()[0]; got != want {
		t.Errorf("opened %+v, want %+v", got, want)
	}

	// No viewer registered: said in the pane, with Show in folder.
	h.mu.Lock()
	h.openErr = errors.New("gio: No application is registered as handling this file")
	h.mu.Unlock()
	test.Tap(q.Preview.Viewer)
	h.until("the failure to be shown", func() bool { return strings.Contains(q.Preview.Note.Text, "No application") })
	if !strings.Contains(q.Preview.Note.Text, "No application is registered") || !strings.Contains(q.Preview.Note.Text, "Show in folder") {
		t.Errorf("note %q", q.Preview.Note.Text)
	}
	test.Tap(q.Preview.Folder)
	h.until("the folder to be shown", func() bool { return len(h.shownFolders()) == 1 })
	if got := h.shownFolders()[0]; got != "/docs/c.pdf" {
		t.Errorf("showed %q in its folder", got)
	}

	// A source row's Open shows its passage too.
	h.until("the sources", func() bool { return len(q.Rows()) == 4 })
	test.Tap(q.Rows()[1].Open)
	h.until("the second preview", func() bool {
		return highlightedText(q.Preview) == q.Rows()[1].Snippet.String() || highlightedText(q.Preview) == passB.Text
	})
	if q.Preview.Note.Visible() {
		t.Errorf("the last passage's note stays: %q", q.Preview.Note.Text)
	}
	test.Tap(q.Preview.Close)
	if q.Preview.Visible() {
		t.Error("Close left the preview pane open")
	}
}

func TestCopyPassage(t *testing.T) {
	h := newHarness(t, newFakeEngine(t.TempDir()))
	q := h.shell().Query
	h.ask("reset")
	h.until("the sources", func() bool { return len(q.Rows()) == 4 })
	test.Tap(q.Rows()[2].Copy)
	if got := h.app.Clipboard().Content(); got != passA.Text {
		t.Errorf("clipboard %q, want the passage %q", got, passA.Text)
	}
}

func TestWhyThisResult(t *testing.T) {
	h := newHarness(t, newFakeEngine(t.TempDir()))
	q := h.shell().Query
	h.ask("reset")
	h.until("the sources", func() bool { return len(q.Rows()) == 4 })
	row := q.Rows()[1] // Bravo: BM25 rank 2, vector rank 3
	if row.Why.Visible() {
		t.Fatal("the explanation shows before Why is pressed")
	}
	test.Tap(row.Explain)
	if !row.Why.Visible() {
		t.Fatal("Why did not show the explanation")
	}
	want := "File:    /docs/b.md\n" +
		"Title:   Bravo guide\n" +
		"Relevant: 0.30, weak match (share of the question's information covered)\n" +
		"BM25:    rank 2, score 7.000 -> fusion term 0.492\n" +
		"Vectors: rank 3, similarity 0.700 -> fusion term 0.484\n" +
		"Fused:   0.976 = 0.492 + 0.484 (RRF, k = 60, normalized to 0..1)\n" +
		"Matched: pin"
	if row.Why.Text != want {
		t.Errorf("why:\n%s\nwant:\n%s", row.Why.Text, want)
	}
	test.Tap(row.Explain)
	if row.Why.Visible() {
		t.Error("a second Why did not hide the explanation")
	}
}

func TestQuestionHistory(t *testing.T) {
	h := newHarness(t, newFakeEngine(t.TempDir()))
	q := h.shell().Query
	for _, s := range []string{"first question", "second question"} {
		h.ask(s)
		h.until("the answer to "+s, func() bool { return !q.AskButton.Disabled() && q.Answer.Verdict.Visible() })
	}
	q.Question.SetText("draft")
	up := &fyne.KeyEvent{Name: fyne.KeyUp}
	q.Question.TypedKey(up)
	if q.Question.Text != "second question" {
		t.Fatalf("Up: %q, want the last question", q.Question.Text)
	}
	q.Question.TypedKey(up)
	if q.Question.Text != "first question" {
		t.Fatalf("Up twice: %q", q.Question.Text)
	}
	q.Question.TypedKey(&fyne.KeyEvent{Name: fyne.KeyDown})
	q.Question.TypedKey(&fyne.KeyEvent{Name: fyne.KeyDown})
	if q.Question.Text != "draft" {
		t.Fatalf("Down back past the newest: %q, want the draft", q.Question.Text)
	}
	if got := q.Question.History(); !slices.Equal(got, []string{"second question", "first question"}) {
		t.Errorf("history drop-down %q", got)
	}
}

func TestEmptyQuestionIsNotSent(t *testing.T) {
	eng := newFakeEngine(t.TempDir())
	h := newHarness(t, eng)
	q := h.shell().Query
	h.ask("   ")
	h.loop.settle(50 * time.Millisecond)
	if !strings.HasPrefix(q.State.Text, "Type a question first") {
		t.Errorf("state %q", q.State.Text)
	}
	eng.locked(func() {
		if len(eng.asks) != 0 {
			t.Errorf("the engine was asked %d times", len(eng.asks))
		}
	})
}

// "Right answer" belongs to the passage ticked, not to every passage of its
// file; ticking another passage of the same file moves the mark.
func TestRightAnswerMarksOnePassage(t *testing.T) {
	eng := newFakeEngine(t.TempDir())
	eng.cands = func() *search.Candidates {
		c := fakeCandidates()
		b := *passB
		b.Path, b.DocumentID = passA.Path, passA.DocumentID // A and B: two passages of a.md
		c.Passages[2] = &b
		return c
	}
	h := newHarness(t, eng)
	q := h.shell().Query
	h.ask("how do I reset the router")
	h.until("the sources", func() bool { return len(q.Rows()) == 4 })
	row := func(id int64) *panels.SourceRow {
		for _, r := range q.Rows() {
			if r.Snippet.String() == eng.cands().Passages[id].Snippet {
				return r
			}
		}
		t.Fatalf("no row for chunk %d", id)
		return nil
	}
	test.Tap(row(1).Right)
	h.until("the judgment", func() bool { return h.shell().Tuning.Judged.Length() == 1 })
	if !row(1).Right.Checked || row(2).Right.Checked {
		t.Errorf("after ticking passage A: A %v, B (same file) %v; want only A", row(1).Right.Checked, row(2).Right.Checked)
	}
	test.Tap(row(2).Right)
	h.until("the mark to move", func() bool { return row(2).Right.Checked && !row(1).Right.Checked })
}

// A new answer is shown where the conversation ends, from its question,
// and its sources open at their top, not where the last question's lists
// were scrolled to.
func TestNewAnswerStartsScrolledToTheTop(t *testing.T) {
	eng := newFakeEngine(t.TempDir())
	h := newHarness(t, eng)
	q := h.shell().Query
	h.ask("how do I reset the router")
	h.until("the sources", func() bool { return len(q.Rows()) == 4 && q.Answer.Verdict.Visible() })
	h.win.w.Resize(fyne.NewSize(926, 552)) // the smallest window: the lists scroll
	h.frame()
	q.SourceScroll.ScrollToBottom()
	q.AnswerScroll.ScrollToBottom()
	if q.SourceScroll.Offset.Y == 0 || q.AnswerScroll.Offset.Y == 0 {
		t.Fatalf("the sources (at %v) or the answer (at %v) do not scroll at the smallest window size; the test needs both to",
			q.SourceScroll.Offset.Y, q.AnswerScroll.Offset.Y)
	}
	q.AnswerScroll.ScrollToTop()
	h.ask("how long do I hold the pin")
	h.until("the new sources", func() bool { return q.Answer.Verdict.Visible() && len(q.Rows()) == 4 })
	h.settle(50 * time.Millisecond)
	h.frame()
	if q.SourceScroll.Offset.Y != 0 {
		t.Errorf("the new answer's sources scrolled to %v; want 0", q.SourceScroll.Offset.Y)
	}
	newest := q.Turns()[len(q.Turns())-1]
	top := fyne.CurrentApp().Driver().AbsolutePositionForObject(newest.Question).Y
	view := fyne.CurrentApp().Driver().AbsolutePositionForObject(q.AnswerScroll).Y
	if top < view-1 || top+newest.Question.Size().Height > view+q.AnswerScroll.Size().Height+1 {
		t.Errorf("the new answer's question is at y %v, the conversation's view from %v to %v: want it in view",
			top, view, view+q.AnswerScroll.Size().Height)
	}
}

package ui

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/widget"

	"cairn/core/domain"
	"cairn/core/search"
)

// answeredTurns waits until the conversation shows n answered questions.
func answeredTurns(h *harness, n int) {
	h.t.Helper()
	q := h.shell().Query
	h.until(fmt.Sprintf("%d answered questions", n), func() bool {
		return q.CancelButton.Disabled() && len(q.Turns()) == n && strings.Contains(q.State.Text, "Answered")
	})
}

// citationLink is the [n] link of a RichText.
func citationLink(t *testing.T, rt *widget.RichText, n int) *widget.Hyperlink {
	t.Helper()
	for _, o := range find(rt, func(o fyne.CanvasObject) bool { _, ok := o.(*widget.Hyperlink); return ok }) {
		if l := o.(*widget.Hyperlink); l.Text == fmt.Sprintf("[%d]", n) {
			return l
		}
	}
	t.Fatalf("no [%d] link in %q", n, rt.String())
	return nil
}

func tapLink(l *widget.Hyperlink) {
	test.TapAt(l, fyne.NewPos(l.Size().Width/2, l.Size().Height/2))
}

// inView says whether o lies whole inside the scroll container's view.
func inView(o fyne.CanvasObject, s fyne.CanvasObject) bool {
	d := fyne.CurrentApp().Driver()
	top, view := d.AbsolutePositionForObject(o).Y, d.AbsolutePositionForObject(s).Y
	return top >= view-1 && top+o.Size().Height <= view+s.Size().Height+1
}

// The Ask tab shows the conversation as a list of questions and answers,
// each answer with its own citations that still open its passages, the
// answer being written kept in view, and New conversation at hand, at the
// smallest window: after about six questions the list of earlier ones
// filled the answer's place and pushed the answer out of sight, and only
// the last answer could be read.
func TestTheConversationListsEveryAnswerWithItsCitations(t *testing.T) {
	eng := newFakeEngine(t.TempDir())
	h := newHarness(t, eng)
	q := h.shell().Query
	h.win.w.Resize(smallestCanvas())
	questions := []string{"how do I reset the router", "what is the default password", "where is the status light",
		"how long do I hold the pin", "what do the lights mean", "how do I update the firmware", "which cable is the uplink"}
	for i, question := range questions {
		h.ask(question)
		answeredTurns(h, i+1)
	}
	h.frame()
	turns := q.Turns()
	for i, tn := range turns {
		if tn.Question.Text != questions[i] || !strings.HasPrefix(tn.Answer.Text.String(), "Reset the router") {
			t.Errorf("question %d shows %q, answered %q", i+1, tn.Question.Text, tn.Answer.Text.String())
		}
		if earlier := i < len(turns)-1; earlier != tn.Cited.Visible() {
			t.Errorf("question %d lists its cited passages: %v", i+1, tn.Cited.Visible())
		}
	}
	if got := turns[0].Cited.String(); got != "Cited: [1] c.pdf · [2] b.md" {
		t.Errorf("the first answer's cited passages %q", got)
	}
	newest := turns[len(turns)-1]
	if !inView(newest.Question, q.AnswerScroll) {
		t.Error("the newest answer's question is not in view")
	}
	if off := offCanvas(h.win.w.Canvas(), q.Conversation.New); len(off) > 0 {
		t.Errorf("New conversation is not on the window: %q", off)
	}

	// An earlier answer's citations open its own passages.
	q.AnswerScroll.ScrollToTop()
	h.frame()
	tapLink(citationLink(t, turns[0].Answer.Text, 2))
	h.until("the first answer's [2]", func() bool { return highlightedText(q.Preview) == passB.Text })
	tapLink(citationLink(t, turns[1].Cited, 1))
	h.until("the second answer's [1]", func() bool { return highlightedText(q.Preview) == passC.Text })

	// The answer being written stays in view as it grows.
	eng.locked(func() {
		eng.askGate = make(chan struct{})
		eng.tokens = []string{"Reset the router ", strings.Repeat("with the pin, held down for ten seconds. ", 30) + "[1]"}
	})
	h.ask("how do I reset it to the factory settings")
	h.until("the answer being written", func() bool { return strings.HasPrefix(q.State.Text, "Writing") && len(q.Turns()) == 8 })
	h.frame()
	if w := q.Turns()[7]; !inView(w.Answer.Text, q.AnswerScroll) {
		t.Error("the answer being written is not in view")
	}
	eng.locked(func() { close(eng.askGate) })
	answeredTurns(h, 8)
	h.frame()
	h.frame() // a wrapped text's height follows its width one layout later
	// Its start is in view, to be read from there: at the smallest
	// window, its first lines rather than its question.
	d := fyne.CurrentApp().Driver()
	w := q.Turns()[7]
	top, view := d.AbsolutePositionForObject(w.Answer.Text).Y, d.AbsolutePositionForObject(q.AnswerScroll).Y
	if top < view-1 || top+30 > view+q.AnswerScroll.Size().Height {
		t.Errorf("the finished answer starts at y %v, the view is from %v to %v", top, view, view+q.AnswerScroll.Size().Height)
	}
	if off := offCanvas(h.win.w.Canvas(), q.Conversation.New); len(off) > 0 {
		t.Errorf("New conversation is not on the window: %q", off)
	}
}

// A question read as a follow-up is marked, with what it was read as
// following and the words searched, and one click asks it again as a new
// question in a new conversation. When the engine begins a new
// conversation for a question on another subject, the window follows it.
func TestAFollowUpIsMarkedAndCanBeAskedAnew(t *testing.T) {
	eng := newFakeEngine(t.TempDir())
	h := newHarness(t, eng)
	q := h.shell().Query
	c := q.Conversation
	h.ask("how do I reset the router")
	answeredTurns(h, 1)
	first := c.Current()
	h.ask("and the pin?")
	answeredTurns(h, 2)
	follow := q.Turns()[1]
	if want := `Read as a follow-up of "how do I reset the router"; searched for: pin router`; !follow.FollowUp.Visible() || follow.FollowUp.Text != want {
		t.Errorf("follow-up line %q (shown %v), want %q", follow.FollowUp.Text, follow.FollowUp.Visible(), want)
	}
	if q.Turns()[0].FollowUp.Visible() || q.Turns()[0].AskAnew.Visible() {
		t.Error("the first question is marked as a follow-up")
	}
	test.Tap(follow.AskAnew)
	h.until("the question asked anew", func() bool {
		return len(q.Turns()) == 1 && strings.HasPrefix(q.State.Text, "Answered") && c.Current() != first && c.Current() != 0
	})
	if tn := q.Turns()[0]; tn.Question.Text != "and the pin?" || tn.FollowUp.Visible() {
		t.Errorf("asked anew: %q, marked as a follow-up %v", tn.Question.Text, tn.FollowUp.Visible())
	}
	eng.locked(func() {
		last := eng.asks[len(eng.asks)-1]
		if last.Query != "and the pin?" {
			t.Errorf("asked anew, the engine searched %q, not the question alone", last.Query)
		}
	})
	h.until("two conversations", func() bool { return len(c.Threads.Options) == 2 })

	// The engine begins a new conversation: the window shows it.
	eng.locked(func() { eng.newSubject = true })
	before := c.Current()
	h.ask("what is the default password")
	h.until("the new conversation", func() bool { return c.Current() != before && strings.Contains(q.State.Text, "Answered") })
	if !strings.HasPrefix(q.State.Text, "A new conversation began") || len(q.Turns()) != 1 ||
		q.Turns()[0].Question.Text != "what is the default password" {
		t.Errorf("state %q, %d questions shown", q.State.Text, len(q.Turns()))
	}
	h.until("three conversations, the new one chosen", func() bool {
		return len(c.Threads.Options) == 3 && c.Threads.Selected == "what is the default password · 1 question"
	})
}

// A reopened conversation shows every question and answer, and its
// answers' citations open the passages saved with them.
func TestAReopenedConversationsCitationsOpen(t *testing.T) {
	eng := newFakeEngine(t.TempDir())
	h := newHarness(t, eng)
	q := h.shell().Query
	c := q.Conversation
	h.ask("how do I reset the router")
	answeredTurns(h, 1)
	h.ask("and the pin?")
	answeredTurns(h, 2)
	h.until("the conversation listed", func() bool { return len(c.Threads.Options) == 1 })
	test.Tap(c.New)
	h.until("a new conversation", func() bool { return len(q.Turns()) == 0 })
	c.Threads.SetSelectedIndex(0)
	h.until("the conversation reopened", func() bool { return len(q.Turns()) == 2 })
	h.frame()
	turns := q.Turns()
	if turns[0].Question.Text != "how do I reset the router" || turns[1].Question.Text != "and the pin?" ||
		!strings.HasPrefix(turns[0].Answer.Text.String(), "Reset the router") {
		t.Errorf("reopened: %q, %q", turns[0].Question.Text, turns[1].Question.Text)
	}
	tapLink(citationLink(t, turns[0].Answer.Text, 2))
	h.until("the saved [2]", func() bool { return highlightedText(q.Preview) == passB.Text })
	if q.Preview.Passage().Path != passB.Path || q.Preview.Note.Visible() {
		t.Errorf("preview of %q, note %q", q.Preview.Passage().Path, q.Preview.Note.Text)
	}
}

// The preview follows the citation: it shows the passage the answer
// quotes, not source [1] ([6], wget, opened [1]); and a question the
// documents do not cover shows none, a closest passage opened by hand
// being marked as not an answer.
func TestThePreviewShowsThePassageTheAnswerQuotes(t *testing.T) {
	eng := newFakeEngine(t.TempDir())
	h := newHarness(t, eng)
	q := h.shell().Query
	h.ask("how do I reset the router")
	h.until("the sources", func() bool { return len(q.Rows()) == 4 && q.Answer.Verdict.Visible() })
	test.Tap(q.Rows()[3].Open)
	h.until("the preview", func() bool { return q.Preview.Passage() != nil && highlightedText(q.Preview) != "" })

	eng.locked(func() { eng.tokens = []string{"Hold the pin for ten seconds [3]. ", "Then wait for the lights [1]."} })
	h.ask("how long do I hold the pin")
	answeredTurns(h, 2)
	var quoted *search.Passage
	for _, s := range eng.lastAnswerSources() {
		if s.N == 3 {
			quoted = s.Passage
		}
	}
	h.until("the quoted passage, [3]", func() bool { return q.Preview.Passage() != nil && q.Preview.Passage().ChunkID == quoted.ChunkID })
	h.until("its text", func() bool { return highlightedText(q.Preview) == quoted.Text })

	eng.locked(func() { eng.notCovered = true })
	h.ask("who invented the router")
	h.until("the refusal", func() bool { return strings.HasPrefix(q.State.Text, "Your documents do not seem to cover this") })
	h.settle(50e6)
	if q.Preview.Visible() {
		t.Errorf("a question the documents do not cover shows %v in the preview", q.Preview.Passage())
	}
	h.until("the closest passages", func() bool { return len(q.Rows()) > 0 })
	test.Tap(q.Rows()[0].Open)
	h.until("the closest passage", func() bool { return highlightedText(q.Preview) != "" })
	if !q.Preview.Note.Visible() || !strings.HasPrefix(q.Preview.Note.Text, "Closest passage — not an answer") {
		t.Errorf("a closest passage's preview notes %q (shown %v)", q.Preview.Note.Text, q.Preview.Note.Visible())
	}
}

// A conversation answers from the folders chosen for it, the user guide
// among them, from the Ask tab; the choice is shown, kept with the
// conversation and back when it is reopened.
func TestAConversationAnswersFromTheFoldersChosen(t *testing.T) {
	eng := newFakeEngine(t.TempDir())
	guide := eng.GuideDir()
	eng.folders = []domain.Folder{{ID: 1, Path: guide, Documents: 8}, {ID: 2, Path: "/docs", Documents: 4}}
	h := newHarness(t, eng)
	q := h.shell().Query
	c := q.Conversation
	h.until("the folders known", func() bool { return !c.Folders.Disabled() })
	if c.Folders.Text != "All folders" {
		t.Errorf("folder button %q", c.Folders.Text)
	}
	h.ask("how do I reset the router")
	answeredTurns(h, 1)
	all := c.Current()
	eng.locked(func() {
		if f := eng.asks[len(eng.asks)-1].Filter; len(f.PathPrefixes) != 0 {
			t.Errorf("every folder, asked within %q", f.PathPrefixes)
		}
	})

	test.Tap(c.New)
	h.until("a new conversation", func() bool { return c.Current() == 0 })
	test.Tap(c.Folders)
	d := c.FolderDialog
	if len(d.Boxes) != 2 || d.Boxes[0].Text != "Cairn's user guide · 8 documents" || !d.Boxes[0].Checked || !d.Boxes[1].Checked {
		t.Fatalf("chooser %+v", d.Boxes)
	}
	d.Boxes[0].SetChecked(false)
	test.Tap(d.Use)
	h.until("the choice shown", func() bool { return c.Folders.Text == "Only docs" })
	h.ask("how do I reset the router")
	answeredTurns(h, 1)
	only := c.Current()
	eng.locked(func() {
		if f := eng.asks[len(eng.asks)-1].Filter; !slices.Equal(f.PathPrefixes, []string{"/docs/"}) {
			t.Errorf("asked within %q, want /docs/ alone", f.PathPrefixes)
		}
	})
	h.until("the choice kept with the conversation", func() bool {
		var got []string
		eng.locked(func() { got = eng.threadFolders[only] })
		return slices.Equal(got, []string{"/docs"})
	})

	// Unticking every folder is refused: Use these folders is off.
	test.Tap(c.Folders)
	for _, b := range c.FolderDialog.Boxes {
		b.SetChecked(false)
	}
	if !c.FolderDialog.Use.Disabled() {
		t.Error("no folder ticked, and Use these folders is on")
	}
	c.FolderDialog.Close()

	// Reopened, each conversation answers from its own folders again.
	h.until("both listed", func() bool { return len(c.Threads.Options) == 2 })
	// Both began with the same question: the list tells them apart.
	if c.Threads.Options[0] == c.Threads.Options[1] {
		t.Errorf("two conversations listed alike: %q", c.Threads.Options)
	}
	for _, want := range []struct {
		id     int64
		button string
	}{{all, "All folders"}, {only, "Only docs"}} {
		i := slices.IndexFunc(eng.mustThreads(t), func(th domain.Thread) bool { return th.ID == want.id })
		c.Threads.SetSelectedIndex(i)
		h.until("conversation "+fmt.Sprint(want.id), func() bool { return c.Current() == want.id && c.Folders.Text == want.button })
	}
	// A filter outside the conversation's folders is refused, saying why.
	test.Tap(q.Filter.Toggle)
	q.Filter.Folder.SetText(guide)
	h.ask("how do I reset the router")
	h.until("the refusal", func() bool { return strings.Contains(q.State.Text, "outside the folders this conversation uses") })
}

// The list of sources says how many passages matched, and More results
// lists more of them, the rows listed staying where they were.
func TestSourcesSayHowManyMatchedAndListMore(t *testing.T) {
	eng := newFakeEngine(t.TempDir())
	eng.cfg.Retrieval.TopK = 2
	h := newHarness(t, eng)
	q := h.shell().Query
	h.ask("how do I reset the router")
	h.until("two sources", func() bool { return len(q.Rows()) == 2 && q.Answer.Verdict.Visible() })
	if q.SourcesHead.Text != "Sources · 2 of 4 matching passages" || !q.More.Visible() {
		t.Errorf("heading %q, More shown %v", q.SourcesHead.Text, q.More.Visible())
	}
	first := titles(q)
	test.Tap(q.More)
	h.until("four sources", func() bool { return len(q.Rows()) == 4 })
	if got := titles(q); !slices.Equal(got[:2], first) {
		t.Errorf("rows %q after More, the first two were %q", got, first)
	}
	if q.SourcesHead.Text != "Sources · 4 of 4 matching passages" || q.More.Visible() {
		t.Errorf("heading %q, More shown %v", q.SourcesHead.Text, q.More.Visible())
	}
	// A new question lists a first page again.
	h.ask("how long do I hold the pin")
	h.until("two sources", func() bool { return len(q.Rows()) == 2 && strings.HasPrefix(q.State.Text, "Answered") })
}

// More results searches again with larger pools when the candidates of
// the question are all listed and a retriever's pool was full (a real
// knowledge base of 40 notes; a BM25 pool of 10).
func TestMoreResultsSearchesFurtherWhenThePoolWasFull(t *testing.T) {
	cfg, open := realEngine(t)
	cfg.Retrieval.BM25Pool, cfg.Retrieval.TopK, cfg.Retrieval.PerDocCap = 10, 5, 3
	h := newHarnessWith(t, open, cfg)
	p, q := h.shell().IndexTab, h.shell().Query
	h.until("the user guide", func() bool { return strings.HasPrefix(p.State.Text, "Indexed the user guide") })
	dir := filepath.Join(t.TempDir(), "notes")
	os.MkdirAll(dir, 0o700)
	for i := range 40 {
		os.WriteFile(filepath.Join(dir, fmt.Sprintf("note-%02d.txt", i)), []byte(fmt.Sprintf("Gasket %d: replace the pump gasket yearly.\n", i)), 0o600)
	}
	startIndexing(h, dir)
	h.until("the notes", func() bool { return strings.HasPrefix(p.State.Text, "Indexed "+dir+".") })
	h.shell().showTab(tabAsk)
	h.ask("replace the pump gasket")
	h.until("five sources", func() bool { return len(q.Rows()) == 5 && strings.HasPrefix(q.State.Text, "Answered") })
	if q.SourcesHead.Text != "Sources · 5 of 10 or more matching passages" || !q.More.Visible() {
		t.Fatalf("heading %q, More shown %v", q.SourcesHead.Text, q.More.Visible())
	}
	test.Tap(q.More)
	h.until("ten sources", func() bool { return len(q.Rows()) == 10 })
	test.Tap(q.More)
	h.until("fifteen sources, from a larger search", func() bool { return len(q.Rows()) == 15 })
	if q.SourcesHead.Text != "Sources · 15 of 20 or more matching passages" {
		t.Errorf("heading %q", q.SourcesHead.Text)
	}
	seen := map[string]bool{}
	for _, r := range q.Rows() {
		if seen[r.Title.Text+r.Where.Text] {
			t.Errorf("%s listed twice", r.Title.Text)
		}
		seen[r.Title.Text+r.Where.Text] = true
	}
}

// The vector search fills its pool whenever the knowledge base holds that
// many passages, matching or not: only a full keyword list says that more
// passages may match than the candidates hold.
func TestOnlyAFullKeywordListOffersMore(t *testing.T) {
	w := &queryWorker{poolScale: 1, cands: &search.Candidates{BM25: make([]search.Hit, 5), Vector: make([]search.Hit, 60)}}
	if w.saturated() {
		t.Error("a full vector pool and 5 keyword hits offer more results")
	}
	w.cands.BM25 = make([]search.Hit, 60)
	if !w.saturated() {
		t.Error("a full keyword pool offers no more results")
	}
}

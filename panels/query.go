package panels

import (
	"fmt"
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/layout"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"cairn/core/answer"
	"cairn/core/domain"
	"cairn/core/search"
)

// Query is the question-and-answer panel: the question with its history,
// Ask and Cancel, the streamed answer with clickable citations, its
// verification, timing and mode, and the ranked sources with why each
// ranked where it did.
type Query struct {
	Question     *HistoryEntry
	AskButton    *Button
	CancelButton *Button
	State        *widget.Label // what is happening, or what went wrong
	// Answer is the newest answer of the conversation (before the first
	// question, a blank one holding the mode line).
	Answer *answerView
	// Thread holds the conversation's questions and answers, oldest
	// first, in AnswerScroll.
	Thread      *fyne.Container
	SourcesHead *widget.Label   // "Sources", or "Closest passages — not an answer"
	More        *Button         // lists more of the passages that matched
	Sources     *fyne.Container // the visible source rows, best first
	Empty       *widget.Label   // shown instead of sources when there are none
	Notes       *widget.Label   // what the search decided, e.g. a fall back to BM25
	Preview     *PreviewPane    // the passage clicked, in its page or lines
	AddFolder   *Button         // offered while the user guide is all there is
	// OnAddFolder is what AddFolder does (the window's Add folder).
	OnAddFolder  func()
	AnswerScroll *container.Scroll
	SourceScroll *container.Scroll
	// Conversation is the conversation the questions are asked in.
	Conversation *Conversation
	// Filter narrows the documents a question is answered from.
	Filter *FilterRow

	win     fyne.Window
	clip    fyne.Clipboard
	post    func(QueryRequest)
	rows    map[int64]*SourceRow // by chunk id, for the question shown
	shown   []*SourceRow         // in rank order
	content fyne.CanvasObject
	turns   []*Turn       // the conversation's, oldest first
	blank   *answerView   // Answer before the first question
	hidden  *widget.Label // "N earlier questions are not shown"
	// asked: the newest turn was added for the question being answered,
	// and goes if it fails (it was not saved).
	asked       bool
	hiddenTurns int // the oldest turns left out of the view (maxTurns)
	// follow is what the conversation's view keeps to (reanchor); placed
	// says it put the view at placedAt.
	follow    int
	anchoring bool
	placed    bool
	placedAt  fyne.Position

	ready     bool
	running   bool
	question  string         // the question the answer and sources belong to
	answer    *answer.Answer // the last finished answer
	cited     map[int64]int  // chunk id -> [n] it is cited as in the answer
	chatless  bool           // no chat model: answers are extractive
	bm25Only  bool           // no embedding model
	modelName string         // the chat model's, for the mode line
	newList   bool           // the next ranking is a new question's first
	// previewFirst: the preview was open when the question was asked; the
	// new question's first source, [1], takes its place.
	previewFirst bool
	pending      bool // Enter was pressed before the knowledge base was ready
}

// NewQuery builds the query panel. It hands its requests to post, which
// must not block (the window's goroutine calls it), and stays disabled
// until a QueryReady event arrives.
func NewQuery(w fyne.Window, clip fyne.Clipboard, post func(QueryRequest)) *Query {
	q := &Query{win: w, clip: clip, post: post, cited: map[int64]int{}, rows: map[int64]*SourceRow{}}
	q.Question = NewHistoryEntry()
	q.Question.SetPlaceHolder("Ask a question about your documents (Ctrl+L)")
	q.Question.OnSubmitted = func(string) { q.Submit() }
	q.Question.OnEscape = q.Cancel
	q.AskButton = NewButtonWithIcon("Ask", theme.SearchIcon(), q.Submit)
	q.AskButton.Importance = widget.HighImportance
	q.CancelButton = NewButtonWithIcon("Cancel", theme.CancelIcon(), q.Cancel)
	q.State = widget.NewLabel("Opening the knowledge base…")
	q.AddFolder = NewButtonWithIcon("Add folder…", theme.FolderNewIcon(), func() {
		if q.OnAddFolder != nil {
			q.OnAddFolder()
		}
	})
	q.AddFolder.Importance = widget.HighImportance
	q.AddFolder.Hide()
	q.State.Wrapping = fyne.TextWrapWord
	q.blank = newAnswerView(func(int) {}, q.answerAgain, q.countWordForms)
	q.Answer = q.blank
	q.hidden = widget.NewLabel("")
	q.hidden.Importance = widget.LowImportance
	q.hidden.Hide()
	q.Thread = container.New(followLayout{layout.NewVBoxLayout(), q.reanchor}, q.blank.content)
	q.Sources = container.NewVBox()
	q.More = NewButtonWithIcon("More results", theme.MoreVerticalIcon(), func() {
		if q.ready && q.question != "" {
			q.post(MoreResults{})
		}
	})
	q.More.Importance = widget.LowImportance
	q.More.Hide()
	q.Empty = widget.NewLabel(emptySources)
	q.Empty.Wrapping = fyne.TextWrapWord
	q.Empty.Importance = widget.LowImportance
	q.Notes = widget.NewLabel("")
	q.Notes.Wrapping = fyne.TextWrapWord
	q.Notes.Importance = widget.WarningImportance
	q.Notes.Hide()
	q.Preview = newPreviewPane(q.openExternal, q.showInFolder, q.closePreview)
	q.Conversation = newConversation(w, post)
	q.Filter = newFilterRow()

	top := container.NewVBox(
		q.Conversation.row,
		container.NewBorder(nil, nil, nil, container.NewHBox(q.AskButton, q.CancelButton, q.Filter.Toggle), q.Question),
		q.Filter.row,
		container.NewBorder(nil, nil, nil, container.NewVBox(q.AddFolder), q.State),
	)
	q.SourcesHead = widget.NewLabelWithStyle(sourcesHeading, fyne.TextAlignLeading, fyne.TextStyle{Bold: true})
	q.SourceScroll = container.NewVScroll(container.NewVBox(q.Empty, q.Sources, container.NewHBox(q.More)))
	q.AnswerScroll = container.NewVScroll(container.NewVBox(q.hidden, q.Thread))
	sources := container.NewBorder(q.SourcesHead, nil, nil, nil, q.SourceScroll)
	split := container.NewVSplit(q.AnswerScroll, sources)
	// Under half for the conversation (it scrolls, the newest answer kept
	// in view): the smallest window still shows the first source whole
	// and the second one's name.
	split.Offset = 0.4
	main := container.NewHSplit(split, q.Preview.content)
	main.Offset = 0.5
	bottom := container.NewVBox(q.Notes)
	q.content = container.NewBorder(top, bottom, nil, nil, main)
	q.sync()
	return q
}

// Content is the panel's root object.
func (q *Query) Content() fyne.CanvasObject { return q.content }

// Rows returns the visible source rows, best first.
func (q *Query) Rows() []*SourceRow { return q.shown }

// FocusQuestion puts the keyboard focus in the question entry.
func (q *Query) FocusQuestion() { q.win.Canvas().Focus(q.Question) }

// Submit asks the question in the entry.
func (q *Query) Submit() {
	text := strings.TrimSpace(q.Question.Text)
	if q.running {
		return
	}
	if text == "" {
		q.State.SetText("Type a question first, then press Enter.")
		return
	}
	if !q.ready {
		// The box takes typing from the start; the question waits for
		// the knowledge base.
		q.pending = true
		q.State.SetText("Opening the knowledge base: your question is asked as soon as it is ready.")
		return
	}
	q.Question.Remember(text)
	q.post(Ask{Question: text, Filter: q.Filter.Spec()})
}

// SetFolders takes in the knowledge base's folders (guide is the user
// guide's), from which a conversation's folders are chosen.
func (q *Query) SetFolders(all []domain.Folder, guide string) { q.Conversation.setFolders(all, guide) }

// Turns are the conversation's questions and answers shown, oldest first.
func (q *Query) Turns() []*Turn { return q.turns }

// maxTurns bounds the questions the conversation shows: the oldest leave
// the view (the knowledge base keeps them all).
const maxTurns = 50

// addTurn shows a new question at the end of the conversation, the one
// before it becoming an earlier one.
func (q *Query) addTurn(question string) *Turn {
	if n := len(q.turns); n > 0 {
		q.turns[n-1].settle()
	} else {
		q.Thread.Objects = nil
	}
	t := newTurn(question, turnActions{cite: q.openTurnCitation, anew: q.askAnew, exact: q.askExact, again: q.answerAgain, wordForm: q.countWordForms})
	q.turns = append(q.turns, t)
	q.Thread.Objects = append(q.Thread.Objects, t.box)
	if len(q.turns) > maxTurns {
		q.dropTurns(len(q.turns) - maxTurns)
	}
	q.Thread.Refresh()
	return t
}

// dropTurns takes the oldest n turns out of the view.
func (q *Query) dropTurns(n int) {
	q.turns = q.turns[n:]
	q.Thread.Objects = q.Thread.Objects[n:]
	q.hiddenTurns += n
	q.hidden.SetText(plural(q.hiddenTurns, "earlier question of this conversation is", "earlier questions of this conversation are") +
		" not shown here; the knowledge base keeps them.")
	q.hidden.Show()
}

// clearTurns empties the conversation shown.
func (q *Query) clearTurns() {
	q.turns, q.hiddenTurns, q.asked = nil, 0, false
	q.hidden.Hide()
	q.blank.reset(false)
	q.Thread.Objects = []fyne.CanvasObject{q.blank.content}
	q.Thread.Refresh()
	q.Answer = q.blank
}

// newest is the newest turn; nil before the first question.
func (q *Query) newest() *Turn {
	if len(q.turns) == 0 {
		return nil
	}
	return q.turns[len(q.turns)-1]
}

// keepInView scrolls the conversation to its end, where the answer being
// written is, and keeps it there as the answer grows.
func (q *Query) keepInView() {
	q.follow, q.placed = followEnd, false
	q.reanchor()
}

// showNewest scrolls the conversation to the newest answer, and keeps it
// there while the conversation is laid out again: from its question when
// the answer is taller than the view, to be read from its start; else to
// the conversation's end.
func (q *Query) showNewest() {
	q.follow, q.placed = followNewest, false
	q.reanchor()
}

// What the conversation's view follows while it is laid out again.
const (
	followNone   = iota // where the person scrolled to
	followEnd           // the end: the answer being written
	followNewest        // the newest answer
)

// reanchor scrolls the conversation to what it follows. It runs after
// each layout of the conversation as well: a wrapped text's height is
// known only once it was laid out at its width, so the newest answer's
// place moves for a frame or two after it was shown. A person who
// scrolled meanwhile (the view is not where it was put) is followed no
// more.
func (q *Query) reanchor() {
	if q.follow == followNone || q.anchoring {
		return
	}
	s := q.AnswerScroll
	if q.placed && s.Offset != q.placedAt {
		q.follow = followNone
		return
	}
	q.anchoring = true
	defer func() { q.anchoring = false }()
	t := q.newest()
	switch {
	case q.follow == followNewest && t != nil && t.box.Size().Height > s.Size().Height:
		// From the question, unless that leaves the answer's first lines
		// below a small view: then from where they show.
		top := q.Thread.Position().Y + t.box.Position().Y
		text := top + t.Answer.content.Position().Y
		lines := 2 * theme.TextSize()
		s.ScrollToOffset(fyne.NewPos(0, max(top, text+lines+theme.Padding()-s.Size().Height)))
	default:
		s.ScrollToBottom()
	}
	q.placed, q.placedAt = true, s.Offset
}

// followLayout lays the conversation out as a VBox does, then keeps the
// view on what it follows (Query.reanchor).
type followLayout struct {
	box   fyne.Layout
	after func()
}

func (l followLayout) MinSize(objs []fyne.CanvasObject) fyne.Size { return l.box.MinSize(objs) }

func (l followLayout) Layout(objs []fyne.CanvasObject, size fyne.Size) {
	l.box.Layout(objs, size)
	l.after()
}

// Cancel stops the question being answered.
func (q *Query) Cancel() {
	if q.running {
		q.post(CancelAsk{})
	}
}

// Apply shows the worker's events; call it on the window's goroutine.
func (q *Query) Apply(events ...QueryEvent) {
	for _, ev := range events {
		switch ev := ev.(type) {
		case QueryReady:
			q.ready = true
			if !q.AddFolder.Visible() {
				q.State.SetText(readyText)
			}
			if q.pending {
				q.pending = false
				q.Submit()
			}
		case ModelsKnown:
			q.bm25Only, q.chatless = ev.EmbeddingModel == "", ev.ChatModel == ""
			q.modelName = ev.ChatModel
			if q.answer == nil && !q.running {
				showLine(q.Answer.Mode, modeLine(q.bm25Only, "", q.chatless, "", ev.ChatModel))
			}
		case Asking:
			q.running = true
			q.question = ev.Question
			clear(q.rows) // rows belong to one question's passages
			q.answer = nil
			clear(q.cited)
			t := q.newest()
			if ev.Again && t != nil {
				q.asked = false // in place of the answer shown: the turn stays
			} else {
				t, q.asked = q.addTurn(ev.Question), true
			}
			q.Answer = t.Answer
			q.Answer.reset(!q.chatless)
			showLine(q.Answer.Mode, modeLine(q.bm25Only, "", q.chatless, "", q.modelName))
			q.setHeading(false)
			// The new answer is written at the conversation's end, kept in
			// view; its sources start at their top: source 1 must not open
			// half hidden under the last question's scroll.
			q.keepInView()
			q.SourceScroll.ScrollToTop()
			q.newList = true
			// The last question's passage must not stay beside the new
			// answer, read as one of its sources.
			q.previewFirst = q.Preview.Visible()
			q.Preview.hide()
			q.State.SetText("Searching your documents…")
		case Token:
			if q.running {
				setText(q.State, "Writing the answer…")
				q.Answer.appendText(ev.Text)
				q.keepInView()
			}
		case Answered:
			q.running, q.asked = false, false
			q.answer = ev.Answer
			clear(q.cited)
			for _, c := range ev.Answer.Citations {
				q.cited[c.ChunkID] = c.N
			}
			t := q.newest()
			if t == nil { // an answer with no question shown: not from this panel's Ask
				t = q.addTurn(ev.Answer.Question)
				q.Answer = t.Answer
			}
			t.answered(ev.Answer)
			began := q.Conversation.answered(ev.Answer.Thread)
			if began && len(q.turns) > 1 {
				// The engine read it as a question on another subject and
				// began a new conversation with it: the earlier questions
				// belong to the one left, which the list still holds.
				q.turns = q.turns[len(q.turns)-1:]
				q.Thread.Objects = []fyne.CanvasObject{t.box}
				q.hiddenTurns = 0
				q.hidden.Hide()
				q.Thread.Refresh()
			}
			q.setHeading(ev.Answer.Closest)
			state := answeredState(ev.Answer)
			if ev.Filtered {
				state = "Within the filter. " + state
			}
			if began {
				state = "A new conversation began: this question does not follow the last one. " + state
			}
			q.State.SetText(state)
			q.showNewest()
			// The preview, when open, follows to the passage the answer
			// quotes; a question the documents do not cover shows none.
			if q.previewFirst {
				if r, ok := firstCited(ev.Answer); ok {
					q.open(r)
				}
			}
			q.previewFirst = false
			var searchMode search.Mode
			if ev.Answer.Search != nil && ev.Answer.Search.Candidates != nil {
				searchMode = ev.Answer.Search.Candidates.Mode
			}
			showLine(q.Answer.Mode, modeLine(q.bm25Only, searchMode, q.chatless, ev.Answer.Mode, ev.Answer.Model))
		case AskFailed:
			q.running = false
			q.previewFirst = false
			q.failed()
			if problem := filterProblem(ev.Err); problem != "" {
				q.State.SetText(problem)
			} else if ev.Cancelled {
				q.State.SetText("Cancelled. Ask again when you are ready.")
			} else {
				q.State.SetText("Could not answer: " + ErrorText(ev.Err))
			}
		case ThreadsListed:
			q.Conversation.listed(ev)
		case ThreadOpened:
			q.showThread(ev)
		case FoldersChosen:
			q.Conversation.folders(ev.Folders)
		case Ranked:
			q.showRanked(ev)
		case QueryNotice:
			q.State.SetText(ev.Text)
		case PreviewShown:
			q.Preview.show(ev)
		case OpenFailed:
			if ev.Folder {
				q.Preview.folderFailed(ev.Path, ev.Err)
			} else {
				q.Preview.openFailed(ev.Err)
			}
		}
	}
	q.sync()
}

// showThread shows the conversation the next question continues: a
// reopened one's questions, and its last answer as it was saved (its
// sources are found again when the next question is asked), or nothing for
// a new one.
func (q *Query) showThread(ev ThreadOpened) {
	q.Conversation.opened(ev)
	q.question, q.answer = "", nil
	q.Preview.hide() // a passage of another conversation's answer
	q.previewFirst = false
	clear(q.rows)
	clear(q.cited)
	q.shown = nil
	q.Sources.Objects = nil
	q.Sources.Refresh()
	q.Empty.SetText(emptySources)
	q.Empty.Show()
	q.More.Hide()
	q.setHeading(false)
	q.clearTurns()
	showLine(q.blank.Mode, modeLine(q.bm25Only, "", q.chatless, "", q.modelName))
	// Its questions and answers as saved, each answer's citations opening
	// the passages saved with it; the sources are found again with the
	// next question.
	turns := ev.Turns
	if len(turns) > maxTurns {
		q.hiddenTurns = len(turns) - maxTurns
		turns = turns[q.hiddenTurns:]
	}
	for _, tn := range turns {
		t := q.addTurn(tn.Question)
		t.reopened(tn)
		q.Answer = t.Answer
	}
	if t := q.newest(); t != nil {
		t.settle() // no Sources beside it: its cited passages go under it
	}
	q.asked = false
	q.AnswerScroll.Refresh()
	q.keepInView()
	if n := len(ev.Turns); n > 0 {
		q.State.SetText(fmt.Sprintf("Continuing a conversation of %s. The next question follows on from them.", plural(n, "question", "questions")))
	} else {
		q.State.SetText("New conversation: the next question follows on from nothing asked before.")
	}
}

// failed takes back the turn of a question that was not answered (it was
// not saved either), or shows again the answer a failed Answer again was
// to replace.
func (q *Query) failed() {
	t := q.newest()
	switch {
	case t == nil:
	case q.asked:
		q.turns = q.turns[:len(q.turns)-1]
		q.Thread.Objects = q.Thread.Objects[:len(q.Thread.Objects)-1]
		if len(q.turns) == 0 {
			q.clearTurns()
		} else {
			q.Answer = q.newest().Answer
			q.Thread.Refresh()
		}
	case t.ans != nil:
		t.answered(t.ans)
		q.answer = t.ans
		for _, c := range t.ans.Citations {
			q.cited[c.ChunkID] = c.N
		}
	}
	q.asked = false
}

// openTurnCitation shows the passage a turn's answer cites as [n]: one of
// its sources, or for a reopened conversation the passage saved with it.
func (q *Query) openTurnCitation(t *Turn, n int) {
	if r, ok := t.source(n); ok {
		q.open(r)
		return
	}
	if s, ok := t.savedSource(n); ok {
		q.Preview.loading(&search.Passage{ChunkID: s.ChunkID, Path: s.Path}, false)
		q.post(OpenCited{ChunkID: s.ChunkID, Path: s.Path})
	}
}

// askAnew asks a turn's question again in a new conversation: it was read
// as a follow-up, and the person meant it on its own.
func (q *Query) askAnew(t *Turn) {
	if q.ready && !q.running {
		q.post(Ask{Question: t.question, Filter: q.Filter.Spec(), Fresh: true})
	}
}

// askExact asks the newest question again with the words as typed.
func (q *Query) askExact(t *Turn) {
	if q.ready && !q.running && t == q.newest() {
		q.post(Ask{Question: t.question, Filter: q.Filter.Spec(), Again: true, Exact: true})
	}
}

// ShowGuideOnly says, while nothing but the bundled user guide is indexed
// (guide is its folder; nil once the person has added their own), what the
// documents are and offers Add folder as the next step.
func (q *Query) ShowGuideOnly(guide *domain.Folder) {
	if guide == nil {
		if q.AddFolder.Visible() {
			q.AddFolder.Hide()
			if q.ready && !q.running && q.answer == nil {
				q.State.SetText(readyText)
			}
		}
		return
	}
	q.AddFolder.Show()
	if q.ready && !q.running && q.answer == nil {
		q.State.SetText(fmt.Sprintf("Ready. The %s here are Cairn's own user guide: ask how Cairn works (try \"how do I add a folder?\"), "+
			"or add a folder of your own documents to ask about them.", plural(guide.Documents, "document", "documents")))
	}
}

// emptySources is shown in the source list before a question.
const emptySources = "Sources appear here: the passages an answer is drawn from, best first."

// readyText is the state once questions can be asked.
const readyText = "Ready. Ask a question; answers cite the file and page they come from."

// sync enables the controls that make sense now.
func (q *Query) sync() {
	enable(q.AskButton, q.ready && !q.running)
	enable(q.CancelButton, q.running)
	// The question box always takes typing: it has the focus from the
	// start, and what is typed before the knowledge base opens must land.
}

func (q *Query) showRanked(ev Ranked) {
	if ev.Question != q.question {
		return // the ranking of an earlier question
	}
	shown := make([]*SourceRow, len(ev.Results))
	objs := make([]fyne.CanvasObject, len(ev.Results))
	same := len(ev.Results) == len(q.shown)
	for i, r := range ev.Results {
		row := q.rows[r.ChunkID]
		if row == nil {
			row = newSourceRow(sourceActions{open: q.open, copy: q.copyPassage, judge: q.judge, widest: q.widestHead})
			row.show(r)
			q.rows[r.ChunkID] = row
		}
		row.rank(r, q.cited[r.ChunkID], ev.Right[r.ChunkID], ev.Params, ev.Mode, ev.Rerank)
		shown[i], objs[i] = row, row.box
		same = same && q.shown[i] == row
	}
	q.shown = shown
	if !same { // a new order: lay the rows out again; their contents are laid out already
		before := q.Sources.MinSize()
		q.Sources.Objects = objs
		if q.Sources.MinSize() == before {
			// The same rows in another order, as when a slider moves: only
			// their places change. Container.Refresh would refresh every
			// widget of every row too, and each refresh costs Fyne a look
			// at the goroutine's stack: 40-60 ms a move on 12 sources.
			q.Sources.Layout.Layout(objs, q.Sources.Size())
			canvas.Refresh(q.Sources)
		} else {
			q.Sources.Refresh()
		}
	}
	if q.newList { // the first list of a question: from its top
		q.newList = false
		q.SourceScroll.ScrollToTop()
	}
	q.showMatched(ev)
	// The answer stays as it was written while the sliders move: see
	// Ranked.Stale for why it is marked rather than written again.
	if q.answer != nil {
		q.Answer.setStale(ev.Stale, len(q.answer.Sources))
	}
	if notes := strings.Join(ev.Notes, " "); notes != q.Notes.Text {
		q.Notes.SetText(notes)
		q.Notes.Hidden = notes == ""
		q.Notes.Refresh()
	}
	if len(objs) == 0 {
		q.Empty.SetText("No passage reaches the minimum relevance. Lower it in Engineering, try other words, or index the folder that holds the answer.")
		q.Empty.Show()
	} else {
		q.Empty.Hide()
	}
}

// showMatched heads the list with how many passages matched, and offers
// More results while more did.
func (q *Query) showMatched(ev Ranked) {
	head := sourcesHeading
	if q.answer != nil && q.answer.Closest {
		head = closestHeading
	}
	if n := len(ev.Results); n > 0 && ev.Matched > 0 {
		of := plural(ev.Matched, "matching passage", "matching passages")
		if ev.More {
			of = formatCount(ev.Matched) + " or more matching passages"
		}
		head += fmt.Sprintf(" · %d of %s", n, of)
	}
	setText(q.SourcesHead, head)
	if ev.More || ev.Matched > len(ev.Results) {
		q.More.Show()
	} else {
		q.More.Hide()
	}
}

// widestHead is the widest head line of the sources shown: each row
// places its buttons by it, so that all of them sit beside their heads or
// all under them.
func (q *Query) widestHead() float32 {
	var w float32
	for _, r := range q.shown {
		w = max(w, r.headNeed())
	}
	return w
}

// open shows a passage in the preview pane; one of the closest passages
// of a question the documents do not cover is marked as not an answer.
func (q *Query) open(r search.Result) {
	q.Preview.loading(r.Passage, q.answer != nil && (q.answer.Closest || q.answer.Refused) && q.cited[r.ChunkID] == 0)
	q.post(ShowSource{Passage: r.Passage})
}

// openExternal opens a passage's file in the desktop's viewer.
func (q *Query) openExternal(p *search.Passage) {
	q.post(OpenSource{Path: p.Path, Page: p.Page, Label: p.Label, Line: p.LineStart})
}

func (q *Query) showInFolder(path string) { q.post(ShowInFolder{Path: path}) }

func (q *Query) closePreview() { q.Preview.hide() }

// answerAgain answers the question shown again, under the current knobs.
func (q *Query) answerAgain() {
	if q.ready && !q.running && q.question != "" {
		q.post(Ask{Question: q.question, Filter: q.Filter.Spec(), Again: true})
	}
}

// countWordForms counts the question about the collection shown again,
// every form of its words, in place of its answer.
func (q *Query) countWordForms() {
	if q.ready && !q.running && q.question != "" {
		q.post(Ask{Question: q.question, Filter: q.Filter.Spec(), Again: true, WordForms: true})
	}
}

// Headings of the source list.
const (
	sourcesHeading = "Sources"
	closestHeading = "Closest passages — not an answer"
)

// setHeading names the source list: the sources of an answer, or, when
// the documents do not cover the question, the closest passages, which
// must not read as the citations of an answer.
func (q *Query) setHeading(closest bool) {
	if closest {
		q.SourcesHead.Text = closestHeading
		q.SourcesHead.Importance = widget.WarningImportance
	} else {
		q.SourcesHead.Text = sourcesHeading
		q.SourcesHead.Importance = widget.MediumImportance
	}
	q.SourcesHead.Refresh()
}

func (q *Query) copyPassage(r search.Result) {
	q.clip.SetContent(r.Text)
	q.State.SetText("Copied the passage from " + r.Path + ".")
}

func (q *Query) judge(r search.Result, right bool) {
	if q.question == "" {
		return
	}
	q.post(JudgeSource{Question: q.question, Path: r.Path, ChunkID: r.ChunkID, Right: right})
}

func answeredState(a *answer.Answer) string {
	switch {
	case a.NoSources:
		return "Nothing in your documents matched. Try other words, or index the folder that holds the answer."
	case a.Closest:
		return "Your documents do not seem to cover this. The closest passages are listed below; they are not an answer."
	case a.Refused:
		return "Your documents do not seem to answer this. The closest passages are listed below."
	default:
		return "Answered from " + plural(len(a.Sources), "source", "sources") + ". Click a [n] to see the cited passage in its page."
	}
}

// modeLine says how retrieval and answering run: BM25 only or hybrid,
// extractive or generative.
func modeLine(bm25Only bool, sm search.Mode, chatless bool, am answer.Mode, model string) string {
	retrieval := "hybrid (BM25 + vectors)"
	switch {
	case sm == search.ModeBM25 || (sm == "" && bm25Only):
		retrieval = "BM25 only"
		if bm25Only {
			retrieval += " (no embedding model)"
		}
	case sm == search.ModeVector:
		retrieval = "vectors only"
	}
	ans := "generative"
	switch {
	case am == answer.ModeExtractive || (am == "" && chatless):
		ans = "extractive (best passages quoted"
		if chatless {
			ans += "; no chat model loaded"
		}
		ans += ")"
	case am == answer.ModeOnline:
		ans = "online (through the network gate)"
	case am == answer.ModeCollection:
		ans = "a question about the collection, counted by the knowledge base"
	}
	if model != "" && am != answer.ModeExtractive && am != answer.ModeCollection {
		ans += ", " + model
	}
	return "Retrieval: " + retrieval + " · Answers: " + ans
}

// enable enables or disables a widget.
func enable(w fyne.Disableable, on bool) {
	if on {
		w.Enable()
	} else {
		w.Disable()
	}
}

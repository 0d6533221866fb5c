package panels

import (
	"fmt"
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"cairn/core/answer"
	"cairn/core/domain"
	"cairn/core/search"
)

// Conversation is the Ask tab's conversation: the saved conversations of
// the knowledge base (choosing one continues it), Delete and New
// conversation on one row; over the answer, the earlier questions it
// follows and what a follow-up searched for.
type Conversation struct {
	Threads  *widget.Select
	Delete   *Button
	New      *Button
	Earlier  *widget.Label // the questions asked before the one shown
	Searched *widget.Label // "Searched for: …", when that is not the question as asked
	// Exact asks the question again with the words as typed, when a word
	// was corrected: "Search for recursivly instead".
	Exact *Button

	row       fyne.CanvasObject
	list      []domain.Thread
	current   int64    // the conversation the next question continues; 0: a new one
	questions []string // its questions so far, oldest first
	setting   bool     // the list is being set from the worker's, not chosen
	post      func(QueryRequest)
	win       fyne.Window
}

// newConversationPlaceholder is the list's text while the next question
// starts a new conversation.
const newConversationPlaceholder = "New conversation"

func newConversation(win fyne.Window, post func(QueryRequest)) *Conversation {
	c := &Conversation{post: post, win: win}
	c.Threads = widget.NewSelect(nil, func(string) { c.chosen() })
	c.Threads.PlaceHolder = newConversationPlaceholder
	c.Delete = NewButtonWithIcon("", theme.DeleteIcon(), c.confirmDelete)
	c.New = NewButtonWithIcon("New conversation", theme.ContentAddIcon(), c.Start)
	c.Earlier = widget.NewLabel("")
	c.Earlier.Wrapping = fyne.TextWrapWord
	c.Earlier.Importance = widget.LowImportance
	c.Earlier.Hide()
	c.Searched = widget.NewLabel("")
	c.Searched.Wrapping = fyne.TextWrapWord
	c.Searched.TextStyle.Italic = true
	c.Searched.Hide()
	c.Exact = NewButton("", nil)
	c.Exact.Importance = widget.LowImportance
	c.Exact.Hide()
	c.row = container.NewBorder(nil, nil, widget.NewLabel("Conversation:"), container.NewHBox(c.Delete, c.New), c.Threads)
	c.sync()
	return c
}

// Start begins a new conversation: the next question follows nothing.
func (c *Conversation) Start() { c.post(NewConversation{}) }

// Current is the saved conversation the next question continues; 0 for a
// new one.
func (c *Conversation) Current() int64 { return c.current }

// chosen reopens the conversation picked in the list.
func (c *Conversation) chosen() {
	i := c.Threads.SelectedIndex()
	if c.setting || i < 0 || i >= len(c.list) || c.list[i].ID == c.current {
		return
	}
	c.post(OpenThread{ID: c.list[i].ID})
}

func (c *Conversation) confirmDelete() {
	t, ok := c.thread(c.current)
	if !ok {
		return
	}
	ShowConfirm("Delete conversation?",
		fmt.Sprintf("Delete %q and its %s from this knowledge base?\nYour documents are not touched.", t.Title, plural(t.Turns, "question", "questions")),
		func(ok bool) {
			if ok {
				c.post(DeleteThread{ID: t.ID})
			}
		}, c.win)
}

func (c *Conversation) thread(id int64) (domain.Thread, bool) {
	for _, t := range c.list {
		if t.ID == id {
			return t, true
		}
	}
	return domain.Thread{}, false
}

// listed shows the saved conversations and which one is current.
func (c *Conversation) listed(ev ThreadsListed) {
	c.list, c.current = ev.Threads, ev.Current
	opts := make([]string, len(ev.Threads))
	sel := -1
	for i, t := range ev.Threads {
		opts[i] = fmt.Sprintf("%s · %s", t.Title, plural(t.Turns, "question", "questions"))
		if t.ID == ev.Current {
			sel = i
		}
	}
	c.setting = true
	c.Threads.SetOptions(opts)
	if sel >= 0 {
		c.Threads.SetSelectedIndex(sel)
	} else {
		c.Threads.ClearSelected()
	}
	c.setting = false
	c.sync()
}

// opened shows a reopened conversation's questions, or none for a new one.
func (c *Conversation) opened(ev ThreadOpened) {
	c.current = ev.ID
	c.questions = c.questions[:0]
	for _, t := range ev.Turns {
		c.questions = append(c.questions, t.Question)
	}
	c.Searched.Hide()
	if n := len(ev.Turns); n > 0 && ev.Turns[n-1].Query != "" {
		c.showSearched(ev.Turns[n-1].Query, nil)
	}
	c.showEarlier(max(0, len(c.questions)-1))
	c.sync()
}

// asking shows, while a question is answered, every question it follows.
func (c *Conversation) asking() {
	c.Searched.Hide()
	c.Exact.Hide()
	c.showEarlier(len(c.questions))
}

// answered adds ans's question to the conversation thread (0: it was not
// saved) and shows what was searched for it when that differs; when a word
// was corrected, Exact offers the words as typed, asked again through
// again.
func (c *Conversation) answered(ans *answer.Answer, again func()) {
	question, searched, thread := ans.Question, ans.Query, ans.Thread
	if thread != 0 {
		if thread != c.current {
			c.questions = c.questions[:0]
		}
		c.current = thread
		c.questions = append(c.questions, question)
	}
	c.showEarlier(max(0, len(c.questions)-1))
	if searched != "" {
		c.showSearched(searched, ans.Corrections)
	}
	c.Exact.Hide()
	if len(ans.Corrections) > 0 {
		from := make([]string, len(ans.Corrections))
		for i, k := range ans.Corrections {
			from[i] = k.From
		}
		c.Exact.SetText("Search for " + strings.Join(from, ", ") + " instead")
		c.Exact.OnTapped = again
		c.Exact.Show()
	}
	c.sync()
}

func (c *Conversation) showSearched(q string, cs []search.Correction) {
	c.Searched.SetText(search.SearchedFor(q, cs))
	c.Searched.Show()
}

// showEarlier lists the first n questions of the conversation.
func (c *Conversation) showEarlier(n int) {
	if n == 0 {
		c.Earlier.Hide()
		return
	}
	lines := make([]string, n)
	for i, q := range c.questions[:n] {
		lines[i] = fmt.Sprintf("%d. %s", i+1, q)
	}
	c.Earlier.SetText("Earlier in this conversation:\n" + strings.Join(lines, "\n"))
	c.Earlier.Show()
}

func (c *Conversation) sync() {
	enable(c.Delete, c.current != 0)
	enable(c.Threads, len(c.list) > 0)
}

package ui

import (
	"cairn/core/domain"
	"slices"
	"strings"
	"testing"

	"fyne.io/fyne/v2/test"
)

// waitAnswered waits for the answer to the question asked.
func waitAnswered(h *harness, what string) {
	h.t.Helper()
	q := h.shell().Query
	h.until(what, func() bool {
		return strings.HasPrefix(q.State.Text, "Answered") || strings.HasPrefix(q.State.Text, "Your documents")
	})
}

// The Ask tab keeps a conversation in the knowledge base (a real engine,
// extractive): a follow-up shows the standalone question it searched for,
// the conversation is listed, New conversation (Ctrl+N) starts another,
// a past one is reopened from the list and deleted; another knowledge base
// has conversations of its own.
func TestAskTabKeepsAConversationPerKnowledgeBase(t *testing.T) {
	cfg, open := realEngine(t)
	h := newHarnessWith(t, open, cfg)
	p, q := h.shell().IndexTab, h.shell().Query
	c := q.Conversation
	h.until("the user guide", func() bool { return strings.HasPrefix(p.State.Text, "Indexed the user guide") })
	corpus := copyCorpus(t)
	startIndexing(h, corpus)
	h.until("the corpus", func() bool { return strings.HasPrefix(p.State.Text, "Indexed "+corpus+".") })
	h.shell().showTab(tabAsk)

	if !c.Delete.Disabled() || !c.Threads.Disabled() {
		t.Errorf("before any question: Delete disabled %v, list disabled %v; want both disabled", c.Delete.Disabled(), c.Threads.Disabled())
	}
	h.ask("how do I reset the router X200")
	waitAnswered(h, "the first answer")
	if ts := q.Turns(); len(ts) != 1 || ts[0].Searched.Visible() || ts[0].FollowUp.Visible() {
		t.Errorf("a first question: %d turns, or it shows what was searched or a follow-up", len(ts))
	}
	h.until("the conversation listed", func() bool { return len(c.Threads.Options) == 1 })

	h.ask("and the firmware?")
	waitAnswered(h, "the follow-up's answer")
	h.until("the follow-up marked", func() bool { return len(q.Turns()) == 2 && q.Turns()[1].FollowUp.Visible() })
	// A follow-up that names no document keeps the previous question's
	// words (core/answer/followup.go).
	ts := q.Turns()
	if got := ts[1].FollowUp.Text; got != `Read as a follow-up of "how do I reset the router X200"; searched for: firmware reset router x200` ||
		!ts[1].AskAnew.Visible() {
		t.Errorf("follow-up line %q, Ask as a new question shown %v", got, ts[1].AskAnew.Visible())
	}
	if ts[0].Question.Text != "how do I reset the router X200" || ts[1].Question.Text != "and the firmware?" {
		t.Errorf("the conversation shows %q then %q", ts[0].Question.Text, ts[1].Question.Text)
	}
	// The manual's sections are chunks of their own, none holding all four
	// words; the user guide's getting-started passage, whose example is
	// this very follow-up, may come first.
	if got := titles(q); len(got) < 2 || got[0] != "router-x200.md" && got[1] != "router-x200.md" {
		t.Errorf("the follow-up's sources %q, want router-x200.md among the first two", got)
	}
	h.until("two questions in the list", func() bool {
		return len(c.Threads.Options) == 1 && c.Threads.Options[0] == "how do I reset the router X200 · 2 questions"
	})
	if c.Threads.Selected != c.Threads.Options[0] || c.Delete.Disabled() {
		t.Errorf("the conversation under way is not the one chosen (%q) or cannot be deleted", c.Threads.Selected)
	}
	first := c.Current()

	shortcut(h, shortcutNewConvo)
	h.until("a new conversation", func() bool {
		return c.Current() == 0 && strings.HasPrefix(q.State.Text, "New conversation") && c.Threads.Selected == ""
	})
	if c.Threads.Selected != "" || len(q.Turns()) != 0 || q.Answer.Text.String() != "" || len(q.Rows()) != 0 {
		t.Errorf("a new conversation shows: chosen %q, %d questions, answer %q, %d sources",
			c.Threads.Selected, len(q.Turns()), q.Answer.Text.String(), len(q.Rows()))
	}
	h.ask("how do I descale the coffee machine")
	waitAnswered(h, "the new conversation's answer")
	if ts := q.Turns(); len(ts) != 1 || ts[0].FollowUp.Visible() || ts[0].Searched.Visible() {
		t.Errorf("the first question of a new conversation: %d questions shown, or read as a follow-up", len(ts))
	}
	h.until("two conversations", func() bool { return len(c.Threads.Options) == 2 })
	if c.Current() == first || c.Threads.Selected != "how do I descale the coffee machine · 1 question" {
		t.Errorf("the new conversation is %d (first %d), chosen %q; want a new one, chosen", c.Current(), first, c.Threads.Selected)
	}

	// Reopen the first from the list: its questions and last answer show,
	// and the next question continues it.
	c.Threads.SetSelected("how do I reset the router X200 · 2 questions")
	h.until("the first conversation again", func() bool { return c.Current() == first && strings.HasPrefix(q.State.Text, "Continuing") })
	if ts := q.Turns(); len(ts) != 2 || ts[0].Question.Text != "how do I reset the router X200" || ts[1].Searched.Text != "Searched for: firmware reset router x200" {
		t.Errorf("reopened: %d questions shown", len(ts))
	}
	if !strings.Contains(strings.ToLower(q.Answer.Text.String()), "firmware") {
		t.Errorf("reopened conversation shows answer %q, want its last one (about firmware)", q.Answer.Text.String())
	}
	h.ask("and the status light?")
	waitAnswered(h, "the reopened conversation's answer")
	// Listed by the second they were last continued: both may share it.
	h.until("three questions", func() bool {
		return slices.Contains(c.Threads.Options, "how do I reset the router X200 · 3 questions")
	})

	test.Tap(c.Delete)
	test.Tap(button(t, h.overlay(), "Yes"))
	h.until("the conversation deleted", func() bool { return len(c.Threads.Options) == 1 && c.Current() == 0 })
	if c.Threads.Options[0] != "how do I descale the coffee machine · 1 question" {
		t.Errorf("left %q", c.Threads.Options)
	}
	eng := h.shell().eng
	if _, err := eng.ThreadTurns(h.win.ctx, first); err == nil || !strings.Contains(err.Error(), domain.ErrNoThread.Error()) {
		t.Errorf("the deleted conversation is still in the knowledge base: %v", err)
	}

	h.win.openKB("work", false)
	h.until("the other knowledge base", func() bool { return h.shell().ready == 3 })
	c = h.shell().Query.Conversation
	h.settle(100e6)
	if len(c.Threads.Options) != 0 || c.Current() != 0 {
		t.Errorf("another knowledge base lists %q, current %d: conversations belong to their knowledge base", c.Threads.Options, c.Current())
	}
}

// A conversation deleted outside the window (cairn threads --delete) does
// not make every later question fail: the next one starts a new
// conversation.
func TestAConversationDeletedElsewhereGivesWayToANewOne(t *testing.T) {
	eng := newFakeEngine(t.TempDir())
	h := newHarness(t, eng)
	q := h.shell().Query
	c := q.Conversation
	h.ask("how do I reset the router")
	h.until("the conversation", func() bool { return c.Current() != 0 && len(c.Threads.Options) == 1 })
	if err := eng.DeleteThread(h.win.ctx, c.Current()); err != nil {
		t.Fatal(err)
	}
	h.ask("and the pin?")
	h.until("the notice", func() bool {
		return strings.HasPrefix(q.State.Text, "That conversation was deleted outside this window.")
	})
	h.until("no conversation listed", func() bool { return len(c.Threads.Options) == 0 && c.Current() == 0 })
	h.ask("and the pin?")
	h.until("a new conversation", func() bool { return c.Current() != 0 && len(c.Threads.Options) == 1 })
	if got := c.Threads.Options[0]; got != "and the pin? · 1 question" {
		t.Errorf("listed %q", got)
	}
}

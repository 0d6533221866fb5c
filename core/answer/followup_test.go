package answer

import (
	"context"
	"reflect"
	"strings"
	"testing"

	"cairn/core/search"
)

func TestIsFollowUp(t *testing.T) {
	for q, want := range map[string]bool{
		"and for tar?":                         true,
		"And what about zip":                   true,
		"what about the X300?":                 true,
		"how do I undo it?":                    true,
		"does that work on them too":           true,
		"How do I undo that?":                  true,
		"for tar?":                             true,
		"tar?":                                 true,
		"How do I make grep ignore case?":      false,
		"Where is the router manual?":          false,
		"Check that the pump is off first":     false,
		"how often should the machine descale": false,
		"reset the router":                     false,
		"":                                     false,
	} {
		if got := IsFollowUp(q); got != want {
			t.Errorf("IsFollowUp(%q) = %v, want %v", q, got, want)
		}
	}
}

func TestStandaloneCarriesThePreviousTerms(t *testing.T) {
	for _, tc := range []struct {
		prev Turn
		q    string
		want string
	}{
		{Turn{Question: "How do I make grep ignore case?"}, "and for tar?", "tar ignore case"},
		{Turn{Question: "How do I make grep ignore case?"}, "what about zip", "zip ignore case"},
		// A pronoun refers to the previous subject: nothing is replaced.
		{Turn{Question: "How do I make grep ignore case?"}, "how do I turn it off?", "turn grep ignore case"},
		// A model number takes the place of the previous one.
		{Turn{Question: "How do I reset the X200 router?"}, "and the X300?", "x300 reset router"},
		// What was searched before, when it was rewritten, is what carries.
		{Turn{Question: "and for tar?", Query: "tar ignore case"}, "and zip?", "zip ignore case"},
		{Turn{Question: "How do I make grep ignore case?"}, "and?", "grep ignore case"},
	} {
		if got := Standalone(tc.prev, tc.q); got != tc.want {
			t.Errorf("Standalone(%q, %q) = %q, want %q", tc.prev.Question, tc.q, got, tc.want)
		}
	}
}

// Without a chat model, a follow-up in a thread searches the carried terms
// and says so; a standalone question in the same thread is searched as
// asked, and a follow-up outside a thread too.
func TestFollowUpWithoutAModel(t *testing.T) {
	history := []Turn{{Question: "How do I make grep ignore case?"}}
	for _, tc := range []struct {
		history []Turn
		q, want string
	}{
		{history, "and for tar?", "tar ignore case"},
		{history, "How do I reset the X200?", "How do I reset the X200?"},
		{nil, "and for tar?", "and for tar?"},
	} {
		var queries []string
		resp := retrieved(passRouter)
		a := New(func(_ context.Context, q string) (*search.Response, error) {
			queries = append(queries, q)
			return resp, nil
		}, Options{History: tc.history})
		ans, err := a.Ask(context.Background(), tc.q, nil)
		if err != nil {
			t.Fatal(err)
		}
		if len(queries) != 1 || queries[0] != tc.want {
			t.Errorf("%q: searched %q, want %q", tc.q, queries, tc.want)
		}
		if wantShown := tc.want != tc.q; (ans.Query != "") != wantShown || wantShown && ans.Query != tc.want {
			t.Errorf("%q: Query %q", tc.q, ans.Query)
		}
	}
}

// With a chat model, the rewrite call is shown the earlier questions (what
// was searched for them) even when rewriting is off, and its standalone
// query is searched; when it gives nothing usable, the carried terms are.
func TestFollowUpRewrittenByTheModel(t *testing.T) {
	history := []Turn{{Question: "How do I make grep ignore case?"}, {Question: "and for tar?", Query: "tar ignore case"}}
	for _, tc := range []struct {
		reply, want string
	}{
		{"<query>zip ignore case option</query>", "zip ignore case option"},
		{"I cannot help with that.", "zip ignore case"},
	} {
		gen := &script{replies: []string{tc.reply, "Hold the RESET button for 10 seconds [1]."}}
		ans, _, queries := ask(t, gen, Options{History: history}, "and zip?", passRouter)
		if len(queries) != 1 || queries[0] != tc.want || ans.Query != tc.want {
			t.Errorf("%q: searched %q (shown %q), want %q", tc.reply, queries, ans.Query, tc.want)
		}
		if len(ans.Notes) != 0 {
			t.Errorf("%q: notes %q", tc.reply, ans.Notes)
		}
		r := gen.calls[0]
		if !strings.Contains(r.Messages[0].Content, "stand alone") ||
			r.Messages[1].Content != "Earlier questions:\n- How do I make grep ignore case?\n- tar ignore case\n\nMessage: and zip?" {
			t.Errorf("rewrite request %q", r.Messages)
		}
	}
}

// The chat model writing a follow-up's answer is shown the earlier turns
// as the conversation's messages, their citations taken out so that an
// earlier [1] cannot read as this answer's source 1; this answer's sources
// are numbered from 1. When they do not all fit, the oldest go first.
func TestTheWriterSeesTheEarlierTurnsWithinItsContext(t *testing.T) {
	history := []Turn{
		{Question: "How do I make grep ignore case?", Answer: "Use grep -i [1]. It also matches uppercase [2]."},
		{Question: "and for tar?", Query: "tar ignore case", Answer: "Use --ignore-case [1, 2]."},
		{Question: "how do I reset the router?", Answer: "Hold the RESET button for 10 seconds [1]. Then wait [Source 2]."},
	}
	wantTurns := []Message{
		{Role: "user", Content: "Question: How do I make grep ignore case?"},
		{Role: "assistant", Content: "Use grep -i. It also matches uppercase."},
		{Role: "user", Content: "Question: and for tar?"},
		{Role: "assistant", Content: "Use --ignore-case."},
		{Role: "user", Content: "Question: how do I reset the router?"},
		{Role: "assistant", Content: "Hold the RESET button for 10 seconds. Then wait."},
	}
	gen := &script{replies: []string{"<query>router reset light</query>", "The status light blinks amber [1]."}}
	ans, _, _ := ask(t, gen, Options{History: history}, "and the light?", passRouter)
	msgs := gen.calls[1].Messages
	if len(msgs) != 8 || msgs[0].Role != "system" || !reflect.DeepEqual(msgs[1:7], wantTurns) {
		t.Fatalf("answer request:\n%q\nwant the system rules, then\n%q", msgs, wantTurns)
	}
	last := msgs[7].Content
	if !strings.Contains(last, "<source n=1>") || strings.Contains(last, "<source n=2>") || !strings.HasSuffix(last, followsOn) {
		t.Errorf("the question's message %q", last)
	}
	if len(ans.Citations) != 1 || ans.Citations[0].N != 1 || ans.Citations[0].ChunkID != passRouter.ChunkID {
		t.Errorf("citations %+v", ans.Citations)
	}

	// Room for the sources and about one earlier turn: the newest is kept.
	gen = &script{ctxSize: 0, replies: []string{"<query>router reset light</query>", "The status light blinks amber [1]."}}
	gen.ctxSize = gen.TokenCount(rules) + 512 + promptOverhead + 2*gen.TokenCount(sourceBlock(Source{N: 1, Result: search.Result{Passage: passRouter}}, passRouter.Text)) + 160
	ans, _, _ = ask(t, gen, Options{History: history, MaxTokens: 512}, "and the light?", passRouter)
	msgs = gen.calls[1].Messages
	if len(msgs) != 4 || !reflect.DeepEqual(msgs[1:3], wantTurns[4:]) {
		t.Errorf("with a small context, the answer request is\n%q\nwant only the newest turn %q", msgs, wantTurns[4:])
	}
	if !strings.Contains(strings.Join(ans.Notes, " "), "shown 1 of the 3 earlier questions") {
		t.Errorf("notes %q", ans.Notes)
	}
}

package answer

import (
	"context"
	"reflect"
	"slices"
	"sort"
	"strings"
	"testing"

	"cairn/core/search"
)

func TestIsFollowUp(t *testing.T) {
	for q, want := range map[string]bool{
		"and for tar?":                          true,
		"And what about zip":                    true,
		"what about the X300?":                  true,
		"how do I undo it?":                     true,
		"does that work on them too":            true,
		"How do I undo that?":                   true,
		"for tar?":                              true,
		"tar?":                                  true,
		"ok, and with mv?":                      true,
		"Now for tar":                           true,
		"Can I do that with mv too?":            true,
		"Does mv have that too?":                true,
		"Is there the same for mv?":             true,
		"How would I do the same thing in zsh?": true,
		"What if I use mv instead?":             true,
		"What's the equivalent for tar?":        true,
		"How do I make grep ignore case?":       false,
		// Asking the same of something named in full is a question of its own.
		"How do I delete hidden files in all subfolders too?": false,
		"What is the Windows equivalent of grep?":             false,
		"Is the same key used for both doors?":                false,
		"Where is the router manual?":                         false,
		"Check that the pump is off first":                    false,
		"how often should the machine descale":                false,
		"reset the router":                                    false,
		"":                                                    false,
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
		// The words that point back are not what is asked.
		{Turn{Question: "How do I make cp prompt before overwriting a file?"}, "Can I do the same thing with mv too?", "mv prompt overwriting file"},
		{Turn{Question: "How do I make cp prompt before overwriting a file?"}, "ok, what if I use mv instead?", "mv prompt overwriting file"},
		// Undoing an action asks for its reverse, of the same subject.
		{Turn{Question: "How do I compress a file with gzip?"}, "how do I undo that?", "decompress file gzip"},
		{Turn{Question: "How do I mount a disk image?"}, "and how do I reverse it?", "unmount disk image"},
		{Turn{Question: "How do I print the last lines with tail?"}, "how do I undo that?", "undo print last lines tail"},
		// An undo that names what it undoes asks about that.
		{Turn{Question: "How do I add files to a git repository?"}, "and how do I undo a commit?", "undo commit files git repository"},
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
		a := New(func(_ context.Context, rq *Question) (*search.Response, error) {
			queries = append(queries, rq.Text)
			return resp, nil
		}, Options{History: tc.history})
		ans, err := a.Ask(context.Background(), tc.q, nil)
		if err != nil {
			t.Fatal(err)
		}
		// A follow-up's first search (both questions' terms) reads which
		// documents they name; none is titled here.
		wantQueries := []string{tc.want}
		switch {
		case tc.history != nil && tc.q == "and for tar?":
			wantQueries = []string{"tar grep ignore case", tc.want}
		case tc.history != nil:
			// A question of its own sharing no word with the one before:
			// that one's search shows whether the subject changed.
			wantQueries = []string{tc.want, tc.history[0].Question}
		}
		if !reflect.DeepEqual(queries, wantQueries) {
			t.Errorf("%q: searched %q, want %q", tc.q, queries, wantQueries)
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
		if len(queries) != 2 || queries[0] != "zip tar ignore case" || queries[1] != tc.want || ans.Query != tc.want {
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

// manPages is a knowledge base of man pages for follow-ups: each passage is
// titled with its page's name, as a saved man page (head.txt) is.
var manPages = map[string]string{
	"tail":  "-n, --lines=[+]NUM output the last NUM lines, instead of the last 10",
	"head":  "-n, --lines=[-]NUM print the first NUM lines instead of the first 10",
	"gzip":  "-9 --best indicates the slowest compression method (best compression)",
	"bzip2": "-9 (or --best) selects the block size for compression",
	"grep":  "-i, --ignore-case Ignore case distinctions in patterns and input data",
	"tar":   "--ignore-case ignore case when matching member names",
	"wc":    "-l, --lines\n    print the newline counts\n\n-m, --chars\n    print the character counts",
	"rm":    "-i     prompt before every removal\n\n-v, --verbose\n    explain what is being done",
	"mkdir": "-p, --parents\n    no error if existing, make parent directories as needed\n\n" +
		"-v, --verbose\n    print a message for each created directory",
}

// manRetriever searches manPages: a page is found when its name or text
// holds a word of the query, in the order of its name; it records the
// queries.
func manRetriever(queries *[]string) Retriever {
	return func(_ context.Context, rq *Question) (*search.Response, error) {
		*queries = append(*queries, rq.Text)
		q := rq.Text
		resp := &search.Response{Candidates: &search.Candidates{Mode: search.ModeBM25, Terms: search.ParseTerms(q)}}
		names := make([]string, 0, len(manPages))
		for n := range manPages {
			names = append(names, n)
		}
		sort.Strings(names)
		for i, n := range names {
			for _, w := range search.Tokens(q) {
				if w == n || slices.Contains(search.Tokens(manPages[n]), w) {
					p := &search.Passage{ChunkID: int64(i + 1), Path: "/man/" + n + ".txt", Title: n, Format: "txt", Text: manPages[n]}
					resp.Results = append(resp.Results, search.Result{Passage: p, Rank: len(resp.Results) + 1, Score: 1, Relevance: 1})
					break
				}
			}
		}
		return resp, nil
	}
}

// A follow-up that names another document (a man page's name) searches it
// in place of the one the previous question named, with the rest of that
// question; one that refers back with a pronoun keeps it, and one that
// names no document asks something new of the same one. The document the
// follow-up is about comes first among the sources, whatever the search's
// order (manRetriever's is the names' order: grep before tar, head and
// tail before wc).
func TestAFollowUpReplacesTheSubjectItNames(t *testing.T) {
	for _, tc := range []struct {
		prev, q string
		want    []string // the searches: both questions' terms, then the follow-up's
		first   string   // the first source's title
	}{
		{"How do I show the last 20 lines of a file with tail?", "and with head?",
			[]string{"head last 20 lines file tail", "head last 20 lines file"}, "head"},
		{"How do I compress a file with gzip at the best compression level?", "what about bzip2?",
			[]string{"bzip2 compress file gzip best compression level", "bzip2 compress file best compression level"}, "bzip2"},
		{"How do I make grep ignore case?", "and for tar?",
			[]string{"tar grep ignore case", "tar ignore case"}, "tar"},
		// A pronoun refers to the subject: the first search is the one.
		// Undoing an action searches its reverse.
		{"How do I compress a file with gzip?", "how do I undo that?",
			[]string{"decompress file gzip"}, "gzip"},
		{"How do I count the lines of a file with wc?", "and the characters?",
			[]string{"characters count lines file wc"}, "wc"},
	} {
		var queries []string
		a := New(manRetriever(&queries), Options{History: []Turn{{Question: tc.prev}}})
		ans, err := a.Ask(context.Background(), tc.q, nil)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(queries, tc.want) {
			t.Errorf("%q after %q: searched %q, want %q", tc.q, tc.prev, queries, tc.want)
		}
		if last := tc.want[len(tc.want)-1]; ans.Query != last {
			t.Errorf("%q after %q: shown as searched %q, want %q", tc.q, tc.prev, ans.Query, last)
		}
		if len(ans.Sources) == 0 || ans.Sources[0].Title != tc.first {
			t.Errorf("%q after %q: sources %v, want %s first", tc.q, tc.prev, titles(ans.Sources), tc.first)
		}
	}
}

func titles(ss []Source) []string {
	var out []string
	for _, s := range ss {
		out = append(out, s.Title)
	}
	return out
}

// A chat model's rewrite of a follow-up is checked against the same rules:
// one that keeps the subject the follow-up replaces, or leaves out the one
// it names, is not searched; the rule-based rewrite is, and a note says
// why.
func TestAModelsRewriteKeepsTheFollowUpsSubject(t *testing.T) {
	tail := []Turn{{Question: "How do I show the last 20 lines of a file with tail?"}}
	gzip := []Turn{{Question: "How do I compress a file with gzip?"}}
	for _, tc := range []struct {
		history  []Turn
		q, reply string
		want     []string // the searches
		note     string
	}{
		{tail, "and with head?", "<query>head last 20 lines tail</query>",
			[]string{"head last 20 lines file tail", "head last 20 lines file"},
			`The rewritten query (head last 20 lines tail) kept "tail", which the follow-up replaces; searched head last 20 lines file instead.`},
		{tail, "and with head?", "<query>head show first 20 lines</query>",
			[]string{"head last 20 lines file tail", "head show first 20 lines"}, ""},
		// A pronoun keeps the subject: a rewrite must too.
		{gzip, "how do I undo that?", "<query>undo compression</query>",
			[]string{"decompress file gzip"},
			`The rewritten query (undo compression) left out "gzip", what the follow-up is about; searched decompress file gzip instead.`},
		{gzip, "how do I undo that?", "<query>undo gzip compression</query>",
			[]string{"decompress file gzip", "undo gzip compression"}, ""},
	} {
		var queries []string
		gen := &script{replies: []string{tc.reply, "Use -n [1]."}}
		a := New(manRetriever(&queries), Options{History: tc.history, Generator: gen, Verify: "off"})
		ans, err := a.Ask(context.Background(), tc.q, nil)
		if err != nil {
			t.Fatal(err)
		}
		if last := tc.want[len(tc.want)-1]; !reflect.DeepEqual(queries, tc.want) || ans.Query != last {
			t.Errorf("%q: searched %q (shown %q), want %q", tc.reply, queries, ans.Query, tc.want)
		}
		var notes []string
		if tc.note != "" {
			notes = []string{tc.note}
		}
		if !reflect.DeepEqual(ans.Notes, notes) {
			t.Errorf("%q: notes %q, want %q", tc.reply, ans.Notes, notes)
		}
	}
}

// A follow-up that asks something of its own chooses the line by its own
// words: "and the characters?" after counting lines with wc quotes
// --chars, though the words carried from the first question ("count
// lines") name --lines.
func TestAFollowUpsOwnWordsChooseTheLine(t *testing.T) {
	var queries []string
	a := New(manRetriever(&queries), Options{History: []Turn{{Question: "How do I count the lines of a file with wc?"}}})
	ans, err := a.Ask(context.Background(), "and the characters?", nil)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(ans.Text, "-m, --chars") {
		t.Errorf("answer %q, want the --chars line", ans.Text)
	}
}

// "what about mkdir?" after rm's "-v, --verbose  explain what is being
// done" asks for the same option of mkdir, whose line shares no word with
// the question: the option the previous answer opened with is carried
// (not searched) and mkdir's --verbose is quoted. A follow-up that says
// what it wants carries none.
func TestAFollowUpCarriesTheOptionTheAnswerBeforeQuoted(t *testing.T) {
	prev := Turn{Question: "How do I make rm explain what is being done?", Answer: "-v, --verbose\n    explain what is being done [1]"}
	var queries []string
	a := New(manRetriever(&queries), Options{History: []Turn{prev}})
	ans, err := a.Ask(context.Background(), "what about mkdir?", nil)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(ans.Text, "-v, --verbose\n    print a message") || ans.Sources[0].Title != "mkdir" {
		t.Errorf("answer %q from %q, want mkdir's --verbose line", ans.Text, ans.Sources[0].Title)
	}
	for _, q := range queries {
		if strings.Contains(q, "verbose") {
			t.Errorf("searched %q: the carried option is not searched", q)
		}
	}
	if fu := standalone(prev, ReadQuestion("and how do I make mkdir create parents?"), [][]string{{"rm"}, {"mkdir"}}); fu.option != "" {
		t.Errorf("a follow-up with words of its own carries %q", fu.option)
	}
	for answer, want := range map[string]string{
		prev.Answer: "--verbose",
		"--time=WORD\n    change the specified time [2]":                        "--time",
		"-c\n--continue\n    Continue getting a partially-downloaded file. [1]": "--continue",
		"-c\n    Continue getting a file; see --continue. [1]":                  "",
		"Use --best for the smallest file [1].":                                 "",
		"Your documents do not seem to cover this.":                             "",
	} {
		if got := quotedOption(answer); got != want {
			t.Errorf("quotedOption(%q) = %q, want %q", answer, got, want)
		}
	}
}

// A question that reads as a follow-up only by its pronoun, but names a
// document of its own and asks something of it, is searched as asked: in
// "How do I make tail show its last 20 lines?" after a grep question, "its"
// is tail's, and grep's "ignore case" has nothing to do with it.
func TestAQuestionWhosePronounIsItsOwnStandsAlone(t *testing.T) {
	var queries []string
	a := New(manRetriever(&queries), Options{History: []Turn{{Question: "How do I make grep ignore case?"}}})
	q := "How do I make tail show its last 20 lines?"
	ans, err := a.Ask(context.Background(), q, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(queries) == 0 || queries[0] != q || ans.Query != "" || ans.FollowUp != nil {
		t.Errorf("searched %q (shown %q, follow-up %v), want the question as asked", queries, ans.Query, ans.FollowUp)
	}
	// Without a document of its own, the pronoun is the previous one's.
	if fu := standalone(Turn{Question: "How do I make grep ignore case?"}, ReadQuestion("how do I make it show the line numbers?"), [][]string{{"grep"}}); fu.alone {
		t.Error("a pronoun follow-up naming no document stood alone")
	}
}

// A question with a pronoun that names its own subject is a new question,
// whatever it ends with: "with everything in it" refers to the directory
// it names. One that says a word or two around its pronoun follows up.
func TestAQuestionNamingItsOwnSubjectIsNew(t *testing.T) {
	prev := []Turn{{Question: "How do I sort numbers numerically?"}}
	for _, q := range []string{
		"how do I copy a directory with everything in it",
		"how do I compress a file but keep the original copy of it",
		"how can I create a directory and its parents if they do not exist",
	} {
		var queries []string
		ans, err := New(manRetriever(&queries), Options{History: prev}).Ask(context.Background(), q, nil)
		if err != nil {
			t.Fatal(err)
		}
		if ans.FollowUp != nil || len(queries) == 0 || queries[0] != q {
			t.Errorf("%q: read as a follow-up (%v), searched %q", q, ans.FollowUp, queries)
		}
		// Answered from another document than the question before: a new
		// subject.
		ans, err = New(firstWordRetriever, Options{History: prev}).Ask(context.Background(), q, nil)
		if err != nil || !ans.NewSubject {
			t.Errorf("%q after %q: not a new subject (%v)", q, prev[0].Question, err)
		}
	}
	// Answered from the same document, it is the same subject.
	ans, err := New(func(context.Context, *Question) (*search.Response, error) {
		p := &search.Passage{ChunkID: 1, Path: "/docs/router.md", Title: "router", Text: "Hold the reset button for ten seconds. The default admin password is on the label."}
		return &search.Response{Results: []search.Result{{Passage: p, Rank: 1, Relevance: 1}}, Candidates: &search.Candidates{Terms: search.ParseTerms("reset")}}, nil
	}, Options{History: []Turn{{Question: "how do I reset the router"}}}).Ask(context.Background(), "what is the default admin password", nil)
	if err != nil || ans.NewSubject {
		t.Errorf("the same document: new subject %v (%v)", ans.NewSubject, err)
	}
	for _, q := range []string{"how do I keep watching it as it grows?", "how do I undo that?", "can it read from a pipe?"} {
		var queries []string
		ans, err := New(manRetriever(&queries), Options{History: []Turn{{Question: "How do I show the last lines of a file with tail?"}}}).Ask(context.Background(), q, nil)
		if err != nil {
			t.Fatal(err)
		}
		if ans.FollowUp == nil || ans.FollowUp.Of != "How do I show the last lines of a file with tail?" || ans.NewSubject {
			t.Errorf("%q: follow-up %+v, new subject %v", q, ans.FollowUp, ans.NewSubject)
		}
	}
	// A question of its own on the same subject stays in the conversation.
	ans, err = New(manRetriever(new([]string)), Options{History: []Turn{{Question: "How do I make grep ignore case?"}}}).Ask(context.Background(), "How do I count the matching lines with grep?", nil)
	if err != nil || ans.FollowUp != nil || ans.NewSubject {
		t.Errorf("same subject: follow-up %v, new subject %v (%v)", ans.FollowUp, ans.NewSubject, err)
	}
}

// firstWordRetriever finds one passage, of a document named for the
// query's first key word.
func firstWordRetriever(_ context.Context, q *Question) (*search.Response, error) {
	p := &search.Passage{ChunkID: 1, Path: "/docs/" + q.key[0] + ".txt", Title: q.key[0], Text: strings.Join(q.key, " ")}
	return &search.Response{Results: []search.Result{{Passage: p, Rank: 1, Relevance: 1}}, Candidates: &search.Candidates{Terms: q.Terms}}, nil
}

package cli

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"
	"time"

	"cairn/core/answer"
	"cairn/core/domain"
	"cairn/core/fault"
	"cairn/core/humanize"
	"cairn/core/search"
)

func runAsk(ctx context.Context, env *cliEnv, args []string) error {
	fs := flag.NewFlagSet("ask", flag.ContinueOnError)
	var kb kbFlags
	kb.add(fs)
	asJSON := fs.Bool("json", false, "print JSON: answer, citations, verdicts, timings")
	forms := fs.Bool("word-forms", false, "for a question about the collection: count any form of its words (\"locales\", and \"local\" for \"locale\"), not whole words only")
	page := fs.Int("page", 1, "for a question about the collection (how many, which files, list): the page of the list to print, 50 files a page")
	newThread := fs.Bool("new", false, "start a saved conversation with this question (continue it with --continue)")
	cont := fs.Bool("continue", false, "ask this as the next question of the last conversation (a follow-up such as \"and for tar?\" is completed from it)")
	thread := fs.Int64("thread", 0, "ask this as the next question of conversation `ID` (see cairn threads)")
	exact := fs.Bool("exact", false, "search the words as typed: a word no passage holds is not corrected to the nearest word that one does")
	var ff filterFlags
	ff.add(fs)
	pos, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(pos) == 0 {
		return usageError{`ask needs a question: cairn ask "How do I reset the device?"`}
	}
	if n := btoi(*newThread) + btoi(*cont) + btoi(*thread != 0); n > 1 {
		return usageError{"--new, --continue and --thread choose the conversation: give one of them"}
	}
	if *thread < 0 {
		return usageError{fmt.Sprintf("--thread %d: a conversation's ID is a positive number (see cairn threads)", *thread)}
	}
	filter, err := ff.filter()
	if err != nil {
		return err
	}
	saved := *newThread || *cont || *thread != 0
	open := kb.open
	if saved {
		open = kb.openExisting // the question is saved in the conversation
	}
	eng, err := open(ctx, env)
	if err != nil {
		return err
	}
	defer eng.Close()
	if *cont {
		threads, err := eng.Threads(ctx)
		if err != nil {
			return err
		}
		if len(threads) > 0 {
			*thread = threads[0].ID
		} // none yet: --continue starts the first
	}
	var onToken func(string)
	if !*asJSON && *page <= 1 {
		// The model may copy a document's control characters.
		onToken = func(s string) { fmt.Fprint(env.stdout, fault.PrintableText(s)) }
	}
	req := eng.SearchRequest(strings.Join(pos, " "))
	req.Exact = *exact
	req.Filter = filter
	req.WordForms = *forms
	var ans *answer.Answer
	if saved {
		ans, err = eng.AskInThread(ctx, *thread, req, onToken)
		if errors.Is(err, domain.ErrNoThread) {
			return usageError{fmt.Sprintf("--thread %d: no such conversation in this knowledge base (list them with cairn threads)", *thread)}
		}
	} else {
		ans, err = eng.Ask(ctx, req, onToken)
	}
	if err != nil {
		return err
	}
	if *asJSON {
		enc := json.NewEncoder(env.stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(ans)
	}
	if onToken == nil { // a later page: nothing was streamed
		if ans.Collection != nil {
			fmt.Fprint(env.stdout, fault.PrintableText(ans.Collection.Page(*page)))
		} else {
			fmt.Fprint(env.stdout, fault.PrintableText(ans.Text))
		}
	}
	printAnswerFooter(env, ans)
	switch {
	case ans.Thread != 0 && ans.NewSubject:
		fmt.Fprintf(env.stdout, "(A new subject: new conversation %d; ask a follow-up with cairn ask --continue.)\n", ans.Thread)
	case ans.Thread != 0:
		fmt.Fprintf(env.stdout, "(Conversation %d: ask a follow-up with cairn ask --continue.)\n", ans.Thread)
	}
	return nil
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

// printAnswerFooter prints, after the streamed answer, what it is (label,
// verification), its notes, and the sources the citations point to; or,
// when the documents do not cover the question, the closest passages,
// which are not citations.
func printAnswerFooter(env *cliEnv, ans *answer.Answer) {
	w := env.stdout
	fmt.Fprintln(w)
	if ans.NoSources {
		return
	}
	fmt.Fprintln(w)
	switch {
	case ans.Mode == answer.ModeCollection:
		for _, n := range ans.Notes {
			fmt.Fprintln(w, "Note:", n)
		}
		return
	case ans.Closest: // nothing was written: the footer lists the closest passages
	case ans.Mode == answer.ModeExtractive && !ans.Refused:
		// Quoted, not verified: nothing was generated, so nothing was
		// checked claim by claim, whichever verdict the engine gave.
		fmt.Fprintln(w, "(Quoted from your documents, word for word: no chat model is loaded.)")
	case ans.Mode != answer.ModeExtractive:
		fmt.Fprintf(w, "(Written by %s%s; %s.)\n", ans.Model, onlineNote(ans.Mode), verdictLine(ans.Verdict))
		t := ans.Timing
		fmt.Fprintf(w, "(Retrieval %s, first token after %s, %d tokens at %.1f tokens/s, total %s.)\n",
			t.Retrieval.Round(time.Millisecond), t.PromptProcessing.Round(time.Millisecond), t.Tokens, t.TokensPerSec, t.Total.Round(time.Millisecond))
		if ans.Cost > 0 {
			fmt.Fprintf(w, "(%d tokens in, %d out: estimated cost %s at answer.price_per_mtok_in and _out.)\n", t.PromptTokens, t.Tokens, humanize.Cost(ans.Cost))
		}
	}
	if ans.FollowUp != nil {
		// Said, with the words searched below, so that a question taken
		// for a follow-up by mistake can be asked again on its own.
		fmt.Fprintf(w, "Read as a follow-up of %s (ask it on its own: cairn ask --new).\n", fault.Printable(fmt.Sprintf("%q", ans.FollowUp.Of)))
	}
	if ans.Query != "" {
		fmt.Fprintln(w, fault.Printable(search.SearchedFor(ans.Query, ans.Corrections)))
	}
	for _, n := range ans.Notes {
		fmt.Fprintln(w, "Note:", n)
	}
	if ans.Closest {
		printClosest(w, ans.Sources)
		return
	}
	for _, c := range ans.Claims {
		if !c.Supported {
			fmt.Fprintf(w, "⚠ not supported by its sources: %q (%s)\n", c.Text, c.Reason)
		}
	}
	for _, n := range ans.Removed {
		fmt.Fprintf(w, "⚠ citation [%d] pointed to no source and was removed\n", n)
	}
	if len(ans.Citations) > 0 {
		fmt.Fprintln(w, "\nSources:")
	}
	for _, c := range ans.Citations {
		path := fault.Printable(c.Path)
		loc := fmt.Sprintf("%s:%d", path, c.Line)
		if c.Page > 0 {
			loc = fmt.Sprintf("%s (%s %d)", path, search.UnitName(c.Unit), c.Page)
		}
		fmt.Fprintf(w, "[%d] %s\n    %q\n", c.N, loc, c.Quote)
	}
}

// printClosest lists the passages that came closest to a question the
// documents do not cover: where each is and what it says, under a heading
// that says they are not an answer, and without [n], which would read as
// citations.
func printClosest(w io.Writer, sources []answer.Source) {
	fmt.Fprintln(w, "Closest passages — not an answer:")
	for _, s := range sources {
		fmt.Fprintf(w, "- %s, %s\n", location(s.Passage), s.Result.MatchLabel())
		fmt.Fprintln(w, indent(fault.PrintableText(s.Snippet), "    "))
	}
}

func onlineNote(m answer.Mode) string {
	if m == answer.ModeOnline {
		return " online, through the network gate"
	}
	return ""
}

func verdictLine(v answer.Verdict) string {
	switch v {
	case answer.VerdictSupported:
		return "every claim is supported by a cited source"
	case answer.VerdictPartial:
		return "some claims are not supported by their sources (below)"
	case answer.VerdictUnsupported:
		return "no claim is supported by its sources (below)"
	case answer.VerdictBlocked:
		return "the generated answer was withheld because verification failed"
	case answer.VerdictQuoted:
		return "quoted from your documents, word for word"
	}
	return "nothing to verify"
}

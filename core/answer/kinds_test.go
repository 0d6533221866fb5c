package answer

import (
	"context"
	"slices"
	"strings"
	"testing"

	"cairn/core/domain"
	"cairn/core/search"
)

// A sentence wrapped across lines is quoted whole, a word hyphenated at a
// line end joined: "be-" over "fore" is "before", groff's U+2010 too.
func TestASentenceIsJoinedAcrossALineBreakAndAHyphen(t *testing.T) {
	for _, text := range []string{
		"The pump must be primed be-\nfore use, or its seal will crack.\nThen start it.",
		"The pump must be primed be‐\n   fore use, or its seal will crack.\n   Then start it.",
	} {
		got := Sentences(text)
		if len(got) != 2 || got[0].Text != "The pump must be primed before use, or its seal will crack." || got[1].Text != "Then start it." {
			t.Errorf("Sentences(%q) = %+v", text, got)
		}
	}
	// A hyphen before a capital or after a digit is not a broken word.
	if got := Sentences("Set the mode to X-\nRay before the 3-\nway test."); got[0].Text != "Set the mode to X- Ray before the 3- way test." {
		t.Errorf("kept hyphens: %+v", got)
	}
	// Quoted, the sentence is the joined one.
	ans := askOne(t, "pump", "Keep the manual at hand.\n\nThe pump must be primed be-\nfore use, or its seal will crack.\n", "What must be done to the pump before use?")
	if !strings.HasPrefix(ans.Text, "The pump must be primed before use, or its seal will crack. [1]") {
		t.Errorf("quoted %q", ans.Text)
	}
}

// "What is X?" quotes the sentence that says what X is, not the one that
// mentions it with more of the question's words.
func TestADefinitionQuestionQuotesTheDefiningSentence(t *testing.T) {
	page := "Each cgroup in the hierarchy has a file that lists the processes of the cgroup.\n\n" +
		"A cgroup is a mechanism to organize processes hierarchically and to distribute system resources.\n"
	if got := bestBlock(t, "cgroup-v2", page, "What is a cgroup?"); !strings.HasPrefix(got, "A cgroup is a mechanism") {
		t.Errorf("definition: %q", got)
	}
	// "is called X" defines X as well.
	page = "Backtracking can make a regular expression slow on long strings.\n\n" +
		"In a regular expression, trying one alternative and going back to try the next when it fails is called backtracking.\n"
	if got := bestBlock(t, "perlretut", page, "In regular expressions, what is backtracking?"); !strings.HasPrefix(got, "In a regular expression, trying one alternative") {
		t.Errorf("is called: %q", got)
	}
	q := ReadQuestion("What is the magic SysRq key?")
	if !q.Kinds.Has(AsksDefinition) || strings.Join(q.Subject, " ") != "magic sysrq key" {
		t.Errorf("kinds %v, subject %q", q.Kinds, q.Subject)
	}
}

// A question for a number quotes the sentence that states one; a default
// question the sentence that says what the default is.
func TestANumberQuestionQuotesTheValue(t *testing.T) {
	page := "A package waits in unstable before it moves to testing, unless a bug is found.\n\n" +
		"A package waits in unstable for 5 days before it moves to testing.\n"
	if got := bestBlock(t, "debian-faq", page, "How long does a package wait in unstable before testing?"); !strings.HasPrefix(got, "A package waits in unstable for 5 days") {
		t.Errorf("number: %q", got)
	}
	page = "The sysrq file controls the functions allowed to be invoked via the SysRq key.\n\n" +
		"The value of the sysrq file defaults to 1.\n"
	if got := bestBlock(t, "sysrq", page, "What is the sysrq file set to by default?"); !strings.HasPrefix(got, "The value of the sysrq file defaults to 1.") {
		t.Errorf("default: %q", got)
	}
}

// "Why …?" quotes the sentence that gives the reason; one that opens by
// referring back ("That's why …") is quoted with the reason before it.
func TestAWhyQuestionQuotesTheReason(t *testing.T) {
	page := "Developers ignore bug reports from tainted kernels, as the list of taints shows.\n\n" +
		"Developers ignore bug reports from tainted kernels because a module may have caused the bug.\n"
	if got := bestBlock(t, "tainted-kernels", page, "Why do kernel developers ignore bug reports from tainted kernels?"); !strings.HasPrefix(got, "Developers ignore bug reports from tainted kernels because") {
		t.Errorf("reason: %q", got)
	}
	page = "The real cause of a problem might be the event that tainted the kernel. " +
		"That's why bug reports from tainted kernels are often ignored by developers.\n"
	ans := askOne(t, "tainted-kernels", page, "Why are bug reports from tainted kernels ignored?")
	if !strings.HasPrefix(ans.Text, "The real cause of a problem might be the event that tainted the kernel. That's why") {
		t.Errorf("referring back: %q", ans.Text)
	}
}

// "How do I …?" quotes the instruction, not the sentence that restates the
// problem.
func TestAHowToQuestionQuotesTheInstruction(t *testing.T) {
	page := "A SysRq command run from a shell is useful when the keyboard is not at hand.\n\n" +
		"To run a SysRq command from a shell, write a character to /proc/sysrq-trigger.\n"
	if got := bestBlock(t, "sysrq", page, "How do I run a SysRq command from a shell?"); !strings.HasPrefix(got, "To run a SysRq command from a shell, write") {
		t.Errorf("instruction: %q", got)
	}
}

// Code illustrates the sentence that introduces it; that sentence answers.
func TestCodeIsNotTheAnswer(t *testing.T) {
	page := "To sort a hash by its values, compare the values in the sort block:\n\n" +
		"    my @keys = sort { $hash{$a} <=> $hash{$b} } keys %hash;\n"
	ans := askOne(t, "perlfaq4", page, "How do I sort a hash by value?")
	if !strings.HasPrefix(ans.Text, "To sort a hash by its values, compare the values in the sort block:\nmy @keys") {
		t.Errorf("quoted %q", ans.Text)
	}
}

// One or two shared common words are not an answer: a question about
// something no passage mentions (a name it writes) is refused, with the
// closest passages and a note saying what is missing.
func TestAnOffTopicQuestionSharingACommonWordIsRefused(t *testing.T) {
	cgroup := "memory.max is the memory usage hard limit of a container's cgroup; raise it to improve throughput."
	for _, tc := range []struct {
		question string
		weights  []float64
		absent   []bool
		note     string
	}{
		{"How do I limit the memory of a Docker container?", []float64{2, 1, 7, 2}, []bool{false, false, true, false}, `None of your documents mention "docker".`},
	} {
		resp := results(cgroup)
		resp.Results[0].Title = "cgroup-v2"
		resp.Candidates.Terms = search.ParseTerms(tc.question)
		resp.Candidates.Weights, resp.Candidates.Absent = tc.weights, tc.absent
		ans, err := New(func(context.Context, *Question) (*search.Response, error) { return resp, nil }, Options{}).Ask(context.Background(), tc.question, nil)
		if err != nil {
			t.Fatal(err)
		}
		if !ans.Refused || !ans.Closest || ans.Text != NotCovered || !slices.Contains(ans.Notes, tc.note) {
			t.Errorf("%q: refused %v, closest %v, %q, notes %q", tc.question, ans.Refused, ans.Closest, ans.Text, ans.Notes)
		}
	}
	// The same words, with the name the documents hold, are answered.
	q := "How do I limit the memory of a cgroup?"
	resp := results(cgroup)
	resp.Candidates.Terms = search.ParseTerms(q)
	resp.Candidates.Weights, resp.Candidates.Absent = []float64{2, 1, 3}, []bool{false, false, false}
	ans, err := New(func(context.Context, *Question) (*search.Response, error) { return resp, nil }, Options{}).Ask(context.Background(), q, nil)
	if err != nil || ans.Refused || !strings.HasPrefix(ans.Text, "memory.max is the memory usage hard limit") {
		t.Errorf("answerable: %q (%v)", ans.Text, err)
	}
}

// A quote that opens its passage and refers back is completed from the
// passage before (Options.Neighbours): "It greatly complicated …" says it
// of the sentence before it, which answers the "why".
func TestAQuoteAtItsPassagesStartTakesTheSentenceBefore(t *testing.T) {
	q := "Why did cgroup v2 drop multiple hierarchies?"
	resp := results("It greatly complicated the cgroup core and restricted how multiple hierarchies could be used in cgroup v2.\n\nThe controllers are listed below.")
	resp.Candidates.Terms = search.ParseTerms(q)
	prev := domain.ChunkInfo{ID: 1, Ordinal: 0, Start: 0, End: 90, Text: "Controllers were bound to hierarchies. Furthermore, support for multiple hierarchies came at a steep cost."}
	opt := Options{Neighbours: func(_ context.Context, id int64) (domain.Neighbours, error) {
		p := resp.Results[0].Passage
		return domain.Neighbours{Passage: domain.ChunkInfo{ID: id, Ordinal: 1, Start: 200, End: 200 + len(p.Text), Text: p.Text}, Prev: &prev}, nil
	}}
	ans, err := New(func(context.Context, *Question) (*search.Response, error) { return resp, nil }, opt).Ask(context.Background(), q, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := "Furthermore, support for multiple hierarchies came at a steep cost. It greatly complicated the cgroup core"
	if !strings.HasPrefix(ans.Text, want) || !strings.HasPrefix(ans.Citations[0].Quote, want) {
		t.Errorf("answer %q, quote %q", ans.Text, ans.Citations[0].Quote)
	}
}

// The line chosen may hold a question's word as one of WordNet's synonyms
// ("cease" for "stop"), where a line with the question's other words but
// not that one would win on the words alone; retrieval does not read them.
func TestTheLineChoiceReadsWordNetsSynonyms(t *testing.T) {
	page := "The spooler keeps its queue of print jobs in /var/spool/lpd.\n\n" +
		"To cease printing, run lpctl down; the queue is kept.\n"
	if got := bestBlock(t, "lpctl", page, "How do I stop the print spooler's queue?"); !strings.HasPrefix(got, "To cease printing") {
		t.Errorf("quit for stop: %q", got)
	}
}

// A question whose words no document holds carry most of its weight is
// refused, naming them, even when a passage shares its lesser words.
func TestAQuestionMostlyAboutAbsentWordsIsRefused(t *testing.T) {
	c := &search.Candidates{
		Terms:   search.ParseTerms("improve memory exam"),
		Weights: []float64{5.3, 2.5, 11.2},
		Absent:  []bool{false, false, true},
		Chunks:  absenceTellsFrom,
	}
	if got := mostlyAbsent(c); !slices.Equal(got, []string{"exam"}) {
		t.Errorf("mostlyAbsent = %v, want [exam]", got)
	}
	c.Weights[2] = 7 // less than half of the weight
	if got := mostlyAbsent(c); got != nil {
		t.Errorf("mostlyAbsent = %v at 7 of 14.8", got)
	}
	// In a knowledge base of a few documents ordinary words are absent too.
	c.Weights[2], c.Chunks = 11.2, absenceTellsFrom-1
	if got := mostlyAbsent(c); got != nil {
		t.Errorf("mostlyAbsent = %v over %d passages", got, c.Chunks)
	}
	if got := quotedOr([]string{"peak", "ran", "swim"}); got != `"peak", "ran" or "swim"` {
		t.Errorf("quotedOr: %s", got)
	}
}

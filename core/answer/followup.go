package answer

import (
	"context"
	"fmt"
	"regexp"
	"slices"
	"strings"

	"cairn/core/search"
)

// Turn is an earlier question of the conversation a question belongs to.
type Turn struct {
	Question string
	Query    string // what was searched for it; "" when the question itself
	Answer   string // the answer it got, which a chat model is shown
}

// searched is what retrieval was given for the turn: a follow-up's own
// words are not enough to carry on from ("and for tar?").
func (t Turn) searched() string {
	if t.Query != "" {
		return t.Query
	}
	return t.Question
}

// followLeads open a question that goes on from the one before.
var followLeads = []string{"and ", "what about ", "how about ", "same for ", "also ", "but "}

// followPronouns refer back to the previous question wherever they stand;
// "this" and "that" only at the end ("how do I undo that?"), since
// elsewhere they usually introduce a noun ("that the pump is off").
var followPronouns = map[string]bool{"it": true, "its": true, "they": true, "them": true, "these": true, "those": true}

// followPrepositions open a short follow-up that names only what changes:
// "for tar?", "on Windows?".
var followPrepositions = map[string]bool{"for": true, "with": true, "in": true, "on": true, "about": true, "without": true, "under": true}

// followInterjections open a follow-up without adding to it: "ok, and
// with mv?", "now for tar".
var followInterjections = map[string]bool{"ok": true, "okay": true, "so": true, "now": true, "then": true,
	"right": true, "great": true, "thanks": true, "cool": true, "alright": true, "well": true, "hmm": true}

// followFiller are the words by which a follow-up points back to what was
// asked before without adding to it ("can I do the same thing with mv
// too?", "what's the equivalent for tar?", "what if I use mv instead?"):
// not what it asks.
var followFiller = map[string]bool{"same": true, "thing": true, "equivalent": true, "instead": true,
	"use": true, "using": true, "either": true, "please": true}

// pointsBack matches the phrases that ask the same again of something
// else: "do that", "the same (thing) for/with …", "… too?", "… as well?",
// "… instead?", "the equivalent for/in …".
var pointsBack = regexp.MustCompile(`(?i)\b(?:do|does|did|doing)\s+(?:that|this|the\s+same)\b|` +
	`\bthe\s+same(?:\s+thing)?(?:\s+(?:for|with|in|on|using|as)\b|\W*$)|` +
	`\b(?:too|as\s+well|instead|also|either)\W*$|\bequivalent\s+(?:for|in|with|on)\b`)

// IsFollowUp reports whether question, asked after another, reads as a
// follow-up to it by simple rules: it opens with "and", "what about" and
// the like (after an "ok" or "now"); it refers back with a pronoun (it,
// them, "…that?"); it is a word or two, alone or after a preposition
// ("tar?", "for tar?"); or it asks the same of something else in a few
// words ("can I do that with mv too?", "what's the equivalent for tar?").
// A question that names its own subject in full is left alone.
func IsFollowUp(question string) bool { return ReadQuestion(question).followsUp() }

// followsUp is IsFollowUp of a question read.
func (q *Question) followsUp() bool {
	s := q.follow
	return s.lead || s.pronoun && !q.namesOwnSubject() || s.pointing && len(q.ownTerms()) <= 2 || s.short
}

// namesOwnSubject reports whether a question that refers with a pronoun
// says enough of its own to be a new question: what its pronoun refers to
// stands before it ("copy a directory with everything in it": three words
// of its own before "it"), or it says four things of its own ("How do I
// lock a file in Perl so that two copies don't write to it?"). A follow-up
// by pronoun says a word or two around it ("how do I undo that?", "how do
// I keep watching it as it grows?").
func (q *Question) namesOwnSubject() bool {
	own := q.ownTerms()
	if len(own) >= ownSubjectWords {
		return true
	}
	before := 0
	for _, w := range q.Words {
		if followPronouns[w] || w == "this" || w == "that" {
			break
		}
		if slices.Contains(own, w) {
			before++
		}
	}
	return before >= ownSubjectBefore
}

// ownSubjectWords and ownSubjectBefore are how many words of its own make
// a question with a pronoun a new question (namesOwnSubject): the
// follow-ups of testdata/quality/followups and followups2 that refer back
// by a pronoun say at most three, and at most two before it; the new
// questions of testdata/quality/newquestions say at least three before it
// or four in all.
const (
	ownSubjectWords  = 4
	ownSubjectBefore = 3
)

// pronounOnly reports whether the question reads as a follow-up by its
// pronoun alone: it does not open as one ("and …", "what about …"), does
// not point back in words ("do that", "the same for"), and is not a word
// or two after a preposition.
func (q *Question) pronounOnly() bool {
	s := q.follow
	return s.pronoun && !s.lead && !s.pointing && !s.short
}

// followSigns are the signs of a follow-up a question shows (IsFollowUp).
type followSigns struct {
	lead     bool // opens as one: "and …", "what about …"
	pronoun  bool // refers back with a pronoun (refersBack)
	pointing bool // points back in words (pointsBack)
	short    bool // a word, or two or three after a preposition
}

// signsOf reads a question's signs of a follow-up (its text and its
// words), past an opening "ok", "so" or "now".
func signsOf(question string, words []string) followSigns {
	for len(words) > 1 && followInterjections[words[0]] {
		words = words[1:]
	}
	if len(words) == 0 {
		return followSigns{}
	}
	var s followSigns
	lead := strings.Join(words, " ") + " "
	for _, l := range followLeads {
		s.lead = s.lead || strings.HasPrefix(lead, l)
	}
	s.pronoun = refersBack(words)
	s.pointing = pointsBack.MatchString(question)
	s.short = len(words) == 1 || len(words) <= 3 && followPrepositions[words[0]]
	return s
}

// ownTerms are a follow-up's key terms, less the words by which it points
// back (followFiller) and opens (followInterjections).
func (q *Question) ownTerms() []string {
	var out []string
	for _, t := range q.key {
		if !followFiller[t] && !followInterjections[t] {
			out = append(out, t)
		}
	}
	return out
}

// refersBack reports whether a question's words refer to something named
// before with a pronoun.
func refersBack(words []string) bool {
	for _, w := range words {
		if followPronouns[w] {
			return true
		}
	}
	last := words[len(words)-1]
	return last == "this" || last == "that"
}

// askVerbs are the verbs of asking ("how do I make grep …"): not what the
// question is about, so a follow-up does not carry them.
var askVerbs = map[string]bool{"make": true, "get": true, "tell": true, "show": true, "want": true, "need": true, "know": true}

// keyTerms are the words a search is about, in order, without
// stopwords, the verbs of asking and the follow-up's own lead words.
func keyTerms(words []string) []string {
	var out []string
	for _, t := range words {
		if search.IsStopword(t) || askVerbs[t] || filler[t] || len(t) == 1 && !isDigits(t) {
			continue
		}
		out = append(out, t)
	}
	return out
}

// Standalone turns a follow-up into a question that stands alone, without
// a model and without knowing the knowledge base's titles (see
// standalone): "and for tar?" after "How do I make grep ignore case?"
// searches "tar ignore case".
func Standalone(prev Turn, question string) string {
	return standalone(prev, ReadQuestion(question), nil).query
}

// followUpQuery is a follow-up made standalone by rule: what to search, and
// what a chat model's rewrite of it must keep and must leave out.
type followUpQuery struct {
	query string
	// subject are the words of the document the follow-up is about, when
	// the titles say which: a rewrite must hold them.
	subject []string
	// replaced are the words of the previous subject the follow-up
	// replaces: a rewrite must not hold them.
	replaced []string
	// own are the follow-up's own words beyond the document it is about:
	// what it asks now ("characters" in "and the characters?").
	own []string
	// option is the long option the previous answer opened with
	// ("--verbose" for rm's "explain what is being done"), when the
	// follow-up asks the same of another document and says nothing else
	// ("what about mkdir?"): tools share the names of their options, and
	// where the new document defines it, that line answers (mkdir's "-v,
	// --verbose  print a message for each created directory", which holds
	// no word of the question). Its line is weighed as the option a
	// question names; it is not searched.
	option string
	// alone is set for a question that reads as a follow-up only by a
	// pronoun but names a document of its own and asks something of it
	// ("How do I make dd show its progress while copying?" after a grep
	// question): its pronoun refers within it, and it is searched as
	// asked.
	alone bool
}

// quotedOption is the first long option of the term lines an answer
// opens with: "--verbose" for "-v, --verbose\n    explain what is being
// done [1]", "--continue" for wget's "-c\n--continue\n    Continue
// getting …"; "" for an answer that does not open with an option's line.
func quotedOption(answer string) string {
	for _, line := range strings.Split(strings.TrimSpace(answer), "\n") {
		names := optionNames(line)
		if m := longOption.FindStringSubmatch(names); m != nil {
			return "--" + m[1]
		}
		if names == "" || names != strings.TrimSpace(line) {
			break // past the term lines
		}
	}
	return ""
}

// withOption adds the option the follow-up carries to the terms that
// choose the quoted line, weighing as much as the heaviest of them (an
// option as written is the most specific word a question can hold), and
// to asked, the terms that name an option. Without one, it returns its
// arguments.
func (fu followUpQuery) withOption(terms []search.Term, weights []float64, asked []search.Term) ([]search.Term, []float64, []search.Term) {
	opt := fu.optionTerms()
	if opt == nil || len(weights) != len(terms) || len(terms) == 0 {
		return terms, weights, asked
	}
	if asked == nil {
		asked = terms
	}
	w := slices.Max(weights)
	terms = append(slices.Clone(terms), opt...)
	asked = append(slices.Clone(asked), opt...)
	weights = slices.Clone(weights)
	for range opt {
		weights = append(weights, w)
	}
	return terms, weights, asked
}

// optionTerms are the terms of the option the follow-up carries; none
// without one.
func (fu followUpQuery) optionTerms() []search.Term {
	if fu.option == "" {
		return nil
	}
	return search.ParseTerms(fu.option)
}

// carriedShare is what a word carried from the previous question weighs
// in the choice of the quoted line, against the follow-up's own words,
// when the follow-up asks something of its own: "and the characters?"
// after counting lines with wc asks for characters, and "lines" must not
// choose `-l, --lines` over `-m, --chars`. The search keeps every word
// whole: the words carried find the page.
const carriedShare = 0.5

// lineWeights are the terms' weights for choosing the quoted line, and the
// terms of what is asked now: when the follow-up says something of its
// own, the words it carries weigh carriedShare and name no option ("lines"
// is not a name of `--lines` for "and the characters?"), so that the line
// answers what is asked now. Otherwise weights, and nil (every term).
func (fu followUpQuery) lineWeights(terms []search.Term, weights []float64) ([]float64, []search.Term) {
	if len(fu.own) == 0 || len(weights) != len(terms) {
		return weights, nil
	}
	out := slices.Clone(weights)
	asked := []search.Term{}
	for i, t := range terms {
		ownWord := false
		for _, tok := range t.Tokens {
			ownWord = ownWord || slices.Contains(fu.own, tok) || slices.Contains(fu.subject, tok)
		}
		if ownWord {
			asked = append(asked, t)
		} else {
			out[i] *= carriedShare
		}
	}
	return out, asked
}

// standalone turns a follow-up into a question that stands alone by
// carrying the key terms of what was searched before; the follow-up's own
// terms come first. titles are the words of the titles of documents that
// the follow-up's or the previous question's words name (see names):
//
//   - a follow-up that refers back with a pronoun ("how do I undo that?")
//     keeps every previous term;
//   - one that names a document the previous question did not ("and with
//     head?" after tail) searches it in place of the document the previous
//     question named, with the rest of that question: "head last 20 lines";
//   - one whose word holds a digit takes the place of the previous term
//     that holds one (a model, "X300" for "X200");
//   - one that names no document after a question that did asks more of
//     the same document ("and the characters?" after counting lines with
//     wc): every previous term is kept, as after a pronoun;
//   - otherwise its words take the place of the previous question's first
//     term, its subject as most questions are put ("make grep …").
func standalone(prev Turn, q *Question, titles [][]string) followUpQuery {
	carried := keyTerms(search.Tokens(prev.searched()))
	own := q.ownTerms()
	var fu followUpQuery
	var newSubj, oldSubj [][]string
	for _, t := range titles {
		inOwn, inCarried := holds(own, t), holds(carried, t)
		switch {
		case inOwn && !inCarried:
			newSubj = append(newSubj, t)
		case inCarried && !inOwn:
			oldSubj = append(oldSubj, t)
		case inOwn:
			fu.subject = append(fu.subject, t...) // named again: kept
		}
	}
	if len(newSubj) > 0 && q.pronounOnly() {
		var named []string
		for _, t := range newSubj {
			named = append(named, t...)
		}
		if len(without(own, named)) >= 2 {
			fu.alone, fu.query = true, q.Text
			return fu
		}
	}
	keepOld := func() {
		for _, t := range oldSubj {
			fu.subject = append(fu.subject, t...)
		}
	}
	// The previous term that, like the follow-up's first, holds a digit.
	digitAt := -1
	if len(own) > 0 && hasDigit(own[0]) {
		for i, t := range carried {
			if hasDigit(t) {
				digitAt = i
				break
			}
		}
	}
	switch {
	case len(own) == 0:
		keepOld()
		fu.query = strings.Join(carried, " ")
		return fu
	case refersBack(q.Words) || len(carried) == 0:
		if len(newSubj) == 0 {
			keepOld()
		}
	case len(newSubj) > 0 && len(oldSubj) > 0:
		for _, t := range newSubj {
			fu.subject = append(fu.subject, t...)
		}
		for _, t := range oldSubj {
			fu.replaced = append(fu.replaced, t...)
		}
		carried = without(carried, fu.replaced)
	case digitAt >= 0:
		keepOld()
		for _, t := range newSubj {
			fu.subject = append(fu.subject, t...)
		}
		carried = append(carried[:digitAt:digitAt], carried[digitAt+1:]...)
	case len(newSubj) == 0 && len(oldSubj)+len(fu.subject) > 0:
		keepOld()
	default:
		for _, t := range newSubj {
			fu.subject = append(fu.subject, t...)
		}
		carried = carried[1:]
	}
	own, carried = undone(own, carried)
	fu.own = without(own, fu.subject)
	if len(fu.own) == 0 && len(newSubj) > 0 {
		fu.option = quotedOption(prev.Answer)
	}
	seen := map[string]bool{}
	var out []string
	for _, t := range append(own, carried...) {
		if !seen[t] {
			seen[t] = true
			out = append(out, t)
		}
	}
	fu.query = strings.Join(out, " ")
	return fu
}

// undoWords ask for the reverse of what was asked before.
var undoWords = map[string]bool{"undo": true, "reverse": true, "revert": true}

// inverses are the actions documentation names as each other's reverse.
var inverses = map[string]string{
	"compress": "decompress", "decompress": "compress", "uncompress": "compress",
	"encrypt": "decrypt", "decrypt": "encrypt", "encode": "decode", "decode": "encode",
	"zip": "unzip", "unzip": "zip", "pack": "unpack", "unpack": "pack",
	"mount": "unmount", "unmount": "mount", "install": "uninstall", "uninstall": "install",
	"lock": "unlock", "unlock": "lock", "load": "unload", "unload": "load",
	"enable": "disable", "disable": "enable", "add": "remove", "create": "remove",
	"stage": "unstage", "set": "unset", "hide": "show", "mask": "unmask", "unmask": "mask",
	"block": "unblock", "mute": "unmute", "freeze": "thaw", "archive": "extract",
}

// undone turns "how do I undo that?" into the reverse of the action asked
// before: the first carried action with a known reverse ("compress" in
// "compress file gzip") gives way to it, and the undo word to the reverse,
// so that "decompress file gzip" is searched and weighed as what is asked
// now. Only an undo that says nothing else refers back: "how do I undo a
// commit?" names what it undoes. Other follow-ups are returned as they are.
func undone(own, carried []string) ([]string, []string) {
	if len(own) != 1 || !undoWords[own[0]] {
		return own, carried
	}
	for i, w := range carried {
		if inv, ok := inverses[w]; ok {
			return []string{inv}, slices.Delete(slices.Clone(carried), i, i+1)
		}
	}
	return own, carried
}

// followUp makes question, a follow-up to prev, stand alone (standalone),
// knowing which documents its words and prev's name by their titles: it
// searches both questions' key terms and reads the titles among the
// passages found. The search is returned when it is the follow-up's: its
// words name no document in place of another.
func (a *Answerer) followUp(ctx context.Context, prev Turn, q *Question) (followUpQuery, *search.Response, error) {
	var terms []string
	seen := map[string]bool{}
	own, carried := undone(q.ownTerms(), keyTerms(search.Tokens(prev.searched())))
	for _, t := range append(own, carried...) {
		if !seen[t] {
			seen[t] = true
			terms = append(terms, t)
		}
	}
	if len(terms) == 0 {
		return standalone(prev, q, nil), nil, nil
	}
	probe := strings.Join(terms, " ")
	resp, err := a.retrieve(ctx, ReadQuestion(probe))
	if err != nil {
		return followUpQuery{}, nil, fmt.Errorf("retrieve the follow-up's subject: %w", err)
	}
	fu := standalone(prev, q, namedTitles(resp))
	if fu.query != probe {
		resp = nil
	}
	return fu, resp, nil
}

// subjectFirst puts first the passages of the document a follow-up is
// about: the one it names in place of the previous question's ("and rm?"
// after copying directories with cp asks for rm's page, which the words
// carried from the first question, "copy directories recursively", would
// otherwise rank under cp's), or the previous question's when it refers
// back to it ("and how do I make it ignore case?" after find). The order
// within each part is the search's.
func (fu followUpQuery) subjectFirst(resp *search.Response) *search.Response {
	if resp == nil || len(fu.subject) == 0 {
		return resp
	}
	var named, rest []search.Result
	for _, r := range resp.Results {
		if slices.Equal(titleWords(r.Title), fu.subject) {
			named = append(named, r)
		} else {
			rest = append(rest, r)
		}
	}
	if len(named) == 0 || len(rest) == 0 {
		return resp
	}
	out := *resp
	out.Results = append(named, rest...)
	for i := range out.Results {
		out.Results[i].Rank = i + 1 // the order shown is the order used
	}
	return &out
}

// rejects says why a chat model's rewrite of the follow-up breaks the rules
// the rule-based one keeps: it carries the subject the follow-up replaces,
// or leaves out the one the follow-up is about; "" when it keeps them.
func (fu followUpQuery) rejects(rewritten string) string {
	words := search.Tokens(rewritten)
	for _, w := range fu.replaced {
		if slices.Contains(words, w) {
			return fmt.Sprintf("kept %q, which the follow-up replaces", w)
		}
	}
	for _, w := range fu.subject {
		if !slices.Contains(words, w) {
			return fmt.Sprintf("left out %q, what the follow-up is about", w)
		}
	}
	return ""
}

// sharesKeyWord reports whether two questions' key words (keyTerms) meet,
// as stems: "count matching lines with grep" and "make grep ignore case"
// are about grep both.
func sharesKeyWord(a, b []string) bool {
	for _, x := range a {
		for _, y := range b {
			if stem(x) == stem(y) {
				return true
			}
		}
	}
	return false
}

// holds reports whether words hold the words of a title side by side, in
// order.
func holds(words, title []string) bool {
	for i := 0; len(title) > 0 && i+len(title) <= len(words); i++ {
		if slices.Equal(words[i:i+len(title)], title) {
			return true
		}
	}
	return false
}

// without is words less those in drop.
func without(words, drop []string) []string {
	var out []string
	for _, w := range words {
		if !slices.Contains(drop, w) {
			out = append(out, w)
		}
	}
	return out
}

// namedTitles are the words of the titles of the documents among resp's
// passages that its query's terms name (see names), each once.
func namedTitles(resp *search.Response) [][]string {
	c := resp.Candidates
	if c == nil || len(c.Terms) == 0 {
		return nil
	}
	weights := c.Weights
	if len(weights) != len(c.Terms) {
		weights = make([]float64, len(c.Terms)) // unweighed: every word counts
		for i := range weights {
			weights[i] = 1
		}
	}
	weight, total := termWeights(c.Terms, weights)
	mean := total / float64(len(c.Terms))
	seen := map[string]bool{}
	var out [][]string
	check := func(p *search.Passage) {
		if p == nil || seen[p.Title] {
			return
		}
		seen[p.Title] = true
		if names(p.Title, c.Terms, weight, mean) {
			out = append(out, titleWords(p.Title))
		}
	}
	for _, r := range resp.Results {
		check(r.Passage)
	}
	ids := make([]int64, 0, len(c.Passages))
	for id := range c.Passages {
		ids = append(ids, id)
	}
	slices.Sort(ids) // the same titles in the same order on every run
	for _, id := range ids {
		check(c.Passages[id])
	}
	return out
}

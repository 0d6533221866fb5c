package answer

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"cairn/core/domain"
	"cairn/core/search"
)

// Retriever finds the passages for a question read (its Text and
// Terms).
type Retriever func(ctx context.Context, q *Question) (*search.Response, error)

// Options tune answering.
type Options struct {
	TopK   int    // sources given to the writer; default 8
	Verify string // off, warn (flag unsupported claims) or block (replace the answer); default warn

	// Generator writes the answer; nil means extractive answers.
	Generator Generator
	// Mode labels generated answers: ModeGenerative (default) or ModeOnline.
	Mode Mode
	// MaxTokens caps the answer (default 512); Temperature, TopP and Seed
	// tune sampling.
	MaxTokens   int
	Temperature float64
	TopP        float64
	Seed        int
	// Rewrite lets the generator turn the question into a retrieval query
	// first (or skip retrieval for small talk).
	Rewrite bool
	// Embedder, when not nil, lets verification accept paraphrases whose
	// meaning is close to a cited sentence.
	Embedder Embedder
	// Meaning, when not nil, lets an extractive answer weigh how close in
	// meaning its best blocks stand to the question.
	Meaning Meaning
	// Within, when not nil, searches one document (by path) with the same
	// settings, ranking at least depth of its passages: an extractive
	// answer reads further in the document the question names.
	Within func(ctx context.Context, query, path string, depth int) (*search.Response, error)
	// Neighbours, when not nil, returns a passage (by chunk id) with the
	// passages before and after it in its document: an extractive answer
	// whose best sentence sits at the very start or end of its passage
	// reads the sentence before or after it there (Neighbours.Before,
	// After: the text each adds, neighbouring passages overlapping).
	Neighbours func(ctx context.Context, chunkID int64) (domain.Neighbours, error)
	// History is the conversation the question follows, oldest turn
	// first: a follow-up is made standalone from it before retrieval.
	History []Turn
	// WholeChunks gives the writer each source's whole passage instead of
	// the lines around its best lines (focus).
	WholeChunks bool
}

// Answerer answers questions from one knowledge base.
type Answerer struct {
	retrieve Retriever
	opt      Options
}

// New returns an Answerer that retrieves with retrieve.
func New(retrieve Retriever, opt Options) *Answerer {
	if opt.TopK <= 0 {
		opt.TopK = 8
	}
	if opt.Verify == "" {
		opt.Verify = "warn"
	}
	if opt.MaxTokens <= 0 {
		opt.MaxTokens = 512
	}
	if opt.Mode == "" {
		opt.Mode = ModeGenerative
	}
	return &Answerer{retrieve: retrieve, opt: opt}
}

// Ask answers question. onToken, when not nil, receives the answer text as
// it is written (with verify=block, only once verified). Every path that
// does not fail returns an Answer: nothing found, a refusal, a withheld
// answer.
func (a *Answerer) Ask(ctx context.Context, question string, onToken func(string)) (*Answer, error) {
	if strings.TrimSpace(question) == "" {
		return nil, ErrNoQuestion
	}
	t0 := time.Now()
	ans := &Answer{Question: question, Mode: ModeExtractive, Verdict: VerdictNone}
	gen := a.opt.Generator
	if gen != nil {
		ans.Mode, ans.Model = a.opt.Mode, gen.Name()
	}

	q := ReadQuestion(question)
	query := question
	history := a.opt.History
	// A follow-up without a model, or whose rewrite failed or broke the
	// rules, carries the previous question's terms (standalone).
	readAsFollowUp := len(history) > 0 && q.followsUp()
	followUp := readAsFollowUp
	var fu followUpQuery
	var probe *search.Response // what fu.query retrieves, when the probe searched it
	var probed time.Duration
	if followUp {
		var err error
		tp := time.Now()
		if fu, probe, err = a.followUp(ctx, history[len(history)-1], q); err != nil {
			return nil, err
		}
		probed = time.Since(tp)
		followUp = !fu.alone
		readAsFollowUp = followUp
	}
	if gen != nil && (a.opt.Rewrite || len(history) > 0) {
		rw, err := rewrite(ctx, gen, question, history)
		if err != nil {
			return nil, err
		}
		if rw.skip {
			ans.NoSources, ans.Text = true, OffTopic
			emit(onToken, ans.Text)
			ans.Timing.Total = time.Since(t0)
			return ans, nil
		}
		query = rw.query
		// Without a usable rewrite a follow-up carries the previous terms
		// (below), and the note saying its bare words were searched would
		// be untrue. A rewrite that keeps the subject the follow-up
		// replaces, or leaves out the one it names, is not used either.
		if followUp && query != question {
			if why := fu.rejects(query); why != "" {
				ans.Notes = append(ans.Notes, "The rewritten query ("+query+") "+why+"; searched "+fu.query+" instead.")
				query = question
			}
		}
		followUp = followUp && query == question
		if rw.note != "" && !followUp {
			ans.Notes = append(ans.Notes, rw.note)
		}
	}
	if followUp {
		query = fu.query
	}
	if query != question {
		ans.Query = query
	}
	// A question the rules read as a follow-up is one, whoever wrote its
	// query (the rules or the chat model's rewrite).
	if readAsFollowUp {
		ans.FollowUp = &FollowUp{Of: history[len(history)-1].Question, Searched: query}
	}
	// A question of its own that shares no key word with the one before
	// may change the subject; it does unless both are answered from the
	// same document (reading below).
	otherWords := len(history) > 0 && !readAsFollowUp && !sharesKeyWord(q.key, keyTerms(search.Tokens(history[len(history)-1].searched())))
	// What is searched is read once too: the question itself, or the
	// follow-up made standalone (or the model's rewrite), which asks for
	// what the question asked.
	sq := q
	if query != question {
		sq = ReadQuestion(query)
		sq.Kinds |= q.Kinds
		if sq.Subject == nil {
			sq.Subject = q.Subject
		}
	}

	tr := time.Now()
	resp := probe
	if resp == nil || query != fu.query {
		var err error
		if resp, err = a.retrieve(ctx, sq); err != nil {
			return nil, fmt.Errorf("retrieve: %w", err)
		}
	}
	if followUp {
		resp = fu.subjectFirst(resp)
	}
	ans.Search = resp
	if otherWords {
		same, err := a.sameDocument(ctx, history[len(history)-1], resp)
		if err != nil {
			return nil, err
		}
		ans.NewSubject = !same
	}
	ans.Timing.Retrieval = probed + time.Since(tr)
	if c := resp.Candidates; c != nil && len(c.Corrections) > 0 {
		ans.Corrections, ans.Query = c.Corrections, c.Query
	}
	for i, r := range resp.Results {
		if i == a.opt.TopK {
			break
		}
		ans.Sources = append(ans.Sources, Source{N: i + 1, Result: r})
	}
	var terms []search.Term
	if resp.Candidates != nil {
		terms = resp.Candidates.Terms
	}
	// more is what an extractive answer reads beyond the sources, once:
	// the search for an option's line below reads it already.
	var more []search.Result
	if weak(ans.Sources, terms) {
		found, read, err := a.optionLine(ctx, query, resp, ans, fu.optionTerms())
		if err != nil {
			return nil, err
		}
		if !found {
			a.notCovered(ans, resp)
		}
		more = read
	}
	if name, absent := unmentioned(sq, ans.Sources, resp.Candidates); name != "" && !ans.Closest && len(ans.Sources) > 0 {
		// The question is about something its words name that the
		// documents do not mention, or that the passages found do not:
		// what they share with it is not an answer ("How do I limit the
		// memory of a Docker container?" asked of the kernel's cgroup
		// documentation).
		a.notCovered(ans, resp)
		if absent {
			ans.Notes = append(ans.Notes, fmt.Sprintf("None of your documents mention %q.", name))
		} else {
			ans.Notes = append(ans.Notes, fmt.Sprintf("None of the passages found mention %q.", name))
		}
	}
	if words := mostlyAbsent(resp.Candidates); len(words) > 0 && !ans.Closest && len(ans.Sources) > 0 {
		// Most of what the question asks about, by weight, is in no
		// document: the passages share its lesser words only ("How can I
		// improve my memory before an exam?" asked of a kernel manual).
		a.notCovered(ans, resp)
		ans.Notes = append(ans.Notes, fmt.Sprintf("None of your documents mention %s.", quotedOr(words)))
	}
	if len(ans.Sources) == 0 || ans.Closest {
		if len(ans.Sources) == 0 {
			// Nothing found is a refusal too: a caller reading only
			// "refused" (the API, MCP) must not take it for an answer.
			ans.NoSources, ans.Refused, ans.Text = true, true, NothingFound
		}
		emit(onToken, ans.Text)
		ans.Timing.Total = time.Since(t0)
		return ans, nil
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if gen == nil {
		if more == nil {
			var err error
			if more, _, err = a.readFurther(ctx, query, resp, ans.Sources); err != nil {
				return nil, err
			}
		}
		terms, weights, asked := resp.Candidates.Terms, resp.Candidates.Weights, []search.Term(nil)
		if followUp {
			if len(weights) != len(terms) {
				weights = localWeights(ans.Sources, terms)
			}
			weights, asked = fu.lineWeights(terms, weights)
			terms, weights, asked = fu.withOption(terms, weights, asked)
		}
		if err := extract(ctx, ans, sq, terms, weights, asked, more, a.opt.Meaning); err != nil {
			return nil, err
		}
		if err := a.widenFirstQuote(ctx, ans); err != nil {
			return nil, err
		}
		if len(ans.Citations) > 0 && !ans.Refused {
			// The document quoted must mention the names the question
			// writes, as the sources must (unmentioned): "How do I write
			// a class with a constructor in Python?" is not answered
			// from Perl's tutorial, whatever the other sources hold.
			quoted := ans.Sources[ans.Citations[0].N-1]
			name, err := a.unmentionedIn(ctx, sq, quoted, resp.Candidates)
			if err != nil {
				return nil, err
			}
			if name != "" {
				ans.Text, ans.Citations, ans.Claims, ans.Verdict = "", nil, nil, VerdictNone
				a.notCovered(ans, resp)
				ans.Notes = append(ans.Notes, fmt.Sprintf("The document that shares most with the question does not mention %q.", name))
			}
		}
		emit(onToken, ans.Text)
		ans.Timing.Total = time.Since(t0)
		return ans, nil
	}
	if err := a.generate(ctx, ans, sq, resp.Candidates, onToken); err != nil {
		return nil, err
	}
	ans.Timing.Total = time.Since(t0)
	return ans, nil
}

// sameDocument reports whether the best passages for the question before
// (what it searched, searched again) and resp's come from one document:
// "what is the default admin password" after "how do I reset the router"
// shares no word with it, but the router's manual answers both.
func (a *Answerer) sameDocument(ctx context.Context, prev Turn, resp *search.Response) (bool, error) {
	if len(resp.Results) == 0 {
		return false, nil
	}
	before, err := a.retrieve(ctx, ReadQuestion(prev.searched()))
	if err != nil {
		return false, fmt.Errorf("retrieve the previous question's subject: %w", err)
	}
	return len(before.Results) > 0 && before.Results[0].Path == resp.Results[0].Path, nil
}

// widenFirstQuote completes the first quote of an extractive answer from
// the passage before its own when the quote opens that passage and refers
// back to what came before ("It greatly complicated …") or begins
// mid-sentence: the sentence it needs is the neighbour's last
// (Options.Neighbours). Only a cancelled ctx makes it fail.
func (a *Answerer) widenFirstQuote(ctx context.Context, ans *Answer) error {
	if a.opt.Neighbours == nil || ans.Refused || len(ans.Citations) == 0 || len(ans.Claims) == 0 {
		return nil
	}
	c := &ans.Citations[0]
	if c.N < 1 || c.N > len(ans.Sources) {
		return nil
	}
	own := Sentences(ans.Sources[c.N-1].Text)
	if len(own) == 0 || own[0].Heading || !strings.HasPrefix(c.Quote, own[0].Text) {
		return nil // the quote does not open its passage
	}
	r, _ := utf8.DecodeRuneInString(c.Quote)
	if !refersBackward(c.Quote) && !unicode.IsLower(r) {
		return nil
	}
	n, err := a.opt.Neighbours(ctx, c.ChunkID)
	if err != nil {
		return ctx.Err() // without the neighbour, the quote stands as it is
	}
	before := Sentences(n.Before())
	if len(before) == 0 {
		return nil
	}
	last := before[len(before)-1]
	if last.Heading || isQuestion(last.Text) || isPlanted(last.Text) || len(last.Text)+len(c.Quote) > maxBlockBytes {
		return nil
	}
	ans.Text = last.Text + " " + ans.Text
	ans.Claims[0].Text = last.Text + " " + ans.Claims[0].Text
	c.Quote = last.Text + " " + c.Quote
	return nil
}

// readDepth is how many of retrieval's ranked passages an extractive answer
// reads: the line that answers often sits in a passage of the right
// document just below the sources shown (an option list spans several
// chunks of a man page). A passage it quotes from is added to the sources.
const readDepth = 20

// namedDepth is how many passages of the document the question names an
// extractive answer reads: all of a long man page's, whose common words
// ("line", "match", "pattern" in grep(1)) rank every chunk alike.
const namedDepth = 60

// optionDepth is namedDepth for a question that names an option as
// written ("what does wget -c do"): the option's letters are not searched
// (a one-letter word matches nearly everything), so nothing ranks its line
// up, and the longest manuals (wget, curl, tar, rsync: 100 to 300
// passages) are read whole to find it.
const optionDepth = 400

// readFurther lists the passages an extractive answer reads beyond the
// sources shown: those retrieval ranked next, down to readDepth, and when
// the question names a document (names), the best namedDepth passages of
// that document found by searching it alone (optionDepth when the question
// names an option). An option list is cut into several chunks, and the
// one holding the option asked about may rank far below other documents'
// passages that mention the tool. path is the named document's ("" when
// the question names none).
func (a *Answerer) readFurther(ctx context.Context, query string, resp *search.Response, sources []Source) (more []search.Result, path string, err error) {
	read := map[int64]bool{}
	for _, s := range sources {
		read[s.ChunkID] = true
	}
	more = further(resp, read, readDepth)
	c := resp.Candidates
	if a.opt.Within == nil || c == nil || len(c.Terms) == 0 || len(c.Weights) != len(c.Terms) {
		return more, "", nil
	}
	weight, _ := termWeights(c.Terms, c.Weights)
	mean := nameMean(c.Terms, weight)
	named := func(title string) bool { return names(title, c.Terms, weight, mean) }
	for _, s := range sources {
		if named(s.Title) {
			path = s.Path
			break
		}
	}
	for i := 0; path == "" && i < len(more); i++ {
		if named(more[i].Title) {
			path = more[i].Path
		}
	}
	if path == "" {
		return more, "", nil
	}
	depth := namedDepth
	if slices.ContainsFunc(c.Terms, isOption) {
		depth = optionDepth
	}
	in, err := a.opt.Within(ctx, query, path, depth)
	if err != nil {
		if ctx.Err() != nil {
			return nil, "", ctx.Err()
		}
		return more, path, nil // reading further only improves the quote: answer from what was read
	}
	return append(more, further(in, read, depth)...), path, nil
}

// further lists the passages of resp not yet read, best first, down to
// depth, with the search's own parameters but no per-document cap: the
// document that holds the answer is the one to read further. It marks them
// read.
func further(resp *search.Response, read map[int64]bool, depth int) []search.Result {
	if resp == nil || resp.Candidates == nil {
		return nil
	}
	p := paramsOf(resp)
	p.TopK, p.PerDocCap = 0, 0
	var out []search.Result
	for _, r := range search.Fuse(resp.Candidates, p) {
		if len(out) == depth {
			break
		}
		if !read[r.ChunkID] {
			read[r.ChunkID] = true
			out = append(out, r)
		}
	}
	return out
}

// paramsOf is the fusion parameters resp was ranked with (the defaults for
// a response that does not say).
func paramsOf(resp *search.Response) search.Params {
	if resp.Params == (search.Params{}) {
		return search.DefaultParams()
	}
	return resp.Params
}

// closestShown is how many of the closest passages a refusal lists.
const closestShown = 3

// weak reports whether retrieval found nothing that covers the question:
// no source is better than a weak match (search.RelevanceLabel). An empty
// list is weak too: the minimum relevance may have removed every passage.
//
// A source that holds one word of a question of several, however rare the
// word, does not answer it: "What is the population of Canada?" is not
// answered by a page that names Canada among its regions, nor "How do I
// renew my passport?" by one about renewing a domain. It must hold two of
// the question's terms, in its text, heading or title.
func weak(sources []Source, terms []search.Term) bool {
	for _, s := range sources {
		if s.Relevance >= search.PartialRelevance && (len(terms) < 2 || technical(terms) || holdsTwo(s, terms)) {
			return false
		}
	}
	return true
}

// unmentioned is a name the question writes (Question.Names) that no
// passage of the knowledge base holds (absent), or that none of the
// sources holds in its text, heading or title; "" when each is in a
// source. A name the search corrected may be a typo of a word the
// documents hold, and is judged as corrected.
func unmentioned(q *Question, sources []Source, c *search.Candidates) (name string, absent bool) {
	if c == nil {
		return "", false
	}
	if len(q.Names) == 0 {
		return "", false
	}
	corrected := map[string]bool{}
	for _, k := range c.Corrections {
		corrected[k.From] = true
	}
	for i, t := range c.Terms {
		if len(t.Tokens) != 1 || t.Literal != "" {
			continue
		}
		was := t.Tokens[0]
		for _, k := range c.Corrections {
			if k.To == was {
				was = k.From
			}
		}
		if !slices.Contains(q.Names, was) {
			continue
		}
		if i < len(c.Absent) && c.Absent[i] && !corrected[was] {
			return was, true
		}
		held := false
		for _, s := range sources {
			held = held || len(matchedTerms(s.Title+"\n"+s.Heading+"\n"+s.Text, c.Terms[i:i+1])) > 0
		}
		if !held {
			return t.Tokens[0], false
		}
	}
	return "", false
}

// mostlyAbsent is the question's words that no passage of the knowledge
// base holds, when they carry more than half of its terms' weight (nil
// otherwise): what it asks about is mostly not in the documents, whatever
// the passages found share with it.
func mostlyAbsent(c *search.Candidates) []string {
	if c == nil || len(c.Absent) != len(c.Weights) || c.Chunks < absenceTellsFrom {
		return nil
	}
	var words []string
	absent, total := 0.0, 0.0
	for i, w := range c.Weights {
		total += w
		if c.Absent[i] {
			absent += w
			words = append(words, c.Terms[i].String())
		}
	}
	if total == 0 || absent <= total/2 {
		return nil
	}
	return words
}

// absenceTellsFrom is how many passages a knowledge base must hold for a
// word none of them holds to say the question is about something else: in
// a few documents' ordinary words are absent too ("How do I sort lines in
// reverse order?" asked of three man pages, none of which says "order").
// The quality sets' knowledge bases hold 530 to 2,800 passages.
const absenceTellsFrom = 300

// quotedOr is words quoted and joined with "or": "exam", "peak" or "ran".
func quotedOr(words []string) string {
	q := make([]string, len(words))
	for i, w := range words {
		q[i] = strconv.Quote(w)
	}
	if len(q) == 1 {
		return q[0]
	}
	return strings.Join(q[:len(q)-1], ", ") + " or " + q[len(q)-1]
}

// unmentionedIn is a name the question writes that neither the passage s
// nor its document holds ("" when each is there): the document is
// searched for it alone (Options.Within) when the passage lacks it.
func (a *Answerer) unmentionedIn(ctx context.Context, q *Question, s Source, c *search.Candidates) (string, error) {
	name, _ := unmentioned(q, []Source{s}, c)
	if name == "" || a.opt.Within == nil {
		return name, nil
	}
	in, err := a.opt.Within(ctx, name, s.Path, 1)
	if err != nil {
		if ctx.Err() != nil {
			return "", ctx.Err()
		}
		return "", nil // unknown: the answer stands
	}
	for _, r := range in.Results {
		if len(matchedTerms(r.Title+"\n"+r.Heading+"\n"+r.Text, search.ParseTerms(name))) > 0 {
			return "", nil
		}
	}
	return name, nil
}

// technical reports whether the question names a technical token (an
// option, a path): such a question is about the documents' own terms, and
// its option's line, which seldom repeats the tool's name, is found by
// reading the named document further, not among the sources.
func technical(terms []search.Term) bool {
	for _, t := range terms {
		if t.Literal != "" {
			return true
		}
	}
	return false
}

// holdsTwo reports whether a source holds at least two distinct terms of
// the question, in its text, heading or title.
func holdsTwo(s Source, terms []search.Term) bool {
	return len(matchedTerms(s.Title+"\n"+s.Heading+"\n"+s.Text, terms)) >= 2
}

// optionLine looks, for a question that names an option as written ("what
// does wget -O do"), for the line that defines it in the document the
// question names, when the sources are too weak to answer: the option's
// letters are not searched, so the sources hold only the tool's name, and
// the option's line is found by reading the document further. A passage
// holding it, of the named document when the question names one, becomes
// the first source and the question is answered from it; found is false
// when there is none, and the question is refused.
// carried is the option a follow-up carries from the answer before it
// (followUpQuery.option), looked for the same way.
// read are the other passages read, for the answer to weigh.
func (a *Answerer) optionLine(ctx context.Context, query string, resp *search.Response, ans *Answer, carried []search.Term) (found bool, read []search.Result, err error) {
	opts := carried
	if resp.Candidates != nil {
		for _, t := range resp.Candidates.Terms {
			if isOption(t) {
				opts = append(opts, t)
			}
		}
	}
	if len(opts) == 0 || len(ans.Sources) == 0 {
		return false, nil, nil
	}
	more, path, err := a.readFurther(ctx, query, resp, ans.Sources)
	if err != nil {
		return false, nil, err
	}
	defines := func(r search.Result) bool {
		if path != "" && r.Path != path {
			return false // another tool's option of the same name
		}
		return slices.ContainsFunc(Blocks(r.Text), func(b Block) bool {
			return b.Kind == BlockDefinition && namesOption(b.Lead, opts)
		})
	}
	// A short manual's option list may be a source already (mkdir's whole
	// page is two passages): it moves first.
	if i := slices.IndexFunc(ans.Sources, func(s Source) bool { return defines(s.Result) }); i >= 0 {
		src := ans.Sources[i]
		ans.Sources = append([]Source{src}, slices.Delete(ans.Sources, i, i+1)...)
		renumber(ans.Sources)
		return true, more, nil
	}
	if i := slices.IndexFunc(more, defines); i >= 0 {
		ans.Sources = append([]Source{{Result: more[i]}}, ans.Sources...)
		renumber(ans.Sources)
		return true, slices.Delete(more, i, i+1), nil
	}
	return false, nil, nil
}

// renumber numbers sources in their order, from 1.
func renumber(sources []Source) {
	for i := range sources {
		sources[i].N = i + 1
	}
}

// notCovered turns ans into the honest refusal of a question the documents
// do not cover: the closest passages retrieval found, listed as such (even
// those the minimum relevance removed), and no model is called, since a
// model given weak passages writes an answer from them anyway.
func (a *Answerer) notCovered(ans *Answer, resp *search.Response) {
	if resp.Candidates != nil && len(resp.Candidates.Passages) > 0 {
		p := paramsOf(resp)
		p.MinScore, p.TopK = 0, closestShown
		ans.Sources = ans.Sources[:0]
		for i, r := range search.Fuse(resp.Candidates, p) {
			ans.Sources = append(ans.Sources, Source{N: i + 1, Result: r})
		}
	}
	if len(ans.Sources) == 0 {
		return // nothing at all was found: NothingFound says so
	}
	ans.Sources = ans.Sources[:min(len(ans.Sources), closestShown)]
	ans.Refused, ans.Closest, ans.Text = true, true, NotCovered
}

// generate has the generator write the answer from ans.Sources, then
// resolves and verifies its citations.
func (a *Answerer) generate(ctx context.Context, ans *Answer, sq *Question, q *search.Candidates, onToken func(string)) error {
	gen := a.opt.Generator
	read := ans.Sources
	if !a.opt.WholeChunks && q != nil {
		// The writer reads the lines around the best ones; the answer keeps
		// the whole passages, which its claims are checked and quoted
		// against: a claim from a line next to the window is still true of
		// the source it cites.
		read = focused(ans.Sources, q.Terms, q.Weights)
	}
	p := fitPrompt(ans.Question, read, a.opt.History, gen, a.opt.MaxTokens)
	if p.given == 0 {
		return fmt.Errorf("the chat model's context (%d tokens) has no room for a source after the instructions and a %d-token answer: raise generation.context_size or lower generation.max_tokens",
			gen.ContextSize(), a.opt.MaxTokens)
	}
	if note := trimNote(p, len(ans.Sources), gen.ContextSize()); note != "" {
		ans.Notes = append(ans.Notes, note)
	}
	switch {
	case p.left > 0 && p.turns == 0:
		ans.Notes = append(ans.Notes, "The earlier questions of this conversation did not fit in the chat model's context with the sources; it was shown this question alone.")
	case p.left > 0:
		ans.Notes = append(ans.Notes, fmt.Sprintf("The chat model was shown %d of the %d earlier questions of this conversation with their answers; the oldest were left out for room.",
			p.turns, p.turns+p.left))
	}
	ans.Sources = ans.Sources[:p.given]
	if p.cut != "" {
		// Verify and quote against what the writer read, not the part of
		// the passage it never saw (a copy: the passage is retrieval's).
		last := &ans.Sources[p.given-1]
		cut := *last.Passage
		cut.Text = p.cut
		last.Passage = &cut
	}

	stream := onToken
	if a.opt.Verify == "block" {
		stream = nil // nothing is shown before it is verified
	}
	g, err := gen.Generate(ctx, GenerateRequest{Messages: p.messages, MaxTokens: a.opt.MaxTokens,
		Temperature: a.opt.Temperature, TopP: a.opt.TopP, Seed: a.opt.Seed}, stream)
	if err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		return fmt.Errorf("writing the answer with %s: %w", gen.Name(), err)
	}
	ans.Timing.PromptTokens, ans.Timing.CachedTokens, ans.Timing.Tokens = g.PromptTokens, g.CachedTokens, g.Tokens
	ans.Timing.PromptProcessing = g.TimeToFirstToken
	ans.Timing.Generation = max(0, g.Duration-g.TimeToFirstToken)
	if ans.Timing.Generation > 0 && g.Tokens > 1 {
		ans.Timing.TokensPerSec = float64(g.Tokens-1) / ans.Timing.Generation.Seconds()
	}
	if g.StopReason == "length" || g.StopReason == "context" {
		ans.Notes = append(ans.Notes, "The answer was cut off at the token limit (generation.max_tokens).")
	}

	if err := a.check(ctx, ans, sq, g.Text, q); err != nil {
		return err
	}
	if stream == nil {
		emit(onToken, ans.Text)
	}
	return nil
}

// trimNote tells what of the retrieved sources the writer did not read.
func trimNote(p prompt, retrieved, contextSize int) string {
	switch {
	case p.dropped > 0 && p.cut != "":
		return fmt.Sprintf("Only the first %d of %d sources fit in the chat model's context (%d tokens), the last of them in part; the rest were left out, the most relevant kept.",
			p.given, retrieved, contextSize)
	case p.dropped > 0:
		return fmt.Sprintf("Only the first %d of %d sources fit in the chat model's context (%d tokens); the rest were left out, the most relevant kept.",
			p.given, retrieved, contextSize)
	case p.cut != "":
		return fmt.Sprintf("Source [%d] fit in the chat model's context (%d tokens) only in part; the answer is checked against that part.",
			p.given, contextSize)
	}
	return ""
}

// check turns the generator's text into the answer shown: a refusal, or
// the text with its citations resolved and its claims verified (and, under
// verify=block, withheld when they fail). Its only error is cancellation.
func (a *Answerer) check(ctx context.Context, ans *Answer, sq *Question, written string, q *search.Candidates) error {
	text := strings.TrimSpace(written)
	if isRefusal(text) {
		ans.Refused, ans.Text = true, Refusal
		return nil
	}
	text, ans.Removed = cleanCitations(text, len(ans.Sources))
	if text == "" {
		ans.Refused, ans.Text = true, Refusal
		ans.Notes = append(ans.Notes, "The chat model wrote nothing; no answer is given.")
		return nil
	}
	ans.Text = text
	v := newVerifier(ans.Sources, a.opt.Embedder)
	ans.Notes = append(ans.Notes, plantedNotes(v, len(ans.Sources))...)
	if a.opt.Verify != "off" {
		var err error
		if ans.Claims, err = v.claims(ctx, text); err != nil {
			return err
		}
		ans.Verdict = verdict(ans.Claims)
	}
	ans.Citations = citations(v, text, ans.Claims)
	if ans.Verdict == VerdictSupported {
		if note := unaddressed(ans, q); note != "" {
			ans.Verdict = VerdictPartial
			ans.Notes = append(ans.Notes, note)
		}
	}
	if a.opt.Verify == "block" && ans.Verdict != VerdictSupported && ans.Verdict != VerdictNone {
		a.withhold(ans, sq, q)
	}
	return nil
}

// withhold replaces a generated answer that verification rejected by the
// extractive answer, which quotes the sources and so is supported by
// construction. The rejected claims stay in ans.Claims to show why.
func (a *Answerer) withhold(ans *Answer, sq *Question, q *search.Candidates) {
	claims := ans.Claims
	ex := &Answer{Question: ans.Question, Query: ans.Query, Sources: ans.Sources}
	// Quote only what the model was given; without a Meaning nothing fails.
	_ = extract(context.Background(), ex, sq, q.Terms, q.Weights, nil, nil, nil)
	ans.Text = Withheld + "\n\n" + ex.Text
	if ex.Refused {
		ans.Text = WithheldNothing
	}
	ans.Citations, ans.Claims, ans.Verdict = ex.Citations, claims, VerdictBlocked
}

// addressShare is how much of what the sources cover of the question a
// generated answer must cover itself to count as answering it.
const addressShare = 0.5

// unaddressed checks that a generated answer is about the question, not
// only true to its sources: a model handed passages on a neighbouring
// topic writes supported claims that answer something else. The answer,
// read with what it cites (the quoted sentences, the cited documents'
// titles and headings: "Use -i [1]" answers "How do I make grep ignore
// case?" through grep's "-i, --ignore-case"), must cover at least
// addressShare of the question's weight that the best source covers (a
// question's words the documents lack cannot be asked of the answer).
// Otherwise the note names what it leaves out.
func unaddressed(ans *Answer, q *search.Candidates) string {
	if q == nil || len(q.Terms) == 0 {
		return ""
	}
	read := []string{ans.Text}
	for _, c := range ans.Citations {
		read = append(read, c.Quote)
		if c.N >= 1 && c.N <= len(ans.Sources) {
			s := ans.Sources[c.N-1]
			read = append(read, s.Title, s.Heading)
		}
	}
	found := termsIn(strings.Join(read, "\n"), q)
	best := 0.0
	for _, s := range ans.Sources {
		best = max(best, search.Coverage(q.Terms, q.Weights, termsIn(s.Title+"\n"+s.Heading+"\n"+s.Text, q)))
	}
	if search.Coverage(q.Terms, q.Weights, found) >= addressShare*best {
		return ""
	}
	var missing []string
	for _, t := range q.Terms {
		if !found[t.String()] {
			missing = append(missing, t.String())
		}
	}
	return "Every claim is in the sources, but the answer may not address the question: it does not mention " +
		strings.Join(missing, ", ") + "."
}

// termsIn is the set of the question's terms that text mentions.
func termsIn(text string, q *search.Candidates) map[string]bool {
	found := map[string]bool{}
	for _, t := range matchedTerms(text, q.Terms) {
		found[t] = true
	}
	return found
}

// citations resolves the [n] of text, in order of first appearance, to the
// sentence of each source that best supports the claims citing it.
func citations(v *verifier, text string, claims []Claim) []Citation {
	if claims == nil { // verification off: quote for the sentences as written
		for _, sp := range splitClaims(text) {
			claims = append(claims, Claim{Text: sp.text, Citations: sp.cites})
		}
	}
	var out []Citation
	seen := map[int]bool{}
	for _, g := range citeGroup.FindAllString(text, -1) {
		for _, n := range citedNumbers(g) {
			if seen[n] || n < 1 || n > len(v.sources) {
				continue
			}
			seen[n] = true
			out = append(out, citationOf(v.sources[n-1], v.quote(n, claims)))
		}
	}
	return out
}

// isRefusal reports whether the model declined as the rules tell it to; a
// refusal with trailing words ("… documents. Sorry.") still counts, one
// that goes on to answer part of the question with citations does not.
func isRefusal(text string) bool {
	norm := strings.ToLower(strings.Join(strings.Fields(strings.NewReplacer("’", "'", "*", "", "\"", "").Replace(text)), " "))
	return strings.HasPrefix(norm, strings.ToLower(Refusal[:len(Refusal)-1])) && !citeGroup.MatchString(text)
}

func emit(onToken func(string), s string) {
	if onToken != nil {
		onToken(s)
	}
}

// ErrNoQuestion is returned for an empty question.
var ErrNoQuestion = errors.New("empty question: type what you want to know")

package answer

import (
	"context"
	"fmt"
	"regexp"
	"slices"
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"

	"cairn/core/chunk"
	"cairn/core/search"
)

// An extractive answer quotes at most maxQuoted blocks: the best, and a
// second when it comes within secondShare of the best's score and holds
// terms of the question the best lacks (a neighbouring option that repeats
// the same words adds nothing but doubt).
const (
	maxQuoted   = 2
	secondShare = 0.75
	// maxTitleWords is the longest line without a full stop, alone in
	// its paragraph, that Sentences takes for a title.
	maxTitleWords = 10
)

// maxSubjectWords is the longest title a question can name: longer titles
// are descriptions, not names.
const maxSubjectWords = 3

// nameShare of the mean weight of the question's words is the least a title
// word must weigh to be taken for a name (see names).
const nameShare = 0.5

// nearWords is the window in which the question's terms count as close
// together (Features' Near): "ignore ... case" in one line says more than
// the two words a page apart.
const nearWords = 20

// names reports whether the question's terms name a document by its title:
// every word of a short title ("tar", "git-branch", "ssh-keygen.1") is among
// them, in order and side by side; numbers (a man page's section) need not
// be. A title word that is far commoner than the question's other words
// (weighing less than nameShare of their mean) is not taken for a name:
// "file" in "the last line of a file" does not ask for file(1).
func names(title string, terms []search.Term, weight map[string]float64, mean float64) bool {
	words := titleWords(title)
	if len(words) == 0 || len(words) > maxSubjectWords {
		return false
	}
	whole := strings.Join(words, " ")
	for _, t := range terms {
		if t.String() == whole { // "apt-get" is one term of two words
			return weight[whole] >= nameShare*mean
		}
	}
	// The words of a longer title name it only together and in order
	// ("git branch"): "add my key to the SSH agent" does not name ssh-add.
	for i := 0; i+len(words) <= len(terms); i++ {
		if namesAt(words, terms[i:i+len(words)], weight, mean) {
			return true
		}
	}
	return false
}

// nameMean is the mean weight a title word is held against (names): that
// of the question's words, not of the options it names, which weigh as
// its most specific terms and would leave "wget" in "what does wget -Q do"
// too light to name wget(1).
func nameMean(terms []search.Term, weight map[string]float64) float64 {
	sum, n, all := 0.0, 0, 0.0
	for _, t := range terms {
		w := weight[t.String()]
		all += w
		if !isOption(t) {
			sum += w
			n++
		}
	}
	if n == 0 {
		return all / float64(max(len(terms), 1))
	}
	return sum / float64(n)
}

// namesAt reports whether each title word is the term at its place.
func namesAt(words []string, terms []search.Term, weight map[string]float64, mean float64) bool {
	for k, w := range words {
		if search.IsStopword(w) {
			return false
		}
		m := matchedTerms(w, terms[k:k+1])
		if len(m) == 0 || weight[m[0]] < nameShare*mean {
			return false
		}
	}
	return true
}

// summaryHeadings are the sections a manual opens with its summary of what
// the command does (man pages, Git's and Perl's documentation).
var summaryHeadings = map[string]bool{"name": true, "description": true}

// titleWords are the words of a title without numbers (a man page's
// section).
func titleWords(title string) []string {
	var words []string
	for _, w := range search.Tokens(title) {
		if strings.Trim(w, "0123456789") != "" {
			words = append(words, w)
		}
	}
	return words
}

// extract writes an extractive answer: the block of the sources (an option
// with its description, a table row with its header, a step, a sentence)
// that best covers the question, quoted word for word with its [n], and a
// second block when it is nearly as good. Every claim is a quotation, so it
// is labelled as one (VerdictQuoted) rather than verified. When no block
// shares a term with the question, the answer is the refusal.
//
// A block scores the weighted sum of its Features: mostly the share of the
// question's weight (terms weigh their IDF in the knowledge base, so "grep"
// outweighs "make") that it holds within nearWords words of each other,
// plus part of the weight of the terms in the heading whose section it
// opens and in its source's title and heading trail; with meaning (an
// embedding model), how close the best blocks stand to the question. Blocks
// that read as instructions planted for an AI are never quoted. asked are
// the terms of what is asked now, which alone name an option (TermLine,
// Option, OptionName): a follow-up's own words and subject, not the words
// it carries from the question before; nil is every term. Only a cancelled
// ctx makes it fail.
func extract(ctx context.Context, ans *Answer, q *Question, terms []search.Term, weights []float64, asked []search.Term, more []search.Result, meaning Meaning) error {
	if len(weights) != len(terms) {
		weights = localWeights(ans.Sources, terms)
	}
	l := newLineQuery(q, terms, weights, asked)
	pool := slices.Clone(ans.Sources)
	for _, r := range more {
		pool = append(pool, Source{Result: r}) // numbered if quoted
	}
	named, direct := l.namedDocuments(pool)
	type cand struct {
		*blockSeen
		feat  Features
		score float64
	}
	var cands []cand
	for si, s := range pool {
		for _, b := range l.seeBlocks(si, s, named[si], direct[si]) {
			f := l.features(b)
			cands = append(cands, cand{blockSeen: b, feat: f, score: f.Score()})
		}
	}
	total := l.total
	question := q.Text
	if len(cands) == 0 || total == 0 {
		ans.Refused, ans.Text = true, Refusal
		return nil
	}
	sort.SliceStable(cands, func(i, j int) bool { return cands[i].score > cands[j].score })
	if meaning != nil && len(cands) > 1 {
		best := cands[:min(len(cands), meaningPool)]
		texts := make([]string, len(best))
		for i, c := range best {
			texts[i] = c.block.Text
		}
		q, vecs, err := meaning.Embed(ctx, question, texts)
		sims := make([]float64, len(vecs))
		for i, v := range vecs {
			sims[i] = cosine(q, v)
		}
		if err == nil && len(vecs) != len(best) {
			err = fmt.Errorf("%d vectors for %d lines", len(vecs), len(best))
		}
		if err != nil {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			ans.Notes = append(ans.Notes, "The embedding model failed, so the quote was chosen by keywords alone: "+err.Error())
		} else if lo, hi := slices.Min(sims), slices.Max(sims); hi-lo > minMeaningSpread {
			for i := range best {
				best[i].feat[Similarity] = (sims[i] - lo) / (hi - lo)
				best[i].score = best[i].feat.Score()
			}
			sort.SliceStable(cands, func(i, j int) bool { return cands[i].score > cands[j].score })
		}
	}
	var own []cand
	if l.anyNamed {
		// The question names its document: when that document says
		// anything of what was asked beyond its own name, the answer is
		// its line, however many of the question's words another's holds.
		for _, c := range cands {
			if c.named && c.fresh() > 0 {
				own = append(own, c)
			}
		}
	}
	for _, c := range cands {
		ans.Weighed = append(ans.Weighed, Weighed{Source: c.src, Path: pool[c.src].Path, Page: pool[c.src].Page, Block: c.block,
			Features: c.feat, Score: c.score, Passed: len(own) > 0 && !(c.named && c.fresh() > 0), Holds: l.holds(c.blockSeen)})
	}
	if len(own) > 0 {
		cands = own
	}
	picked := []cand{cands[0]}
	if cands[0].summary {
		// A summary names the tool that does what was asked ("nice - run a
		// program with modified scheduling priority"); its document's best
		// other line says how, so it is quoted beside it.
		// A line that restates the summary ("Shrink or extend the size of
		// each FILE" under "truncate - shrink or extend the size of a
		// file") says nothing more.
		for _, c := range cands[1:] {
			if c.src == cands[0].src && (c.block.Start >= cands[0].block.End || c.block.End <= cands[0].block.Start) &&
				!restates(c.block.Text, cands[0].block.Text) {
				picked = append(picked, c)
				break
			}
		}
	}
	for _, c := range cands[1:] {
		if len(picked) == maxQuoted || c.score < secondShare*cands[0].score {
			break
		}
		p := picked[0]
		if l.anyNamed && !c.named || c.summary && c.direct {
			continue // the question named its document: no other's line, nor its summary, beside it
		}
		if strings.EqualFold(c.block.Text, p.block.Text) || c.src == p.src && c.block.Start < p.block.End && p.block.Start < c.block.End {
			continue
		}
		if (p.feat[Option] == 1 || p.feat[OptionName] == 1) && c.block.Kind == BlockDefinition && optionLine.MatchString(c.block.Lead) {
			continue // the option the question names, or whose name it says: another option beside it is only doubt
		}
		adds := false
		for t := range c.own {
			adds = adds || !p.own[t]
		}
		if !adds {
			continue
		}
		picked = append(picked, c)
	}
	sort.SliceStable(picked, func(i, j int) bool {
		if picked[i].src != picked[j].src {
			return picked[i].src < picked[j].src
		}
		return picked[i].block.Start < picked[j].block.Start
	})
	sep := " "
	for _, c := range picked {
		if strings.Contains(c.block.Text, "\n") {
			sep = "\n\n"
		}
	}
	var b strings.Builder
	cited := map[int]bool{}
	for i, c := range picked {
		if pool[c.src].N == 0 { // a passage read beyond the sources shown
			pool[c.src].N = len(ans.Sources) + 1
			ans.Sources = append(ans.Sources, pool[c.src])
		}
		n := pool[c.src].N
		if i > 0 {
			b.WriteString(sep)
		}
		fmt.Fprintf(&b, "%s [%d]", c.block.Text, n)
		quote := strings.Join(strings.Fields(c.block.Text), " ")
		ans.Claims = append(ans.Claims, Claim{Text: quote, Citations: []int{n}, Supported: true, Support: 1})
		if !cited[n] {
			cited[n] = true
			ans.Citations = append(ans.Citations, citationOf(pool[c.src], Sentence{Text: quote, Start: c.block.Start}))
		}
	}
	ans.Text = b.String()
	ans.Verdict = VerdictQuoted
	return nil
}

// restates reports whether most of text's content words (restateShare)
// are already in said.
func restates(text, said string) bool {
	words := distinct(contentWords(text))
	before := distinct(contentWords(said))
	have := 0
	for w := range words {
		if before[w] {
			have++
		}
	}
	return len(words) > 0 && float64(have) >= restateShare*float64(len(words))
}

// restateShare of a line's content words found in another makes it a
// restatement of that one.
const restateShare = 0.7

// minMeaningSpread is the least spread of similarities that says anything:
// a model that finds every block alike orders them at random.
const minMeaningSpread = 0.02

// termWeights maps each term to its weight, and sums them.
func termWeights(terms []search.Term, weights []float64) (map[string]float64, float64) {
	weight := map[string]float64{}
	var total float64
	for i, t := range terms {
		weight[t.String()] = weights[i]
		total += weights[i]
	}
	return weight, total
}

// nearWeight is the largest weight of distinct question terms found within
// nearWords consecutive words of text: "ignore ... case" in one line says
// more than the two words a page apart.
func nearWeight(text string, terms []search.Term, weight map[string]float64) float64 {
	words := strings.Fields(text)
	if len(words) <= nearWords {
		var w float64
		for _, t := range matchedTerms(text, terms) {
			w += weight[t]
		}
		return w
	}
	best := 0.0
	for i := 0; i < len(words); i += nearWords / 2 {
		var w float64
		for _, t := range matchedTerms(strings.Join(words[i:min(len(words), i+nearWords)], " "), terms) {
			w += weight[t]
		}
		best = max(best, w)
	}
	return best
}

// localWeights stands in for the knowledge base's IDF when retrieval gave
// none: rarer among the sources' sentences weighs more.
func localWeights(sources []Source, terms []search.Term) []float64 {
	df := make([]int, len(terms))
	n := 0
	for _, s := range sources {
		for _, sent := range Sentences(s.Text) {
			if sent.Heading {
				continue // a heading repeats the words of its section
			}
			n++
			m := map[string]bool{}
			for _, t := range matchedTerms(sent.Text, terms) {
				m[t] = true
			}
			for i, t := range terms {
				if m[t.String()] {
					df[i]++
				}
			}
		}
	}
	out := make([]float64, len(terms))
	for i := range terms {
		out[i] = search.IDF(df[i], n)
	}
	return out
}

// citationOf resolves source s for a claim, quoting sentence q of it; the
// line is the quote's own line, not the passage's first.
func citationOf(s Source, q Sentence) Citation {
	return Citation{N: s.N, ChunkID: s.ChunkID, Path: s.Path, PathEscaped: s.PathEscaped, Title: s.Title, Unit: s.UnitKind, Page: s.Page,
		Line: s.LineStart + strings.Count(s.Text[:q.Start], "\n"), Quote: q.Text}
}

// matchedTerms lists the query terms found in text.
func matchedTerms(text string, terms []search.Term) []string {
	_, _, m := search.Snippet(text, terms)
	return m
}

// Sentence is a sentence of a text and the byte offset where it starts.
type Sentence struct {
	Text    string // white space collapsed
	Start   int
	Heading bool // a heading line ("# Title"), not a statement
}

// Sentences splits text into sentences. Paragraphs are separated by blank
// lines; inside one, list items, headings and table rows ("a | b") stand
// alone while other lines are wrapped prose, joined and split at ".", "!" or
// "?" followed by a space and an upper-case letter, digit or quote.
func Sentences(text string) []Sentence {
	var out []Sentence
	// Prose lines are joined with single spaces; joined[i] maps back to the
	// text through the start offset of each line piece.
	type piece struct{ joined, orig int }
	var prose strings.Builder
	var pieces []piece
	emit := func(s string, at func(int) int, heading bool) {
		splitSentences(s, func(i int, sent string) {
			if sent = strings.Join(strings.Fields(sent), " "); len(sent) > 1 {
				out = append(out, Sentence{Text: sent, Start: at(i), Heading: heading})
			}
		})
	}
	// flush ends a paragraph; titled says it ended at a blank line or the
	// end of the text, so that a lone short line without a full stop
	// ("Pump P-101 maintenance log") reads as a title.
	flush := func(titled bool) {
		if prose.Len() == 0 {
			return
		}
		ps := pieces
		p := prose.String()
		// An option with its description on one line ("-i   prompt before
		// every removal"), or a name with its ("who - show who is logged
		// on"), is a statement, however short.
		title := titled && len(ps) == 1 && len(strings.Fields(p)) <= maxTitleWords && !strings.ContainsAny(p[len(p)-1:], ".!?:;,") &&
			!optionLine.MatchString(p) && !summaryLine.MatchString(p)
		emit(p, func(i int) int {
			k := 0
			for k+1 < len(ps) && ps[k+1].joined <= i {
				k++
			}
			return ps[k].orig + (i - ps[k].joined)
		}, title)
		prose.Reset()
		pieces = nil
	}
	off := 0
	for _, line := range strings.SplitAfter(text, "\n") {
		lead := len(line) - len(strings.TrimLeftFunc(line, isBlank))
		t := strings.TrimSpace(line)
		start := off + lead
		switch {
		case t == "":
			flush(true)
		case isItem(t):
			flush(false)
			emit(t, func(i int) int { return start + i }, strings.HasPrefix(t, "#"))
		case chunk.IsAllCaps(t): // "WARRANTY": a title, as the chunker reads it
			flush(false)
			emit(t, func(i int) int { return start + i }, true)
		default:
			if prose.Len() > 0 {
				if cut := hyphenAtEnd(prose.String(), t); cut > 0 {
					// "decompres‐" over "sion": one word, as the
					// document's reader sees it.
					p := prose.String()[:prose.Len()-cut]
					prose.Reset()
					prose.WriteString(p)
				} else {
					prose.WriteByte(' ')
				}
			}
			pieces = append(pieces, piece{prose.Len(), start})
			prose.WriteString(t)
		}
		off += len(line)
	}
	flush(true)
	return out
}

// hyphenAtEnd is the length in bytes of the hyphen that ends prose when
// it breaks a word across a line end, next being the line that goes on
// with it: a hyphen after a letter, the next line starting with a
// lower-case letter ("exam-" over "ple"; groff's U+2010 "decompres‐"
// over "sion"; a soft hyphen). 0 when prose does not end so. Compounds
// broken at their own hyphen ("well-" over "known") lose it, the trade
// PDF extraction makes too (core/extract's dehyphenate).
func hyphenAtEnd(prose, next string) int {
	r, size := utf8.DecodeLastRuneInString(prose)
	if r != '-' && r != '‐' && r != '\u00ad' {
		return 0
	}
	before, _ := utf8.DecodeLastRuneInString(prose[:len(prose)-size])
	after, _ := utf8.DecodeRuneInString(next)
	if !unicode.IsLetter(before) || !unicode.IsLower(after) {
		return 0
	}
	return size
}

func isItem(t string) bool {
	if strings.HasPrefix(t, "- ") || strings.HasPrefix(t, "* ") || strings.HasPrefix(t, "• ") ||
		strings.HasPrefix(t, "#") || strings.Contains(t, " | ") {
		return true
	}
	i := 0
	for i < len(t) && t[i] >= '0' && t[i] <= '9' {
		i++
	}
	return i > 0 && i+1 < len(t) && (t[i] == '.' || t[i] == ')') && t[i+1] == ' '
}

// splitSentences calls add with the byte offset and text of each sentence
// of s.
func splitSentences(s string, add func(int, string)) {
	start := 0
	for i := 0; i+2 < len(s); i++ {
		if (s[i] == '.' || s[i] == '!' || s[i] == '?') && s[i+1] == ' ' {
			next, _ := utf8.DecodeRuneInString(s[i+2:])
			if unicode.IsUpper(next) || unicode.IsDigit(next) || next == '"' || next == '“' || next == '[' {
				if s[i] == '.' && (isAbbrev(s, i) || isDigits(s[start:i])) {
					continue // "Dr. Okafor", "3. Step three"
				}
				add(start, s[start:i+1])
				start = i + 2
			}
		}
	}
	add(start, s[start:])
}

// isAbbrev reports whether the dot at rs[i] ends a common abbreviation or a
// single letter ("Dr.", "e.g.", "J. Smith"), which does not end a sentence.
func isAbbrev(s string, i int) bool {
	j := i
	for j > 0 {
		r, size := utf8.DecodeLastRuneInString(s[:j])
		if !unicode.IsLetter(r) && r != '.' {
			break
		}
		j -= size
	}
	word := strings.ToLower(s[j:i])
	if utf8.RuneCountInString(word) == 1 {
		return true
	}
	switch word {
	case "dr", "mr", "mrs", "ms", "prof", "st", "no", "fig", "vs", "etc", "approx", "inc", "ltd", "e.g", "i.e":
		return true
	}
	return false
}

// manRef is a reference to a manual page ("ptrace(2),").
var manRef = regexp.MustCompile(`^[\p{L}\p{N}_.:+-]+\([0-9][a-z]*\)[,.;]?$`)

// isReferenceList reports whether a block is a list of references to other
// manuals, as a SEE ALSO section gives them: at least three, and most of
// its words. Like a table of contents, it says where to read, not what.
func isReferenceList(text string) bool {
	words := strings.Fields(text)
	refs := 0
	for _, w := range words {
		if manRef.MatchString(w) {
			refs++
		}
	}
	return refs >= 3 && 2*refs > len(words)
}

// distinct is words without repeats.
func distinct(words []string) map[string]bool {
	m := make(map[string]bool, len(words))
	for _, w := range words {
		m[w] = true
	}
	return m
}

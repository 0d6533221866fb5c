package answer

import (
	"math"
	"slices"
	"strings"

	"cairn/core/search"
)

// lineQuery is what the choice of the quoted line weighs a block against:
// the question read (Question), its terms as retrieval corrected and
// weighed them, and the terms of what is asked now.
type lineQuery struct {
	q     *Question
	terms []search.Term
	// held are terms with their WordNet expansions: a block holds the
	// question's "uncompress" where it says "decompress" (seeBlocks).
	held    []search.Term
	weights []float64
	weight  map[string]float64 // each term's weight, by its String
	total   float64
	// asked are the terms of what is asked now, which alone name an
	// option (TermLine, Option, OptionName): a follow-up's own words and
	// subject, not the words it carries; the situation's left out.
	asked []search.Term
	// anyNamed: the question names one of the pool's documents by title.
	anyNamed bool
}

// newLineQuery weighs terms (weights: their IDF in the knowledge base,
// else localWeights over the sources).
func newLineQuery(q *Question, terms []search.Term, weights []float64, asked []search.Term) *lineQuery {
	if asked == nil {
		asked = terms
	}
	l := &lineQuery{q: q, terms: terms, held: search.Expanded(terms), weights: weights}
	l.weight, l.total = termWeights(terms, weights)
	l.asked = withoutSituation(q.Text, q.situation, asked)
	return l
}

// blockSeen is a block of a passage with what its place says of it: the
// terms it holds, those of the heading over it and of its passage's title
// and heading trail, and whether its document is the one the question
// names.
type blockSeen struct {
	src     int // the passage's place in the reading order, from 0
	block   Block
	own     map[string]bool // terms the block holds
	lead    map[string]bool // terms of the heading (or the document's own question) over it
	context map[string]bool // terms of its passage's title and heading trail
	// summary: the block opens its document's NAME or DESCRIPTION (under
	// its heading, or as the heading's definition).
	summary bool
	// named: its document, or its family ("ssh" for ssh-keygen), is one the
	// question names by title; direct: that document itself is named.
	named, direct bool
	// heading is its passage's heading trail, tokenized.
	heading []string
}

// headingHolds reports whether b's passage's heading trail holds word.
func (b *blockSeen) headingHolds(word string) bool { return slices.Contains(b.heading, word) }

// featureFunc measures one Feature of a block.
type featureFunc func(l *lineQuery, b *blockSeen) float64

// featureFuncs measure the features a block is scored on, one function
// each, so that a test can read them one by one; Similarity is set after
// the others, for the best blocks only (meaningPool).
var featureFuncs = [numFeatures]featureFunc{
	Have: func(l *lineQuery, b *blockSeen) float64 { return l.share(b, func(t string) bool { return b.own[t] }) },
	Near: func(l *lineQuery, b *blockSeen) float64 {
		return nearWeight(b.block.Scored(), l.terms, l.weight) / l.total
	},
	Lead: func(l *lineQuery, b *blockSeen) float64 {
		return l.share(b, func(t string) bool { return !b.own[t] && b.lead[t] })
	},
	Context: func(l *lineQuery, b *blockSeen) float64 {
		return l.share(b, func(t string) bool { return !b.own[t] && !b.lead[t] && b.context[t] })
	},
	TermLine: func(l *lineQuery, b *blockSeen) float64 {
		return bit(b.block.Kind == BlockDefinition && isTermLead(b.block.Lead) && speaksTo(b.block.Lead, l.asked, b.context))
	},
	// An option is the question's when it is an option of the document
	// the question names, or when it names none: "hard link" in "a
	// symlink instead of a hard link" does not ask for rsync's
	// --hard-links.
	Option: func(l *lineQuery, b *blockSeen) float64 {
		return bit(b.termLine() && b.ownDocument(l) && namesOption(b.block.Lead, l.asked))
	},
	// An option's name said in words counts only in a document the
	// question is about (its title or section holds a word of the
	// question), and only where its description speaks to the question.
	OptionName: func(l *lineQuery, b *blockSeen) float64 {
		if !b.termLine() || !b.ownDocument(l) || len(b.context) == 0 || !speaksTo(description(b.block), l.asked, b.context) {
			return 0
		}
		return optionNameShare(b.block.Lead, l.asked) * nameWeight(b.block.Lead, l.asked, b.context)
	},
	Phrase: func(l *lineQuery, b *blockSeen) float64 {
		return search.PhraseShare(b.block.Scored(), l.terms, l.weights)
	},
	Other:     func(l *lineQuery, b *blockSeen) float64 { return bit(l.anyNamed && !b.named) },
	Summary:   func(l *lineQuery, b *blockSeen) float64 { return bit(b.summary && b.direct) },
	Rank:      func(l *lineQuery, b *blockSeen) float64 { return math.Log2(1 + float64(b.src)) },
	Qualifier: func(l *lineQuery, b *blockSeen) float64 { return qualifierShare(l.q.Qualifiers, b.block.Scored()) },
	// The quote, not only its core sentence, names the path.
	Place: func(l *lineQuery, b *blockSeen) float64 {
		return bit(l.q.Kinds.Has(AsksPlace) && holdsPath(b.block.Text))
	},
	Default: func(l *lineQuery, b *blockSeen) float64 {
		return bit(l.q.Kinds.Has(AsksDefault) && saysDefault.MatchString(b.block.Text))
	},
	Negated: func(l *lineQuery, b *blockSeen) float64 {
		return bit(!l.q.Negates && b.block.Kind == BlockDefinition && saysNot(b.block))
	},
	Density: func(l *lineQuery, b *blockSeen) float64 {
		if words := contentWords(b.block.Scored()); len(words) > 0 {
			return min(1, float64(len(b.own))/float64(len(distinct(words))))
		}
		return 0
	},
	Length: func(l *lineQuery, b *blockSeen) float64 {
		if words := contentWords(b.block.Scored()); len(words) > 0 {
			return math.Log2(1+float64(len(words))) / 8
		}
		return 0
	},
	// What the question asks for counts by how much of the question the
	// block holds: a definition of something else, a reason for anything,
	// is no answer.
	Defines:     func(l *lineQuery, b *blockSeen) float64 { return l.gives(b, l.given(b, Defines)) },
	Reason:      func(l *lineQuery, b *blockSeen) float64 { return l.gives(b, l.given(b, Reason)) },
	Instruction: func(l *lineQuery, b *blockSeen) float64 { return l.gives(b, l.given(b, Instruction)) },
	Value:       func(l *lineQuery, b *blockSeen) float64 { return l.gives(b, l.given(b, Value)) },
	Names:       func(l *lineQuery, b *blockSeen) float64 { return l.gives(b, l.given(b, Names)) },
	Code: func(l *lineQuery, b *blockSeen) float64 {
		return bit(b.block.Kind == BlockProse && codeLike(b.block.Scored()) || b.block.Kind == BlockDefinition && codeLead.MatchString(b.block.Lead))
	},
	Fragment: func(l *lineQuery, b *blockSeen) float64 { return bit(fragment(b.block)) },
	Restates: func(l *lineQuery, b *blockSeen) float64 {
		if !b.statement() || l.q.Kinds&Kinds(AsksWhy|AsksHowTo|AsksNumber|AsksDefinition) == 0 ||
			l.share(b, func(t string) bool { return b.own[t] }) < restateQuestion {
			return 0
		}
		for _, k := range []Feature{Defines, Reason, Instruction, Value} {
			if l.given(b, k) {
				return 0
			}
		}
		return 1
	},
	Opens:          func(l *lineQuery, b *blockSeen) float64 { return bit(b.summary) },
	KindDefinition: func(l *lineQuery, b *blockSeen) float64 { return bit(b.block.Kind == BlockDefinition) },
	KindRow:        func(l *lineQuery, b *blockSeen) float64 { return bit(b.block.Kind == BlockRow) },
	KindStep:       func(l *lineQuery, b *blockSeen) float64 { return bit(b.block.Kind == BlockStep) },
	KindField:      func(l *lineQuery, b *blockSeen) float64 { return bit(b.block.Kind == BlockField) },
}

// features measures every feature of b but Similarity.
func (l *lineQuery) features(b *blockSeen) Features {
	var f Features
	for k, fn := range featureFuncs {
		if fn != nil {
			f[k] = fn(l, b)
		}
	}
	return f
}

// share is the share of the question's weight held by the terms that
// keep says of. The terms are summed in the question's order, not a
// map's: a sum's last bit would otherwise change from run to run and
// break ties between equal blocks at random.
func (l *lineQuery) share(b *blockSeen, keep func(term string) bool) float64 {
	var sum float64
	for _, term := range l.terms {
		if t := term.String(); keep(t) {
			sum += l.weight[t]
		}
	}
	return sum / l.total
}

// holds lists the question's terms b holds itself, under its heading or
// in its passage's title and headings, in the question's order.
func (l *lineQuery) holds(b *blockSeen) []string {
	var out []string
	for _, term := range l.terms {
		if t := term.String(); b.own[t] || b.lead[t] || b.context[t] {
			out = append(out, t)
		}
	}
	return out
}

// termLine reports whether b is a definition whose first line names a
// term (isTermLead): an option, a synopsis, a variable.
func (b *blockSeen) termLine() bool {
	return b.block.Kind == BlockDefinition && isTermLead(b.block.Lead)
}

// given reports whether b gives what the question asks for, as feature k
// (Defines, Reason, Instruction, Value, Names) names it.
func (l *lineQuery) given(b *blockSeen, k Feature) bool {
	q := l.q
	switch k {
	case Defines:
		return q.Kinds&Kinds(AsksDefinition|AsksExpansion) != 0 && defines(b.block.Scored(), q.Subject, b.leadHolds(q.Subject))
	case Reason:
		return q.Kinds.Has(AsksWhy) && givesReason.MatchString(b.block.Text)
	case Instruction:
		return q.Kinds.Has(AsksHowTo) && instruction(b.block.Text)
	case Value:
		return q.Kinds.Has(AsksNumber) && statesNumber.MatchString(b.block.Text)
	case Names:
		return q.Kinds.Has(AsksWhich) && namesThing.MatchString(b.block.Text)
	}
	return false
}

// gives reports (1) whether a block gives what the question asks for
// (ok): a statement (statement) that holds at least givesShare of the
// question itself or under its heading. A definition of something else,
// a reason for anything, is no answer.
func (l *lineQuery) gives(b *blockSeen, ok bool) float64 {
	return bit(ok && b.statement() && l.share(b, func(t string) bool { return b.own[t] || b.lead[t] }) >= givesShare)
}

// restateQuestion is the share of a question a statement must hold to
// restate it (Restates).
const restateQuestion = 0.7

// givesShare is the least share of the question's weight a block must hold
// for what it gives to count (gives).
const givesShare = 0.2

// statement reports whether b states something in sentences (prose, a
// step, a row, a field), as against a definition, whose term line says
// what it is about: the features of what a question asks for (Defines,
// Reason, Instruction, Value, Names) read statements; an option's line
// answers by naming the option.
func (b *blockSeen) statement() bool { return b.block.Kind != BlockDefinition }

// leadHolds reports whether the heading over b, or its passage's heading
// trail, holds the last of words (a definition's subject).
func (b *blockSeen) leadHolds(words []string) bool {
	if len(words) == 0 {
		return false
	}
	head := words[len(words)-1]
	for t := range b.lead {
		if slices.Contains(search.Tokens(t), head) {
			return true
		}
	}
	return b.headingHolds(head)
}

// ownDocument reports whether b's document is one the question is about:
// the one it names, or any when it names none.
func (b *blockSeen) ownDocument(l *lineQuery) bool { return !l.anyNamed || b.named }

// fresh counts the terms b holds beyond its document's title and headings.
func (b *blockSeen) fresh() int {
	n := 0
	for t := range b.own {
		if !b.context[t] {
			n++
		}
	}
	return n
}

func bit(ok bool) float64 {
	if ok {
		return 1
	}
	return 0
}

// namedDocuments reports, for each passage of pool, whether the question
// names its document (names) and whether it names it or its family: "ssh"
// names ssh-keygen(1) and ssh_config(5) as well as ssh(1). Only a document
// named itself has its summary passed over (the Summary feature): "the SSH
// agent" does not say what ssh-add(1) is for.
func (l *lineQuery) namedDocuments(pool []Source) (named, direct []bool) {
	mean := nameMean(l.terms, l.weight)
	named = make([]bool, len(pool))
	for i, s := range pool {
		named[i] = names(s.Title, l.terms, l.weight, mean)
		l.anyNamed = l.anyNamed || named[i]
	}
	direct = slices.Clone(named)
	for i, s := range pool {
		if named[i] {
			continue
		}
		words := titleWords(s.Title)
		for j, o := range pool {
			if ow := titleWords(o.Title); direct[j] && len(ow) < len(words) && slices.Equal(ow, words[:len(ow)]) {
				named[i] = true
				break
			}
		}
	}
	return named, direct
}

// seeBlocks lists the blocks of source s an answer may quote, each with
// what its place says of it; planted instructions, reference lists and
// headings (which say what the next block is about) are not among them.
func (l *lineQuery) seeBlocks(src int, s Source, named, direct bool) []*blockSeen {
	context := map[string]bool{}
	for _, t := range matchedTerms(s.Title+"\n"+s.Heading, l.held) {
		context[t] = true
	}
	st := prepare(s)
	heading := search.Tokens(s.Heading)
	var out []*blockSeen
	var lead map[string]bool // terms of the heading over the next block
	summaryNext := false     // the next block opens NAME or DESCRIPTION
	for _, b := range Blocks(s.Text) {
		if st.plantedIn(b.Start, b.End) || isPlanted(b.Text) {
			continue // never quote instructions planted for an AI
		}
		if isReferenceList(b.Text) || isContents(b.Text) {
			continue // "ls(1), stat(1), find(1)", "11.1. How can I …": where to read, not an answer
		}
		m := matchedTerms(b.Scored(), l.held)
		if b.Heading || isQuestion(b.Scored()) {
			// A heading says what the next block is about; so does a
			// question a document asks itself (a FAQ's "How do I know if
			// I want to do a fetch or a pull?"), which repeats the
			// person's words and answers nothing.
			lead = map[string]bool{}
			for _, t := range m {
				lead[t] = true
			}
			summaryNext = b.Heading && summaryHeadings[strings.ToLower(strings.TrimSpace(b.Text))]
			continue
		}
		// A summary under its heading, or read as the heading's definition
		// ("NAME" over an indented "tail - output …").
		summary := summaryNext && b.Kind != BlockDefinition ||
			b.Kind == BlockDefinition && summaryHeadings[strings.ToLower(strings.TrimSpace(b.Lead))]
		summaryNext = false
		own := map[string]bool{}
		for _, t := range m {
			own[t] = true
		}
		hadLead := len(lead) > 0
		bs := &blockSeen{src: src, block: b, own: own, lead: lead, context: context, summary: summary, named: named, direct: direct, heading: heading}
		lead = nil
		if len(own) == 0 && !hadLead {
			continue
		}
		out = append(out, bs)
	}
	return out
}

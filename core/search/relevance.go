package search

import (
	"cmp"
	"math"
	"slices"
	"strings"
)

// Relevance bands: what a relevance means in words, for the window and
// the command line. A strong match covers most of the question's
// information; a weak one little of it.
const (
	StrongRelevance  = 0.7
	PartialRelevance = 0.4
)

// RelevanceLabel says a relevance in words: "strong match", "partial
// match" or "weak match".
func RelevanceLabel(r float64) string {
	switch {
	case r >= StrongRelevance:
		return "strong match"
	case r >= PartialRelevance:
		return "partial match"
	}
	return "weak match"
}

// MatchLabel says a result's relevance in words for a person, and whether it is
// a table of contents or an index, which points to the answer rather than
// holding it: "strong match, contents or index page".
func (r Result) MatchLabel() string {
	s := RelevanceLabel(r.Relevance)
	if r.Passage != nil && r.Navigation {
		s += ", contents or index page"
	}
	return s
}

// navigationPenalty scales the fused score and the relevance of a table
// of contents or an index: halved, an RRF rank 1 falls below the whole
// candidate pool at the default rrf_k.
const navigationPenalty = 0.5

// IDF is the weight of a term found in df of n chunks: BM25's inverse
// document frequency, which stays positive for terms in most chunks. A
// term found nowhere weighs the most: a question about "banana bread" is
// mostly about the words the documents lack.
func IDF(df, n int) float64 {
	df = max(df, 0)
	n = max(n, df)
	return math.Log(1 + (float64(n-df)+0.5)/(float64(df)+0.5))
}

// Coverage is the share of the weight of terms that matched, where
// weights[i] belongs to terms[i]: 1 when every term is there.
func Coverage(terms []Term, weights []float64, matched map[string]bool) float64 {
	return coverage(terms, weights, func(i int) float64 {
		if matched[terms[i].String()] {
			return 1
		}
		return 0
	})
}

// coverage is the share of the weight of terms that a text holds, where
// holds(i) is how much of terms[i] it holds (share).
func coverage(terms []Term, weights []float64, holds func(i int) float64) float64 {
	var have, all float64
	for i := range terms {
		w := weightOf(weights, i)
		all += w
		have += w * holds(i)
	}
	if all == 0 {
		return 0
	}
	return have / all
}

// weightOf is weights[i], or 1 past their end.
func weightOf(weights []float64, i int) float64 {
	if i < len(weights) {
		return weights[i]
	}
	return 1
}

// passageCoverage is the Coverage of a passage whose term occurrences are
// at (termWords): the question's terms count wherever the passage shows
// them, in its text, its heading trail or its document's title ("grep" in
// "How do I make grep ignore case?" is the title of the page that
// answers); a term found only through an expansion counts expansionShare.
// near is the Coverage of its best window of nearWords words, with the
// heading's and title's terms counted in every window: a passage where the
// question's words stand together answers it more likely than one that
// holds them a paragraph apart.
func passageCoverage(p *Passage, terms []Term, weights []float64, at [][]occurrence) (all, near float64) {
	context := make([]float64, len(terms)) // how much of each term the heading or title holds
	for _, s := range []string{p.Heading, p.Title} {
		if s == "" {
			continue
		}
		_, in := termWords(s, terms)
		for i := range terms {
			context[i] = max(context[i], share(in[i]))
		}
	}
	all = coverage(terms, weights, func(i int) float64 { return max(context[i], share(at[i])) })
	return all, windowCoverage(terms, weights, context, at)
}

// windowCoverage is the best coverage of nearWords consecutive words, given
// each term's word positions (termWords) and how much of each term every
// window holds (context, from the heading and title), in one pass over the
// occurrences in word order.
func windowCoverage(terms []Term, weights []float64, context []float64, at [][]occurrence) float64 {
	type occ struct {
		word, term int
		weak       bool
	}
	var occs []occ
	for ti, o := range at {
		if context[ti] >= 1 {
			continue // whole in every window already
		}
		for _, w := range o {
			occs = append(occs, occ{w.word, ti, w.weak})
		}
	}
	slices.SortFunc(occs, func(a, b occ) int { return cmp.Compare(a.word, b.word) })
	var total, cur float64
	for ti := range terms {
		total += weightOf(weights, ti)
		cur += weightOf(weights, ti) * context[ti]
	}
	if total == 0 {
		return 0
	}
	// strong and weak count each term's occurrences in the window, by
	// whether they are expansions; held is what the term adds to it.
	strong, weak := make([]int, len(terms)), make([]int, len(terms))
	held := func(ti int) float64 {
		s := context[ti]
		switch {
		case strong[ti] > 0:
			s = 1
		case weak[ti] > 0:
			s = max(s, expansionShare)
		}
		return weightOf(weights, ti) * s
	}
	count := func(o occ, by int) {
		before := held(o.term)
		if o.weak {
			weak[o.term] += by
		} else {
			strong[o.term] += by
		}
		if after := held(o.term); after != before {
			cur += after - before
		}
	}
	best := cur
	l := 0
	for _, o := range occs {
		count(o, 1)
		for occs[l].word <= o.word-nearWords {
			count(occs[l], -1)
			l++
		}
		best = max(best, cur)
	}
	return best / total
}

// nearWords is the width of the window in which the question's words count
// as standing together; nearShare is how much of a result's rank score the
// window's coverage decides (the rest is the fused score alone). Measured
// with the quality suite at 0.5 and 0.8 against none: page MRR@10 0.775 ->
// 0.791 / 0.793, file MRR@10 0.612 -> 0.625 / 0.626, answers within one
// question; 0.5 keeps the fused ranking in charge.
const (
	nearWords = 30
	nearShare = 0.5
)

// phraseBonus is how much more a result ranks whose passage holds every
// pair of the question's side-by-side words side by side (Phrase).
const phraseBonus = 0.3

// semantic maps a vector similarity to 0..1 by how far it stands above
// tail, the similarity of the least similar candidate: models differ in
// the range their similarities live in (E5 puts unrelated text at 0.75),
// but a passage that answers stands out from the pool's tail in every one
// of them, while for a question the documents do not cover the whole pool
// is about equally far.
func semantic(sim, tail float64) float64 {
	if tail >= 1 {
		return 0
	}
	return min(max((sim-tail)/(1-tail), 0), 1)
}

// lowest is the smallest score of hs, 0 for none.
func lowest(hs []Hit) float64 {
	lo, _ := scoreRange(hs)
	return lo
}

// navTitles open a table of contents, an index or a list of figures.
var navTitles = map[string]bool{"contents": true, "table of contents": true, "index": true,
	"list of figures": true, "list of tables": true}

// IsNavigation reports whether text reads as a table of contents, an index
// or a list of figures: most of its lines are entries that end in a page
// number (with dot leaders or without), or are index entries. Such a
// passage names the section that answers and holds none of the answer.
func IsNavigation(text string) bool {
	var lines, dotted, indexed, numbered, rising int
	titled := false
	last := -1
	for _, l := range strings.Split(text, "\n") {
		l = strings.TrimSpace(l)
		if l == "" {
			continue
		}
		if lines == 0 && navTitles[strings.ToLower(l)] {
			titled = true
		}
		lines++
		switch {
		case hasLeaders(l):
			dotted++
		case len(l) > 120:
		case isIndexEntry(l):
			indexed++
		case isTOCEntry(l):
			// Without leaders, a line ending in a number may be a row of
			// figures; a table of contents tells itself by its page
			// numbers, which only go up.
			numbered++
			if n := trailingNumber(l); n >= last {
				rising++
				last = n
			}
		}
	}
	if lines < 4 {
		return false
	}
	entries := dotted + indexed + rising
	switch {
	case dotted*3 >= lines: // leaders are rare in prose
		return true
	case titled:
		return entries*2 >= lines
	}
	return entries*5 >= lines*3 && rising*5 >= numbered*4
}

// The line tests below are written out rather than as regular expressions:
// they run on every line of every candidate passage of every search.

// hasLeaders reports whether l holds dot leaders ("Title ....... 12").
func hasLeaders(l string) bool {
	return strings.Contains(l, "....") || strings.Contains(l, ". . . .") || strings.Contains(l, "……")
}

// isTOCEntry reports whether l is a title followed by a page number, Arabic
// (up to four digits) or Roman (up to six letters), after a space.
func isTOCEntry(l string) bool {
	i := len(l)
	for i > 0 && len(l)-i < 6 && strings.IndexByte("0123456789", l[i-1]) >= 0 {
		i--
	}
	digits := len(l) - i
	if digits == 0 || digits > 4 {
		for i = len(l); i > 0 && len(l)-i < 7 && strings.IndexByte("ivxlc", l[i-1]) >= 0; i-- {
		}
		if n := len(l) - i; n == 0 || n > 6 {
			return false
		}
	}
	return i >= 3 && l[i-1] == ' '
}

// isIndexEntry reports whether l is a back-of-book index entry: a term,
// then page numbers or ranges separated by commas ("brace expansion,
// 23-25, 31").
func isIndexEntry(l string) bool {
	term, pages, ok := strings.Cut(l, ",")
	if !ok || term == "" || len(term) > 60 {
		return false
	}
	digits := 0
	for _, r := range pages {
		switch {
		case r >= '0' && r <= '9':
			digits++
		case r == ',' || r == ' ' || r == '-' || r == '–':
		default:
			return false
		}
	}
	return digits > 0
}

// trailingNumber is the number a line ends with (a Roman numeral counts
// as 0: front matter comes first).
func trailingNumber(l string) int {
	i := len(l)
	for i > 0 && l[i-1] >= '0' && l[i-1] <= '9' {
		i--
	}
	n := 0
	for _, c := range l[i:] {
		n = n*10 + int(c-'0')
	}
	return n
}

package answer

import (
	"slices"
	"strings"

	"cairn/core/search"
)

// The writer reads, of each source, the lines around the lines that hold
// the most of the question rather than the whole chunk: prompt processing
// is most of the wait for the first word on a CPU (68 of 74 s for a
// 5-source answer with a 0.5B model, docs/performance.md), and it grows
// with every token sent.
const (
	// focusHits is how many best lines a source is read around: the
	// answering line and one more (an option list's neighbour, a second
	// sentence naming the other term).
	focusHits = 2
	// focusContext is how many lines either side of a best line are read:
	// enough for the sentence a wrapped line belongs to and for the
	// description below an option.
	focusContext = 2
)

// elided stands where lines of the source were left out.
const elided = "[…]"

// focus returns the lines of text around its best lines for terms (weights
// aligned with terms; nil weighs all alike), with elided markers where
// lines were left out. Text no longer than the windows would be, or with no
// line holding a term (a passage found by meaning alone), is returned
// whole.
func focus(text string, terms []search.Term, weights []float64) string {
	lines := strings.Split(text, "\n")
	if len(lines) <= focusHits*(2*focusContext+1) || len(terms) == 0 {
		return text
	}
	if len(weights) != len(terms) {
		weights = nil
		for range terms {
			weights = append(weights, 1)
		}
	}
	weight, _ := termWeights(terms, weights)
	type scored struct {
		i     int
		score float64
	}
	var best []scored
	for i, l := range lines {
		var s float64
		for _, t := range matchedTerms(l, terms) {
			s += max(weight[t], 1e-3) // a term of weight 0 still counts
		}
		if s > 0 {
			best = append(best, scored{i, s})
		}
	}
	if len(best) == 0 {
		return text
	}
	// Highest score first; among equals the earlier line, which usually
	// introduces what follows.
	slices.SortStableFunc(best, func(a, b scored) int {
		switch {
		case a.score > b.score:
			return -1
		case a.score < b.score:
			return 1
		}
		return 0
	})
	keep := make([]bool, len(lines))
	for _, b := range best[:min(focusHits, len(best))] {
		for i := max(0, b.i-focusContext); i <= min(len(lines)-1, b.i+focusContext); i++ {
			keep[i] = true
		}
	}
	var out []string
	for i, l := range lines {
		switch {
		case keep[i]:
			out = append(out, l)
		case len(out) == 0 || out[len(out)-1] != elided:
			out = append(out, elided)
		}
	}
	return strings.Join(out, "\n")
}

// focused returns sources with each text cut to focus's windows, as copies
// (the passages are retrieval's, shared with the caller).
func focused(sources []Source, terms []search.Term, weights []float64) []Source {
	out := slices.Clone(sources)
	for i := range out {
		if out[i].Passage == nil {
			continue
		}
		p := *out[i].Passage
		p.Text = focus(p.Text, terms, weights)
		out[i].Passage = &p
	}
	return out
}

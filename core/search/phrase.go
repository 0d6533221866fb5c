package search

import "strings"

// Words a person types side by side are often one name: "line numbers",
// "numeric sort", "mime type". A passage where they stand together (in
// either order, at most phraseGap words apart) answers more likely than one
// that holds them a paragraph apart, and more than the window coverage
// (Near) alone says, which counts a window of nearWords words.
const phraseGap = 1

// pair is two terms that stand side by side in the question, by their
// index in the question's terms.
type pair struct{ a, b int }

// pairs are the question's terms that stand next to each other in it (no
// word between them, stopwords included: "numbers of matching" is not a
// pair).
func pairs(terms []Term) []pair {
	var out []pair
	for i := range terms {
		for j := i + 1; j < len(terms); j++ {
			if terms[j].at == terms[i].at+1 {
				out = append(out, pair{i, j})
			}
		}
	}
	return out
}

// phraseShare is the share of the question's weight held by the terms of
// its pairs that stand together in a text whose term occurrences are at
// (termWords): 1 when the question is one phrase found whole, less when
// the phrase is a part of the question ("office network" in "reset the
// router on the office network"). 0 when the question has no pair.
func phraseShare(terms []Term, weights []float64, at [][]occurrence) float64 {
	ps := pairs(terms)
	if len(ps) == 0 {
		return 0
	}
	// A word's occurrences are those of every term of its stem: termWords
	// gives a word to one term only, so "line" takes the "line" of
	// "matching lines" from "lines".
	keys := make([]string, len(terms))
	for i, t := range terms {
		keys[i] = stemKey(t)
	}
	occ := func(i int) []occurrence {
		var out []occurrence
		for j := range terms {
			if keys[j] == keys[i] {
				out = append(out, at[j]...)
			}
		}
		return out
	}
	in := make([]float64, len(terms)) // how much of each term a pair found together holds
	for _, p := range ps {
		s := together(occ(p.a), occ(p.b))
		in[p.a], in[p.b] = max(in[p.a], s), max(in[p.b], s)
	}
	return coverage(terms, weights, func(i int) float64 { return in[i] })
}

// together is how much two terms stand together: 1 when an occurrence of
// one stands within phraseGap words of one of the other's, on either side,
// expansionShare when only an expansion of one of them does, 0 when none
// does.
func together(as, bs []occurrence) float64 {
	best := 0.0
	for _, a := range as {
		for _, b := range bs {
			if gap(a, b) <= phraseGap || gap(b, a) <= phraseGap {
				if !a.weak && !b.weak {
					return 1
				}
				best = expansionShare
			}
		}
	}
	return best
}

// gap is how many words stand between the end of a and the start of b
// when b follows a; large otherwise.
func gap(a, b occurrence) int {
	end := a.word + a.n
	if b.word < end {
		return 1 << 30
	}
	return b.word - end
}

// PhraseShare is phraseShare for a text, the question's terms and their
// weights: how much of what the question says in adjacent words the text
// says in adjacent words too (the extractive answer's Phrase feature).
func PhraseShare(text string, terms []Term, weights []float64) float64 {
	if len(pairs(terms)) == 0 {
		return 0
	}
	_, at := termWords(text, terms)
	return phraseShare(terms, weights, at)
}

// stemKey is what a term matches: its literal, or the stems of its tokens.
func stemKey(t Term) string {
	if t.Literal != "" {
		return t.Literal
	}
	parts := make([]string, len(t.Tokens))
	for i, tok := range t.Tokens {
		parts[i] = stem(tok)
	}
	return strings.Join(parts, " ")
}

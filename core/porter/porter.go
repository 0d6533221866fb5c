// Package porter is the Porter stemmer as SQLite's FTS5 "porter" tokenizer
// applies it: both keyword paths (FTS5 and core/bm25) and the snippets of
// core/search stem with it.
package porter

import "strings"

// This is the Porter stemmer as SQLite's FTS5 "porter" tokenizer applies it,
// rule for rule, so that a word stems here exactly as it does in the FTS5
// index: tokens shorter than 3 or longer than 64 bytes pass unchanged, only
// a, e, i, o, u (and y after a consonant) are vowels, and any other byte,
// including digits and non-ASCII bytes, counts as a consonant.
// TestTokensMatchFTS5 (core/bm25) compares the two on real text.

const maxStemToken = 64

func isVowel(c byte, yIsVowel bool) bool {
	return c == 'a' || c == 'e' || c == 'i' || c == 'o' || c == 'u' || (yIsVowel && c == 'y')
}

// gobbleVC skips one vowel run and the consonant after it; it returns the
// position after that consonant, or 0 when there is no such pair.
func gobbleVC(w string, prevCons bool) int {
	cons := prevCons
	i := 0
	for ; i < len(w); i++ {
		cons = !isVowel(w[i], cons)
		if !cons {
			break
		}
	}
	for i++; i < len(w); i++ {
		cons = !isVowel(w[i], cons)
		if cons {
			return i + 1
		}
	}
	return 0
}

// The measure conditions of the algorithm on a stem: m > 0, m > 1, m = 1.
func mGt0(w string) bool { return gobbleVC(w, false) != 0 }

func mGt1(w string) bool {
	n := gobbleVC(w, false)
	return n != 0 && gobbleVC(w[n:], true) != 0
}

func mEq1(w string) bool {
	n := gobbleVC(w, false)
	return n != 0 && gobbleVC(w[n:], true) == 0
}

// oStar: the stem ends consonant-vowel-consonant, the last not w, x or y.
func oStar(w string) bool {
	switch w[len(w)-1] {
	case 'w', 'x', 'y':
		return false
	}
	mask, cons := 0, false
	for i := 0; i < len(w); i++ {
		cons = !isVowel(w[i], cons)
		mask <<= 1
		if cons {
			mask |= 1
		}
	}
	return mask&7 == 5
}

func mGt1ST(w string) bool {
	c := w[len(w)-1]
	return (c == 's' || c == 't') && mGt1(w)
}

func hasVowel(w string) bool {
	for i := 0; i < len(w); i++ {
		if isVowel(w[i], i > 0) {
			return true
		}
	}
	return false
}

type rule struct {
	suffix, repl string
	cond         func(stem string) bool // nil: always
}

// apply replaces the first rule's suffix that w ends with (w longer than
// the suffix) when the rule's condition holds on the rest. As in FTS5, a
// matching suffix whose condition fails ends the step. It returns the
// index of the rule that fired, or -1.
func apply(w string, rules []rule) (string, int) {
	for i, r := range rules {
		if len(w) > len(r.suffix) && strings.HasSuffix(w, r.suffix) {
			stem := w[:len(w)-len(r.suffix)]
			if r.cond == nil || r.cond(stem) {
				return stem + r.repl, i
			}
			return w, -1
		}
	}
	return w, -1
}

var (
	step1b = []rule{{"eed", "ee", mGt0}, {"ed", "", hasVowel}, {"ing", "", hasVowel}}
	// step1b2 rules fire without condition.
	step1b2 = []rule{{"at", "ate", nil}, {"bl", "ble", nil}, {"iz", "ize", nil}}
	step2   = []rule{
		{"ational", "ate", mGt0}, {"tional", "tion", mGt0},
		{"enci", "ence", mGt0}, {"anci", "ance", mGt0},
		{"izer", "ize", mGt0},
		{"logi", "log", mGt0},
		{"bli", "ble", mGt0}, {"alli", "al", mGt0}, {"entli", "ent", mGt0}, {"eli", "e", mGt0}, {"ousli", "ous", mGt0},
		{"ization", "ize", mGt0}, {"ation", "ate", mGt0}, {"ator", "ate", mGt0},
		{"alism", "al", mGt0}, {"iveness", "ive", mGt0}, {"fulness", "ful", mGt0}, {"ousness", "ous", mGt0},
		{"aliti", "al", mGt0}, {"iviti", "ive", mGt0}, {"biliti", "ble", mGt0},
	}
	step3 = []rule{
		{"ical", "ic", mGt0},
		{"ness", "", mGt0},
		{"icate", "ic", mGt0}, {"iciti", "ic", mGt0},
		{"ful", "", mGt0},
		{"ative", "", mGt0},
		{"alize", "al", mGt0},
	}
	step4 = []rule{
		{"al", "", mGt1},
		{"ance", "", mGt1}, {"ence", "", mGt1},
		{"er", "", mGt1},
		{"ic", "", mGt1},
		{"able", "", mGt1}, {"ible", "", mGt1},
		{"ant", "", mGt1}, {"ement", "", mGt1}, {"ment", "", mGt1}, {"ent", "", mGt1},
		{"ion", "", mGt1ST}, {"ou", "", mGt1},
		{"ism", "", mGt1},
		{"ate", "", mGt1}, {"iti", "", mGt1},
		{"ous", "", mGt1},
		{"ive", "", mGt1},
		{"ize", "", mGt1},
	}
)

// Stem returns the Porter stem of a folded token.
func Stem(w string) string {
	if len(w) < 3 || len(w) > maxStemToken {
		return w
	}
	// Step 1a: plurals.
	if w[len(w)-1] == 's' {
		switch {
		case w[len(w)-2] == 'e':
			n := len(w)
			if (n > 4 && w[n-4] == 's' && w[n-3] == 's') || (n > 3 && w[n-3] == 'i') {
				w = w[:n-2]
			} else {
				w = w[:n-1]
			}
		case w[len(w)-2] != 's':
			w = w[:len(w)-1]
		}
	}
	// Step 1b: -eed, -ed, -ing, then tidy the stem left by -ed or -ing.
	var fired int
	w, fired = apply(w, step1b)
	if fired > 0 { // -ed or -ing, not -eed
		if s, i := apply(w, step1b2); i >= 0 {
			w = s
		} else if c := w[len(w)-1]; len(w) >= 2 && !isVowel(c, false) && c != 'l' && c != 's' && c != 'z' && c == w[len(w)-2] {
			w = w[:len(w)-1]
		} else if mEq1(w) && oStar(w) {
			w += "e"
		}
	}
	// Step 1c: y after a vowel-bearing stem becomes i.
	if w[len(w)-1] == 'y' && hasVowel(w[:len(w)-1]) {
		w = w[:len(w)-1] + "i"
	}
	w, _ = apply(w, step2)
	w, _ = apply(w, step3)
	w, _ = apply(w, step4)
	// Step 5a: a final e goes when m > 1, or m = 1 and not *o.
	if w[len(w)-1] == 'e' {
		s := w[:len(w)-1]
		if mGt1(s) || (mEq1(s) && !oStar(s)) {
			w = s
		}
	}
	// Step 5b: -ll becomes -l when m > 1.
	if n := len(w); n > 1 && w[n-1] == 'l' && w[n-2] == 'l' && mGt1(w[:n-1]) {
		w = w[:n-1]
	}
	return w
}

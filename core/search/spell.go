package search

import (
	"context"
	"fmt"
	"regexp"
	"slices"
	"strings"
)

// Correction says that a word of the question that no passage holds was
// searched as the nearest word of the knowledge base's own vocabulary.
type Correction struct {
	From string `json:"from"` // as typed (lower case)
	To   string `json:"to"`
	term int    // the question's term it corrected
}

// Spelling correction is for the realistic slips of a person typing: a
// dropped letter, a doubled or stray one, two letters swapped, a key next
// to the right one. Each is one edit; a word needs minCorrectable letters
// to be corrected, since a shorter one is one edit away from too many
// words ("peru" from "perl"); only longer words (anyEditFrom letters) lose
// a stray letter that is not beside its double or its key's neighbour.
const (
	minCorrectable = 5
	anyEditFrom    = 8
)

// contractionHalves are the stems of what the tokenizer leaves of a
// contraction's first half ("wasn" of "wasn't"): no word a person means,
// though the index holds them, and one slip from words that are ("wasning",
// one from "washing", has the stem "wasn").
var contractionHalves = map[string]bool{
	"aren": true, "couldn": true, "didn": true, "doesn": true, "don": true, "hadn": true, "hasn": true,
	"haven": true, "isn": true, "mightn": true, "mustn": true, "needn": true, "shan": true, "shouldn": true,
	"wasn": true, "weren": true, "won": true, "wouldn": true, "ain": true,
}

// correctable reports whether a term may be corrected: one plain word of
// ASCII letters, not a technical token, not a stopword.
func correctable(t Term) bool {
	if t.Literal != "" || len(t.Tokens) != 1 || len(t.Tokens[0]) < minCorrectable || stopwords[t.Tokens[0]] {
		return false
	}
	if _, ok := irregular[t.Tokens[0]]; ok {
		return false // a word, weighed by its base (weigh), not a slip
	}
	for _, c := range []byte(t.Tokens[0]) {
		if c < 'a' || c > 'z' {
			return false
		}
	}
	return true
}

// correct replaces each correctable term of c that no passage holds with
// its nearest word that passages do hold (one edit away; the commonest,
// likelier slips first), and records the correction. A word the knowledge
// base holds, however rarely, is never corrected. It asks the store how
// often each term occurs, then each term's candidates, in one call.
func (s *Searcher) correct(ctx context.Context, c *Candidates) error {
	var idx []int
	var words []string
	for i, t := range c.Terms {
		if correctable(t) {
			idx = append(idx, i)
			words = append(words, t.Words())
		}
	}
	if len(idx) == 0 {
		return nil
	}
	dfs, _, err := s.st.TermDocFreqs(ctx, words)
	if err != nil {
		return fmt.Errorf("look up the question's words: %w", err)
	}
	type want struct {
		term  int
		cands []edit
	}
	var wants []want
	var all []string
	for k, df := range dfs {
		if df > 0 {
			continue
		}
		cands := slices.DeleteFunc(edits(words[k]), func(e edit) bool { return contractionHalves[stem(e.word)] })
		wants = append(wants, want{idx[k], cands})
		for _, e := range cands {
			all = append(all, e.word)
		}
	}
	if len(all) == 0 {
		return nil
	}
	cdfs, _, err := s.st.TermDocFreqs(ctx, all)
	if err != nil {
		return fmt.Errorf("look up corrections: %w", err)
	}
	at := 0
	for _, w := range wants {
		n := len(w.cands)
		best := bestEdit(w.cands, cdfs[at:at+n])
		at += n
		if best == "" {
			continue
		}
		t := &c.Terms[w.term]
		c.Corrections = append(c.Corrections, Correction{From: t.Tokens[0], To: best, term: w.term})
		t.Tokens = []string{best}
		t.Alts, t.Expansions = alternatives(t.Tokens), expansions(t.Tokens)
	}
	return nil
}

// bestEdit picks among candidates and their document frequencies: the
// likeliest kind of slip that gives a word the knowledge base holds, then
// the commonest such word (the first of equal ones); "" when no candidate
// is held.
func bestEdit(cands []edit, dfs []int) string {
	best := -1
	for i, e := range cands {
		if dfs[i] == 0 {
			continue
		}
		if best < 0 || e.kind < cands[best].kind || e.kind == cands[best].kind && dfs[i] > dfs[best] {
			best = i
		}
	}
	if best < 0 {
		return ""
	}
	return cands[best].word
}

// settle reports each correction as a word the found passages show: the
// index holds words by their stem, so the candidate that was searched
// ("firmwar", one slip from "firmwear") may be no word at all, or one form
// of several ("numerical", "numerically"). Of the passages' words with the
// correction's stem, the one nearest the typed word (then the commonest)
// is reported; when no passage shows one, the candidate stays.
func settle(cs []Correction, terms []Term, ps map[int64]*Passage) {
	for i := range cs {
		want := stem(cs[i].To)
		count := map[string]int{}
		for _, p := range ps {
			for _, w := range Tokens(p.Text) {
				if w[0] == want[0] && stem(w) == want {
					count[w]++
				}
			}
		}
		best, bestD := "", 0
		for w, n := range count {
			d := editDistance(cs[i].From, w)
			if best == "" || d < bestD || d == bestD && (n > count[best] || n == count[best] && w < best) {
				best, bestD = w, d
			}
		}
		if best != "" {
			cs[i].To = best
			terms[cs[i].term].Tokens = []string{best} // the same stem: it matches as before
		}
	}
}

// editDistance is the Levenshtein distance of a and b (bytes).
func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

// edit is a candidate correction and how likely a slip gives the typed
// word from it: lower kinds first.
type edit struct {
	word string
	kind int
}

// The kinds of slip, likeliest first.
const (
	slipSwapped = iota // two neighbouring letters swapped: "recieve"
	slipDropped        // a letter left out: "recursivly"
	slipDoubled        // a letter typed twice or a neighbouring key struck too: "copyy", "sortr"
	slipNextKey        // the key next to the right one: "sprt"
	slipAny            // any other stray letter (long words only)
)

// edits are the words one slip away from w, each with its kind. The first
// letter is kept (only swapped with the second): people seldom mistype
// it, and a word of another language one letter longer or shorter at the
// front is too often one of the documents' ("revolution", "evolution").
func edits(w string) []edit {
	seen := map[string]bool{w: true}
	var out []edit
	add := func(s string, kind int) {
		if !seen[s] {
			seen[s] = true
			out = append(out, edit{s, kind})
		}
	}
	long := len(w) >= anyEditFrom
	for i := 0; i+1 < len(w); i++ {
		add(w[:i]+string(w[i+1])+string(w[i])+w[i+2:], slipSwapped)
	}
	for i := 1; i <= len(w); i++ {
		for c := byte('a'); c <= 'z'; c++ {
			add(w[:i]+string(c)+w[i:], slipDropped)
		}
	}
	for i := 1; i < len(w); i++ {
		kind := slipAny
		if i > 0 && (w[i-1] == w[i] || adjacentKeys(w[i-1], w[i])) || i+1 < len(w) && (w[i+1] == w[i] || adjacentKeys(w[i+1], w[i])) {
			kind = slipDoubled
		}
		if kind == slipDoubled || long {
			add(w[:i]+w[i+1:], kind)
		}
	}
	for i := 1; i < len(w); i++ {
		for c := byte('a'); c <= 'z'; c++ {
			if c == w[i] {
				continue
			}
			// Only a neighbouring key: any letter for any other makes
			// another word too often ("revolution", "resolution").
			if adjacentKeys(c, w[i]) {
				add(w[:i]+string(c)+w[i+1:], slipNextKey)
			}
		}
	}
	return out
}

// keyRows are a QWERTY keyboard's letter rows; keys are neighbours when
// they touch in a row or in the rows above and below (offset by half a
// key).
var keyRows = [3]string{"qwertyuiop", "asdfghjkl", "zxcvbnm"}

func adjacentKeys(a, b byte) bool {
	ra, ca := keyPos(a)
	rb, cb := keyPos(b)
	if ra < 0 || rb < 0 || a == b {
		return false
	}
	switch ra - rb {
	case 0:
		return ca-cb == 1 || cb-ca == 1
	case 1: // a is on the row below b: its key sits under b's and b's right neighbour
		return ca == cb || ca == cb-1
	case -1:
		return cb == ca || cb == ca-1
	}
	return false
}

func keyPos(c byte) (row, col int) {
	for r, keys := range keyRows {
		if i := strings.IndexByte(keys, c); i >= 0 {
			return r, i
		}
	}
	return -1, -1
}

// Corrected is query with each correction made, as it was searched: the
// typed word replaced wherever it stands as a word, in any case.
func Corrected(query string, cs []Correction) string {
	for _, c := range cs {
		re := regexp.MustCompile(`(?i)\b` + regexp.QuoteMeta(c.From) + `\b`)
		query = re.ReplaceAllLiteralString(query, c.To)
	}
	return query
}

// CorrectionNote says what a person typed that was searched otherwise:
// "you typed recursivly", "" for no corrections.
func CorrectionNote(cs []Correction) string {
	if len(cs) == 0 {
		return ""
	}
	from := make([]string, len(cs))
	for i, c := range cs {
		from[i] = c.From
	}
	return "you typed " + strings.Join(from, ", ")
}

// SearchedFor is the line that tells a person what was searched when it is
// not what they typed: "Searched for: copy files recursively (you typed
// recursivly)".
func SearchedFor(searched string, cs []Correction) string {
	if note := CorrectionNote(cs); note != "" {
		return "Searched for: " + searched + " (" + note + ")"
	}
	return "Searched for: " + searched
}

package answer

import (
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

// IsFollowUp reports whether question, asked after another, reads as a
// follow-up to it by simple rules: it opens with "and", "what about" and
// the like; it refers back with a pronoun (it, them, "…that?"); or it is a
// word or two, alone or after a preposition ("tar?", "for tar?"). A
// question that names its own subject in full is left alone.
func IsFollowUp(question string) bool {
	words := search.Tokens(question)
	if len(words) == 0 {
		return false
	}
	lead := strings.Join(words, " ") + " "
	for _, l := range followLeads {
		if strings.HasPrefix(lead, l) {
			return true
		}
	}
	if refersBack(words) {
		return true
	}
	return len(words) == 1 || len(words) <= 3 && followPrepositions[words[0]]
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

// keyTerms are the words of s a search is about, in order, without
// stopwords, the verbs of asking and the follow-up's own lead words.
func keyTerms(s string) []string {
	var out []string
	for _, t := range search.Tokens(s) {
		if search.IsStopword(t) || askVerbs[t] || filler[t] || len(t) == 1 && !isDigits(t) {
			continue
		}
		out = append(out, t)
	}
	return out
}

// Standalone turns a follow-up into a question that stands alone, without
// a model, by carrying the key terms of what was searched before: "and for
// tar?" after "How do I make grep ignore case?" searches "tar ignore case".
// The follow-up's own terms come first. When it names something new and
// refers to nothing with a pronoun, the new term takes the place of the
// previous subject: the previous term that, like it, holds a digit (a
// model, "X300" for "X200"), else the first one.
func Standalone(prev Turn, question string) string {
	carried := keyTerms(prev.searched())
	own := keyTerms(question)
	if len(own) == 0 {
		return strings.Join(carried, " ")
	}
	if !refersBack(search.Tokens(question)) && len(carried) > 0 {
		drop := 0
		if hasDigit(own[0]) {
			for i, t := range carried {
				if hasDigit(t) {
					drop = i
					break
				}
			}
		}
		carried = append(carried[:drop:drop], carried[drop+1:]...)
	}
	seen := map[string]bool{}
	var out []string
	for _, t := range append(own, carried...) {
		if !seen[t] {
			seen[t] = true
			out = append(out, t)
		}
	}
	return strings.Join(out, " ")
}

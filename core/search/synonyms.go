package search

import (
	"slices"
	"strings"

	"cairn/core/lexicon"
)

// synonyms maps a word people use in questions to the words documentation
// uses for the same thing ("folder" for "directory", "ask" for "prompt").
// Without an embedding model, keyword search is all Cairn has, and a
// question phrased in everyday words otherwise misses the line that
// answers it, or is refused because its main word occurs nowhere.
//
// A synonym counts as the word itself wherever a question's terms are
// matched: a passage's coverage and relevance, its highlights, and the
// block an extractive answer quotes. It does not widen what the keyword
// search fetches: OR-ing the synonyms into the query lowered the quality
// suite's file MRR@10 from 0.624 to 0.607 and answered no more questions. The list is small on purpose, kept to pairs that mean
// the same in software, system and office documents; a word's own
// spelling variants are the stemmer's business, not this list's.
var synonyms = map[string][]string{
	"folder":     {"directory"},
	"folders":    {"directories"},
	"subfolder":  {"subdirectory"},
	"subfolders": {"subdirectories"},
	"delete":     {"remove", "removal", "erase", "unlink"},
	"erase":      {"delete", "remove"},
	"remove":     {"delete"},
	"ask":        {"prompt", "confirm"},
	"confirm":    {"prompt"},
	"replace":    {"overwrite", "clobber", "force"},
	"overwrite":  {"replace", "clobber"},
	"add":        {"append", "insert"},
	"append":     {"add"},
	"show":       {"display", "print"},
	"display":    {"show", "print"},
	"stop":       {"kill", "terminate", "abort"},
	"terminate":  {"kill", "stop"},
	"launch":     {"start", "run"},
	"execute":    {"run"},
	"modify":     {"change", "edit"},
	"change":     {"modify"},
	"locate":     {"find", "search"},
	"resume":     {"continue"},
	"download":   {"fetch", "retrieve"},
	"undo":       {"revert", "reset"},
	"rename":     {"move"},
	"random":     {"shuffle", "permutation"},
	"shuffle":    {"random", "permutation"},
	"numbered":   {"numeric"},
	"letters":    {"alphabetic"},
	"timestamp":  {"time"},
	"timestamps": {"times"},
	"symlink":    {"symbolic link"},
	"symlinks":   {"symbolic links"},
	"uppercase":  {"upper case"},
	"lowercase":  {"lower case"},
	"whitespace": {"white space"},
	"password":   {"passphrase"},
	"quiet":      {"silent"},
	"machine":    {"host", "computer"},
	"computer":   {"host", "machine"},
	"picture":    {"image"},
	"photo":      {"image"},
	"email":      {"mail"},
	"newest":     {"latest"},
	"latest":     {"newest"},
	"duplicate":  {"repeated"},
	"duplicates": {"repeated"},
	"whole":      {"entire"},
	"entire":     {"whole"},
	"empty":      {"blank"},
	"blank":      {"empty"},
	"merge":      {"join", "combine"},
	"combine":    {"merge", "join"},
	"hide":       {"hidden"},
	"ignore":     {"insensitive"},
	"delimiter":  {"separator"},
	"delimiters": {"separators"},
	"separator":  {"delimiter"},
	"separators": {"delimiters"},
	"verify":     {"check"},
	"null":       {"nul"},
	"deep":       {"depth"},
	"argument":   {"arg"},
	"arguments":  {"args"},
	"maximum":    {"max"},
	"minimum":    {"min"},
}

// synonymsByStem is synonyms keyed by the stem of each word, so that
// "deletes" and "deleting" find the synonyms of "delete".
var synonymsByStem = func() map[string][]string {
	m := map[string][]string{}
	for w, alts := range synonyms {
		m[stem(w)] = append(m[stem(w)], alts...)
	}
	return m
}()

// alternatives is the synonyms of a one-word term, as token lists.
func alternatives(tokens []string) [][]string {
	if len(tokens) != 1 {
		return nil
	}
	alts, ok := synonyms[tokens[0]]
	if !ok {
		alts = synonymsByStem[stem(tokens[0])]
	}
	var out [][]string
	for _, s := range alts {
		out = append(out, strings.Fields(s))
	}
	if v := spellingVariant(tokens[0]); v != "" {
		out = append(out, []string{v})
	}
	return out
}

// expandWith names the lexical database a term's Expansions come from:
// "wordnet" (core/lexicon) or "" for none. A variable, so that one build of
// each (go build -ldflags "-X cairn/core/search.expandWith=wordnet")
// measures the quality sets both ways in one session. Off: at 36K chunks
// the expansions answered an off-topic question more (docs/bench/quality.md,
// "Words that mean the same").
var expandWith = ""

// expansionShare is how much of a term's weight a passage that holds only
// one of its Expansions counts: WordNet's synonyms are of general English,
// and a question's own words (and the hand-written list's) say more.
// Measured with the switch on (docs/bench/quality.md, "Words that mean the
// same"): 0.25 answered one more question than 0.5 on the quality sets and
// answered one off-topic question at 36K chunks where 0.5 answered two.
const expansionShare = 0.25

// expansions is the WordNet synonyms of a one-word term (core/lexicon: of
// its most frequent senses, one-word, not far more general) but those the
// term already matches (its stem, the hand-written list) and stopwords.
// They never widen the keyword search, nor does a document frequency of
// theirs weigh the term: a question's word that no passage holds is still
// a sign that it asks about something else.
func expansions(tokens []string) [][]string {
	if expandWith != "wordnet" {
		return nil
	}
	return lexiconExpansions(tokens)
}

// Expanded is terms with the Expansions expansions would give them were
// the switch on. The answer's choice of a line among passages already
// retrieved reads them (a passage's "decompress" for the question's
// "uncompress"), where retrieval and the refusals, which decide whether
// the documents speak of the question at all, do not.
func Expanded(terms []Term) []Term {
	out := slices.Clone(terms)
	for i, t := range out {
		if t.Literal == "" && t.Expansions == nil {
			out[i].Expansions = lexiconExpansions(t.Tokens)
		}
	}
	return out
}

// lexiconExpansions is expansions without the switch.
func lexiconExpansions(tokens []string) [][]string {
	if len(tokens) != 1 {
		return nil
	}
	own := map[string]bool{stem(tokens[0]): true}
	for _, a := range alternatives(tokens) {
		own[stem(strings.Join(a, " "))] = true
	}
	var out [][]string
	for _, s := range lexicon.Synonyms(tokens[0]) {
		if st := stem(s.Word); !own[st] && !stopwords[s.Word] {
			own[st] = true
			out = append(out, []string{s.Word})
		}
	}
	return out
}

// spellingVariant is the other side's spelling of a British or American
// word ("capitalised" and "capitalized", "colour" and "color", "analyse"
// and "analyze"), or "": a question written in one spelling asks about
// documents written in the other, and a word no document holds weighs as
// evidence that the question is about something else. A variant that is
// no word ("precize") matches nothing and does no harm.
func spellingVariant(w string) string {
	for _, p := range spellingPairs {
		for _, from := range []int{0, 1} {
			a, b := p[from], p[1-from]
			for _, end := range spellingEnds {
				if stem, ok := strings.CutSuffix(w, a+end); ok && len(stem) >= 3 {
					return stem + b + end
				}
			}
		}
	}
	if base, ok := strings.CutSuffix(w, "our"); ok && ourWords[base] {
		return base + "or"
	}
	for base := range ourWords {
		if rest, ok := strings.CutPrefix(w, base+"our"); ok && (rest == "" || rest == "s" || rest == "ed" || rest == "ing") {
			return base + "or" + rest
		}
		if rest, ok := strings.CutPrefix(w, base+"or"); ok && (rest == "" || rest == "s" || rest == "ed" || rest == "ing") {
			return base + "our" + rest
		}
	}
	return ""
}

// spellingPairs are British and American suffixes, each followed by one
// of spellingEnds.
var spellingPairs = [][2]string{{"isation", "ization"}, {"ise", "ize"}, {"is", "iz"}, {"yse", "yze"}, {"ys", "yz"}}

var spellingEnds = []string{"", "s", "d", "r", "rs", "ing", "ed", "es", "er", "ers"}

// ourWords are the stems of the common -our/-or words ("colour").
var ourWords = map[string]bool{"col": true, "behavi": true, "fav": true, "hon": true, "lab": true, "neighb": true,
	"flav": true, "hum": true, "rum": true, "vap": true, "arm": true, "harb": true, "od": true, "sav": true, "vig": true}

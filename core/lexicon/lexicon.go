// Package lexicon says which English words mean the same, from the WordNet
// 3.0 lexical database (Princeton University; LICENSE.WordNet), with
// restraint: a question's "start" may be a document's "begin", but its
// "show" is not a document's "present".
//
// The data (wordnet.txt.gz, 45 KB, generated from Debian's wordnet-base by
// `make lexicon`, that is `go run ./core/lexicon/gen`) holds only what
// these rules keep:
//
//   - one-word lemmas and one-word synonyms: "take away" is no single word
//     a passage can be matched on, and WordNet's many phrasal lemmas would
//     triple the file;
//   - a word's first two senses in a part of speech (WordNet orders them by
//     how often they were tagged in its corpus, SemCor), each only if it
//     carries at least a fifth of the word's tagged uses in every part of
//     speech: a sense WordNet never saw used ("delete" as "cancel") is a
//     guess, not a synonym;
//   - a synonym only if that sense carries at least 30 % of its own tagged
//     uses: a word used mostly in other senses ("present", "take") is far
//     more general, or means something else, wherever a document uses it;
//   - and only if a document's word spelled so is mostly the synonym: not
//     an inflection of a more used lemma ("works", a plant, is mostly
//     "work"), nor an adverb that a stemmer reads as another word, where
//     WordNet does not derive it from that word ("partly" is "part";
//     "rapidly" does derive from "rapid").
//
// That leaves 4,488 words with synonyms. Words of software and office
// documents that WordNet lacks or only knows in another sense ("folder" is
// a brochure to it) are core/search's hand-written list's business.
package lexicon

import (
	"bufio"
	"bytes"
	"compress/gzip"
	_ "embed"
	"slices"
	"strconv"
	"strings"
	"sync"
)

// POS is a part of speech, by WordNet's letter.
type POS byte

// The parts of speech.
const (
	Noun      POS = 'n'
	Verb      POS = 'v'
	Adjective POS = 'a'
	Adverb    POS = 'r'
)

func (p POS) String() string {
	switch p {
	case Noun:
		return "noun"
	case Verb:
		return "verb"
	case Adjective:
		return "adjective"
	case Adverb:
		return "adverb"
	}
	return "?"
}

// Synonym is a word that means what the looked-up word means in one of
// its most frequent senses.
type Synonym struct {
	Word  string
	POS   POS
	Sense int // the looked-up word's sense they share: 1 is its most frequent in POS
}

//go:embed wordnet.txt.gz
var data []byte

// sense is one line of the data: a lemma's synonyms in one sense.
type sense struct {
	pos   POS
	n     int
	words []string
}

// form is an irregular form's lemma ("ran": verb "run").
type form struct {
	pos  POS
	base string
}

type table struct {
	senses map[string][]sense // by lemma, most used sense first
	forms  map[string][]form  // irregular forms
}

// load reads the embedded data once, on first use.
var load = sync.OnceValue(parse)

// parse reads the embedded data.
func parse() *table {
	t := &table{senses: map[string][]sense{}, forms: map[string][]form{}}
	zr, err := gzip.NewReader(bytes.NewReader(data))
	if err != nil {
		panic("lexicon: embedded data: " + err.Error()) // built into the binary: a bad file is a build error
	}
	sc := bufio.NewScanner(zr)
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		switch {
		case len(f) == 0 || strings.HasPrefix(f[0], "#"):
		case len(f) == 4 && f[1] == "=":
			t.forms[f[0]] = append(t.forms[f[0]], form{POS(f[2][0]), f[3]})
		case len(f) >= 4:
			n, err := strconv.Atoi(f[2])
			if err != nil {
				panic("lexicon: embedded data: " + sc.Text())
			}
			t.senses[f[0]] = append(t.senses[f[0]], sense{POS(f[1][0]), n, f[3:]})
		}
	}
	if err := sc.Err(); err != nil {
		panic("lexicon: embedded data: " + err.Error())
	}
	return t
}

// Synonyms is the synonyms of word (any case, inflected or not: "Stopped"
// is "stop" as a verb), most frequent sense first; nil when WordNet holds
// none by the package's rules.
func Synonyms(word string) []Synonym {
	word = strings.ToLower(word)
	t := load()
	var out []Synonym
	add := func(lemma string, pos POS) {
		for _, s := range t.senses[lemma] {
			if pos != 0 && s.pos != pos {
				continue
			}
			for _, w := range s.words {
				if w != word && !slices.ContainsFunc(out, func(o Synonym) bool { return o.Word == w }) {
					out = append(out, Synonym{Word: w, POS: s.pos, Sense: s.n})
				}
			}
		}
	}
	add(word, 0)
	for _, f := range t.forms[word] {
		add(f.base, f.pos)
	}
	for _, in := range Detach(word) {
		if t.has(in.Lemma, in.POS) {
			add(in.Lemma, in.POS)
		}
	}
	return out
}

// Inflection is a lemma a word may be an inflection of, in a part of
// speech.
type Inflection struct {
	POS   POS
	Lemma string
}

// Detach is what word may be a regular inflection of by WordNet's rules of
// detachment (morphy(7WN)), word or not: "errors" may be the noun or the
// verb "error", "stopped" the verb "stopp" or "stoppe" (WordNet lists
// "stop" among its exceptions instead).
func Detach(word string) []Inflection {
	var out []Inflection
	for _, r := range suffixes {
		if base, ok := strings.CutSuffix(word, r.suffix); ok && len(base) >= 2 {
			if base += r.ending; base != word {
				out = append(out, Inflection{r.pos, base})
			}
		}
	}
	return out
}

// has reports whether lemma has synonyms as pos.
func (t *table) has(lemma string, pos POS) bool {
	return slices.ContainsFunc(t.senses[lemma], func(s sense) bool { return s.pos == pos })
}

// suffixes are WordNet's rules of detachment (morphy(7WN)): a regular
// inflection's ending and what replaces it in the lemma.
var suffixes = []struct {
	pos            POS
	suffix, ending string
}{
	{Noun, "s", ""}, {Noun, "ses", "s"}, {Noun, "xes", "x"}, {Noun, "zes", "z"}, {Noun, "ches", "ch"},
	{Noun, "shes", "sh"}, {Noun, "men", "man"}, {Noun, "ies", "y"},
	{Verb, "s", ""}, {Verb, "ies", "y"}, {Verb, "es", "e"}, {Verb, "es", ""}, {Verb, "ed", "e"},
	{Verb, "ed", ""}, {Verb, "ing", "e"}, {Verb, "ing", ""},
	{Adjective, "er", ""}, {Adjective, "est", ""}, {Adjective, "er", "e"}, {Adjective, "est", "e"},
}

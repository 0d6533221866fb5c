package search

import (
	"regexp"
	"strings"
	"unicode"
	"unicode/utf8"

	"cairn/core/cjk"
)

// maxTerms bounds the OR query; longer questions keep their first terms.
const maxTerms = 32

// Term is one unit of a keyword query: a word, or a phrase of the tokens of a
// word that the tokenizer would split (part numbers such as "XK-200-B",
// versions, e-mail addresses), which must then appear together.
type Term struct {
	Tokens []string // lower-case letters and digits only
	// Alts are words that count as the term when passages are matched
	// against the question (synonyms.go); the keyword search itself looks
	// for Tokens only.
	Alts [][]string
	// Expansions are words of the same meaning from a lexical database
	// (core/lexicon; synonyms.go): a passage that holds one but not the
	// term holds it for expansionShare of its weight.
	Expansions [][]string
	// Literal is a technical token as typed: an option ("-a", "--all",
	// "-rf"), a mode ("u+x"), a redirection ("2>&1"), a path, a file name,
	// an identifier ("max_file_mb", "std::vector") or a version ("1.2.3")
	// (technical.go). The keyword search looks for its Tokens, but a
	// passage holds the term only where the literal stands as written:
	// "-p" is not "-P".
	Literal string
	// at is the place of the term's word among the question's words,
	// for the phrases of adjacent words (phrase.go).
	at int
}

// forms is the term and its alternatives.
func (t Term) forms() [][]string { return append([][]string{t.Tokens}, t.Alts...) }

// String is the term as a person would read it: its literal when it has
// one, so that "-a" and "-A" are two terms.
func (t Term) String() string {
	if t.Literal != "" {
		return t.Literal
	}
	return t.Words()
}

// Words is the term as the keyword index holds it: its tokens.
func (t Term) Words() string { return strings.Join(t.Tokens, " ") }

// ParseTerms splits user text into terms. Only letters and digits survive,
// exactly the characters SQLite's unicode61 tokenizer indexes, so quotes,
// operators (AND, OR, NOT, NEAR), "*", "^", ":" column filters and
// parentheses can never reach FTS5 syntax. English stopwords are dropped
// unless nothing else is left.
func ParseTerms(text string) []Term {
	var all, content []Term
	seen := map[string]bool{}
	for _, w := range wordTokens(text) {
		t := Term{Tokens: w.toks, Literal: w.literal, at: w.at}
		if t.Literal == "" {
			t.Alts, t.Expansions = alternatives(w.toks), expansions(w.toks)
		}
		key := t.String()
		if seen[key] {
			continue
		}
		seen[key] = true
		all = append(all, t)
		// A technical token is never a stopword: "-a" and "--all" are
		// the most specific words of "what does ls -a do".
		if len(t.Tokens) > 1 || t.Literal != "" || !stopwords[t.Tokens[0]] {
			content = append(content, t)
		}
	}
	if len(content) == 0 {
		content = all
	}
	if asksDefault.MatchString(text) && !seen["default"] {
		// "…when I don't specify one?" asks for the default, in the word
		// documentation uses for it.
		content = append(content, Term{Tokens: []string{"default"}})
	}
	if len(content) > maxTerms {
		content = content[:maxTerms]
	}
	return content
}

// maxCJKWord is the longest run of Chinese or Japanese characters taken
// as one word (a phrase of its bigrams: 远程主机 is 远程 程主 主机). A
// longer run is a sentence, written without spaces; each of its bigrams
// is then a term of its own, and BM25 ranks first the passages that hold
// most of them.
const maxCJKWord = 4

// qword is a word of a question: its tokens, its literal when it is a
// technical token, and its place among the question's words.
type qword struct {
	toks    []string
	literal string
	at      int
}

// wordTokens splits text at spaces into words and each word into its
// tokens (Tokens), with Chinese and Japanese runs cut out as words of
// their own, long ones into bigrams (maxCJKWord). A technical token
// (technical.go) is one word with its literal.
func wordTokens(text string) []qword {
	var out []qword
	at := 0
	add := func(seg string) {
		if toks := Tokens(seg); len(toks) > 0 {
			out = append(out, qword{toks: toks, at: at})
		}
	}
	for i, word := range strings.Fields(text) {
		at = i
		if lit := technical(word); lit != "" {
			if toks := Tokens(lit); len(toks) > 0 {
				out = append(out, qword{toks: toks, literal: lit, at: at})
				continue
			}
		}
		word = withoutClitic(word)
		start, inCJK, n := 0, false, 0
		flush := func(end int) {
			seg := word[start:end]
			if inCJK && n > maxCJKWord {
				for _, bg := range Tokens(seg) {
					add(bg)
				}
				return
			}
			add(seg)
		}
		for i, r := range word {
			if c := cjk.Is(r); c != inCJK {
				flush(i)
				start, inCJK, n = i, c, 0
			}
			n++
		}
		flush(len(word))
	}
	return out
}

// asksDefault matches a question about what happens when a person does not
// say: "if I don't tell it", "when I do not specify one", "without
// choosing", "out of the box".
var asksDefault = regexp.MustCompile(`(?i)\b(?:(?:don|doesn|didn)['’]?t|do not|does not|did not|without|never)\s+(?:\w+\s+){0,2}?` +
	`(?:specify|specifying|tell|telling|choose|choosing|give|giving|set|setting|pass|passing|say|provide|providing|supply|select|pick|mention|configure|change|changing)\b` +
	`|\bif (?:i|you|we) (?:leave out|omit|skip)\b|\bout of the box\b|\bunspecified\b`)

// withoutClitic drops an English clitic from a word: "author's" is
// "author", "isn't" is "is", "can't" is "can", "it's" is "it". The
// tokenizer would otherwise make a phrase of the two parts ("isn t"),
// which no stopword list holds and which weighs like a rare word.
func withoutClitic(w string) string {
	i := strings.IndexAny(w, "'’ʼ")
	if i <= 0 {
		return w
	}
	_, size := utf8.DecodeRuneInString(w[i:])
	tail := w[i+size:]
	j := 0
	for j < len(tail) && unicode.IsLetter(rune(tail[j])) && tail[j] < utf8.RuneSelf {
		j++
	}
	head, rest := w[:i], tail[j:]
	switch strings.ToLower(tail[:j]) {
	case "s", "re", "ve", "ll", "d", "m":
	case "t":
		lower := strings.ToLower(head)
		switch {
		case lower == "can" || lower == "ca":
			head = "can"
		case lower == "won":
			head = "will"
		case lower == "shan":
			head = "shall"
		case strings.HasSuffix(lower, "n"):
			head = head[:len(head)-1]
		default:
			return w
		}
	default:
		return w // "o'clock", "rock'n'roll"
	}
	return head + rest
}

// Tokens returns the lower-cased runs of letters and digits in s, the
// words SQLite's unicode61 tokenizer indexes; runs of Chinese or Japanese
// characters come out as their overlapping bigrams, as the index holds
// them (core/cjk).
func Tokens(s string) []string {
	return strings.FieldsFunc(strings.ToLower(cjk.Bigrams(s)), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r) && !unicode.Is(unicode.Mn, r)
	})
}

// MatchQuery builds the FTS5 MATCH expression for terms: each term a quoted
// phrase, joined by OR so that partial matches still rank (BM25 rewards
// chunks with more and rarer terms). It returns "" for no terms.
func MatchQuery(terms []Term) string {
	parts := make([]string, 0, len(terms))
	seen := map[string]bool{}
	for _, t := range terms {
		// Tokens hold only letters and digits, so the quotes cannot be
		// broken. "-a" and "-A" are one phrase to the index.
		if w := t.Words(); !seen[w] {
			seen[w] = true
			parts = append(parts, `"`+w+`"`)
		}
	}
	return strings.Join(parts, " OR ")
}

// RareFirst narrows a query's matches to chunks containing at least one of
// its rarer terms, without changing any returned chunk's BM25 score. FTS5
// scores every matching row (about 2 µs each in WASM SQLite), and an OR of
// everyday words matches a third of a large collection; a chunk holding only
// frequent terms almost never makes the top of the ranking anyway.
//
// The expression is "ALL NOT (ALL NOT RARE)": rows with no rare term are
// excluded, and since FTS5 reports no phrase hits from the excluded branch,
// bm25() of the remaining rows is that of the plain OR (verified on the
// man-page corpus: identical scores, MRR@10 unchanged, 10x fewer rows).
// The inner branch starts from ALL rather than from the common terms:
// when it starts with no row at all (a common phrase whose words are
// frequent but never adjacent), SQLite 3.47's FTS5 leaves the rare
// phrases' hits of the first row in place and bm25() counts them twice
// (found by FuzzRareFirst).
// common[i] marks the frequent terms; with none, or all, it is MatchQuery.
func RareFirst(terms []Term, common []bool) string {
	var rare []Term
	for i, t := range terms {
		if !common[i] {
			rare = append(rare, t)
		}
	}
	all := MatchQuery(terms)
	if len(rare) == 0 || len(rare) == len(terms) {
		return all
	}
	return "(" + all + ") NOT ((" + all + ") NOT (" + MatchQuery(rare) + "))"
}

// IsStopword reports whether the lower-case word w carries no topic.
func IsStopword(w string) bool { return stopwords[w] }

// stopwords are frequent English words that carry no topic. They are
// dropped from keyword queries, where OR-ing them would match nearly every
// chunk; the vector search still sees the whole question.
var stopwords = map[string]bool{}

func init() {
	for _, w := range strings.Fields(`a about above after again against all am an and any are as at be because been
		before being below between both but by can could did do does doing down during each few for from further
		had has have having he her here hers herself him himself his how i if in into is it its itself just me
		more most my myself no nor not now of off on once only or other our ours ourselves out over own same she
		should so some such than that the their theirs them themselves then there these they this those through
		to too under until up very was we were what when where which while who whom why will with would you your
		yours yourself yourselves vs versus`) {
		stopwords[w] = true
	}
}

// SplitList reads a comma-separated list as flags and query parameters
// give one ("pdf, md"), without blanks.
func SplitList(s string) []string {
	var out []string
	for _, p := range strings.Split(s, ",") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}

// UnitName is what a page number counts in a document of unit kind unit
// (a slide, a sheet): "page" when the format says nothing.
func UnitName(unit string) string {
	if unit == "" {
		return "page"
	}
	return unit
}

package search

import (
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/runes"
	"golang.org/x/text/transform"
	"golang.org/x/text/unicode/norm"

	"cairn/core/cjk"
	"cairn/core/porter"
)

// Span is a byte range [Start, End) of a string.
type Span struct {
	Start int `json:"start"`
	End   int `json:"end"`
}

// snippetLen is the target length of a snippet in bytes.
const snippetLen = 280

// Snippet picks the part of text with the most query-term matches, about
// snippetLen bytes long, and returns it with the byte spans of the matches
// inside it, plus the distinct terms that matched anywhere in text.
func Snippet(text string, terms []Term) (snippet string, highlights []Span, matched []string) {
	words, at := termWords(text, terms)
	return snippetOf(text, terms, words, at)
}

// snippetOf is Snippet from the words termWords found.
func snippetOf(text string, terms []Term, words []Span, at [][]occurrence) (snippet string, highlights []Span, matched []string) {
	spans, matched := spansOf(terms, words, at)
	start, end := window(text, spans)
	snippet = text[start:end]
	prefix, suffix := "", ""
	if start > 0 {
		prefix = "…"
	}
	if end < len(text) {
		suffix = "…"
	}
	for _, s := range spans {
		if s.Start >= start && s.End <= end {
			highlights = append(highlights, Span{s.Start - start + len(prefix), s.End - start + len(prefix)})
		}
	}
	snippet, highlights = collapseSpaces(prefix+flattenLines(snippet)+suffix, highlights)
	return snippet, highlights, matched
}

// collapseSpaces makes each run of spaces in s one space (none at the
// start), moving the spans
// with their words: a snippet is one flowing line, where a man page's
// indentation or a Markdown heading's blanked marks would show as gaps.
func collapseSpaces(s string, spans []Span) (string, []Span) {
	if !strings.Contains(s, "  ") && !strings.HasPrefix(s, " ") {
		return s, spans
	}
	at := make([]int, len(s)+1) // at[i]: where byte i of s lands
	var b strings.Builder
	b.Grow(len(s))
	for i := 0; i < len(s); i++ {
		at[i] = b.Len()
		if s[i] == ' ' && (i == 0 || s[i-1] == ' ') {
			continue
		}
		b.WriteByte(s[i])
	}
	at[len(s)] = b.Len()
	out := make([]Span, len(spans))
	for i, sp := range spans {
		out[i] = Span{at[sp.Start], at[sp.End]}
	}
	return b.String(), out
}

// flattenLines turns line breaks and tabs into spaces, one byte for one byte
// so highlight offsets stay valid.
func flattenLines(s string) string {
	return strings.Map(func(r rune) rune {
		if r == '\n' || r == '\t' || r == '\r' {
			return ' '
		}
		return r
	}, s)
}

// window returns the byte range of the snippetLen-long part of text holding
// the most spans, widened to word boundaries.
func window(text string, spans []Span) (int, int) {
	if len(text) <= snippetLen {
		return 0, len(text)
	}
	best, bestCount := 0, -1
	j := 0
	for i := range spans {
		for j < len(spans) && spans[j].End <= spans[i].Start+snippetLen {
			j++
		}
		if j-i > bestCount {
			best, bestCount = i, j-i
		}
	}
	start := 0
	if bestCount > 0 {
		// Centre the matches: start a little before the first one.
		start = max(0, spans[best].Start-snippetLen/5)
	}
	end := min(len(text), start+snippetLen)
	if end == len(text) {
		start = max(0, end-snippetLen)
	}
	// Widen to word boundaries without splitting runes.
	for start > 0 && !isBoundary(text, start) {
		start--
	}
	for end < len(text) && !isBoundary(text, end) {
		end++
	}
	return start, end
}

func isBoundary(text string, i int) bool {
	if !utf8.RuneStart(text[i]) {
		return false
	}
	r, _ := utf8.DecodeRuneInString(text[i:])
	return unicode.IsSpace(r)
}

// spansOf turns termWords' occurrences into byte spans and the terms found.
func spansOf(terms []Term, words []Span, at [][]occurrence) ([]Span, []string) {
	var spans []Span
	var matched []string
	for ti, t := range terms {
		for _, o := range at[ti] {
			spans = append(spans, Span{words[o.word].Start, words[o.word+o.n-1].End})
		}
		if len(at[ti]) > 0 {
			matched = append(matched, t.String())
		}
	}
	sortSpans(spans)
	return mergeOverlaps(spans), matched
}

// mergeOverlaps joins sorted spans that overlap: the bigrams of a Chinese
// or Japanese word found term by term mark the word once.
func mergeOverlaps(s []Span) []Span {
	out := s[:0]
	for _, sp := range s {
		if n := len(out); n > 0 && sp.Start < out[n-1].End {
			out[n-1].End = max(out[n-1].End, sp.End)
			continue
		}
		out = append(out, sp)
	}
	return out
}

// occurrence is where a term occurs: the index of its first word and how
// many words it spans (a synonym may be longer or shorter than the term),
// and whether it is one of the term's Expansions (weak).
type occurrence struct {
	word, n int
	weak    bool
}

// termWords splits text into words and returns them with, for each term,
// where it, one of its synonyms or one of its expansions occurs (a word
// starts one term at most), matched after folding case and diacritics and
// stemming as FTS5's porter tokenizer does.
func termWords(text string, terms []Term) ([]Span, [][]occurrence) {
	// Stemming every word of every candidate passage was a third of a
	// search's time. A stem only changes a word's ending, so its first two
	// letters are the word's: a word whose first letters begin no query
	// stem is never stemmed.
	var prefixes [][2]byte // few: a linear scan beats a map's hashing here
	for _, t := range terms {
		if t.Literal != "" {
			continue // found as written, never stemmed
		}
		for _, form := range append(t.forms(), t.Expansions...) {
			for _, tok := range form {
				st := stem(tok)
				for _, w := range append([]string{st}, irregularForms[st]...) {
					if k := prefixKey(w, min(2, len(w))); !slices.Contains(prefixes, k) {
						prefixes = append(prefixes, k)
					}
				}
			}
		}
	}
	words := make([]Span, 0, len(text)/6)
	stems := make([]string, 0, len(text)/6) // "" for a word no term can match
	add := func(start, end int) {
		raw := text[start:end]
		st := ""
		if !isASCII(raw) || slices.Contains(prefixes, prefixKey(raw, 2)) || slices.Contains(prefixes, prefixKey(raw, 1)) {
			st = stem(raw)
		}
		words = append(words, Span{start, end})
		stems = append(stems, st)
	}
	inWord, ws := false, 0
	var run []int // start offsets of a run of CJK characters
	seg := 0      // characters at the run's end with no space between them
	endRun := func() {
		// The run's words are its overlapping bigrams, as the index holds
		// them (cjk.Bigrams), so a phrase of bigrams matches consecutive
		// words. They have no case, diacritics or stems. A run may hold
		// lone characters set apart by spaces (groff's "设 定"): a bigram
		// is its two characters, and its span covers the space between.
		if len(run) == 1 {
			c := cjkChar(text, run[0])
			words = append(words, Span{run[0], run[0] + len(c)})
			stems = append(stems, c)
		}
		for j := 0; j+1 < len(run); j++ {
			a, b := cjkChar(text, run[j]), cjkChar(text, run[j+1])
			words = append(words, Span{run[j], run[j+1] + len(b)})
			stems = append(stems, a+b)
		}
		run, seg = run[:0], 0
	}
	for i := 0; i < len(text); {
		c := text[i]
		var tok, han bool
		size := 1
		if c < utf8.RuneSelf {
			tok = 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9'
		} else {
			var r rune
			r, size = utf8.DecodeRuneInString(text[i:])
			han = cjk.Is(r)
			tok = !han && (unicode.IsLetter(r) || unicode.IsDigit(r))
		}
		if !han && len(run) > 0 {
			if n := cjk.SpacedSingle(text[i:]); seg == 1 && n > 0 {
				i += n // the run goes on past the spaces, as in the index
				seg = 0
				continue
			}
			endRun()
		}
		switch {
		case tok && !inWord:
			inWord, ws = true, i
		case !tok && inWord:
			inWord = false
			add(ws, i)
		}
		if han {
			run = append(run, i)
			seg++
		}
		i += size
	}
	if inWord {
		add(ws, len(text))
	}
	if len(run) > 0 {
		endRun()
	}
	at := make([][]occurrence, len(terms))
	hit := map[int]bool{}
	// Every term's own forms claim their words before any term's
	// expansions do: "begin" in "start or begin" is the second term's.
	for _, weak := range []bool{false, true} {
		for ti, t := range terms {
			if t.Literal != "" {
				if weak {
					continue
				}
				for _, o := range literalOccurrences(text, t.Literal, words) {
					if !hit[o.word] {
						hit[o.word] = true
						at[ti] = append(at[ti], o)
					}
				}
				continue
			}
			forms := t.forms()
			if weak {
				forms = t.Expansions
			}
			for _, form := range forms {
				want := make([]string, len(form))
				for i, tok := range form {
					want[i] = stem(tok)
				}
				for i := 0; i+len(want) <= len(words); i++ {
					ok := true
					for k, s := range want {
						if stems[i+k] != s {
							ok = false
							break
						}
					}
					if ok && !hit[i] {
						hit[i] = true
						at[ti] = append(at[ti], occurrence{i, len(want), weak})
					}
				}
			}
		}
	}
	for ti := range at {
		slices.SortFunc(at[ti], func(a, b occurrence) int { return a.word - b.word })
	}
	return words, at
}

// cjkChar is the character at text[i].
func cjkChar(text string, i int) string {
	_, size := utf8.DecodeRuneInString(text[i:])
	return text[i : i+size]
}

// share is how much of its term's weight a text with the term's
// occurrences os holds: all of it when the term or one of its Alts is
// there, expansionShare when only an expansion is, nothing otherwise.
func share(os []occurrence) float64 {
	s := 0.0
	for _, o := range os {
		if !o.weak {
			return 1
		}
		s = expansionShare
	}
	return s
}

func sortSpans(s []Span) {
	for i := 1; i < len(s); i++ {
		for j := i; j > 0 && s[j].Start < s[j-1].Start; j-- {
			s[j], s[j-1] = s[j-1], s[j]
		}
	}
}

// foldDiacritics returns a transformer that drops diacritics. A chain
// keeps state between calls, so each call gets its own: concurrent
// searches stem words at the same time.
func foldDiacritics() transform.Transformer {
	return transform.Chain(norm.NFD, runes.Remove(runes.In(unicode.Mn)), norm.NFC)
}

// stem folds a word for matching as the index's tokenizer does: lower
// case, no diacritics, then the Porter stemmer of FTS5's "porter"
// tokenizer, so a highlighted word is one the keyword search matched
// ("ignoring" and "ignores" both give "ignor").
func stem(w string) string {
	if r, _ := utf8.DecodeRuneInString(w); cjk.Is(r) {
		return w // a bigram (termWords keeps the text's as they are; NFD would split プ)
	}
	w = strings.ToLower(w)
	if !isASCII(w) {
		if f, _, err := transform.String(foldDiacritics(), w); err == nil {
			w = f
		}
	}
	if base, ok := irregular[w]; ok {
		w = base
	}
	return adverbless(porter.Stem(w))
}

// adverbless takes off the "-li" that FTS5's Porter stemmer leaves on an
// adverb after c, d, e, g, h, k, m, n, r or t ("quietly" stems to
// "quietli", "exactly" to "exactli"), as Porter2 does, so that "download
// quietly" holds wget's "--quiet". Four letters must stay ("early",
// "only", "ugly" keep theirs). Like irregular, it counts where passages
// are matched, not in what the keyword search fetches.
func adverbless(s string) string {
	if base, ok := strings.CutSuffix(s, "li"); ok && len(base) >= 4 && strings.IndexByte("cdeghkmnrt", base[len(base)-1]) >= 0 {
		return base
	}
	return s
}

// prefixKey is the first n (1 or 2) bytes of w, ASCII letters lower-cased;
// the zero key when w is shorter.
func prefixKey(w string, n int) [2]byte {
	var k [2]byte
	if len(w) < n {
		return k
	}
	for i := 0; i < n; i++ {
		c := w[i]
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		k[i] = c
	}
	return k
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

package search

import (
	"regexp"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Technical tokens are the words of a question that a person types exactly
// and means exactly: options, modes, redirections, paths, file names,
// identifiers and versions. The keyword index (unicode61) keeps only their
// letters and digits, in lower case, so "-a" is the word "a" and "-p" is
// "-P"; a Term keeps the token as its Literal, and a passage holds the term
// only where the literal stands as written (literalAt).
var (
	// An option: "-a", "-rf", "-P", "--all", "--color=auto", "-1".
	optionRE = regexp.MustCompile(`^--?[A-Za-z0-9][A-Za-z0-9_-]*(=\S*)?$`)
	// A chmod mode: "u+x", "+x", "go-w", "a=r".
	modeRE = regexp.MustCompile(`^[ugoa]*[+=-][rwxXst]+$`)
	// A redirection or shell operator with a word in it: "2>&1", ">/dev/null".
	shellRE = regexp.MustCompile(`[<>&|]`)
	// A dotted name: "file.txt", ".bashrc", "os.path.join", "1.2.3".
	dottedRE = regexp.MustCompile(`^\.?[A-Za-z0-9_-]+(\.[A-Za-z0-9_-]+)*$`)
	// An identifier: "max_file_mb", "std::vector", "__init__".
	identRE = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*((::|_)[A-Za-z0-9_]*)+$`)
)

// technical returns word as a technical token, without the punctuation a
// sentence puts around it ("-a?", "(u+x)", "`2>&1`"), or "" when it is an
// ordinary word.
func technical(word string) string {
	w := strings.TrimRight(word, "?!,;:.)]}\"'`’”")
	w = strings.TrimLeft(w, "([{\"'`‘“")
	if w == "" || !strings.ContainsFunc(w, func(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) }) {
		return ""
	}
	switch {
	case optionRE.MatchString(w):
		if strings.HasPrefix(w, "--") || !strings.Contains(w[1:], "-") { // not "-well-known"
			return w
		}
	case modeRE.MatchString(w):
		return w
	case shellRE.MatchString(w):
		return w
	case strings.HasPrefix(w, "/") || strings.HasPrefix(w, "~/") || strings.HasPrefix(w, "./") || strings.HasPrefix(w, "../") ||
		strings.Count(w, "/") >= 2:
		return w
	case strings.Contains(w, ".") && dottedRE.MatchString(w):
		// "e.g" and "i.e" are abbreviations, not names.
		for _, part := range strings.Split(strings.TrimPrefix(w, "."), ".") {
			if len(part) > 1 || part >= "0" && part <= "9" {
				return w
			}
		}
	case identRE.MatchString(w):
		return w
	}
	return ""
}

// caseSensitive reports whether a literal is matched in its case: options
// and modes are ("-p" is not "-P"); a path, a file name or an identifier
// is found whatever case a person typed it in.
func caseSensitive(lit string) bool {
	return strings.HasPrefix(lit, "-") || modeRE.MatchString(lit)
}

// literalAt returns the byte offsets in text where lit stands as a token of
// its own: not inside a longer word or option ("-a" is not in "-ab", in
// "--all" or in "data-a"), in its case when caseSensitive.
func literalAt(text, lit string) []int {
	var out []int
	hay, needle := text, lit
	if !caseSensitive(lit) {
		hay, needle = strings.ToLower(text), strings.ToLower(lit)
		if len(hay) != len(text) {
			hay, needle = text, lit // lower-casing moved the offsets
		}
	}
	for from := 0; ; {
		i := strings.Index(hay[from:], needle)
		if i < 0 {
			return out
		}
		i += from
		end := i + len(needle)
		if literalEdge(hay, i, end, needle) {
			out = append(out, i)
		}
		from = i + 1
	}
}

// literalEdge reports whether hay[i:end] (the needle) is not part of a
// longer token: the characters around it are not letters, digits, or a
// dash or underscore that would continue it.
func literalEdge(hay string, i, end int, needle string) bool {
	if i > 0 {
		r, _ := utf8.DecodeLastRuneInString(hay[:i])
		if wordRune(r) || r == '-' {
			return false
		}
	}
	if end < len(hay) {
		r, _ := utf8.DecodeRuneInString(hay[end:])
		if wordRune(r) || r == '-' || r == '_' {
			return false
		}
		// "file.txt" ends before ".", but "os.path" is not "os.path.join".
		if r == '.' && end+1 < len(hay) && wordRune(rune(hay[end+1])) {
			return false
		}
	}
	return true
}

func wordRune(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) || r == '_' }

// literalOccurrences maps where a term's literal stands in text to the
// words termWords split text into: the first word it covers and how many.
func literalOccurrences(text, lit string, words []Span) []occurrence {
	var out []occurrence
	for _, at := range literalAt(text, lit) {
		end := at + len(lit)
		first, n := -1, 0
		for wi, w := range words {
			if w.End <= at {
				continue
			}
			if w.Start >= end {
				break
			}
			if first < 0 {
				first = wi
			}
			n++
		}
		if first >= 0 {
			out = append(out, occurrence{first, n, false})
		}
	}
	return out
}

// keywordTerms are the terms the keyword index is asked for: a literal whose
// tokens the index cannot tell apart from everyday words ("-a" is "a",
// "--all" is "all") would match nearly every passage, so it only counts
// when passages are matched against the question. When nothing else is
// left, the terms are asked for as they are.
func keywordTerms(terms []Term) []Term {
	var out []Term
	for _, t := range terms {
		if t.Literal != "" && len(t.Tokens) == 1 && (len(t.Tokens[0]) == 1 || stopwords[t.Tokens[0]]) {
			continue
		}
		out = append(out, t)
	}
	if len(out) == 0 {
		return terms
	}
	return out
}

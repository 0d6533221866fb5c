package collection

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// wordRune is a letter, digit or underscore: what grep -w takes a word to
// be made of, so that a count of whole words agrees with `grep -lwi`.
func wordRune(r rune) bool { return r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r) }

// termWords splits a term into its words ("e-mail" is e, mail).
func termWords(term string) []string {
	return strings.FieldsFunc(strings.ToLower(term), func(r rune) bool { return !wordRune(r) })
}

// HoldsWhole reports whether text holds term as whole words, in any case:
// the term's words in a row, apart only by characters that are not word
// characters (spaces, punctuation, a line break), with no word character
// right before or after. "locale" is not in "local" or "locales"; it is
// in "LOCALE" and "locale-gen". A term of no word characters is held
// wherever the full-text index found it.
func HoldsWhole(text, term string) bool {
	ws := termWords(term)
	if len(ws) == 0 {
		return true
	}
	lower := strings.ToLower(text)
	for from := 0; from < len(lower); {
		i := strings.Index(lower[from:], ws[0])
		if i < 0 {
			return false
		}
		start := from + i
		if wholeAt(lower, start, ws) {
			return true
		}
		_, n := utf8.DecodeRuneInString(lower[start:])
		from = start + n
	}
	return false
}

// wholeAt reports whether ws stand in s from byte start, as whole words.
func wholeAt(s string, start int, ws []string) bool {
	if r, _ := utf8.DecodeLastRuneInString(s[:start]); start > 0 && wordRune(r) {
		return false
	}
	at := start
	for k, w := range ws {
		if k > 0 {
			gap := at
			for gap < len(s) {
				r, n := utf8.DecodeRuneInString(s[gap:])
				if wordRune(r) {
					break
				}
				gap += n
			}
			if gap == at {
				return false
			}
			at = gap
		}
		if !strings.HasPrefix(s[at:], w) {
			return false
		}
		at += len(w)
	}
	r, _ := utf8.DecodeRuneInString(s[at:])
	return at == len(s) || !wordRune(r)
}

// Package cjk makes Chinese and Japanese text searchable by words.
//
// These languages write no spaces between words, and SQLite's unicode61
// tokenizer keeps a run of Han or kana characters as one token: the
// sentence 用于登录远程主机的程序 is a single "word", and a search for
// 远程主机 finds nothing. Without a dictionary to cut words, the index
// holds every pair of neighbouring characters instead (overlapping
// bigrams, as Lucene's CJKAnalyzer does): 用于 于登 登录 录远 远程 ...; a
// word of two or more characters is then the phrase of its bigrams, which
// matches wherever the word occurs.
//
// Both keyword paths see the same tokens: the store indexes Bigrams of
// each text in FTS5, and core/bm25's tokenizer expands the same runs.
package cjk

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// Is reports whether r is written without spaces between words: Han
// ideographs (Chinese, Japanese kanji), hiragana, katakana and the
// katakana prolonged sound mark. Hangul is not: Korean puts spaces
// between words.
func Is(r rune) bool {
	if r < 0x2E80 {
		return false
	}
	return unicode.Is(unicode.Han, r) || unicode.Is(unicode.Hiragana, r) || unicode.Is(unicode.Katakana, r) ||
		r == 0x30FC || r == 0xFF70 // ー and its half-width form, script Common
}

// Has reports whether s holds a character Is accepts.
func Has(s string) bool {
	for i := 0; i < len(s); {
		if s[i] < 0xE2 { // every rune from U+2E80 up starts with 0xE2 or more
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if Is(r) {
			return true
		}
		i += size
	}
	return false
}

// Bigrams rewrites every run of CJK characters in s as its overlapping
// bigrams separated by spaces (a run of one character stays itself), with
// a space on each side so the run never joins a neighbouring Latin word.
// Everything else is kept. s comes back unchanged when it has no CJK.
func Bigrams(s string) string {
	if !Has(s) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) * 2)
	var run []int // byte offsets of the run's characters
	flush := func() {
		if len(run) == 0 {
			return
		}
		b.WriteByte(' ')
		if len(run) == 1 {
			b.WriteString(char(s, run[0]))
		}
		for j := 0; j+1 < len(run); j++ {
			if j > 0 {
				b.WriteByte(' ')
			}
			b.WriteString(char(s, run[j]))
			b.WriteString(char(s, run[j+1]))
		}
		b.WriteByte(' ')
		run = run[:0]
	}
	seg, end := 0, 0 // characters in the run's last stretch without spaces; where it ends
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		if Is(r) {
			if i != end {
				seg = 0
			}
			seg++
			run = append(run, i)
			i += size
			end = i
			continue
		}
		if seg == 1 {
			// "守 护 进 程": groff sets Chinese man pages one character
			// at a time with spaces between; lone characters so spaced
			// are one run, so 进程 is found in them.
			if n := SpacedSingle(s[i:]); n > 0 {
				i += n
				continue
			}
		}
		flush()
		seg = 0
		b.WriteString(s[i : i+size])
		i += size
	}
	flush()
	return b.String()
}

// char is the character at s[i].
func char(s string, i int) string {
	_, size := utf8.DecodeRuneInString(s[i:])
	return s[i : i+size]
}

func startsCJK(s string) bool {
	r, _ := utf8.DecodeRuneInString(s)
	return Is(r)
}

// SpacedSingle returns how many bytes of spaces (one or two, ASCII or
// ideographic) start s when a lone CJK character follows them, one not
// followed by another: 0 otherwise. After a lone CJK character, such
// spaces do not end the run (Bigrams); whoever finds words in text as the
// index holds them (core/search's passages) skips them the same way.
func SpacedSingle(s string) int {
	n := 0
	for k := 0; k < 2 && n < len(s); k++ {
		switch {
		case s[n] == ' ':
			n++
		case strings.HasPrefix(s[n:], "\u3000"):
			n += len("\u3000")
		default:
			k = 2
		}
	}
	if n == 0 || n >= len(s) {
		return 0
	}
	r, size := utf8.DecodeRuneInString(s[n:])
	if !Is(r) || startsCJK(s[n+size:]) {
		return 0
	}
	return n
}

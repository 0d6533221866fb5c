// Package invisible finds and removes the characters Unicode calls
// default-ignorable: zero-width spaces and joiners, the byte order mark,
// bidirectional marks, variation selectors, tag characters and the like,
// which a renderer shows as nothing. A text holding them between its
// letters ("p\u200ba\u200bs\u200bs") reads as a word to a person and as
// single letters to a search tokenizer, which splits at them; so they are
// removed from documents before indexing (core/extract) and from questions
// (core.Engine), and a word is found however it was spelled inside.
package invisible

import (
	"strings"
	"unicode/utf8"
)

// ranges are Unicode's Default_Ignorable_Code_Point characters
// (DerivedCoreProperties.txt), first and last of each range.
var ranges = [][2]rune{
	{0x00AD, 0x00AD}, // soft hyphen
	{0x034F, 0x034F}, // combining grapheme joiner
	{0x061C, 0x061C}, // Arabic letter mark
	{0x115F, 0x1160}, // Hangul fillers
	{0x17B4, 0x17B5}, // Khmer inherent vowels
	{0x180B, 0x180F}, // Mongolian variation selectors and vowel separator
	{0x200B, 0x200F}, // zero-width space, non-joiner, joiner; left-to-right and right-to-left marks
	{0x202A, 0x202E}, // bidirectional embeddings and overrides
	{0x2060, 0x206F}, // word joiner, invisible operators, bidirectional isolates
	{0x3164, 0x3164}, // Hangul filler
	{0xFE00, 0xFE0F}, // variation selectors
	{0xFEFF, 0xFEFF}, // zero-width no-break space (byte order mark)
	{0xFFA0, 0xFFA0}, // half-width Hangul filler
	{0xFFF0, 0xFFF8}, // unassigned specials
	{0x1BCA0, 0x1BCA3},
	{0x1D173, 0x1D17A},
	{0xE0000, 0xE0FFF}, // tags and the variation selectors supplement
}

// Is reports whether r is default-ignorable.
func Is(r rune) bool {
	if r < 0x00AD {
		return false
	}
	for _, rg := range ranges {
		if r < rg[0] {
			return false
		}
		if r <= rg[1] {
			return true
		}
	}
	return false
}

// Next is the byte offset of the first default-ignorable character of s at
// or after from, or -1. A text in ASCII is passed over a byte at a time.
func Next(s string, from int) int {
	for i := from; i < len(s); {
		if s[i] < 0xC2 { // ASCII, or a continuation byte: no character from U+00AD up starts here
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if Is(r) {
			return i
		}
		i += size
	}
	return -1
}

// End is the end of the run of default-ignorable characters that starts at
// i in s.
func End(s string, i int) int {
	for i < len(s) {
		r, size := utf8.DecodeRuneInString(s[i:])
		if !Is(r) {
			break
		}
		i += size
	}
	return i
}

// Spans returns where s holds default-ignorable characters: the byte
// offsets of each run of them, start and end; nil when it holds none. A
// text in ASCII is passed over at a byte at a time.
func Spans(s string) [][2]int {
	var out [][2]int
	for i := Next(s, 0); i >= 0; i = Next(s, i) {
		end := End(s, i)
		out = append(out, [2]int{i, end})
		i = end
	}
	return out
}

// Remove returns s without its default-ignorable characters.
func Remove(s string) string {
	i := Next(s, 0)
	if i < 0 {
		return s
	}
	var b strings.Builder
	b.Grow(len(s))
	last := 0
	for ; i >= 0; i = Next(s, i) {
		b.WriteString(s[last:i])
		last = End(s, i)
		i = last
	}
	b.WriteString(s[last:])
	return b.String()
}

package llm

import (
	"strings"
	"unicode/utf8"
)

// stopFilter sits between the sampler and the caller. It holds back text
// that might be the beginning of a stop sequence, so a stop sequence spread
// over several tokens never leaks out, and it holds back a UTF-8 character
// whose bytes came as separate byte tokens.
type stopFilter struct {
	stops   []string
	pending string
}

// push adds a token's text. It returns the text now safe to show and, when
// a stop sequence appeared, true with only the text before it.
func (f *stopFilter) push(piece string) (string, bool) {
	f.pending += piece
	at := -1
	for _, s := range f.stops {
		if s == "" {
			continue
		}
		if i := strings.Index(f.pending, s); i >= 0 && (at < 0 || i < at) {
			at = i
		}
	}
	if at >= 0 {
		out := f.pending[:at]
		f.pending = ""
		return out, true
	}
	cut := len(f.pending) - f.heldForStop()
	cut = completeUTF8(f.pending, cut)
	out := f.pending[:cut]
	f.pending = f.pending[cut:]
	return out, false
}

// heldForStop is the length of the longest end of pending that begins some
// stop sequence.
func (f *stopFilter) heldForStop() int {
	hold := 0
	for _, s := range f.stops {
		for k := min(len(s)-1, len(f.pending)); k > hold; k-- {
			if strings.HasSuffix(f.pending, s[:k]) {
				hold = k
				break
			}
		}
	}
	return hold
}

// completeUTF8 moves cut back so s[:cut] does not end inside a multi-byte
// character whose remaining bytes have not arrived yet.
func completeUTF8(s string, cut int) int {
	for back := 1; back <= utf8.UTFMax && back <= cut; back++ {
		b := s[cut-back]
		if b < utf8.RuneSelf {
			return cut // ASCII: complete
		}
		if utf8.RuneStart(b) {
			if !utf8.FullRuneInString(s[cut-back : cut]) {
				return cut - back
			}
			return cut
		}
	}
	return cut
}

// flush returns whatever is still held at the end of generation.
func (f *stopFilter) flush() string {
	out := f.pending
	f.pending = ""
	return out
}

package bm25

import (
	"context"
	"sync"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"

	"cairn/core/cjk"
	"cairn/core/porter"
	"cairn/core/store"
)

// Tokenizer splits text into the tokens of the FTS5 index's tokenizer,
// "porter unicode61 remove_diacritics 2": runs of letters and digits,
// lower-cased, without diacritics, then stemmed (porter.go).
//
// Which characters outside ASCII belong to words, and what they fold to,
// comes from SQLite's own tables when the Tokenizer has a store to ask
// (its tables are older than Go's: an emoji is a word there); without one,
// Go's Unicode tables stand in. TestTokensMatchFTS5 holds the two to the
// same tokens.
//
// A Tokenizer is not safe for concurrent use; its runes table is.
type Tokenizer struct {
	buf   []byte
	stems map[string]string
	runes *runeTable
}

// NewTokenizer returns a Tokenizer that classifies characters by Go's
// Unicode tables.
func NewTokenizer() *Tokenizer { return newTokenizer(&runeTable{}) }

func newTokenizer(rt *runeTable) *Tokenizer {
	return &Tokenizer{stems: map[string]string{}, runes: rt}
}

// maxCachedStems bounds the stem cache; text with endless distinct words
// (hashes, numbers) would otherwise grow it without limit.
const maxCachedStems = 1 << 20

// Learn makes sure the Tokenizer knows every character of texts, asking
// the store about new ones in one batch.
func (t *Tokenizer) Learn(ctx context.Context, texts ...[]byte) error {
	return t.runes.learn(ctx, texts)
}

// Each calls fn with every token of text, in order. The token is only
// valid during the call. Chinese and Japanese come out as the overlapping
// bigrams the store indexes (core/cjk).
func (t *Tokenizer) Each(text []byte, fn func(tok string)) {
	if hasCJK(text) {
		text = []byte(cjk.Bigrams(string(text)))
	}
	for i := 0; i < len(text); {
		// Skip separators.
		if c := text[i]; c < utf8.RuneSelf {
			if !isASCIIToken(c) {
				i++
				continue
			}
		} else {
			r, size := utf8.DecodeRune(text[i:])
			if !t.runes.class(r).start {
				i += size
				continue
			}
		}
		// Gather the token, folded.
		t.buf = t.buf[:0]
		for i < len(text) {
			c := text[i]
			if c < utf8.RuneSelf {
				if !isASCIIToken(c) {
					break
				}
				if 'A' <= c && c <= 'Z' {
					c += 'a' - 'A'
				}
				t.buf = append(t.buf, c)
				i++
				continue
			}
			r, size := utf8.DecodeRune(text[i:])
			rc := t.runes.class(r)
			if !rc.inner {
				break
			}
			i += size
			t.buf = append(t.buf, rc.fold...)
		}
		if len(t.buf) > 0 {
			fn(t.stem(t.buf))
		}
	}
}

// Tokens returns the tokens of s.
func (t *Tokenizer) Tokens(s string) []string {
	var out []string
	t.Each([]byte(s), func(tok string) { out = append(out, tok) })
	return out
}

func (t *Tokenizer) stem(b []byte) string {
	if s, ok := t.stems[string(b)]; ok {
		return s
	}
	w := string(b)
	s := porter.Stem(w)
	if len(t.stems) >= maxCachedStems {
		clear(t.stems)
	}
	t.stems[w] = s
	return s
}

func isASCIIToken(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z'
}

// runeClass is how the tokenizer treats a character outside ASCII.
type runeClass struct {
	start bool   // it begins a word
	inner bool   // it continues one
	fold  string // what it becomes inside a word; "" for a dropped mark
}

// runeTable caches runeClasses; ask, when set, is the store's tokenizer.
type runeTable struct {
	ask func(ctx context.Context, rs []rune) ([]store.RuneClass, error)

	mu sync.RWMutex
	m  map[rune]runeClass
}

func (rt *runeTable) class(r rune) runeClass {
	rt.mu.RLock()
	rc, ok := rt.m[r]
	rt.mu.RUnlock()
	if !ok {
		rc = goClass(r)
	}
	return rc
}

func (rt *runeTable) learn(ctx context.Context, texts [][]byte) error {
	if rt.ask == nil {
		return nil
	}
	var missing []rune
	seen := map[rune]bool{}
	rt.mu.RLock()
	for _, text := range texts {
		for i := 0; i < len(text); {
			if text[i] < utf8.RuneSelf {
				i++
				continue
			}
			r, size := utf8.DecodeRune(text[i:])
			i += size
			if _, ok := rt.m[r]; !ok && !seen[r] {
				seen[r] = true
				missing = append(missing, r)
			}
		}
	}
	rt.mu.RUnlock()
	if len(missing) == 0 {
		return nil
	}
	classes, err := rt.ask(ctx, missing)
	if err != nil {
		return err
	}
	rt.mu.Lock()
	defer rt.mu.Unlock()
	if rt.m == nil {
		rt.m = map[rune]runeClass{}
	}
	for i, r := range missing {
		c := classes[i]
		rc := runeClass{start: c.Alone != "", inner: c.InsideIsToken, fold: c.Inside}
		if rc.start {
			rc.fold = c.Alone
		}
		rt.m[r] = rc
	}
	return nil
}

// goClass classifies r by Go's Unicode tables: letters, digits and
// private-use characters make words (unicode61's default categories),
// combining marks continue them and are dropped.
func goClass(r rune) runeClass {
	if unicode.Is(unicode.Mn, r) {
		return runeClass{inner: true}
	}
	if !unicode.IsLetter(r) && !unicode.IsNumber(r) && !unicode.Is(unicode.Co, r) {
		return runeClass{}
	}
	f := unicode.ToLower(r)
	// Keep the base letter when the rest of the decomposition is marks.
	if d := norm.NFD.String(string(f)); d != string(f) {
		base, size := utf8.DecodeRuneInString(d)
		marks := true
		for _, m := range d[size:] {
			marks = marks && unicode.Is(unicode.Mn, m)
		}
		if marks {
			f = base
		}
	}
	return runeClass{start: true, inner: true, fold: string(f)}
}

// hasCJK is cjk.Has for bytes, without copying them.
func hasCJK(b []byte) bool {
	for i := 0; i < len(b); {
		if b[i] < 0xE2 {
			i++
			continue
		}
		r, size := utf8.DecodeRune(b[i:])
		if cjk.Is(r) {
			return true
		}
		i += size
	}
	return false
}

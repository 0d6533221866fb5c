package testmodel

import (
	_ "embed"
	"fmt"
	"sort"
	"strings"
)

// words.txt holds the 10,000 most frequent lower-case words of the Debian
// manual pages (sections 1, 5 and 7) and the Go specification, one a line,
// most frequent first. It is committed rather than derived at run time so
// that every machine writes byte-identical models for a seed.
//
//go:embed words.txt
var wordsTXT string

// Token types as llama.cpp's enum llama_token_type numbers them.
const (
	tokenNormal  int32 = 1
	tokenUnknown int32 = 2
	tokenControl int32 = 3
	tokenUnused  int32 = 5
	tokenByte    int32 = 6
)

// wordStart is SentencePiece's U+2581, which marks a piece that begins a word.
const wordStart = "\u2581"

// vocab is a tokenizer vocabulary in GGUF's parallel-array layout.
type vocab struct {
	tokens []string
	types  []int32
	scores []float32
	index  map[string]int
}

func newVocab(capacity int) *vocab {
	return &vocab{index: make(map[string]int, capacity)}
}

// add appends a token unless it is already present (llama.cpp asserts that
// token texts are unique) or the vocabulary is full.
func (v *vocab) add(tok string, typ int32, limit int) {
	if _, dup := v.index[tok]; dup || len(v.tokens) >= limit {
		return
	}
	v.index[tok] = len(v.tokens)
	v.tokens = append(v.tokens, tok)
	v.types = append(v.types, typ)
	// SentencePiece merges the highest score first; frequent words come
	// first, so a falling score makes them win, as in a trained model.
	score := float32(0)
	if typ == tokenNormal {
		score = -float32(len(v.tokens))
	}
	v.scores = append(v.scores, score)
}

// fill pads the vocabulary to exactly n tokens with unused placeholders that
// no tokenizer can produce, as real vocabularies do ([unused0], <extra_0>).
func (v *vocab) fill(n int, format string) {
	for i := 0; len(v.tokens) < n; i++ {
		v.add(fmt.Sprintf(format, i), tokenUnused, n)
	}
}

func words() []string {
	return strings.Fields(wordsTXT)
}

// characters every vocabulary needs so that any ASCII text tokenizes without
// falling back to [UNK] or byte tokens.
func characters() []string {
	var cs []string
	for c := 'a'; c <= 'z'; c++ {
		cs = append(cs, string(c))
	}
	for c := '0'; c <= '9'; c++ {
		cs = append(cs, string(c))
	}
	for _, c := range "!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~" {
		cs = append(cs, string(c))
	}
	return cs
}

// BERT special tokens, in the order the writer places them.
const (
	bertPAD  = 0
	bertUNK  = 1
	bertCLS  = 2
	bertSEP  = 3
	bertMASK = 4
)

// wordPiece builds a BERT vocabulary of exactly n tokens the way
// convert_hf_to_gguf stores one: word-initial pieces prefixed with U+2581,
// "##" continuations stored bare.
func wordPiece(n int) (*vocab, error) {
	ws := words()
	v := newVocab(n)
	for _, s := range []string{"[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"} {
		v.add(s, tokenControl, n)
	}
	for _, c := range characters() {
		v.add(wordStart+c, tokenNormal, n)
		v.add(c, tokenNormal, n)
	}
	if len(v.tokens) >= n {
		return nil, fmt.Errorf("vocabulary of %d tokens is too small for the %d special and character tokens", n, len(v.tokens))
	}
	for _, w := range ws {
		v.add(wordStart+w, tokenNormal, n)
	}
	for _, s := range frequentSuffixes(ws) {
		v.add(s, tokenNormal, n)
	}
	v.fill(n, "[unused%d]")
	return v, nil
}

// frequentSuffixes returns word endings of 2 to 5 letters seen in at least
// three words, most common first, as WordPiece continuation pieces.
func frequentSuffixes(ws []string) []string {
	count := map[string]int{}
	for _, w := range ws {
		for k := 2; k <= 5 && k < len(w); k++ {
			count[w[len(w)-k:]]++
		}
	}
	var out []string
	for s, c := range count {
		if c >= 3 {
			out = append(out, s)
		}
	}
	sort.Slice(out, func(i, j int) bool {
		if count[out[i]] != count[out[j]] {
			return count[out[i]] > count[out[j]]
		}
		return out[i] < out[j]
	})
	return out
}

// SentencePiece special tokens, in the order the writer places them.
const (
	spmUNK       = 0
	spmBOS       = 1
	spmEOS       = 2
	spmIMStart   = 259
	spmIMEnd     = 260
	spmEndOfText = 261
)

// sentencePiece builds a LLaMA-style vocabulary of exactly n tokens:
// <unk> <s> </s>, the 256 byte-fallback tokens <0xXX>, the ChatML control
// tokens, single characters, then every word with all its U+2581-prefixed
// prefixes, because SentencePiece only reaches a piece through merges whose
// intermediate results are themselves in the vocabulary.
func sentencePiece(n int) (*vocab, error) {
	v := newVocab(n)
	v.add("<unk>", tokenUnknown, n)
	v.add("<s>", tokenControl, n)
	v.add("</s>", tokenControl, n)
	for b := 0; b < 256; b++ {
		v.add(fmt.Sprintf("<0x%02X>", b), tokenByte, n)
	}
	for _, s := range []string{"<|im_start|>", "<|im_end|>", "<|endoftext|>"} {
		v.add(s, tokenControl, n)
	}
	v.add(wordStart, tokenNormal, n)
	for _, c := range characters() {
		v.add(c, tokenNormal, n)
		v.add(wordStart+c, tokenNormal, n)
		if up := strings.ToUpper(c); up != c {
			v.add(up, tokenNormal, n)
			v.add(wordStart+up, tokenNormal, n)
		}
	}
	if len(v.tokens) >= n {
		return nil, fmt.Errorf("vocabulary of %d tokens is too small for the %d special, byte and character tokens", n, len(v.tokens))
	}
	for _, w := range words() {
		if len(v.tokens)+len(w) > n {
			break // keep every word's merge path whole
		}
		for k := 2; k <= len(w); k++ {
			v.add(wordStart+w[:k], tokenNormal, n)
		}
	}
	v.fill(n, "<extra_%d>")
	return v, nil
}

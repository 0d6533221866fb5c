package teamsearch

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"cairn/core/bm25"
	"cairn/core/collection"
	"cairn/core/domain"
	"cairn/core/teamstore"
)

// MatchDocuments answers a question about the whole collection
// (core/collection) over the cluster as store.DB.MatchDocuments does over
// a knowledge base file with collection.MatchExpr(terms): every file with
// a fingerprint that passes f and, when terms are given, has a passage
// whose text or heading holds each term (its tokens in a row, in one of
// the two), in path order, with how many passages do and the best-ranked
// one (FTS5's bm25() under that column filter).
//
// The files come from the cluster's Document class, read whole through its
// cursor and filtered here as the file's SQL filters them (no filter of
// the cluster's sees a file's time in nanoseconds, or a file without
// chunks); the passages from the chunks holding every term's tokens,
// checked here for each term's tokens in a row (teamstore.ChunksHolding).
// With whole, a passage holds a term only as whole words: the passages
// holding every term's tokens are read whole (Hits) and checked as the
// file's store checks its chunks' text (collection.HoldsEvery).
//
// The answer is exact but for one thing: the rank of a file's passages
// under several terms, one of which has several tokens ("e-mail"), weighs
// that term by the chunks holding its tokens anywhere, where FTS5 counts
// those holding them in a row.
func (s *Store) MatchDocuments(ctx context.Context, terms []string, whole bool, f domain.Filter) ([]domain.DocumentMatch, error) {
	want := s.files(f)
	docs := map[string]teamstore.Document{}
	err := s.ts.EachDocument(ctx, func(d teamstore.Document) error {
		if passes(want, f, d) {
			docs[teamstore.FilePath(d.Folder, d.Path)] = d
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("list the files of the team cluster at %s: %w", s.ts.URL(), err)
	}
	match := func(d teamstore.Document) domain.DocumentMatch {
		return domain.DocumentMatch{Path: s.local(d.Folder, d.Path), Title: d.Title, Format: d.Format, MTimeNS: d.MTimeNS}
	}
	var out []domain.DocumentMatch
	if len(terms) == 0 {
		for _, d := range docs {
			out = append(out, match(d))
		}
		slices.SortFunc(out, func(a, b domain.DocumentMatch) int { return strings.Compare(a.Path, b.Path) })
		return out, nil
	}
	tk := bm25.NewTokenizer()
	phrases := make([][]string, len(terms))
	for i, t := range terms {
		phrases[i] = tk.Tokens(t)
	}
	held, err := s.ts.ChunksHolding(ctx, phrases, want)
	if err != nil || len(held) == 0 {
		return nil, err
	}
	n, tokens, err := s.ts.Totals(ctx)
	if err != nil {
		return nil, err
	}
	dfs, err := s.ts.ChunksWith(ctx, phrases)
	if err != nil {
		return nil, err
	}
	idf := make([]float64, len(phrases))
	for i := range phrases {
		idf[i] = fts5IDF(n, dfs[i])
	}
	avgdl := float64(tokens) / float64(n)
	type best struct {
		passages int
		id       string
		score    float64
	}
	var cands []teamstore.Holding
	for _, h := range held {
		if _, ok := docs[h.File]; ok && holdsEvery(h, phrases) {
			cands = append(cands, h)
		}
	}
	if whole {
		if cands, err = s.wholeWords(ctx, cands, terms); err != nil {
			return nil, err
		}
	}
	found := map[string]*best{}
	for _, h := range cands {
		sc := columnsScore([][]string{h.Stems, h.HeadingStems}, []float64{wText, wHeading}, h.Tokens, phrases, idf, avgdl)
		b := found[h.File]
		switch {
		case b == nil:
			found[h.File] = &best{passages: 1, id: h.ID, score: sc}
			continue
		case sc > b.score:
			// A tie keeps the first passage, as FTS5 meets them in order.
			b.id, b.score = h.ID, sc
		}
		b.passages++
	}
	ids := make([]string, 0, len(found))
	for _, b := range found {
		ids = append(ids, b.id)
	}
	chunkIDs, err := s.numbered(ctx, ids)
	if err != nil {
		return nil, err
	}
	for file, b := range found {
		m := match(docs[file])
		m.Passages, m.ChunkID = b.passages, chunkIDs[b.id]
		out = append(out, m)
	}
	slices.SortFunc(out, func(a, b domain.DocumentMatch) int { return strings.Compare(a.Path, b.Path) })
	return out, nil
}

// holdsEvery reports whether h's text or heading holds each phrase's
// tokens in a row.
func holdsEvery(h teamstore.Holding, phrases [][]string) bool {
	for _, p := range phrases {
		if occurrences(h.Stems, p) == 0 && occurrences(h.HeadingStems, p) == 0 {
			return false
		}
	}
	return true
}

// wholeWords keeps the passages of hs whose text or heading holds each
// term as whole words, reading them from the cluster a thousand at a
// time, in hs's order.
func (s *Store) wholeWords(ctx context.Context, hs []teamstore.Holding, terms []string) ([]teamstore.Holding, error) {
	var out []teamstore.Holding
	for start := 0; start < len(hs); start += 1000 {
		part := hs[start:min(len(hs), start+1000)]
		ids := make([]string, len(part))
		for i, h := range part {
			ids[i] = h.ID
		}
		hits, err := s.ts.Hits(ctx, ids)
		if err != nil {
			return nil, fmt.Errorf("read the passages holding the words from the team cluster at %s: %w", s.ts.URL(), err)
		}
		ok := make(map[string]bool, len(hits))
		for _, h := range hits {
			ok[h.ID] = collection.HoldsEvery(h.Text, h.Heading, terms)
		}
		for _, h := range part {
			if ok[h.ID] {
				out = append(out, h)
			}
		}
	}
	return out, nil
}

// numbered reads the chunks of uuids and numbers them (keep), as a search
// does with its hits, so that Chunks gives their passages.
func (s *Store) numbered(ctx context.Context, uuids []string) (map[string]int64, error) {
	out := make(map[string]int64, len(uuids))
	for start := 0; start < len(uuids); start += 1000 {
		hits, err := s.ts.Hits(ctx, uuids[start:min(len(uuids), start+1000)])
		if err != nil {
			return nil, err
		}
		s.mu.Lock()
		for _, h := range hits {
			out[h.ID] = s.keep(h)
		}
		s.mu.Unlock()
	}
	return out, nil
}

// passes reports whether the file d passes f as the SQLite store's filter
// passes a document (domain.Filter's SQL): under one of the prefixes, of
// one of the types (its format, or its name's extension in any ASCII
// case), modified in [Since, Until) to the nanosecond, its path or title
// holding each of Contains in any ASCII case. The file is named as the
// cluster names it (teamstore.FilePath), as in a search's filter; want is
// f so named (Store.files).
func passes(want teamstore.Files, f domain.Filter, d teamstore.Document) bool {
	file := teamstore.FilePath(d.Folder, d.Path)
	if len(want.Prefixes) > 0 && !slices.ContainsFunc(want.Prefixes, func(p string) bool { return strings.HasPrefix(file, p) }) {
		return false
	}
	lower := teamstore.ASCIILower(file)
	if len(want.Types) > 0 && !slices.ContainsFunc(want.Types, func(t string) bool { return d.Format == t || strings.HasSuffix(lower, "."+t) }) {
		return false
	}
	if !f.Since.IsZero() && d.MTimeNS < f.Since.UnixNano() {
		return false
	}
	if !f.Until.IsZero() && d.MTimeNS >= f.Until.UnixNano() {
		return false
	}
	title := teamstore.ASCIILower(d.Title)
	for _, c := range want.Contains {
		c = teamstore.ASCIILower(c)
		if !strings.Contains(lower, c) && !strings.Contains(title, c) {
			return false
		}
	}
	return true
}

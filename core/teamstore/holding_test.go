package teamstore

import (
	"context"
	"maps"
	"reflect"
	"slices"
	"strings"
	"testing"

	"cairn/core/bm25"
)

// TestChunksHoldingPagesThroughEveryMatch: the chunks holding a word, or
// two, are every chunk whose text or heading holds their tokens, whatever
// the page: a page of 3 chunks (files together while they fit, a file
// larger than a page in pages of its ordinals) returns exactly what one
// page of 2,000 does, and a filter narrows them as a search's does.
func TestChunksHoldingPagesThroughEveryMatch(t *testing.T) {
	s := testStore(t, Options{})
	ctx := context.Background()
	docs := corpus(t)
	putAll(t, s, docs)
	tk := bm25.NewTokenizer()
	// What holds each word, from the fixture itself.
	want := func(words [][]string, files Files) []Holding {
		var out []Holding
		for _, d := range docs {
			file := FilePath(d.doc.Folder, d.doc.Path)
			if len(files.Prefixes) > 0 && !strings.HasPrefix(file, files.Prefixes[0]) {
				continue
			}
			for _, c := range d.chunks {
				text, heading := tk.Tokens(c.Text), tk.Tokens(c.Heading)
				all := true
				for _, w := range words {
					for _, tok := range w {
						if !slices.Contains(text, tok) && !slices.Contains(heading, tok) {
							all = false
						}
					}
				}
				if all {
					title := tk.Tokens(d.doc.Title)
					out = append(out, Holding{ID: ChunkID(d.doc.Folder, d.doc.Path, c.Ordinal), File: file, Ordinal: c.Ordinal,
						Stems: text, HeadingStems: heading, Tokens: len(text) + len(heading) + len(title)})
				}
			}
		}
		slices.SortFunc(out, func(a, b Holding) int {
			if c := strings.Compare(a.File, b.File); c != 0 {
				return c
			}
			return a.Ordinal - b.Ordinal
		})
		return out
	}
	defer func(p int) { holdingPage = p }(holdingPage)
	for _, c := range []struct {
		words [][]string
		files Files
		least int
	}{
		{words: [][]string{{"the"}}, least: 10},
		{words: [][]string{{"the"}, {"to"}}, least: 5},
		{words: [][]string{{"the"}}, files: Files{Prefixes: []string{fixtureFolder + "/manuals/"}}, least: 4},
		{words: [][]string{{"zyzzyva"}}},
	} {
		exp := want(c.words, c.files)
		if len(exp) < c.least {
			t.Fatalf("%v: the fixture holds %d such chunks, fewer than %d", c.words, len(exp), c.least)
		}
		perFile := map[string]int{}
		for _, h := range exp {
			perFile[h.File]++
		}
		if c.least >= 10 && (len(perFile) < 3 || slices.Max(slices.Collect(maps.Values(perFile))) <= 3) {
			t.Fatalf("%v: %v chunks per file: a page of 3 would not take several files at once and one file in pages", c.words, perFile)
		}
		for _, page := range []int{2000, 3} {
			holdingPage = page
			got, err := s.ChunksHolding(ctx, c.words, c.files)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, exp) && !(len(got) == 0 && len(exp) == 0) {
				t.Errorf("%v, page %d: %d chunks, want %d", c.words, page, len(got), len(exp))
			}
		}
	}
	if n, err := s.ChunksWith(ctx, [][]string{{"the"}, {"zyzzyva"}}); err != nil || n[0] != len(want([][]string{{"the"}}, Files{})) || n[1] != 0 {
		t.Errorf("chunks with the words: %v, %v", n, err)
	}
}

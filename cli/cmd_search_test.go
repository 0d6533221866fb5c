package cli

import (
	"bytes"
	"testing"
	"time"

	"cairn/core/search"
)

func TestSearchTextSaysEachResultsRelevanceInWords(t *testing.T) {
	man := &search.Passage{ChunkID: 1, Path: "/docs/grep.1", LineStart: 40, Snippet: "-U, --binary\n    Treat the file(s) as binary.",
		Highlights: []search.Span{{Start: 6, End: 12}}}
	toc := &search.Passage{ChunkID: 2, Path: "/docs/manual.pdf", UnitKind: "page", Page: 2, Label: "ii", Snippet: "Binary files ..... 41", Navigation: true}
	resp := &search.Response{
		Results: []search.Result{
			{Passage: man, Rank: 1, Score: 1, Relevance: 0.75},
			{Passage: toc, Rank: 2, Score: 0.8, Relevance: 0.45},
		},
		Candidates: &search.Candidates{Mode: search.ModeBM25},
		Timing:     search.Timing{Total: 2 * time.Millisecond},
	}
	var out bytes.Buffer
	printResults(&out, resp, false)
	want := " 1. strong match (0.75)  /docs/grep.1:40\n" +
		"    -U, --**binary**\n" +
		"        Treat the file(s) as binary.\n" +
		" 2. partial match, contents or index page (0.45)  /docs/manual.pdf (page 2, ii)\n" +
		"    Binary files ..... 41\n" +
		"(bm25, 2 results in 2.0 ms)\n"
	if out.String() != want {
		t.Errorf("output:\n%s\nwant:\n%s", out.String(), want)
	}
}

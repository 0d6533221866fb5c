package core

import (
	"context"
	"slices"
	"strings"
	"testing"

	"cairn/core/chunk"
	"cairn/core/llm/testmodel"
	"cairn/core/search"
	"cairn/core/store"
)

func TestASearchBeforeEveryEmbeddingSaysHowMuchMeaningCovers(t *testing.T) {
	ctx := context.Background()
	eng := testEngine(t, nil, testmodel.Tiny())
	resp, err := eng.Search(ctx, eng.SearchRequest("reset the router"))
	if err != nil {
		t.Fatal(err)
	}
	if resp.Candidates.Mode != search.ModeHybrid || resp.Candidates.Coverage != nil {
		t.Fatalf("mode %s, coverage %+v: every chunk has its vector, nothing to say", resp.Candidates.Mode, resp.Candidates.Coverage)
	}
	// A file indexed since, whose embedding is still to come.
	st, _ := eng.Status(ctx)
	f, err := eng.db.AddFolder(ctx, "/later")
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := eng.db.PutDocument(ctx, store.Document{FolderID: f.ID, Path: "/later/new.txt", Hash: "h"},
		[]chunk.Chunk{{Text: "router reset later"}}, nil); err != nil {
		t.Fatal(err)
	}
	want := search.MeaningCoverage{Embedded: st.Chunks, Chunks: st.Chunks + 1}
	resp, err = eng.Search(ctx, eng.SearchRequest("reset the router"))
	if err != nil {
		t.Fatal(err)
	}
	if c := resp.Candidates.Coverage; c == nil || *c != want || !slices.Contains(resp.Candidates.Notes, want.Note()) {
		t.Errorf("coverage %+v, notes %q; want %+v and its note", c, resp.Candidates.Notes, want)
	}
	if rep := search.NewReport("q", resp); rep.MeaningCoverage == nil || *rep.MeaningCoverage != want {
		t.Errorf("the report (CLI --json, API, MCP) lacks the coverage: %+v", rep.MeaningCoverage)
	}
	ans, err := eng.Ask(ctx, eng.SearchRequest("how do I reset the router"), nil)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(ans.Notes, want.Note()) {
		t.Errorf("answer notes %q lack %q", ans.Notes, want.Note())
	}
	st, _ = eng.Status(ctx)
	if c := st.MeaningCoverage(); c == nil || *c != want || !strings.HasPrefix(c.Short(), "meaning search ") {
		t.Errorf("status coverage %+v, want %+v", c, want)
	}
	// The documents the searches showed come first for the embeddings.
	in := eng.interest.snapshot()
	if !slices.Contains(in.Documents, resp.Results[0].DocumentID) {
		t.Errorf("interest %+v lacks the shown document %d", in, resp.Results[0].DocumentID)
	}
}

package core

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"cairn/core/domain"
	"cairn/core/search"
)

// A conversation answers from the folders chosen for it: a question in it
// finds nothing of a folder left out, its saved turns keep the passages
// they cite, and a filter outside its folders is refused with why.
func TestAConversationAnswersFromItsFolders(t *testing.T) {
	eng := testEngine(t, nil)
	ctx := context.Background()
	corpus, _ := filepath.Abs("../testdata/corpus")
	manuals, data := filepath.Join(corpus, "manuals"), filepath.Join(corpus, "data")

	ans, err := eng.AskInThread(ctx, 0, eng.SearchRequest("how do I reset the router x200"), nil)
	if err != nil {
		t.Fatal(err)
	}
	thread := ans.Thread
	if thread == 0 || len(ans.Sources) == 0 || !strings.HasSuffix(ans.Sources[0].Path, "router-x200.md") {
		t.Fatalf("thread %d, sources %+v", thread, ans.Sources)
	}
	turns, err := eng.ThreadTurns(ctx, thread)
	if err != nil || len(turns) != 1 || len(turns[0].Sources) != len(ans.Citations) || len(ans.Citations) == 0 ||
		turns[0].Sources[0] != (domain.TurnSource{N: ans.Citations[0].N, ChunkID: ans.Citations[0].ChunkID, Path: ans.Citations[0].Path}) {
		t.Fatalf("saved turns %+v (%v), citations %+v", turns, err, ans.Citations)
	}

	if err := eng.SetThreadFolders(ctx, thread, []string{data}); err != nil {
		t.Fatal(err)
	}
	ans, err = eng.AskInThread(ctx, thread, eng.SearchRequest("how do I reset the router x200"), nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range ans.Sources {
		if !strings.HasPrefix(s.Path, data+string(filepath.Separator)) {
			t.Errorf("a source outside the conversation's folder: %s", s.Path)
		}
	}
	again, err := eng.AnswerAgain(ctx, thread, eng.SearchRequest("how do I reset the router x200"), nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range again.Sources {
		if !strings.HasPrefix(s.Path, data+string(filepath.Separator)) {
			t.Errorf("answered again, a source outside the conversation's folder: %s", s.Path)
		}
	}

	req := eng.SearchRequest("how do I reset the router x200")
	req.Filter.PathPrefixes = []string{manuals + string(filepath.Separator)}
	if _, err := eng.AskInThread(ctx, thread, req, nil); !errors.Is(err, search.ErrOutsideFolders) || !strings.Contains(err.Error(), data) {
		t.Errorf("a filter outside the folders: %v", err)
	}

	if err := eng.SetThreadFolders(ctx, thread, []string{manuals, data}); err != nil {
		t.Fatal(err)
	}
	ans, err = eng.AskInThread(ctx, thread, eng.SearchRequest("how do I reset the router x200"), nil)
	if err != nil || len(ans.Sources) == 0 || !strings.HasSuffix(ans.Sources[0].Path, "router-x200.md") {
		t.Errorf("with the manuals again: %v %+v", err, ans)
	}
	threads, _ := eng.Threads(ctx)
	if len(threads) != 1 || len(threads[0].Folders) != 2 {
		t.Errorf("threads %+v", threads)
	}
}

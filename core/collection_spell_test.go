package core

import (
	"context"
	"testing"
)

// A misspelt word of a question about the collection is counted as the
// word the documents hold, and the answer says so; exact counts the word
// as typed.
func TestACollectionQuestionsTypoIsCorrected(t *testing.T) {
	eng := testEngine(t, nil)
	ctx := context.Background()
	right, err := eng.Ask(ctx, eng.SearchRequest("How many files mention password?"), nil)
	if err != nil || right.Collection == nil || right.Collection.Total == 0 {
		t.Fatalf("spelled right: %+v, %v", right, err)
	}
	typo, err := eng.Ask(ctx, eng.SearchRequest("How many files mention pasword?"), nil)
	if err != nil || typo.Collection == nil {
		t.Fatalf("misspelt: %+v, %v", typo, err)
	}
	if typo.Collection.Total != right.Collection.Total || len(typo.Corrections) != 1 || typo.Corrections[0].To != "password" ||
		typo.Query != "How many files mention password?" {
		t.Errorf("misspelt: %d files (want %d), corrections %+v, searched %q", typo.Collection.Total, right.Collection.Total, typo.Corrections, typo.Query)
	}
	req := eng.SearchRequest("How many files mention pasword?")
	req.Exact = true
	exact, err := eng.Ask(ctx, req, nil)
	if err != nil || exact.Collection == nil || exact.Collection.Total != 0 || len(exact.Corrections) != 0 {
		t.Errorf("exact: %+v, %v", exact, err)
	}
}

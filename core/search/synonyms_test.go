package search

import (
	"context"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"cairn/core/bm25"
	"cairn/core/chunk"
	"cairn/core/store"
)

// TestASynonymCountsAsTheQuestionsWord: a question that says "folder" of
// documents that say "directory" fetches the passage, finds the word in it
// (highlighted, counted in relevance) and does not weigh "folder" as a word
// the documents lack.
func TestASynonymCountsAsTheQuestionsWord(t *testing.T) {
	ctx := context.Background()
	db, err := store.Open(filepath.Join(t.TempDir(), "s.db"), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	f, _ := db.AddFolder(ctx, "/d")
	texts := map[string]string{
		"/d/mkdir.txt": "-p, --parents: make parent directories as needed.",
		"/d/cat.txt":   "Concatenate files and print them on the standard output.",
		"/d/tea.txt":   "Brew green tea for two minutes.",
	}
	err = db.Update(ctx, func(tx *store.Tx) error {
		for path, s := range texts {
			if _, _, err := tx.PutDocument(store.Document{FolderID: f.ID, Path: path, Title: filepath.Base(path), Hash: "h", Format: "text"},
				[]chunk.Chunk{{Text: s}}, nil); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	kix := bm25.New(db)
	defer kix.Close()
	if err := kix.Sync(ctx); err != nil {
		t.Fatal(err)
	}
	for _, s := range []*Searcher{New(db, nil, nil), New(db, nil, nil).WithKeywordIndex(kix)} { // FTS5, then Cairn's keyword index
		resp, err := s.Search(ctx, Request{Query: "parent folders", Params: Params{RRFK: 60}})
		if err != nil {
			t.Fatal(err)
		}
		if len(resp.Results) != 1 || resp.Results[0].Path != "/d/mkdir.txt" {
			t.Fatalf("results %+v", resp.Results)
		}
		r := resp.Results[0]
		if r.Relevance < 0.999 || len(r.Matched) != 2 || r.Matched[1] != "folders" {
			t.Errorf("relevance %.3f, matched %q", r.Relevance, r.Matched)
		}
		var lit []string
		for _, h := range r.Highlights {
			lit = append(lit, r.Text[h.Start:h.End])
		}
		if !slices.Contains(lit, "directories") {
			t.Errorf("highlighted %q", lit)
		}
		if w := resp.Candidates.Weights; w[1] > w[0]*1.01 {
			t.Errorf("weights %v: folders weighed as a word no passage holds", w)
		}
	}
}

func TestSynonymsFollowTheWordsStem(t *testing.T) {
	for q, want := range map[string]string{"deletes": "remove", "deleting": "remove", "symlink": "symbolic link", "delimiter": "separator", "separators": "delimiters", "ignoring": "insensitive", "banana": ""} {
		alts := ParseTerms(q)[0].Alts
		got := ""
		if len(alts) > 0 {
			got = alts[0][0]
			if len(alts[0]) > 1 {
				got += " " + alts[0][1]
			}
		}
		if got != want {
			t.Errorf("%s: first synonym %q, want %q", q, got, want)
		}
	}
}

func TestSpellingVariant(t *testing.T) {
	for w, want := range map[string]string{
		"capitalised": "capitalized", "capitalized": "capitalised", "organisation": "organization",
		"organizations": "organisations", "analyse": "analyze", "analyzing": "analysing", "colour": "color",
		"colors": "colours", "behaviour": "behavior", "favoured": "favored",
		"grep": "", "your": "", "hour": "", "four": "", "is": "", "size": "", "error": "", "color": "colour",
	} {
		if got := spellingVariant(w); got != want {
			t.Errorf("spellingVariant(%q) = %q, want %q", w, got, want)
		}
	}
}

func TestCliticsAreNotPhrases(t *testing.T) {
	for q, want := range map[string]string{
		"Why isn't it obvious?":            "obvious",
		"What priority if I don't choose?": "priority choose default",
		"A cited author's name":            "cited author name",
		"People’s names can't be changed":  "people names changed",
		"It's the o'clock show":            "o clock show",
	} {
		var got []string
		for _, term := range ParseTerms(q) {
			got = append(got, term.String())
		}
		if strings.Join(got, " ") != want {
			t.Errorf("ParseTerms(%q) = %q, want %q", q, got, want)
		}
	}
}

func TestAQuestionAboutNotSayingAsksForTheDefault(t *testing.T) {
	for q, want := range map[string]int{
		"How many passes does shred make over a file if I don't tell it?":              1,
		"What I/O priority level does ionice give a command when I don't specify one?": 1,
		"Which editor opens when I do not choose one?":                                 1,
		"What is the default width if I don't set one?":                                1, // once, not twice
		"How do I make grep ignore case?":                                              0,
		"Why don't my changes show?":                                                   0,
	} {
		got := 0
		for _, term := range ParseTerms(q) {
			if term.String() == "default" {
				got++
			}
		}
		if got != want {
			t.Errorf("ParseTerms(%q) has the term default %d times, want %d", q, got, want)
		}
	}
}

package search

import (
	"context"
	"math"
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
	db := textsStore(t, map[string]string{
		"/d/mkdir.txt": "-p, --parents: make parent directories as needed.",
		"/d/cat.txt":   "Concatenate files and print them on the standard output.",
		"/d/tea.txt":   "Brew green tea for two minutes.",
	})
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

// withExpansions turns WordNet's expansions on for the length of a test.
func withExpansions(t *testing.T) {
	old := expandWith
	expandWith = "wordnet"
	t.Cleanup(func() { expandWith = old })
}

func TestExpansionsAreWordNetsSynonymsTheTermLacks(t *testing.T) {
	withExpansions(t)
	for q, want := range map[string]string{
		"starting":  "begin commence",
		"errors":    "mistake fault",
		"stop":      "discontinue cease quit", // besides the list's kill, terminate, abort
		"bigger":    "large",                  // big's (WordNet's "larger" is a form of "large")
		"display":   "exhibit",                // the list's show and print stay Alts
		"folder":    "",                       // WordNet's "brochure" is not kept (core/lexicon)
		"make":      "",                       // WordNet's "do" is a stopword
		"directory": "",
	} {
		var got []string
		for _, e := range ParseTerms(q)[0].Expansions {
			got = append(got, strings.Join(e, " "))
		}
		if strings.Join(got, " ") != want {
			t.Errorf("ParseTerms(%q) expansions %q, want %q", q, got, want)
		}
	}
	if e := ParseTerms("-s")[0].Expansions; e != nil {
		t.Errorf("a literal has expansions %q", e)
	}
}

func TestNoExpansionsWhenSwitchedOff(t *testing.T) {
	if expandWith != "" {
		t.Fatalf("expandWith is %q by default", expandWith)
	}
	if e := ParseTerms("start")[0].Expansions; e != nil {
		t.Errorf("expansions %q with the switch off", e)
	}
}

// TestAnExpansionCountsForLessThanTheQuestionsWord: "start the transfer"
// of a passage that says "begin the transfer" holds "start" for
// expansionShare of its weight, in the coverage, the best window and the
// phrase; the passage that says "start" holds all of it.
func TestAnExpansionCountsForLessThanTheQuestionsWord(t *testing.T) {
	withExpansions(t)
	terms := ParseTerms("start transfer")
	weights := []float64{2, 1}
	for _, c := range []struct {
		text               string
		all, near, phrase  float64
		highlight, matched string
	}{
		{"Begin transfer at once.", (2*expansionShare + 1) / 3, (2*expansionShare + 1) / 3, (2*expansionShare + expansionShare) / 3, "Begin|transfer", "start transfer"},
		{"Start transfer at once.", 1, 1, 1, "Start|transfer", "start transfer"},
		// The question's own word wins over an expansion in the same text.
		{"Begin, or start transfer.", 1, 1, 1, "Begin|start|transfer", "start transfer"},
		{"Transfer nothing.", 1.0 / 3, 1.0 / 3, 0, "Transfer", "transfer"},
	} {
		p := &Passage{Text: c.text}
		words, at := termWords(p.Text, terms)
		all, nearCov := passageCoverage(p, terms, weights, at)
		phrase := phraseShare(terms, weights, at)
		if !approx(all, c.all) || !approx(nearCov, c.near) || !approx(phrase, c.phrase) {
			t.Errorf("%q: coverage %.3f near %.3f phrase %.3f, want %.3f %.3f %.3f", c.text, all, nearCov, phrase, c.all, c.near, c.phrase)
		}
		snip, hl, matched := snippetOf(p.Text, terms, words, at)
		var lit []string
		for _, h := range hl {
			lit = append(lit, snip[h.Start:h.End])
		}
		if strings.Join(lit, "|") != c.highlight || strings.Join(matched, " ") != c.matched {
			t.Errorf("%q: highlights %q, matched %q", c.text, lit, matched)
		}
	}
}

// TestATermsOwnWordIsNotAnotherTermsExpansion: in "start or begin", the
// text's "begin" is the second term, not an expansion of the first.
func TestATermsOwnWordIsNotAnotherTermsExpansion(t *testing.T) {
	withExpansions(t)
	terms := ParseTerms("start begin")
	_, at := termWords("begin here", terms)
	if len(at[0]) != 0 || len(at[1]) != 1 || at[1][0].weak {
		t.Errorf("occurrences %v", at)
	}
}

// textsStore is a knowledge base of one-passage files in folder /d, by
// path, each titled by its file name.
func textsStore(t *testing.T, texts map[string]string) *store.DB {
	t.Helper()
	ctx := context.Background()
	db, err := store.Open(filepath.Join(t.TempDir(), "s.db"), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	f, _ := db.AddFolder(ctx, "/d")
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
	return db
}

func approx(a, b float64) bool { return math.Abs(a-b) < 1e-9 }

// TestAnExpansionNeitherFetchesNorWeighs: the keyword search looks for the
// question's words only, and a word no passage holds ("commence") weighs as
// much with expansions as without; a passage that says "begin" for it is a
// partial match.
func TestAnExpansionNeitherFetchesNorWeighs(t *testing.T) {
	ctx := context.Background()
	db := textsStore(t, map[string]string{
		"/d/rsync.txt": "Begin the transfer of the files.",
		"/d/begin.txt": "Begin here.",
		"/d/tea.txt":   "Brew green tea for two minutes.",
	})
	ask := func() *Response {
		resp, err := New(db, nil, nil).Search(ctx, Request{Query: "commence transfer", Params: Params{RRFK: 60}})
		if err != nil {
			t.Fatal(err)
		}
		return resp
	}
	off := ask()
	withExpansions(t)
	on := ask()
	if len(on.Results) != 1 || on.Results[0].Path != "/d/rsync.txt" {
		t.Fatalf("results %+v: the keyword search fetched by an expansion", on.Results)
	}
	if !slices.Equal(on.Candidates.Weights, off.Candidates.Weights) {
		t.Errorf("weights %v with expansions, %v without", on.Candidates.Weights, off.Candidates.Weights)
	}
	w := on.Candidates.Weights
	if want := (w[0]*expansionShare + w[1]) / (w[0] + w[1]); !approx(on.Results[0].Relevance, want) {
		t.Errorf("relevance %.3f, want %.3f (commence held by begin for expansionShare of its weight)", on.Results[0].Relevance, want)
	}
	if !approx(off.Results[0].Relevance, w[1]/(w[0]+w[1])) {
		t.Errorf("relevance without expansions %.3f", off.Results[0].Relevance)
	}
}

// Expanded gives terms WordNet's synonyms whatever the switch says, and
// none to a technical token; ParseTerms, with the switch off, gives none.
func TestExpandedAddsWordNetsSynonymsWithTheSwitchOff(t *testing.T) {
	if expandWith != "" {
		t.Fatalf("expandWith %q: the test expects the switch off", expandWith)
	}
	terms := ParseTerms("stop -s")
	if terms[0].Expansions != nil {
		t.Fatalf("ParseTerms expanded %v with the switch off", terms[0].Expansions)
	}
	got := Expanded(terms)
	if !slices.ContainsFunc(got[0].Expansions, func(e []string) bool { return slices.Equal(e, []string{"cease"}) }) || got[1].Expansions != nil {
		t.Errorf("Expanded: %v, %v", got[0].Expansions, got[1].Expansions)
	}
	if terms[0].Expansions != nil {
		t.Error("Expanded changed the terms it was given")
	}
}

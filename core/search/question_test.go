package search

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"cairn/core/bm25"
	"cairn/core/chunk"
	"cairn/core/domain"
	"cairn/core/store"
)

func TestTechnicalTokensAreKeptAsTyped(t *testing.T) {
	for word, want := range map[string]string{
		"-a": "-a", "-a?": "-a", "--all,": "--all", "-rf": "-rf", "-P": "-P", "--color=auto": "--color=auto", "-1": "-1",
		"u+x": "u+x", "(go-w)": "go-w", "2>&1": "2>&1", ">/dev/null": ">/dev/null",
		"/etc/fstab.": "/etc/fstab", "~/.ssh/config": "~/.ssh/config", "file.txt": "file.txt", ".bashrc": ".bashrc",
		"os.path.join": "os.path.join", "1.2.3": "1.2.3", "max_file_mb": "max_file_mb", "std::vector": "std::vector",
		"ls": "", "well-known": "", "e.g.": "", "and/or": "", "-": "", "XK-200": "", "don't": "",
	} {
		if got := technical(word); got != want {
			t.Errorf("technical(%q) = %q, want %q", word, got, want)
		}
	}
	terms := ParseTerms("what does ls -a do")
	if len(terms) != 2 || terms[0].String() != "ls" || terms[1].Literal != "-a" || terms[1].String() != "-a" {
		t.Fatalf("terms %+v", terms)
	}
	// "-a" is the word "a" to the index: asked for, it would match every
	// passage, so the keyword search asks for "ls" alone.
	if kw := keywordTerms(terms); len(kw) != 1 || kw[0].String() != "ls" {
		t.Errorf("keyword terms %+v", kw)
	}
	if kw := keywordTerms(ParseTerms("-a")); len(kw) != 1 {
		t.Errorf("a question of one option asks for it: %+v", kw)
	}
	if got := ParseTerms("--all -A -a"); len(got) != 3 {
		t.Errorf("options of other case are other terms: %+v", got)
	}
}

// An option is found only as written: "-a" is not "-A", not inside "-ab",
// "--all" or "data-a"; a file name is found in any case.
func TestLiteralsMatchAsWritten(t *testing.T) {
	text := "-A, --almost-all\n    do not list implied\n-ab  both\ndata-a\n--all\n-a, --all\n    do not ignore"
	if _, hl, m := Snippet(text, ParseTerms("-a")); len(m) != 1 || len(hl) != 1 {
		t.Fatalf("matched %v, highlights %v", m, hl)
	}
	if at := literalAt(text, "-a"); len(at) != 1 || text[at[0]:at[0]+5] != "-a, -" {
		t.Errorf("-a at %v", at)
	}
	if at := literalAt(text, "--all"); len(at) != 2 {
		t.Errorf("--all at %v", at)
	}
	if at := literalAt("see README.md and readme.md.", "readme.md"); len(at) != 2 {
		t.Errorf("file names in any case: %v", at)
	}
	if at := literalAt("chmod u+x file; chmod U+X", "u+x"); len(at) != 1 {
		t.Errorf("modes in their case: %v", at)
	}
}

// typoStore holds n chunks: a few about copying directories recursively,
// the rest filler, under two folders.
func typoStore(t *testing.T, n int) *store.DB {
	t.Helper()
	ctx := context.Background()
	db, err := store.Open(filepath.Join(t.TempDir(), "typo.db"), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	fa, _ := db.AddFolder(ctx, "/a")
	fb, _ := db.AddFolder(ctx, "/b")
	filler := []string{"pump", "valve", "pressure", "manual", "reset", "error", "sensor", "battery", "cable", "firmware"}
	err = db.Update(ctx, func(tx *store.Tx) error {
		per := 100
		for d := 0; d*per < n; d++ {
			var cs []chunk.Chunk
			for i := range per {
				k := d*per + i
				text := fmt.Sprintf("%s %s %s note %d", filler[k%10], filler[k%7], filler[k%3], k)
				switch {
				case k%1000 == 7:
					text = "copy files and directories recursively with -R, -r, --recursive"
				case k%1000 == 8:
					text = "recursively remove directories and their contents"
				case k == 9:
					text = "the zeolitte filter (sic) is rare but present"
				}
				cs = append(cs, chunk.Chunk{Ordinal: i, Text: text})
			}
			f := fa
			if d%2 == 1 {
				f = fb
			}
			doc := store.Document{FolderID: f.ID, Path: fmt.Sprintf("%s/%d.txt", f.Path, d), Hash: "h", Format: "text"}
			if _, _, err := tx.PutDocument(doc, cs, nil); err != nil {
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

// addText adds a one-passage text file name to db's first folder.
func addText(t *testing.T, db *store.DB, name, text string) {
	t.Helper()
	ctx := context.Background()
	fs, err := db.Folders(ctx)
	if err != nil || len(fs) == 0 {
		t.Fatalf("folders: %v, %v", fs, err)
	}
	doc := store.Document{FolderID: fs[0].ID, Path: fs[0].Path + "/" + name, Hash: name, Format: "text"}
	if _, _, err := db.PutDocument(ctx, doc, []chunk.Chunk{{Text: text}}, nil); err != nil {
		t.Fatal(err)
	}
}

func resultIDs(rs []Result) []int64 {
	var ids []int64
	for _, r := range rs {
		ids = append(ids, r.ChunkID)
	}
	return ids
}

// A misspelt word never empties the results, on any keyword path: FTS5
// with its rare-first pruning (over pruneFrom chunks), FTS5 with a
// filter, and the in-memory index; each searches the corrected word and
// says so. Exact searches the words as typed.
func TestATypoIsCorrectedOnEveryKeywordPath(t *testing.T) {
	ctx := context.Background()
	db := typoStore(t, 12000)
	kix := bm25.New(db)
	defer kix.Close()
	if err := kix.Sync(ctx); err != nil {
		t.Fatal(err)
	}
	p := DefaultParams()
	p.TopK = 10
	plain, fast := New(db, nil, nil), New(db, nil, nil).WithKeywordIndex(kix)
	want, err := plain.Search(ctx, Request{Query: "copy files recursively", Params: p})
	if err != nil || len(want.Results) == 0 {
		t.Fatalf("spelled right: %v, %v", want, err)
	}
	for name, s := range map[string]*Searcher{"fts5": plain, "index": fast} {
		r, err := s.Search(ctx, Request{Query: "copy files recursivly", Params: p})
		if err != nil {
			t.Fatal(err)
		}
		c := r.Candidates
		if len(c.Corrections) != 1 || c.Corrections[0].From != "recursivly" || c.Corrections[0].To != "recursively" || c.Query != "copy files recursively" {
			t.Fatalf("%s: corrections %+v, searched %q", name, c.Corrections, c.Query)
		}
		if !slices.Equal(resultIDs(r.Results), resultIDs(want.Results)) {
			t.Errorf("%s: %v, spelled right %v", name, resultIDs(r.Results), resultIDs(want.Results))
		}
		if got := SearchedFor(c.Query, c.Corrections); got != "Searched for: copy files recursively (you typed recursivly)" {
			t.Errorf("%s: %q", name, got)
		}
	}
	// With a filter (FTS5 alone): the same correction, the folder's results.
	f := domain.Filter{PathPrefixes: []string{"/a/"}}
	r, err := fast.Search(ctx, Request{Query: "copy files recursivly", Params: p, Filter: f})
	if err != nil || len(r.Results) == 0 || len(r.Candidates.Corrections) != 1 {
		t.Fatalf("filtered: %v results, %v, %+v", len(r.Results), err, r.Candidates.Corrections)
	}
	for _, x := range r.Results {
		if x.Path[:3] != "/a/" {
			t.Errorf("filtered result %s", x.Path)
		}
	}
	// Exact: searched as typed. The word no passage holds selects nothing,
	// but never empties the list: the other words still find passages.
	for name, s := range map[string]*Searcher{"fts5": plain, "index": fast} {
		r, err := s.Search(ctx, Request{Query: "copy files recursivly", Params: p, Exact: true})
		if err != nil || len(r.Candidates.Corrections) != 0 || r.Candidates.Query != "copy files recursivly" {
			t.Fatalf("%s exact: %v, %+v", name, err, r.Candidates)
		}
		if len(r.Results) == 0 {
			t.Errorf("%s exact: no results", name)
		}
	}
	// A word the knowledge base holds, however rarely, is never corrected.
	r, err = plain.Search(ctx, Request{Query: "zeolitte filter", Params: p})
	if err != nil || len(r.Candidates.Corrections) != 0 {
		t.Fatalf("rare word: %v, %+v", err, r.Candidates.Corrections)
	}
}

// Kinds of slip: a dropped, doubled or swapped letter and a neighbouring
// key are corrected; a short word is not; a long one also for any letter.
func TestEditsAreTheSlipsPeopleMake(t *testing.T) {
	has := func(es []edit, w string) bool {
		return slices.ContainsFunc(es, func(e edit) bool { return e.word == w })
	}
	for typo, right := range map[string]string{"recursivly": "recursively", "numberr": "number", "recieve": "receive", "sprted": "sorted", "directroy": "directory"} {
		if !has(edits(typo), right) {
			t.Errorf("%s: no %s among its edits", typo, right)
		}
	}
	if has(edits("perus"), "perls") { // s and l are far apart on the keyboard
		t.Error("a far key in a short word")
	}
	if has(edits("revolution"), "evolution") || has(edits("xsort"), "sort") || !has(edits("rceive"), "creive") {
		t.Error("the first letter is kept, but swapped with the second")
	}
	if has(edits("revolution"), "resolution") || !has(edits("directorty"), "directory") { // long: a stray letter, never any letter for another
		t.Error("a long word's edits")
	}
	if correctable(ParseTerms("peru")[0]) || !correctable(ParseTerms("recursivly")[0]) || correctable(ParseTerms("-rf")[0]) {
		t.Error("correctable")
	}
}

// Words side by side in the question rank a passage that holds them side
// by side above one that BM25 prefers (shorter) but holds them apart.
func TestAPhraseBeatsScatteredWords(t *testing.T) {
	ctx := context.Background()
	db, err := store.Open(filepath.Join(t.TempDir(), "p.db"), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	f, _ := db.AddFolder(ctx, "/p")
	docs := map[string]string{
		"/p/apart.txt":    "line of text, then numbers",
		"/p/together.txt": "prefix each output line with its line numbers in the input file",
	}
	for path, text := range docs {
		if _, _, err := db.PutDocument(ctx, store.Document{FolderID: f.ID, Path: path, Hash: "h", Format: "text"}, []chunk.Chunk{{Text: text}}, nil); err != nil {
			t.Fatal(err)
		}
	}
	r, err := New(db, nil, nil).Search(ctx, Request{Query: "line numbers", Params: DefaultParams()})
	if err != nil || len(r.Results) != 2 {
		t.Fatalf("%v, %v", r, err)
	}
	if r.Results[0].Path != "/p/together.txt" || r.Results[0].BM25Rank != 2 || r.Results[0].Phrase != 1 || r.Results[1].Phrase != 0 {
		t.Errorf("first %s (bm25 rank %d, phrase %v), second phrase %v", r.Results[0].Path, r.Results[0].BM25Rank, r.Results[0].Phrase, r.Results[1].Phrase)
	}
}

// Over pruneFrom chunks both keyword paths prune frequent terms alike
// (RareFirst in FTS5, the same mark in the in-memory index), and fill the
// pool with the plain OR's passages when too few hold a rarer term: one
// list, whichever answers.
func TestBothKeywordPathsPruneAlike(t *testing.T) {
	ctx := context.Background()
	db := typoStore(t, 12000)
	kix := bm25.New(db)
	defer kix.Close()
	if err := kix.Sync(ctx); err != nil {
		t.Fatal(err)
	}
	plain, fast := New(db, nil, nil), New(db, nil, nil).WithKeywordIndex(kix)
	for _, q := range []string{"pump valve recursively", "pressure sensor battery cable", "copy directories recursively", "firmware note 77", "manual reset error"} {
		terms := keywordTerms(ParseTerms(q))
		for _, pool := range []int{5, 60} {
			a, err := plain.st.Keyword(ctx, terms, pool, domain.Filter{})
			if err != nil {
				t.Fatal(err)
			}
			b, err := fast.st.Keyword(ctx, terms, pool, domain.Filter{})
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(hitIDs(a), hitIDs(b)) {
				t.Errorf("%q, pool %d: FTS5 %v, index %v", q, pool, hitIDs(a), hitIDs(b))
			}
		}
	}
}

// An irregular form the index cannot stem to its base ("ran", "brought")
// weighs as its base does, and is neither absent from the knowledge base
// nor corrected as a slip: passages that say "run" hold it (irregular.go).
func TestAnIrregularFormWeighsAsItsBase(t *testing.T) {
	ctx := context.Background()
	db := typoStore(t, 1000)
	addText(t, db, "run.txt", "run the pump twice, then bring the valve back")
	s := New(db, nil, nil)
	for q, base := range map[string]string{"the pump ran twice": "run the pump", "the valve was brought back": "bring the valve"} {
		r, err := s.Search(ctx, Request{Query: q, Params: DefaultParams()})
		if err != nil {
			t.Fatal(err)
		}
		c := r.Candidates
		rb, err := s.Search(ctx, Request{Query: strings.Replace(strings.Replace(q, "ran", "run", 1), "brought", "bring", 1), Params: DefaultParams()})
		if err != nil {
			t.Fatal(err)
		}
		if slices.Contains(c.Absent, true) || len(c.Corrections) > 0 || len(c.Weights) != len(rb.Candidates.Weights) {
			t.Fatalf("%q: absent %v, corrections %v", q, c.Absent, c.Corrections)
		}
		for i := range c.Weights {
			if c.Weights[i] != rb.Candidates.Weights[i] {
				t.Errorf("%q: %s weighs %.2f, its base %.2f", q, c.Terms[i], c.Weights[i], rb.Candidates.Weights[i])
			}
		}
		if len(r.Results) == 0 || !strings.Contains(r.Results[0].Text, base) || r.Results[0].Relevance != 1 {
			t.Errorf("%q: first result %+v", q, r.Results)
		}
	}
}

// No slip is corrected into half a contraction: one slip from "washing" is
// "wasning", whose stem is that of the documents' "wasn't"; the typed word
// stays, a word no passage holds, and nothing says it was corrected.
func TestNoCorrectionIsHalfAContraction(t *testing.T) {
	ctx := context.Background()
	db := typoStore(t, 1000)
	addText(t, db, "wasn.txt", "the valve wasn't reset after the pump test")
	s := New(db, nil, nil)
	r, err := s.Search(ctx, Request{Query: "washing the valve", Params: DefaultParams()})
	if err != nil {
		t.Fatal(err)
	}
	c := r.Candidates
	if len(c.Corrections) != 0 || c.Terms[0].Words() != "washing" || !c.Absent[0] || c.Query != "washing the valve" {
		t.Errorf("corrections %v, terms %v, absent %v, query %q", c.Corrections, c.Terms, c.Absent, c.Query)
	}
	// A slip from a word the documents hold is corrected.
	r, err = s.Search(ctx, Request{Query: "the vlave", Params: DefaultParams()})
	if err != nil {
		t.Fatal(err)
	}
	if cs := r.Candidates.Corrections; len(cs) != 1 || cs[0].To != "valve" {
		t.Errorf("vlave: corrections %v", cs)
	}
}

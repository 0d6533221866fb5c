package collection

import (
	"context"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"cairn/core/chunk"
	"cairn/core/domain"
	"cairn/core/store"
)

// operatorFixture: files of several passages each, so that "both X and Y"
// can hold X in one passage and Y in another, and words that the index's
// stemmer joins to others ("locale" and "local", "locales").
var operatorFixture = []struct {
	path, date string
	passages   []string
}{
	{"/ops/a.txt", "2023-01-10", []string{"Compress with gzip.", "Kerberos tickets are renewed.", "No password is needed."}},
	{"/ops/b.txt", "2023-06-01", []string{"Use bzip2 for a better ratio.", "A password is asked."}},
	{"/ops/c.txt", "2024-02-01", []string{"gzip and bzip2 both work."}},
	{"/ops/d.md", "2024-05-01", []string{"Kerberos and password in one passage."}},
	{"/ops/e.html", "2022-03-03", []string{"The LOCALE is set by LANG."}},
	{"/ops/f.txt", "2022-08-08", []string{"Local files only.", "The locales are listed."}},
	{"/ops/g.pdf", "2024-01-05", []string{"The gzip manual."}},
	{"/ops/h.txt", "2021-04-04", []string{"The locale_t type."}},
}

func operatorDB(t *testing.T) *store.DB {
	t.Helper()
	db, err := store.Open(filepath.Join(t.TempDir(), "ops.db"), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	ctx := context.Background()
	f, err := db.AddFolder(ctx, "/ops")
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range operatorFixture {
		mt, _ := time.ParseInLocation("2006-01-02", d.date, time.UTC)
		var cs []chunk.Chunk
		for i, p := range d.passages {
			cs = append(cs, chunk.Chunk{Text: p, End: len(p), LineStart: i + 1, LineEnd: i + 1})
		}
		ext := strings.TrimPrefix(filepath.Ext(d.path), ".")
		format := map[string]string{"txt": "text", "md": "markdown"}[ext]
		if format == "" {
			format = ext
		}
		if _, _, err := db.PutDocument(ctx, store.Document{FolderID: f.ID, Path: d.path, Hash: "h", Title: filepath.Base(d.path),
			Format: format, MTimeNS: mt.Add(12 * time.Hour).UnixNano()}, cs, nil); err != nil {
			t.Fatal(err)
		}
	}
	return db
}

// ask parses q, narrows it by the search's filter f as the engine does,
// and answers it over db.
func ask(t *testing.T, db *store.DB, q string, forms bool, f domain.Filter) *Result {
	t.Helper()
	p, ok := Parse(q, now, time.UTC, "")
	if !ok {
		t.Fatalf("%q: not read as a question about the collection", q)
	}
	p.Forms = p.Forms || forms
	p.Narrow(f)
	res, err := Answer(context.Background(), OverFile(db), p)
	if err != nil {
		t.Fatalf("%q: %v", q, err)
	}
	return res
}

func names(r *Result) []string {
	var out []string
	for _, f := range r.Files {
		out = append(out, filepath.Base(f.Path))
	}
	return out
}

// TestOperators: and, or, both, either, not, but not, type words and
// orders are read as such, never searched; "X and Y" is a file holding
// both, in any of its passages. Each answer is the exact list, in its
// order, with its exact statement.
func TestOperators(t *testing.T) {
	db := operatorDB(t)
	for _, tc := range []struct {
		q         string
		forms     bool
		want      []string
		statement string
	}{
		{q: "How many files mention gzip or bzip2?", want: []string{"a.txt", "b.txt", "c.txt", "g.pdf"},
			statement: "4 files contain 'gzip' or 'bzip2' (whole words, any case)."},
		{q: "Which files mention either gzip or bzip2?", want: []string{"a.txt", "b.txt", "c.txt", "g.pdf"}},
		// a.txt holds kerberos and password in two different passages.
		{q: "Which files mention both kerberos and password?", want: []string{"a.txt", "d.md"},
			statement: "2 files contain both 'kerberos' and 'password' (whole words, any case), anywhere in the file."},
		{q: "Which files mention kerberos and password?", want: []string{"a.txt", "d.md"}},
		{q: "Which files mention kerberos and also password?", want: []string{"a.txt", "d.md"}},
		{q: "Which files talk about kerberos?", want: []string{"a.txt", "d.md"}},
		{q: "Which files mention gzip as well as bzip2?", want: []string{"c.txt"}},
		{q: "Which files mention gzip, bzip2 or kerberos?", want: []string{"a.txt", "b.txt", "c.txt", "d.md", "g.pdf"},
			statement: "5 files contain 'gzip', 'bzip2' or 'kerberos' (whole words, any case)."},
		{q: "Which files mention kerberos but don't talk about password?", want: nil},
		{q: "Which files mention password but do not mention kerberos?", want: []string{"b.txt"}},
		{q: "Which files mention the words kerberos and password?", want: []string{"a.txt", "d.md"}},
		{q: "Which files don’t mention gzip?", want: []string{"b.txt", "d.md", "e.html", "f.txt", "h.txt"}},
		{q: "Which files mention gzip but not bzip2?", want: []string{"a.txt", "g.pdf"},
			statement: "2 files contain 'gzip' but not 'bzip2' (whole words, any case)."},
		{q: "Which files mention gzip not bzip2?", want: []string{"a.txt", "g.pdf"}},
		{q: "Which files mention gzip and not bzip2?", want: []string{"a.txt", "g.pdf"}},
		{q: "Which files do not mention gzip?", want: []string{"b.txt", "d.md", "e.html", "f.txt", "h.txt"},
			statement: "5 files do not contain 'gzip' (whole word, any case)."},
		{q: "Which files mention gzip in PDFs?", want: []string{"g.pdf"}, statement: "1 PDF file contains 'gzip' (whole word, any case)."},
		// Whole words by default, as grep -lwi counts: not "local", "locales" or "locale_t".
		{q: "How many files mention locale?", want: []string{"e.html"}, statement: "1 file contains 'locale' (whole word, any case)."},
		{q: "How many files mention locale?", forms: true, want: []string{"e.html", "f.txt", "h.txt"},
			statement: "3 files contain 'locale' (any form of the word)."},
		{q: "Which files mention kerberos, sorted by date?", want: []string{"d.md", "a.txt"},
			statement: "2 files contain 'kerberos' (whole word, any case), newest first."},
		{q: "List the files mentioning gzip, oldest first", want: []string{"a.txt", "g.pdf", "c.txt"}},
		{q: "Which files mention gzip (newest first)?", want: []string{"c.txt", "g.pdf", "a.txt"}},
		{q: "List the files sorted by date", want: []string{"d.md", "c.txt", "g.pdf", "b.txt", "a.txt", "f.txt", "e.html", "h.txt"}},
		// A date clause after the words, or before them, is a date clause:
		// "were" is not searched.
		{q: "Which files mention gzip and were modified after 2023?", want: []string{"c.txt", "g.pdf"},
			statement: "2 files contain 'gzip' (whole word, any case), modified since 2024-01-01."},
		{q: "Which files that mention gzip were changed in 2024?", want: []string{"c.txt", "g.pdf"}},
		{q: "Which files were modified in 2024 and mention gzip?", want: []string{"c.txt", "g.pdf"}},
		{q: "In how many files does the word password appear?", want: []string{"a.txt", "b.txt", "d.md"},
			statement: "3 files contain 'password' (whole word, any case)."},
		{q: "files mentioning kerberos", want: []string{"a.txt", "d.md"}},
		{q: "Find the files that mention bzip2", want: []string{"b.txt", "c.txt"}},
		{q: "What are the files that mention bzip2?", want: []string{"b.txt", "c.txt"}},
		{q: "Which files have the word kerberos?", want: []string{"a.txt", "d.md"}},
	} {
		res := ask(t, db, tc.q, tc.forms, domain.Filter{})
		if got := names(res); !slices.Equal(got, tc.want) || res.Total != len(tc.want) {
			t.Errorf("%q (forms %v): got %d %v, want %v (%s)", tc.q, tc.forms, res.Total, got, tc.want, res.Statement)
		}
		if tc.statement != "" && res.Statement != tc.statement {
			t.Errorf("%q: statement %q, want %q", tc.q, res.Statement, tc.statement)
		}
	}
}

// TestSearchFilterAndQuestionIntersect: the search's own filter (flags)
// narrows the question and is named in the statement; where the two
// cannot both hold, nothing is counted and the statement says why instead
// of answering "0 files".
func TestSearchFilterAndQuestionIntersect(t *testing.T) {
	db := operatorDB(t)
	res := ask(t, db, "How many files mention gzip?", false, domain.Filter{Types: []string{"pdf"}})
	if got := names(res); !slices.Equal(got, []string{"g.pdf"}) ||
		res.Statement != "1 file contains 'gzip' (whole word, any case). Within the search's filter: type pdf." {
		t.Errorf("gzip within --type pdf: %v, %q", got, res.Statement)
	}
	res = ask(t, db, "How many PDFs mention gzip?", false, domain.Filter{Types: []string{"html"}})
	if res.Total != 0 || len(res.Files) != 0 || len(res.Question.Conflicts) != 1 ||
		res.Statement != "Nothing counted: the question asks for PDF files and the search's filter for html files, and no file can be both." {
		t.Errorf("PDFs with --type html: %d files, %q", res.Total, res.Statement)
	}
	since := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	res = ask(t, db, "How many files were modified in 2023?", false, domain.Filter{Since: since})
	if res.Total != 0 || res.Statement != "Nothing counted: the question asks for files modified in 2023 and the search's filter for files modified since 2025-01-01, and no file can be both." {
		t.Errorf("2023 with --since 2025: %d files, %q", res.Total, res.Statement)
	}
	// Dates that overlap narrow each other.
	res = ask(t, db, "How many files were modified in 2023?", false, domain.Filter{Since: time.Date(2023, 6, 1, 0, 0, 0, 0, time.UTC)})
	if got := names(res); !slices.Equal(got, []string{"b.txt"}) || !strings.HasSuffix(res.Statement, "Within the search's filter: modified since 2023-06-01.") {
		t.Errorf("2023 with --since 2023-06: %v, %q", got, res.Statement)
	}
	// Two type words in the question that exclude each other.
	p, ok := Parse("How many PDFs mention gzip in markdown files?", now, time.UTC, "")
	if !ok || len(p.Conflicts) != 1 {
		t.Errorf("PDFs in markdown files: %v %+v", ok, p.Conflicts)
	}
}

// TestLooksLikeACount: a question shaped like a count or a list of files
// that the rules cannot read is told apart from an ordinary question, so
// that its answer says nothing was counted.
func TestLooksLikeACount(t *testing.T) {
	for _, q := range []string{"How many man pages mention signal?", "Which files mention gzip and bzip2 or xz?",
		"How many files mention the signal SIGINT(2)?"} {
		if _, ok := Parse(q, now, time.UTC, ""); ok {
			t.Errorf("%q: read as a question about the collection", q)
		}
		if !LooksLike(q) {
			t.Errorf("%q: not taken for a count that could not be read", q)
		}
	}
	for _, q := range ordinaryQuestions {
		if LooksLike(q) {
			t.Errorf("ordinary question %q taken for a count", q)
		}
	}
}

func TestHoldsWhole(t *testing.T) {
	for _, tc := range []struct {
		text, term string
		want       bool
	}{
		{"The LOCALE is set", "locale", true},
		{"locale-gen", "locale", true},
		{"locales", "locale", false},
		{"local", "locale", false},
		{"locale_t", "locale", false},
		{"Audit report 2023", "audit report", true},
		{"audit\n  report", "audit report", true},
		{"audit reports", "audit report", false},
		{"an e-mail", "e-mail", true},
		{"café au lait", "café", true},
		{"xgzip gzip", "gzip", true},
	} {
		if got := HoldsWhole(tc.text, tc.term); got != tc.want {
			t.Errorf("HoldsWhole(%q, %q) = %v", tc.text, tc.term, got)
		}
	}
}

// FuzzParse: any question, however hostile (long runs of operators,
// quotes left open, date words without dates), is read or refused in
// bounded time, never with a panic, and a question read has something to
// count: a kind and, when listed by words, words that are not empty.
func FuzzParse(f *testing.F) {
	for _, q := range append([]string{"Which files mention gzip and were modified after 2023?",
		"In how many files does the word password appear?", "files mentioning proxy",
		"Which files mention \"hard link\" but not 'soft', newest first?", "How many PDFs from March 2024 in ~/Contracts?",
		"which which which and and or or not not", "In how many files does appear", "files mentioning"}, ordinaryQuestions...) {
		f.Add(q)
	}
	f.Fuzz(func(t *testing.T, q string) {
		p, ok := Parse(q, now, time.UTC, "/home/me")
		LooksLike(q)
		if !ok {
			return
		}
		if p.Kind != Count && p.Kind != List {
			t.Fatalf("%q: kind %q", q, p.Kind)
		}
		for _, group := range p.Terms {
			for _, term := range group {
				if strings.TrimSpace(term) == "" {
					t.Fatalf("%q: an empty term in %q", q, p.Terms)
				}
			}
		}
	})
}

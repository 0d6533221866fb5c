package bench

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"html"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"time"

	"cairn/core/answer"
	"cairn/core/collection"
	"cairn/core/search"
)

// A collection set asks questions about the collection as a whole ("How
// many files mention gzip or bzip2?") over documents of its own; its
// folder holds corpus.txt (as a QuestionSet's) and collection.tsv, whose
// header says how a question's truth is written. The truth is computed
// here with grep -lwi over each file's text, never by Cairn's code, and
// each file's modification time is set by its place in corpus.txt
// (CollectionDate).

// CollectionQuestion is one question of a collection set and its truth.
type CollectionQuestion struct {
	ID, Text string
	Expr     string    // gzip|bzip2, kerberos&password, *!gnu, "hard link"
	Type     string    // txt, html, md, pdf; "" for any
	Since    time.Time // modified on or after; zero for any
	Until    time.Time // modified before; zero for any
	Order    string    // newest, oldest; "" for any order
	Conflict bool      // the flags exclude what the question asks for
	Flags    []string  // cairn ask's: --type html, --since 2025
}

// CollectionSet is a collection set read from its folder.
type CollectionSet struct {
	QuestionSet
	Questions []CollectionQuestion
}

// IsCollectionSet reports whether dir holds a collection set.
func IsCollectionSet(dir string) bool {
	_, err := os.Stat(filepath.Join(dir, "collection.tsv"))
	return err == nil
}

// ReadCollectionSet reads the collection set in dir.
func ReadCollectionSet(dir string) (CollectionSet, error) {
	qs, err := readSetCorpus(dir)
	cs := CollectionSet{QuestionSet: qs}
	if err != nil {
		return cs, err
	}
	err = eachLine(filepath.Join(dir, "collection.tsv"), func(n int, line string) error {
		cols := strings.Split(line, "\t")
		if len(cols) < 2 || len(cols) > 3 {
			return errors.New("want question<TAB>truth[<TAB>flags]")
		}
		q := CollectionQuestion{ID: fmt.Sprintf("c%02d", len(cs.Questions)+1), Text: strings.TrimSpace(cols[0])}
		if len(cols) == 3 {
			q.Flags = strings.Fields(cols[2])
		}
		truth := strings.TrimSpace(cols[1])
		if truth == "conflict" {
			q.Conflict = true
			cs.Questions = append(cs.Questions, q)
			return nil
		}
		// The expression first (a phrase holds spaces), then key=value.
		if strings.HasPrefix(truth, `"`) {
			end := strings.Index(truth[1:], `"`)
			if end < 0 {
				return fmt.Errorf("%q: an unclosed phrase", truth)
			}
			q.Expr, truth = truth[:end+2], truth[end+2:]
		} else {
			q.Expr, truth, _ = strings.Cut(truth, " ")
		}
		for _, kv := range strings.Fields(truth) {
			k, v, _ := strings.Cut(kv, "=")
			var err error
			switch k {
			case "type":
				q.Type = v
			case "since":
				q.Since, err = time.ParseInLocation("2006-01-02", v, time.Local)
			case "until":
				q.Until, err = time.ParseInLocation("2006-01-02", v, time.Local)
			case "order":
				if v != "newest" && v != "oldest" {
					err = fmt.Errorf("order %q: newest or oldest", v)
				}
				q.Order = v
			default:
				err = fmt.Errorf("%q: want type=, since=, until= or order=", kv)
			}
			if err != nil {
				return err
			}
		}
		cs.Questions = append(cs.Questions, q)
		return nil
	})
	if err == nil && (len(cs.Docs) == 0 || len(cs.Questions) == 0) {
		err = fmt.Errorf("collection set %s: no documents or no questions", dir)
	}
	return cs, err
}

// CollectionDate is the modification time the bench gives the i-th
// document of a collection set (from 0): noon, local time, on 2021-01-15
// plus 29×i days.
func CollectionDate(i int) time.Time {
	return time.Date(2021, 1, 15, 12, 0, 0, 0, time.Local).AddDate(0, 0, 29*i)
}

// CollectionResult is one question's outcome.
type CollectionResult struct {
	ID        string   `json:"id"`
	Question  string   `json:"question"`
	Flags     []string `json:"flags,omitempty"`
	Want      []string `json:"want"` // the files, in order when the question asks for one
	Conflict  bool     `json:"conflict_expected,omitempty"`
	Got       []string `json:"got"`
	Statement string   `json:"statement"`
	// Outcome: exact (the list, and its order when asked for; or a stated
	// conflict where one was expected), wrong (a count given as one that is
	// not the truth), not_counted (the answer said it could not count), or
	// silent (an ordinary answer, with no word that nothing was counted).
	Outcome string `json:"outcome"`
	// FormsExact: the answer with word forms counted (--word-forms) is
	// exact too.
	FormsExact bool    `json:"word_forms_exact"`
	MS         float64 `json:"ms"`
}

// CollectionReport is a collection set's score.
type CollectionReport struct {
	Set         string             `json:"set"`
	Files       int                `json:"files"`
	Chunks      int                `json:"chunks"`
	Questions   int                `json:"questions"`
	Exact       int                `json:"exact"`
	Wrong       int                `json:"wrong_counts"`
	NotCounted  int                `json:"not_counted_stated"`
	Silent      int                `json:"silent"`
	FormsExact  int                `json:"word_forms_exact"` // with --word-forms, the stemmer's forms counted
	MedianMS    float64            `json:"ask_ms_median"`
	Results     []CollectionResult `json:"results"`
	Detail      string             `json:"detail,omitempty"`
	ExactRate   float64            `json:"exact_rate"`
	FormsRate   float64            `json:"word_forms_exact_rate"`
	IndexSecond float64            `json:"index_seconds"`
}

// CollectionBench builds the set's documents under dir, dates them, works
// out each question's truth with grep, indexes them (in st) and asks each
// question twice: as asked, and with word forms.
func CollectionBench(ctx context.Context, st QualityStore, setDir, dir, work string, log io.Writer) (CollectionReport, error) {
	cs, err := ReadCollectionSet(setDir)
	rep := CollectionReport{Set: cs.Name}
	if err != nil {
		return rep, err
	}
	fmt.Fprintf(log, "collection set %s: %d documents, %d questions\n", cs.Name, len(cs.Docs), len(cs.Questions))
	docs, err := BuildSetCorpus(ctx, cs.QuestionSet, filepath.Join(dir, "sets", cs.Name))
	if err != nil {
		return rep, err
	}
	mtime := map[string]time.Time{}
	for i, d := range cs.Docs {
		name, t := setFile(d), CollectionDate(i)
		if err := os.Chtimes(filepath.Join(docs, name), t, t); err != nil {
			return rep, err
		}
		mtime[name] = t
	}
	tr, err := newTruth(docs, filepath.Join(work, "collection-text"))
	if err != nil {
		return rep, err
	}
	ix, err := IndexFresh(ctx, st, filepath.Join(work, "collection.db"), docs, filepath.Join(work, "home"))
	if err != nil {
		return rep, err
	}
	defer removeDB(filepath.Join(work, "collection.db"))
	defer ix.Close()
	rep.Files, rep.Chunks, rep.IndexSecond = ix.Files, ix.Chunks, ix.Took.Seconds()
	var ms []float64
	for _, q := range cs.Questions {
		want, err := tr.files(ctx, q, mtime)
		if err != nil {
			return rep, fmt.Errorf("question %s %q: %w", q.ID, q.Text, err)
		}
		r := CollectionResult{ID: q.ID, Question: q.Text, Flags: q.Flags, Want: want, Conflict: q.Conflict}
		for _, forms := range []bool{false, true} {
			req := ix.SearchRequest(q.Text)
			req.WordForms = forms
			spec, err := collectionFlags(q.Flags)
			if err == nil {
				req.Filter, err = spec.Filter(time.Local)
			}
			if err != nil {
				return rep, fmt.Errorf("question %s: %w", q.ID, err)
			}
			t := time.Now()
			ans, err := ix.Ask(ctx, req, nil)
			if err != nil {
				return rep, fmt.Errorf("question %s %q: %w", q.ID, q.Text, err)
			}
			outcome, got, statement := scoreCollection(q, want, ans)
			if forms {
				r.FormsExact = outcome == "exact"
				continue
			}
			ms = append(ms, float64(time.Since(t).Microseconds())/1000)
			r.Outcome, r.Got, r.Statement = outcome, got, statement
		}
		switch r.Outcome {
		case "exact":
			rep.Exact++
		case "wrong":
			rep.Wrong++
		case "not_counted":
			rep.NotCounted++
		default:
			rep.Silent++
		}
		if r.FormsExact {
			rep.FormsExact++
		}
		rep.Results = append(rep.Results, r)
	}
	rep.Questions = len(rep.Results)
	rep.ExactRate = float64(rep.Exact) / float64(max(1, rep.Questions))
	rep.FormsRate = float64(rep.FormsExact) / float64(max(1, rep.Questions))
	slices.Sort(ms)
	if len(ms) > 0 {
		rep.MedianMS = ms[len(ms)/2]
	}
	return rep, nil
}

// collectionFlags reads a question's flags as cairn ask reads its own.
func collectionFlags(flags []string) (f search.FilterSpec, err error) {
	for i := 0; i < len(flags); i += 2 {
		if i+1 >= len(flags) {
			return f, fmt.Errorf("flag %s without a value", flags[i])
		}
		switch v := flags[i+1]; flags[i] {
		case "--type":
			f.Types = v
		case "--since":
			f.Since = v
		case "--until":
			f.Until = v
		case "--folder":
			f.Folders = v
		default:
			return f, fmt.Errorf("flag %s: the set knows --type, --since, --until and --folder", flags[i])
		}
	}
	return f, nil
}

// scoreCollection compares an answer with the truth: the files' names,
// and their order when the question asks for one.
func scoreCollection(q CollectionQuestion, want []string, ans *answer.Answer) (outcome string, got []string, statement string) {
	if ans.Mode != answer.ModeCollection || ans.Collection == nil {
		if strings.HasPrefix(ans.Text, collection.NotCounted) {
			return "not_counted", nil, collection.NotCounted
		}
		return "silent", nil, firstLine(ans.Text)
	}
	res := ans.Collection
	for _, f := range res.Files {
		got = append(got, filepath.Base(f.Path))
	}
	if q.Conflict {
		if len(res.Question.Conflicts) > 0 && res.Total == 0 && len(got) == 0 {
			return "exact", got, res.Statement
		}
		return "wrong", got, res.Statement
	}
	cmpGot, cmpWant := slices.Clone(got), want
	if q.Order == "" {
		slices.Sort(cmpGot)
	}
	if res.Total == len(want) && slices.Equal(cmpGot, cmpWant) {
		return "exact", got, res.Statement
	}
	return "wrong", got, res.Statement
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(s, "\n")
	return s
}

// truth answers a collection set's questions with grep over the text of
// its files: man pages and Markdown as they are, HTML without its tags.
type truth struct {
	text  string // the folder of the files' text
	names []string
	words map[string][]string // a word or phrase's files, from grep
}

// A page's text is what its body shows: not its comments, head (the
// title is the file's name, not what it contains), scripts or styles, nor
// its tags.
var (
	htmlHidden = regexp.MustCompile(`(?is)<!--.*?-->|<head\b.*?</head>|<script\b.*?</script>|<style\b.*?</style>`)
	htmlTag    = regexp.MustCompile(`(?s)<[^>]*>`)
)

func newTruth(docs, text string) (*truth, error) {
	if err := os.RemoveAll(text); err != nil {
		return nil, err
	}
	if err := os.MkdirAll(text, 0o755); err != nil {
		return nil, err
	}
	ents, err := os.ReadDir(docs)
	if err != nil {
		return nil, err
	}
	t := &truth{text: text, words: map[string][]string{}}
	for _, e := range ents {
		if e.IsDir() {
			continue // every file is indexed, the set's DONE mark too
		}
		b, err := os.ReadFile(filepath.Join(docs, e.Name()))
		if err != nil {
			return nil, err
		}
		if ext := strings.ToLower(filepath.Ext(e.Name())); ext == ".html" || ext == ".htm" {
			b = []byte(html.UnescapeString(htmlTag.ReplaceAllString(htmlHidden.ReplaceAllString(string(b), " "), " ")))
		}
		if err := os.WriteFile(filepath.Join(text, e.Name()), b, 0o644); err != nil {
			return nil, err
		}
		t.names = append(t.names, e.Name())
	}
	slices.Sort(t.names)
	return t, nil
}

// grep returns the files holding w as whole words, in any case: grep -lwi;
// a phrase's words in a row, apart only by spaces, punctuation or line
// breaks (man pages justify their lines with runs of spaces and break
// them anywhere), as grep -lwizE 'hard[^[:alnum:]_]+link'.
func (t *truth) grep(ctx context.Context, w string) ([]string, error) {
	w = strings.Trim(w, `"`)
	if fs, ok := t.words[w]; ok {
		return fs, nil
	}
	cmd := exec.CommandContext(ctx, "grep", "-lwiF", "--", w)
	if ws := strings.Fields(w); len(ws) > 1 {
		for i, x := range ws {
			ws[i] = regexp.QuoteMeta(x)
		}
		cmd = exec.CommandContext(ctx, "grep", "-lwizE", "--", strings.Join(ws, "[^[:alnum:]_]+"))
	}
	cmd.Args = append(cmd.Args, t.names...)
	cmd.Dir = t.text
	cmd.Env = append(os.Environ(), "LC_ALL=C.UTF-8")
	out, err := cmd.Output()
	var ee *exec.ExitError
	if err != nil && !(errors.As(err, &ee) && ee.ExitCode() == 1) { // 1: no file holds it
		return nil, fmt.Errorf("grep %q: %w", w, err)
	}
	var fs []string
	for _, l := range strings.Split(string(bytes.TrimSpace(out)), "\n") {
		if l != "" {
			fs = append(fs, l)
		}
	}
	t.words[w] = fs
	return fs, nil
}

// files is q's truth: the files its expression, type and dates select,
// in the order it asks for (else by name).
func (t *truth) files(ctx context.Context, q CollectionQuestion, mtime map[string]time.Time) ([]string, error) {
	if q.Conflict {
		return nil, nil
	}
	// Operands and operators, left to right: a|b&c!d.
	set := map[string]bool{}
	op := byte('|')
	expr := q.Expr
	for expr != "" {
		var word string
		if strings.HasPrefix(expr, `"`) {
			end := strings.Index(expr[1:], `"`) + 2
			word, expr = expr[:end], expr[end:]
		} else {
			i := strings.IndexAny(expr, "|&!")
			if i < 0 {
				i = len(expr)
			}
			word, expr = expr[:i], expr[i:]
		}
		var in []string
		if word == "*" {
			in = t.names
		} else {
			var err error
			if in, err = t.grep(ctx, word); err != nil {
				return nil, err
			}
		}
		has := map[string]bool{}
		for _, f := range in {
			has[f] = true
		}
		switch op {
		case '|':
			for f := range has {
				set[f] = true
			}
		case '&':
			for f := range set {
				if !has[f] {
					delete(set, f)
				}
			}
		case '!':
			for f := range has {
				delete(set, f)
			}
		}
		if expr != "" {
			op, expr = expr[0], expr[1:]
		}
	}
	var out []string
	for f := range set {
		m := mtime[f]
		switch {
		case q.Type != "" && strings.TrimPrefix(filepath.Ext(f), ".") != q.Type,
			!q.Since.IsZero() && m.Before(q.Since),
			!q.Until.IsZero() && !m.Before(q.Until):
			continue
		}
		out = append(out, f)
	}
	slices.SortFunc(out, func(a, b string) int {
		switch q.Order {
		case "newest":
			return mtime[b].Compare(mtime[a])
		case "oldest":
			return mtime[a].Compare(mtime[b])
		}
		return strings.Compare(a, b)
	})
	return out, nil
}

// PrintCollection prints a collection set's score and every question not
// answered exactly.
func PrintCollection(w io.Writer, r CollectionReport) {
	pct := func(n int) string {
		return fmt.Sprintf("%.1f%% (%d/%d)", 100*float64(n)/float64(max(1, r.Questions)), n, r.Questions)
	}
	fmt.Fprintf(w, "\n### %s: questions about the collection (%d files, %d chunks; truth from grep -lwi)\n\n", r.Set, r.Files, r.Chunks)
	fmt.Fprintln(w, "| figure | Cairn | Cairn with --word-forms | target |")
	fmt.Fprintln(w, "|---|---|---|---|")
	fmt.Fprintf(w, "| exact count and list | %s | %s | ≥ 95%% |\n", pct(r.Exact), pct(r.FormsExact))
	fmt.Fprintf(w, "| wrong count given as one | %s | | 0 |\n", pct(r.Wrong))
	fmt.Fprintf(w, "| not counted, said so | %s | | |\n", pct(r.NotCounted))
	fmt.Fprintf(w, "| not counted, not said | %s | | 0 |\n", pct(r.Silent))
	fmt.Fprintf(w, "\nMedian time per question: %.0f ms.\n", r.MedianMS)
	for _, q := range r.Results {
		if q.Outcome == "exact" {
			continue
		}
		fmt.Fprintf(w, "- %s (%s) %q %s\n  want %d %v\n  got  %d %v: %s\n", q.ID, q.Outcome, q.Question, strings.Join(q.Flags, " "),
			len(q.Want), q.Want, len(q.Got), q.Got, q.Statement)
	}
}

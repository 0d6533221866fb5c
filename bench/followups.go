package bench

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"cairn/core/answer"
)

// followUpsFile names the pairs of a follow-up set: a folder holding it
// (and corpus.txt, as a QuestionSet's) is asked as a conversation, not as
// single questions.
const followUpsFile = "followups.tsv"

// FollowUpPair is a question and its follow-up, asked one after the other
// in a conversation, with the follow-up spelled out in full to be asked
// alone (the baseline), the document that answers it and its answer string.
type FollowUpPair struct {
	ID       string
	First    string
	FollowUp string
	Alone    string
	Doc      string // the document's name: man:NAME's NAME
	Answer   string
}

// FollowUpSet is a follow-up set: its documents (as a QuestionSet's,
// without questions) and its pairs.
type FollowUpSet struct {
	QuestionSet
	Pairs []FollowUpPair
}

// IsFollowUpSet reports whether dir holds a follow-up set.
func IsFollowUpSet(dir string) bool {
	_, err := os.Stat(filepath.Join(dir, followUpsFile))
	return err == nil
}

// ReadFollowUpSet reads the follow-up set in dir: corpus.txt as a
// QuestionSet's, and followups.tsv, a pair a line: first question<TAB>
// follow-up<TAB>the follow-up spelled out<TAB>document<TAB>answer string.
func ReadFollowUpSet(dir string) (FollowUpSet, error) {
	qs, err := readSetCorpus(dir)
	if err != nil {
		return FollowUpSet{}, err
	}
	fs := FollowUpSet{QuestionSet: qs}
	err = eachLine(filepath.Join(dir, followUpsFile), func(n int, line string) error {
		f := strings.Split(line, "\t")
		if len(f) != 5 {
			return fmt.Errorf("want first question<TAB>follow-up<TAB>spelled out<TAB>document<TAB>answer string, got %d fields", len(f))
		}
		for i := range f {
			if f[i] = strings.TrimSpace(f[i]); f[i] == "" {
				return fmt.Errorf("field %d is empty", i+1)
			}
		}
		fs.Pairs = append(fs.Pairs, FollowUpPair{ID: fmt.Sprintf("f%02d", len(fs.Pairs)+1),
			First: f[0], FollowUp: f[1], Alone: f[2], Doc: f[3], Answer: f[4]})
		return nil
	})
	if err == nil && (len(fs.Docs) == 0 || len(fs.Pairs) == 0) {
		err = fmt.Errorf("follow-up set %s: no documents or no pairs", dir)
	}
	return fs, err
}

// FollowUpResult is one pair's outcome, for the detail file.
type FollowUpResult struct {
	ID       string `json:"id"`
	First    string `json:"first"`
	FollowUp string `json:"follow_up"`
	Want     string `json:"want_document"`
	Answer   string `json:"answer_string"`
	// Searched is what the follow-up searched (the answer's Query).
	Searched string `json:"searched"`
	// Read: the answer said the follow-up was read as one (Answer.FollowUp).
	Read     bool   `json:"read_as_follow_up"`
	Top      string `json:"top_document"` // of the follow-up's first source
	DocFirst bool   `json:"document_first"`
	Hit      bool   `json:"answer_hit"`
	Text     string `json:"answer"`
	// Carried is the name of a document of the set that the first question
	// names and the follow-up does not, still searched when the follow-up
	// names another one; "" when none is.
	Carried   string `json:"carried_subject,omitempty"`
	Alone     string `json:"alone"`
	AloneTop  string `json:"alone_top_document"`
	AloneDoc  bool   `json:"alone_document_first"`
	AloneHit  bool   `json:"alone_answer_hit"`
	AloneText string `json:"alone_answer"`
}

// FollowUpReport is a follow-up set's figures: the follow-ups asked in
// their conversations, and the same questions asked alone, spelled out.
type FollowUpReport struct {
	Set           string `json:"set"`
	Files         int    `json:"files"`
	Chunks        int    `json:"chunks"`
	Pairs         int    `json:"pairs"`
	DocFirst      int    `json:"document_first"`
	Hits          int    `json:"answer_hits"`
	Read          int    `json:"read_as_follow_ups"`
	AloneDocFirst int    `json:"alone_document_first"`
	AloneHits     int    `json:"alone_answer_hits"`
	// NewSubject counts the pairs whose follow-up names a document of the
	// set the first question does not, after one that names one; Carried,
	// those whose search still held the first question's.
	NewSubject int              `json:"new_subject"`
	Carried    int              `json:"old_subject_carried"`
	Results    []FollowUpResult `json:"results"`
}

// FollowUpBench indexes the set's documents (built under dir) with a new
// user's settings and asks each pair as `cairn ask --new` then `cairn ask
// --continue` do (Engine.AskInThread, a new conversation per pair), and,
// in the same run, the follow-up spelled out, asked alone (Engine.Ask).
func FollowUpBench(ctx context.Context, st QualityStore, fs FollowUpSet, dir, work string, log io.Writer) (FollowUpReport, error) {
	rep := FollowUpReport{Set: fs.Name, Pairs: len(fs.Pairs)}
	docs, err := BuildSetCorpus(ctx, fs.QuestionSet, filepath.Join(dir, "sets", fs.Name))
	if err != nil {
		return rep, err
	}
	work = filepath.Join(work, "set-"+fs.Name)
	db := filepath.Join(work, "docs.db")
	e, err := IndexFresh(ctx, st, db, docs, filepath.Join(work, "home"))
	if err != nil {
		return rep, err
	}
	defer removeDB(db)
	defer e.Close()
	rep.Files, rep.Chunks = e.Files, e.Chunks
	fmt.Fprintf(log, "follow-ups: %d files, %d chunks indexed in %.1f s; asking %d pairs\n", e.Files, e.Chunks, e.Took.Seconds(), len(fs.Pairs))
	top := func(a *answer.Answer) string {
		if len(a.Sources) == 0 {
			return ""
		}
		return strings.TrimSuffix(filepath.Base(a.Sources[0].Path), ".txt")
	}
	for _, p := range fs.Pairs {
		first, err := e.AskInThread(ctx, 0, e.SearchRequest(p.First), nil)
		if err != nil {
			return rep, fmt.Errorf("pair %s, first question: %w", p.ID, err)
		}
		if first.Thread == 0 {
			return rep, fmt.Errorf("pair %s: the first question was not saved in a conversation: %s", p.ID, strings.Join(first.Notes, " "))
		}
		fu, err := e.AskInThread(ctx, first.Thread, e.SearchRequest(p.FollowUp), nil)
		if err != nil {
			return rep, fmt.Errorf("pair %s, follow-up: %w", p.ID, err)
		}
		alone, err := e.Ask(ctx, e.SearchRequest(p.Alone), nil)
		if err != nil {
			return rep, fmt.Errorf("pair %s, asked alone: %w", p.ID, err)
		}
		r := FollowUpResult{ID: p.ID, First: p.First, FollowUp: p.FollowUp, Want: p.Doc, Answer: p.Answer,
			Searched: fu.Query, Top: top(fu), Text: fu.Text, Alone: p.Alone, AloneTop: top(alone), AloneText: alone.Text}
		r.DocFirst, r.AloneDoc = r.Top == p.Doc, r.AloneTop == p.Doc
		r.Read = fu.FollowUp != nil
		rep.Read += btoi(r.Read)
		r.Hit = !fu.Refused && Contains(fu.Text, p.Answer)
		r.AloneHit = !alone.Refused && Contains(alone.Text, p.Answer)
		if old, ok := carriedSubject(fs.Docs, p, fu.Query); ok {
			rep.NewSubject++
			r.Carried = old
			rep.Carried += btoi(old != "")
		}
		rep.DocFirst += btoi(r.DocFirst)
		rep.Hits += btoi(r.Hit)
		rep.AloneDocFirst += btoi(r.AloneDoc)
		rep.AloneHits += btoi(r.AloneHit)
		rep.Results = append(rep.Results, r)
	}
	return rep, nil
}

// carriedSubject reports whether p's follow-up names a document of docs
// (man:NAME) that its first question does not, after a first question that
// names one the follow-up does not, and if so which of the latter the
// follow-up's search still held ("" when none).
func carriedSubject(docs []string, p FollowUpPair, searched string) (string, bool) {
	words := func(s string) map[string]bool {
		m := map[string]bool{}
		for _, w := range strings.FieldsFunc(strings.ToLower(s), func(r rune) bool {
			return !('a' <= r && r <= 'z' || '0' <= r && r <= '9')
		}) {
			m[w] = true
		}
		return m
	}
	first, fu, in := words(p.First), words(p.FollowUp), words(searched)
	var named, old []string
	for _, d := range docs {
		name, ok := strings.CutPrefix(d, "man:")
		if !ok {
			continue
		}
		switch {
		case fu[name] && !first[name]:
			named = append(named, name)
		case first[name] && !fu[name]:
			old = append(old, name)
		}
	}
	if len(named) == 0 || len(old) == 0 {
		return "", false
	}
	for _, o := range old {
		if in[o] {
			return o, true
		}
	}
	return "", true
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

// PrintFollowUps prints a follow-up set's table and the pairs whose
// follow-up missed the document or the answer string, with what it
// searched.
func PrintFollowUps(w io.Writer, r FollowUpReport) {
	pct := func(n int) string {
		return fmt.Sprintf("%.1f%% (%d/%d)", 100*float64(n)/float64(max(r.Pairs, 1)), n, r.Pairs)
	}
	fmt.Fprintf(w, "\n### %s: %d follow-up pairs over %d files (%d chunks)\n\n", r.Set, r.Pairs, r.Files, r.Chunks)
	fmt.Fprintln(w, "| figure | follow-up, in its conversation | the same question asked alone, spelled out | target |")
	fmt.Fprintln(w, "|---|---|---|---|")
	fmt.Fprintf(w, "| read as a follow-up (the answer says so) | %s | | |\n", pct(r.Read))
	fmt.Fprintf(w, "| right document first | %s | %s | ≥ 90%% |\n", pct(r.DocFirst), pct(r.AloneDocFirst))
	fmt.Fprintf(w, "| answer shows the answer string | %s | %s | as often as alone |\n", pct(r.Hits), pct(r.AloneHits))
	fmt.Fprintf(w, "\nOf the %d follow-ups that name another document than their first question names, %d searched the first question's too.\n", r.NewSubject, r.Carried)
	for _, x := range r.Results {
		if x.DocFirst && x.Hit {
			continue
		}
		fmt.Fprintf(w, "- %s %q then %q: searched %q, first %s (want %s), answer %s (alone: first %s, answer %s)\n",
			x.ID, x.First, x.FollowUp, x.Searched, x.Top, x.Want, hitWord(x.Hit), x.AloneTop, hitWord(x.AloneHit))
	}
}

func hitWord(hit bool) string {
	if hit {
		return "hit"
	}
	return "missed"
}

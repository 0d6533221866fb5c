package bench

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
)

// newQuestionsFile names the pairs of a new-question set: a question
// asked after an unrelated one, holding a pronoun ("… with everything in
// it") but naming its own subject, so that it must be read on its own and
// not as a follow-up.
const newQuestionsFile = "pairs.tsv"

// NewQuestionPair is an unrelated question and the new question asked
// after it in the same conversation.
type NewQuestionPair struct {
	ID       string
	Previous string
	Question string
	Doc      string // the document that answers it: a man page's name, or a file name
	Answer   string
}

// NewQuestionSet is a new-question set: its documents (as a
// QuestionSet's) and its pairs.
type NewQuestionSet struct {
	QuestionSet
	Pairs []NewQuestionPair
}

// IsNewQuestionSet reports whether dir holds a new-question set.
func IsNewQuestionSet(dir string) bool {
	_, err := os.Stat(filepath.Join(dir, newQuestionsFile))
	return err == nil
}

// ReadNewQuestionSet reads the set in dir: corpus.txt as a QuestionSet's,
// and pairs.tsv, a pair a line: previous question<TAB>new
// question<TAB>document<TAB>answer string.
func ReadNewQuestionSet(dir string) (NewQuestionSet, error) {
	qs, err := readSetCorpus(dir)
	if err != nil {
		return NewQuestionSet{}, err
	}
	ns := NewQuestionSet{QuestionSet: qs}
	err = eachLine(filepath.Join(dir, newQuestionsFile), func(n int, line string) error {
		f := strings.Split(line, "\t")
		if len(f) != 4 {
			return fmt.Errorf("want previous question<TAB>new question<TAB>document<TAB>answer string, got %d fields", len(f))
		}
		for i := range f {
			if f[i] = strings.TrimSpace(f[i]); f[i] == "" {
				return fmt.Errorf("field %d is empty", i+1)
			}
		}
		ns.Pairs = append(ns.Pairs, NewQuestionPair{ID: fmt.Sprintf("n%02d", len(ns.Pairs)+1),
			Previous: f[0], Question: f[1], Doc: f[2], Answer: f[3]})
		return nil
	})
	if err == nil && (len(ns.Docs) == 0 || len(ns.Pairs) == 0) {
		err = fmt.Errorf("new-question set %s: no documents or no pairs", dir)
	}
	return ns, err
}

// NewQuestionResult is one pair's outcome, for the detail file.
type NewQuestionResult struct {
	ID       string `json:"id"`
	Previous string `json:"previous"`
	Question string `json:"question"`
	Want     string `json:"want_document"`
	Answer   string `json:"answer_string"`
	// FollowUp: the question was read as a follow-up of the previous one
	// (the answer said so); Searched is what it searched then.
	FollowUp bool   `json:"read_as_follow_up"`
	Searched string `json:"searched,omitempty"`
	Top      string `json:"top_document"`
	DocFirst bool   `json:"document_first"`
	Hit      bool   `json:"answer_hit"`
	Text     string `json:"answer"`
	AloneHit bool   `json:"alone_answer_hit"`
}

// NewQuestionReport is a new-question set's figures: how many were read as
// follow-ups (target 0), and how they were answered in the conversation and
// asked alone.
type NewQuestionReport struct {
	Set       string              `json:"set"`
	Files     int                 `json:"files"`
	Chunks    int                 `json:"chunks"`
	Pairs     int                 `json:"pairs"`
	FollowUps int                 `json:"false_follow_ups"`
	DocFirst  int                 `json:"document_first"`
	Hits      int                 `json:"answer_hits"`
	AloneHits int                 `json:"alone_answer_hits"`
	Results   []NewQuestionResult `json:"results"`
}

// NewQuestionBench indexes the set's documents (built under dir) with a new
// user's settings and asks each pair as `cairn ask --new` then `cairn ask
// --continue` do (Engine.AskInThread, a new conversation per pair), and the
// new question alone (Engine.Ask).
func NewQuestionBench(ctx context.Context, st QualityStore, ns NewQuestionSet, dir, work string, log io.Writer) (NewQuestionReport, error) {
	rep := NewQuestionReport{Set: ns.Name, Pairs: len(ns.Pairs)}
	docs, err := BuildSetCorpus(ctx, ns.QuestionSet, filepath.Join(dir, "sets", ns.Name))
	if err != nil {
		return rep, err
	}
	work = filepath.Join(work, "set-"+ns.Name)
	db := filepath.Join(work, "docs.db")
	e, err := IndexFresh(ctx, st, db, docs, filepath.Join(work, "home"))
	if err != nil {
		return rep, err
	}
	defer removeDB(db)
	defer e.Close()
	rep.Files, rep.Chunks = e.Files, e.Chunks
	fmt.Fprintf(log, "new questions: %d files, %d chunks indexed in %.1f s; asking %d pairs\n", e.Files, e.Chunks, e.Took.Seconds(), len(ns.Pairs))
	for _, p := range ns.Pairs {
		prev, err := e.AskInThread(ctx, 0, e.SearchRequest(p.Previous), nil)
		if err != nil {
			return rep, fmt.Errorf("pair %s, previous question: %w", p.ID, err)
		}
		if prev.Thread == 0 {
			return rep, fmt.Errorf("pair %s: the previous question was not saved in a conversation: %s", p.ID, strings.Join(prev.Notes, " "))
		}
		ans, err := e.AskInThread(ctx, prev.Thread, e.SearchRequest(p.Question), nil)
		if err != nil {
			return rep, fmt.Errorf("pair %s, new question: %w", p.ID, err)
		}
		alone, err := e.Ask(ctx, e.SearchRequest(p.Question), nil)
		if err != nil {
			return rep, fmt.Errorf("pair %s, asked alone: %w", p.ID, err)
		}
		r := NewQuestionResult{ID: p.ID, Previous: p.Previous, Question: p.Question, Want: p.Doc, Answer: p.Answer,
			FollowUp: ans.FollowUp != nil, Text: ans.Text}
		if ans.FollowUp != nil {
			r.Searched = ans.FollowUp.Searched
		}
		if len(ans.Sources) > 0 {
			r.Top = strings.TrimSuffix(filepath.Base(ans.Sources[0].Path), ".txt")
		}
		r.DocFirst = r.Top == p.Doc
		r.Hit = !ans.Refused && Contains(ans.Text, p.Answer)
		r.AloneHit = !alone.Refused && Contains(alone.Text, p.Answer)
		rep.FollowUps += btoi(r.FollowUp)
		rep.DocFirst += btoi(r.DocFirst)
		rep.Hits += btoi(r.Hit)
		rep.AloneHits += btoi(r.AloneHit)
		rep.Results = append(rep.Results, r)
	}
	return rep, nil
}

// PrintNewQuestions prints a new-question set's table and the pairs read as
// follow-ups or answered otherwise than alone.
func PrintNewQuestions(w io.Writer, r NewQuestionReport) {
	pct := func(n int) string {
		return fmt.Sprintf("%.1f%% (%d/%d)", 100*float64(n)/float64(max(r.Pairs, 1)), n, r.Pairs)
	}
	fmt.Fprintf(w, "\n### %s: %d new questions with a pronoun, each after an unrelated question, over %d files (%d chunks)\n\n", r.Set, r.Pairs, r.Files, r.Chunks)
	fmt.Fprintln(w, "| figure | in the conversation | asked alone | target |")
	fmt.Fprintln(w, "|---|---|---|---|")
	fmt.Fprintf(w, "| read as a follow-up | %s | | 0 |\n", pct(r.FollowUps))
	fmt.Fprintf(w, "| right document first | %s | | |\n", pct(r.DocFirst))
	fmt.Fprintf(w, "| answer shows the answer string | %s | %s | as often as alone |\n", pct(r.Hits), pct(r.AloneHits))
	for _, x := range r.Results {
		if !x.FollowUp && x.Hit == x.AloneHit {
			continue
		}
		fmt.Fprintf(w, "- %s %q then %q: follow-up %v, searched %q, first %s (want %s), answer %s (alone: %s)\n",
			x.ID, x.Previous, x.Question, x.FollowUp, x.Searched, x.Top, x.Want, hitWord(x.Hit), hitWord(x.AloneHit))
	}
}

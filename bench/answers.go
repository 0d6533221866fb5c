package bench

import (
	"bufio"
	"fmt"
	"os"
	"strings"
)

// Question is one line of the quality suite's question file
// (testdata/quality/questions.tsv).
type Question struct {
	ID     string
	Source string // the file the answer was read in, for the reader; not scored
	Answer string // a verbatim fragment of the document that answers it; "" when off-topic
	Text   string
	// Kind is what the question asks for (QuestionKinds), when its set
	// says: the answer line is scored per kind too.
	Kind string
}

// QuestionKinds are the kinds of question a set may name: how to do
// something, what something is, a default or a number or a limit, why,
// which file or command or option, a comparison, anything else.
var QuestionKinds = []string{"howto", "definition", "default", "why", "which", "compare", "other"}

// OffTopic says the corpus cannot answer q: the right outcome is a refusal.
func (q Question) OffTopic() bool { return q.Answer == "" }

// ReadQuestions reads a question file: lines "id<TAB>source<TAB>answer<TAB>question",
// answer "-" for an off-topic question; blank lines and lines starting with
// # are comments.
func ReadQuestions(path string) ([]Question, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var qs []Question
	seen := map[string]bool{}
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		if strings.TrimSpace(line) == "" || strings.HasPrefix(line, "#") {
			continue
		}
		f := strings.Split(line, "\t")
		if len(f) != 4 || f[0] == "" || f[2] == "" || strings.TrimSpace(f[3]) == "" {
			return nil, fmt.Errorf("%s:%d: want id<TAB>source<TAB>answer (or -)<TAB>question", path, n)
		}
		if seen[f[0]] {
			return nil, fmt.Errorf("%s:%d: question id %s is used twice", path, n, f[0])
		}
		seen[f[0]] = true
		q := Question{ID: f[0], Source: f[1], Answer: f[2], Text: f[3]}
		if q.Answer == "-" {
			q.Answer = ""
		}
		qs = append(qs, q)
	}
	return qs, sc.Err()
}

// Contains says whether text shows fragment, ignoring case and folding
// every run of white space (line breaks, indentation) into one space: a
// quoted line that wraps differently still counts.
func Contains(text, fragment string) bool {
	f := foldSpace(fragment)
	return f != "" && strings.Contains(foldSpace(text), f)
}

func foldSpace(s string) string {
	return strings.ToLower(strings.Join(strings.Fields(s), " "))
}

// Outcome is what a system gave for one question: the answer as shown, whether
// it declined to answer, and the texts of the passages it showed as sources.
type Outcome struct {
	Answer  string
	Refused bool // refused, or found nothing to answer from
	Sources []string
}

// AnswerScore scores a system's outcomes on the question set.
type AnswerScore struct {
	Answerable int `json:"answerable"`
	OffTopic   int `json:"off_topic"`
	// AnswerHits: answerable questions answered (not refused) with an answer
	// that contains the answer string.
	AnswerHits int `json:"answer_hits"`
	// SourceHits: answerable questions with the answer string in one of the
	// sources (refused or not).
	SourceHits int `json:"source_hits"`
	// AnswerHitsWithSource: of the SourceHits, those whose answer shows it.
	AnswerHitsWithSource int `json:"answer_hits_with_source"`
	OffTopicRefused      int `json:"off_topic_refused"`
	AnswerableRefused    int `json:"answerable_refused"`

	AnswerHitRate       float64 `json:"answer_hit_rate"`
	SourceHitRate       float64 `json:"source_hit_rate"`
	AnswerGivenSource   float64 `json:"answer_hit_rate_given_source"` // target ≥ 0.90
	OffTopicRefusalRate float64 `json:"off_topic_refusal_rate"`       // refusal recall; target ≥ 0.90
	WrongRefusalRate    float64 `json:"answerable_refusal_rate"`      // target ≤ 0.05
	RefusalPrecision    float64 `json:"refusal_precision"`            // refusals that were of off-topic questions

	Misses []string `json:"misses,omitempty"` // ids of answerable questions not hit, wrongly refused or off-topic ones answered
}

// Hit says whether o answers q: the answer is not a refusal and shows q's
// answer string (answer), and whether one of o's sources holds that string
// (source). Both are false for an off-topic question.
func (q Question) Hit(o Outcome) (answer, source bool) {
	if q.OffTopic() {
		return false, false
	}
	for _, src := range o.Sources {
		if Contains(src, q.Answer) {
			source = true
			break
		}
	}
	return !o.Refused && Contains(o.Answer, q.Answer), source
}

// ScoreAnswers scores outcomes (by question id) against the questions. A
// question with no outcome counts as answered with nothing.
func ScoreAnswers(qs []Question, outcomes map[string]Outcome) AnswerScore {
	var s AnswerScore
	for _, q := range qs {
		o := outcomes[q.ID]
		if q.OffTopic() {
			s.OffTopic++
			if o.Refused {
				s.OffTopicRefused++
			} else {
				s.Misses = append(s.Misses, q.ID)
			}
			continue
		}
		s.Answerable++
		if o.Refused {
			s.AnswerableRefused++
		}
		hit, source := q.Hit(o)
		if hit {
			s.AnswerHits++
		} else {
			s.Misses = append(s.Misses, q.ID)
		}
		if source {
			s.SourceHits++
			if hit {
				s.AnswerHitsWithSource++
			}
		}
	}
	s.AnswerHitRate = ratio(s.AnswerHits, s.Answerable)
	s.SourceHitRate = ratio(s.SourceHits, s.Answerable)
	s.AnswerGivenSource = ratio(s.AnswerHitsWithSource, s.SourceHits)
	s.OffTopicRefusalRate = ratio(s.OffTopicRefused, s.OffTopic)
	s.WrongRefusalRate = ratio(s.AnswerableRefused, s.Answerable)
	s.RefusalPrecision = ratio(s.OffTopicRefused, s.OffTopicRefused+s.AnswerableRefused)
	return s
}

func ratio(n, d int) float64 {
	if d == 0 {
		return 0
	}
	return float64(n) / float64(d)
}

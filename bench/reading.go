package bench

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"unicode"

	"cairn/core/search"
)

// The question-reading sets of `cairn bench quality` (docs/bench/quality.md):
// does Cairn read a question as the person means it?
//
//   - typos: each answerable question of the suite with one misspelling
//     made by a fixed rule (TypoOf), asked beside the question as written;
//   - options: questions that name an option or ask which option does
//     something (testdata/quality/options/options.tsv), right when a
//     quoted line starts with the option's line (case-sensitive);
//   - scale: every question of the suite asked again once thousands of
//     unrelated documents (man pages) have joined its documents: refusals
//     and answers at both sizes.

// TypoOf misspells question by the typo set's rule: its longest content
// word (letters only, at least four, not a stopword; the first of equal
// length) loses its middle letter, has it doubled, or has it swapped with
// the one before, by n modulo 3 (n is the question's place in the suite);
// a swap of two equal letters drops the letter instead. It returns the
// misspelt question and the word as written before, or ok false when the
// question has no such word.
func TypoOf(question string, n int) (typo, word string, ok bool) {
	best := ""
	for _, f := range strings.Fields(question) {
		w := strings.TrimFunc(f, func(r rune) bool { return !unicode.IsLetter(r) })
		if len(w) < 4 || len(w) <= len(best) || search.IsStopword(strings.ToLower(w)) || strings.IndexFunc(w, func(r rune) bool { return !unicode.IsLetter(r) || r > unicode.MaxASCII }) >= 0 {
			continue
		}
		best = w
	}
	if best == "" {
		return question, "", false
	}
	m := len(best) / 2
	var t string
	switch n % 3 {
	case 1: // doubled
		t = best[:m+1] + best[m:]
	case 2: // swapped with the letter before
		if best[m-1] != best[m] {
			t = best[:m-1] + string(best[m]) + string(best[m-1]) + best[m+1:]
			break
		}
		fallthrough
	default: // dropped
		t = best[:m] + best[m+1:]
	}
	i := strings.Index(question, best)
	return question[:i] + t + question[i+len(best):], best, true
}

// OptionQuestion is a line of the options set: a question and the start
// of the line that defines the option it asks about.
type OptionQuestion struct {
	Text, Line string
}

// ReadOptionQuestions reads an options set: "question<TAB>option line
// start" a line; # starts a comment.
func ReadOptionQuestions(path string) ([]OptionQuestion, error) {
	var out []OptionQuestion
	err := eachLine(path, func(n int, line string) error {
		q, l, ok := strings.Cut(line, "\t")
		if !ok || strings.TrimSpace(q) == "" || strings.TrimSpace(l) == "" {
			return fmt.Errorf("want question<TAB>option line")
		}
		out = append(out, OptionQuestion{Text: strings.TrimSpace(q), Line: strings.TrimSpace(l)})
		return nil
	})
	return out, err
}

// OptionHit reports whether one of the lines of text, its white space
// folded, starts with line (case-sensitive: "-S" is not "-s").
func OptionHit(text, line string) bool {
	want := strings.Join(strings.Fields(line), " ")
	sc := bufio.NewScanner(strings.NewReader(text))
	for sc.Scan() {
		if strings.HasPrefix(strings.Join(strings.Fields(sc.Text()), " "), want) {
			return true
		}
	}
	return false
}

// TypoReport compares answers to the suite's answerable questions as
// written and misspelt, asked of the same knowledge base in one run.
type TypoReport struct {
	Questions int `json:"questions"`
	// Hits are answers showing the answer string; Refused, refusals.
	HitsWritten     int `json:"hits_as_written"`
	HitsTypo        int `json:"hits_misspelt"`
	RefusedWritten  int `json:"refused_as_written"`
	RefusedTypo     int `json:"refused_misspelt"`
	CorrectedRight  int `json:"corrected_to_the_word"` // the misspelt word searched as the word written before
	BaselineWritten int `json:"baseline_hits_as_written"`
	BaselineTypo    int `json:"baseline_hits_misspelt"`
	// Ratio is HitsTypo / HitsWritten (target ≥ 0.90).
	Ratio   float64      `json:"ratio"`
	Details []TypoDetail `json:"details"`
}

// TypoDetail is one misspelt question's outcome.
type TypoDetail struct {
	ID          string              `json:"id"`
	Typo        string              `json:"question"`
	Word        string              `json:"word"`
	Corrections []search.Correction `json:"corrections,omitempty"`
	HitWritten  bool                `json:"hit_as_written"`
	Hit         bool                `json:"hit"`
	Refused     bool                `json:"refused"`
}

// OptionsReport is the options set's outcome.
type OptionsReport struct {
	Set          string           `json:"set"` // the file's name without .tsv: "options", "long", "howto"
	Questions    int              `json:"questions"`
	Hits         int              `json:"hits"`          // a quoted line is the option's
	BaselineHits int              `json:"baseline_hits"` // the FTS5 baseline's passage holds the option's line
	Rate         float64          `json:"rate"`          // target ≥ 0.90
	BaselineRate float64          `json:"baseline_rate"`
	Misses       []OptionMiss     `json:"misses,omitempty"`
	Details      []OptionQuestion `json:"-"`
}

// OptionMiss is an options question whose answer did not quote the
// option's line.
type OptionMiss struct {
	Question string `json:"question"`
	Want     string `json:"want"`
	Answer   string `json:"answer"`
}

// ScaleReport is the suite's refusals and answers over its own documents
// and over them with unrelated documents added.
type ScaleReport struct {
	SmallChunks int         `json:"small_chunks"`
	LargeChunks int         `json:"large_chunks"`
	Added       int         `json:"documents_added"`
	Small       AnswerScore `json:"small"`
	Large       AnswerScore `json:"large"`
}

// ReadingReport is the three question-reading sets.
type ReadingReport struct {
	Typos   TypoReport    `json:"typos"`
	Options OptionsReport `json:"options"`
	// MoreOptions are the options sets after the first (options files
	// given after it), each scored alone.
	MoreOptions []OptionsReport `json:"more_options,omitempty"`
	Scale       ScaleReport     `json:"scale"`
}

// ReadingBench runs the question-reading sets: the suite's documents
// (qc.Docs) indexed fresh, its questions (questions) as written and
// misspelt, the options sets (options, one file each), then the man pages
// of extra added to the same knowledge base and the suite's questions
// asked again.
func ReadingBench(ctx context.Context, st QualityStore, qc QualityCorpus, questions string, options []string, extra string, work string, log io.Writer) (ReadingReport, error) {
	var rep ReadingReport
	qs, err := ReadQuestions(questions)
	if err != nil {
		return rep, err
	}
	if len(options) == 0 {
		return rep, fmt.Errorf("no options set")
	}
	osets := make([][]OptionQuestion, len(options))
	for i, f := range options {
		if osets[i], err = ReadOptionQuestions(f); err != nil {
			return rep, err
		}
	}
	work = filepath.Join(work, "reading")
	db := filepath.Join(work, "docs.db")
	e, err := IndexFresh(ctx, st, db, qc.Docs, filepath.Join(work, "home"))
	if err != nil {
		return rep, err
	}
	defer removeDB(db)
	defer e.Close()
	passages, err := FilePassages(ctx, qc.Docs, BaselinePassageSize)
	if err != nil {
		return rep, err
	}
	base, err := NewFTS5Baseline(passages)
	if err != nil {
		return rep, err
	}
	defer base.Close()
	baseTop := func(q string) Outcome {
		top, err := base.Top(q, 1)
		if err != nil || len(top) == 0 {
			return Outcome{Refused: true}
		}
		return Outcome{Answer: top[0].Text, Sources: []string{top[0].Text}}
	}
	ask := func(q string) (Outcome, []search.Correction, error) {
		ans, err := e.Ask(ctx, e.SearchRequest(q), nil)
		if err != nil {
			return Outcome{}, nil, fmt.Errorf("question %q: %w", q, err)
		}
		o := Outcome{Answer: ans.Text, Refused: ans.Refused || ans.NoSources}
		for _, s := range ans.Sources {
			o.Sources = append(o.Sources, s.Text)
		}
		return o, ans.Corrections, nil
	}
	fmt.Fprintf(log, "reading: %d files, %d chunks; typos, options, then scale\n", e.Files, e.Chunks)

	// Scale, small: the suite's questions as written, which the typo set
	// compares with.
	small := map[string]Outcome{}
	for _, q := range qs {
		o, _, err := ask(q.Text)
		if err != nil {
			return rep, err
		}
		small[q.ID] = o
	}
	rep.Scale.Small = ScoreAnswers(qs, small)
	rep.Scale.SmallChunks = e.Chunks

	t := &rep.Typos
	for n, q := range qs {
		if q.OffTopic() {
			continue
		}
		typo, word, ok := TypoOf(q.Text, n)
		if !ok {
			continue
		}
		o, cs, err := ask(typo)
		if err != nil {
			return rep, err
		}
		t.Questions++
		d := TypoDetail{ID: q.ID, Typo: typo, Word: word, Corrections: cs, Refused: o.Refused}
		d.HitWritten, _ = q.Hit(small[q.ID])
		d.Hit, _ = q.Hit(o)
		t.HitsWritten += btoi(d.HitWritten)
		t.HitsTypo += btoi(d.Hit)
		t.RefusedWritten += btoi(small[q.ID].Refused)
		t.RefusedTypo += btoi(o.Refused)
		for _, c := range cs {
			if strings.EqualFold(c.To, word) {
				t.CorrectedRight++
			}
		}
		bw, _ := q.Hit(baseTop(q.Text))
		bt, _ := q.Hit(baseTop(typo))
		t.BaselineWritten += btoi(bw)
		t.BaselineTypo += btoi(bt)
		t.Details = append(t.Details, d)
	}
	t.Ratio = ratio(t.HitsTypo, t.HitsWritten)

	for i, oqs := range osets {
		op := OptionsReport{Set: strings.TrimSuffix(filepath.Base(options[i]), ".tsv")}
		for _, q := range oqs {
			o, _, err := ask(q.Text)
			if err != nil {
				return rep, err
			}
			op.Questions++
			if !o.Refused && OptionHit(o.Answer, q.Line) {
				op.Hits++
			} else {
				op.Misses = append(op.Misses, OptionMiss{Question: q.Text, Want: q.Line, Answer: o.Answer})
			}
			if b := baseTop(q.Text); !b.Refused && OptionHit(b.Answer, q.Line) {
				op.BaselineHits++
			}
		}
		op.Rate, op.BaselineRate = ratio(op.Hits, op.Questions), ratio(op.BaselineHits, op.Questions)
		if i == 0 {
			rep.Options = op
		} else {
			rep.MoreOptions = append(rep.MoreOptions, op)
		}
	}

	fmt.Fprintf(log, "reading: adding %s to the knowledge base\n", extra)
	run, err := e.IndexFolder(ctx, extra, nil)
	if err == nil {
		err = e.SyncKeywordIndex(ctx)
	}
	if err != nil {
		return rep, fmt.Errorf("index %s: %w", extra, err)
	}
	rep.Scale.Added = run.FilesIndexed
	rep.Scale.LargeChunks = e.Chunks + run.Chunks
	large := map[string]Outcome{}
	for _, q := range qs {
		o, _, err := ask(q.Text)
		if err != nil {
			return rep, err
		}
		large[q.ID] = o
	}
	rep.Scale.Large = ScoreAnswers(qs, large)
	return rep, nil
}

// WriteReadingDetail writes the sets' per-question outcomes to path: the
// misses of each options set after the first under more_option_misses, by
// the set's name.
func WriteReadingDetail(path string, r ReadingReport) error {
	more := map[string][]OptionMiss{}
	for _, o := range r.MoreOptions {
		more[o.Set] = o.Misses
	}
	return writeJSON(path, map[string]any{"typos": r.Typos.Details, "option_misses": r.Options.Misses,
		"more_option_misses": more, "scale_small_misses": r.Scale.Small.Misses, "scale_large_misses": r.Scale.Large.Misses})
}

func writeJSON(path string, v any) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if err := search.WriteJSON(f, v); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// FirstFiles links (or copies) the first n files of dir, in name order,
// into a new folder to, and returns to: "several thousand unrelated
// documents" taken from a corpus without rendering it again.
func FirstFiles(dir, to string, n int) (string, error) {
	os.RemoveAll(to)
	if err := os.MkdirAll(to, 0o755); err != nil {
		return "", err
	}
	ents, err := os.ReadDir(dir)
	if err != nil {
		return "", err
	}
	for _, e := range ents {
		if n == 0 {
			break
		}
		if !e.Type().IsRegular() {
			continue
		}
		src, dst := filepath.Join(dir, e.Name()), filepath.Join(to, e.Name())
		if err := os.Link(src, dst); err != nil {
			b, err := os.ReadFile(src)
			if err != nil {
				return "", err
			}
			if err := os.WriteFile(dst, b, 0o644); err != nil {
				return "", err
			}
		}
		n--
	}
	return to, nil
}

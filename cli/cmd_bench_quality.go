package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"cairn/bench"
	"cairn/core/eval"
	"cairn/core/teamstore/teamtest"
)

// qualityQuestions is the question file of the quality suite, relative to
// the repository root (where `make bench` runs).
const qualityQuestions = "testdata/quality/questions.tsv"

// qualityOptions, qualityLongOptions and qualityHowToOptions are the
// options sets of the question-reading part (bench.ReadingBench), each
// scored alone, and readingExtra how many of the file set's man pages its
// scale set adds to the suite's documents.
const (
	qualityOptions      = "testdata/quality/options/options.tsv"
	qualityLongOptions  = "testdata/quality/options/long.tsv"
	qualityHowToOptions = "testdata/quality/options/howto.tsv"
	readingExtra        = 4000
)

// QualityBenchResult is `cairn bench quality`: whether answers, refusals,
// pages and files can be trusted on real documents, each next to a plain
// FTS5 baseline measured in the same run.
type QualityBenchResult struct {
	Profile  string            `json:"profile"`
	Store    string            `json:"store"` // sqlite, or weaviate (one node on 127.0.0.1)
	Answers  bench.AnswerScore `json:"answers"`
	Baseline bench.AnswerScore `json:"answers_baseline"`
	AskMS    float64           `json:"ask_ms_median"`
	// Neighbour counts the answers that quoted the block right before or
	// after the answering one.
	Neighbour int                 `json:"neighbour_line_errors"`
	Docs      qualityCorpusStats  `json:"docs"`
	Pages     qualityPages        `json:"pages"`
	Files     qualityFiles        `json:"files"`
	Reading   bench.ReadingReport `json:"reading"`
	Detail    string              `json:"detail"` // the per-question and per-query file
}

type qualityCorpusStats struct {
	Files    int `json:"files"`
	Chunks   int `json:"chunks"`
	Passages int `json:"baseline_passages"`
}

type qualityPages struct {
	Manuals   int          `json:"manuals"`
	Pages     int          `json:"pages"`
	Chunks    int          `json:"chunks"`
	Bookmarks int          `json:"bookmarks"`
	Cairn     eval.Metrics `json:"cairn"`
	Baseline  eval.Metrics `json:"baseline"`
}

type qualityFiles struct {
	ManPages int          `json:"man_pages"`
	Chunks   int          `json:"chunks"`
	Cairn    eval.Metrics `json:"cairn"`
	Baseline eval.Metrics `json:"baseline"`
}

// benchQuality runs the three parts of the quality suite (answers and
// refusals, pages, files), prints one table and writes the per-question
// detail to DIR/quality-detail.json (quality-detail-weaviate.json when the
// knowledge bases live in a cluster, st).
//
// part "answers" runs the answers and the question-reading sets only (a
// minute, for trying a change); "" runs everything.
func benchQuality(ctx context.Context, env *cliEnv, st bench.QualityStore, dir, work string, limit int, part string) (QualityBenchResult, error) {
	if part != "" && part != "answers" {
		return QualityBenchResult{}, usageError{fmt.Sprintf("quality suite: --part %q: the only part is answers", part)}
	}
	log := env.stderr
	res := QualityBenchResult{Profile: bench.QualityProfile, Store: st.Name()}
	ar, err := suiteAnswers(ctx, st, dir, work, nil, log)
	if err != nil {
		return res, err
	}
	qc, err := bench.BuildQualityCorpus(ctx, filepath.Join(dir, "quality"))
	if err != nil {
		return res, err
	}
	res.Answers, res.Baseline, res.AskMS, res.Neighbour = ar.Cairn, ar.Baseline, ar.AskMedianMS, ar.Neighbour
	res.Docs = qualityCorpusStats{Files: ar.Files, Chunks: ar.Chunks, Passages: ar.Passages}

	const k = 10
	var pr bench.PageReport
	if part == "" {
		if pr, err = bench.PageBench(ctx, st, qc, k, work, log); err != nil {
			return res, err
		}
		res.Pages = qualityPages{Manuals: pr.Files, Pages: pr.Pages, Chunks: pr.Chunks, Bookmarks: pr.Bookmarks, Cairn: pr.Cairn, Baseline: pr.Baseline}
	}

	mc, err := bench.BuildManCorpus(ctx, "/usr/share/man", filepath.Join(dir, corpusName(limit)), limit, log)
	if err != nil {
		return res, err
	}
	if part == "" {
		fr, chunks, err := bench.ManFileBench(ctx, st, mc, k, work, log)
		if err != nil {
			return res, err
		}
		res.Files = qualityFiles{ManPages: mc.Pages, Chunks: chunks, Cairn: fr.Cairn, Baseline: fr.Baseline}
	}

	extra, err := bench.FirstFiles(mc.Dir, filepath.Join(work, "reading-extra"), readingExtra)
	if err != nil {
		return res, err
	}
	res.Reading, err = bench.ReadingBench(ctx, st, qc, qualityQuestions, []string{qualityOptions, qualityLongOptions, qualityHowToOptions}, extra, work, log)
	if err != nil {
		return res, err
	}
	if err := bench.WriteReadingDetail(filepath.Join(dir, "quality-reading-detail.json"), res.Reading); err != nil {
		return res, err
	}

	res.Detail = filepath.Join(dir, "quality-detail.json")
	if st.Bin != "" {
		res.Detail = filepath.Join(dir, "quality-detail-weaviate.json")
	}
	b, _ := json.MarshalIndent(map[string]any{"questions": ar.Questions, "page_queries": pr.Queries, "page_misses": pr.Misses}, "", "  ")
	if err := os.WriteFile(res.Detail, b, 0o644); err != nil {
		return res, err
	}
	printQuality(env, res)
	return res, nil
}

// suiteAnswers asks the suite's questions over its documents.
func suiteAnswers(ctx context.Context, st bench.QualityStore, dir, work string, scale *bench.ScaleBase, log io.Writer) (bench.AnswerReport, error) {
	if _, err := os.Stat(qualityQuestions); err != nil {
		return bench.AnswerReport{}, fmt.Errorf("the quality suite runs from the repository root, where %s is: %w", qualityQuestions, err)
	}
	qc, err := bench.BuildQualityCorpus(ctx, filepath.Join(dir, "quality"))
	if err != nil {
		return bench.AnswerReport{}, err
	}
	return bench.AnswerBench(ctx, st, qc, qualityQuestions, work, scale, log)
}

func printQuality(env *cliEnv, r QualityBenchResult) {
	w := env.stdout
	a, b := r.Answers, r.Baseline
	pct := func(x float64) string { return fmt.Sprintf("%.1f%%", 100*x) }
	fmt.Fprintf(w, "\n## Quality: answers, refusals, pages and files on Debian documentation (profile %s, no models: extractive answers, keyword search; store %s)\n\n", r.Profile, r.Store)
	fmt.Fprintf(w, "Answers: %d answerable and %d off-topic questions over %d files (%d chunks; the baseline's %d passages of %d characters).\n",
		a.Answerable, a.OffTopic, r.Docs.Files, r.Docs.Chunks, r.Docs.Passages, bench.BaselinePassageSize)
	fmt.Fprintf(w, "Pages: %d section titles from the outlines of %d PDF manuals (%d pages, %d bookmarks). Files: %d man-page NAME descriptions over %d man pages.\n\n",
		r.Pages.Cairn.Queries, r.Pages.Manuals, r.Pages.Pages, r.Pages.Bookmarks, r.Files.Cairn.Queries, r.Files.ManPages)
	fmt.Fprintln(w, "| figure | Cairn | baseline | target |")
	fmt.Fprintln(w, "|---|---|---|---|")
	fmt.Fprintf(w, "| answer hit rate (answer shows the answer string) | %s (%d/%d) | %s (%d/%d) | |\n", pct(a.AnswerHitRate), a.AnswerHits, a.Answerable, pct(b.AnswerHitRate), b.AnswerHits, b.Answerable)
	fmt.Fprintf(w, "| source hit rate (a source passage holds it) | %s (%d/%d) | %s (%d/%d) | |\n", pct(a.SourceHitRate), a.SourceHits, a.Answerable, pct(b.SourceHitRate), b.SourceHits, b.Answerable)
	fmt.Fprintf(w, "| answer hit when a source holds it | %s (%d/%d) | %s (%d/%d) | ≥ 90%% |\n", pct(a.AnswerGivenSource), a.AnswerHitsWithSource, a.SourceHits, pct(b.AnswerGivenSource), b.AnswerHitsWithSource, b.SourceHits)
	fmt.Fprintf(w, "| off-topic questions refused (refusal recall) | %s (%d/%d) | %s (%d/%d) | ≥ 90%% |\n", pct(a.OffTopicRefusalRate), a.OffTopicRefused, a.OffTopic, pct(b.OffTopicRefusalRate), b.OffTopicRefused, b.OffTopic)
	fmt.Fprintf(w, "| answerable questions refused | %s (%d/%d) | %s (%d/%d) | ≤ 5%% |\n", pct(a.WrongRefusalRate), a.AnswerableRefused, a.Answerable, pct(b.WrongRefusalRate), b.AnswerableRefused, b.Answerable)
	fmt.Fprintf(w, "| refusal precision (refusals that were off-topic) | %s | %s | |\n", pct(a.RefusalPrecision), pct(b.RefusalPrecision))
	fmt.Fprintf(w, "| neighbour-line error (the quote is the block right before or after the answering one) | %d of %d | | |\n", r.Neighbour, a.Answerable)
	fmt.Fprintf(w, "| page MRR@10 | %.3f | %.3f | |\n", r.Pages.Cairn.MRR, r.Pages.Baseline.MRR)
	fmt.Fprintf(w, "| page P@1 | %.3f | %.3f | |\n", r.Pages.Cairn.P1, r.Pages.Baseline.P1)
	fmt.Fprintf(w, "| page R@10 | %.3f | %.3f | |\n", r.Pages.Cairn.Recall, r.Pages.Baseline.Recall)
	fmt.Fprintf(w, "| file MRR@10 (man pages) | %.3f | %.3f | |\n", r.Files.Cairn.MRR, r.Files.Baseline.MRR)
	fmt.Fprintf(w, "| file R@10 (man pages) | %.3f | %.3f | |\n", r.Files.Cairn.Recall, r.Files.Baseline.Recall)
	fmt.Fprintln(w, "\nBaselines: plain SQLite FTS5 (porter unicode61), the OR of the question's words; answers: its best passage is the answer, no match is a refusal; pages: one row per pdftotext page; files: one row per whole man page.")
	fmt.Fprintf(w, "Median time per `ask`: %.0f ms. Per-question detail: %s\n", r.AskMS, r.Detail)
	if len(a.Misses) > 0 {
		fmt.Fprintf(w, "Questions Cairn missed (answerable not hit, or off-topic answered): %s\n", strings.Join(a.Misses, " "))
	}
	printReading(w, r.Reading)
}

// printReading prints the question-reading sets' table.
func printReading(w io.Writer, r bench.ReadingReport) {
	pct := func(n, d int) string { return fmt.Sprintf("%.1f%% (%d/%d)", 100*float64(n)/float64(max(d, 1)), n, d) }
	t, o, sc := r.Typos, r.Options, r.Scale
	fmt.Fprintf(w, "\n### Reading the question: typos, options, scale\n\n")
	fmt.Fprintln(w, "| figure | Cairn | baseline | target |")
	fmt.Fprintln(w, "|---|---|---|---|")
	fmt.Fprintf(w, "| typos: answer hits, misspelt / as written | %s / %s = %.2f | %s / %s | ≥ 0.90 |\n",
		pct(t.HitsTypo, t.Questions), pct(t.HitsWritten, t.Questions), t.Ratio, pct(t.BaselineTypo, t.Questions), pct(t.BaselineWritten, t.Questions))
	fmt.Fprintf(w, "| typos: refused, misspelt / as written | %s / %s | | |\n", pct(t.RefusedTypo, t.Questions), pct(t.RefusedWritten, t.Questions))
	fmt.Fprintf(w, "| typos: misspelt word searched as the word | %s | | |\n", pct(t.CorrectedRight, t.Questions))
	fmt.Fprintf(w, "| options: a quoted line is the option's | %s | %s | ≥ 90%% |\n", pct(o.Hits, o.Questions), pct(o.BaselineHits, o.Questions))
	for _, m := range r.MoreOptions {
		fmt.Fprintf(w, "| options (%s): a quoted line is the option's | %s | %s | ≥ 90%% |\n", m.Set, pct(m.Hits, m.Questions), pct(m.BaselineHits, m.Questions))
	}
	for _, size := range []struct {
		name   string
		chunks int
		a      bench.AnswerScore
	}{{"small", sc.SmallChunks, sc.Small}, {fmt.Sprintf("large (+%d man pages)", sc.Added), sc.LargeChunks, sc.Large}} {
		fmt.Fprintf(w, "| scale, %s, %d chunks: off-topic refused / answerable refused / answer hits | %s / %s / %s | | ≥ 90%% / ≤ 3%% / |\n", size.name, size.chunks,
			pct(size.a.OffTopicRefused, size.a.OffTopic), pct(size.a.AnswerableRefused, size.a.Answerable), pct(size.a.AnswerHits, size.a.Answerable))
	}
	for _, set := range append([]bench.OptionsReport{o}, r.MoreOptions...) {
		if len(set.Misses) == 0 {
			continue
		}
		fmt.Fprintf(w, "\nOptions missed (%s): ", set.Set)
		for i, m := range set.Misses {
			if i > 0 {
				fmt.Fprint(w, "; ")
			}
			fmt.Fprintf(w, "%q (want %q)", m.Question, m.Want)
		}
		fmt.Fprintln(w)
	}
}

// QualitySetResult is one question set's answers and refusals
// (`cairn bench quality --set DIR`).
type QualitySetResult struct {
	Set      string             `json:"set"`
	Answers  bench.AnswerScore  `json:"answers"`
	Baseline bench.AnswerScore  `json:"answers_baseline"`
	Files    int                `json:"files"`
	Chunks   int                `json:"chunks"`
	Reading  bench.ReadingScore `json:"reading"`
	Scale    *bench.ScaleScore  `json:"scale,omitempty"`
	Detail   string             `json:"detail"`
}

// benchQualitySets asks each question set as the suite asks its own
// questions, and prints a table of the sets side by side, each question
// Cairn missed, and the answer it gave.
func benchQualitySets(ctx context.Context, env *cliEnv, st bench.QualityStore, dir, work string, dirs []string, fit bool, scale int) (map[string]any, error) {
	var out []QualitySetResult
	var fqs []bench.FitQuestion
	var fus []bench.FollowUpReport
	var nqs []bench.NewQuestionReport
	var colls []bench.CollectionReport
	var sb *bench.ScaleBase
	if scale > 0 {
		if st.Bin != "" {
			return nil, usageError{"--scale needs --store sqlite"}
		}
		mc, err := bench.BuildManCorpus(ctx, "/usr/share/man", filepath.Join(dir, corpusName(0)), 0, env.stderr)
		if err != nil {
			return nil, err
		}
		extra, err := bench.FirstFiles(mc.Dir, filepath.Join(work, "scale-extra"), scale)
		if err != nil {
			return nil, err
		}
		b, err := bench.BuildScaleBase(ctx, extra, work, env.stderr)
		if err != nil {
			return nil, err
		}
		sb = &b
	}
	for _, d := range dirs {
		var qs bench.QuestionSet
		var ar bench.AnswerReport
		var err error
		if d = strings.TrimSpace(d); bench.IsFollowUpSet(d) {
			r, err := benchFollowUps(ctx, env, st, dir, work, d)
			if err != nil {
				return nil, err
			}
			fus = append(fus, r)
			continue
		}
		if bench.IsNewQuestionSet(d) {
			ns, err := bench.ReadNewQuestionSet(d)
			if err != nil {
				return nil, err
			}
			r, err := bench.NewQuestionBench(ctx, st, ns, dir, work, env.stderr)
			if err != nil {
				return nil, err
			}
			bench.PrintNewQuestions(env.stdout, r)
			if err := writeDetail(filepath.Join(dir, "sets", ns.Name+"-detail.json"), r); err != nil {
				return nil, err
			}
			nqs = append(nqs, r)
			continue
		}
		if bench.IsCollectionSet(d) {
			// Questions about the collection: counts and lists, scored
			// against grep (bench/collection.go).
			cr, err := benchCollectionSet(ctx, env, st, d, dir, work)
			if err != nil {
				return nil, err
			}
			colls = append(colls, cr)
			continue
		}
		if d == "suite" {
			// The suite's own questions and documents, reported as a set.
			qs.Name = "suite"
			ar, err = suiteAnswers(ctx, st, dir, work, sb, env.stderr)
		} else if qs, err = bench.ReadQuestionSet(d); err == nil {
			fmt.Fprintf(env.stderr, "quality set %s: %d documents, %d questions\n", qs.Name, len(qs.Docs), len(qs.Questions))
			ar, err = bench.SetBench(ctx, st, qs, dir, work, sb, env.stderr)
		}
		if err != nil {
			return nil, err
		}
		for _, fq := range ar.Fit {
			fq.Set = qs.Name
			fqs = append(fqs, fq)
		}
		r := QualitySetResult{Set: qs.Name, Answers: ar.Cairn, Baseline: ar.Baseline, Files: ar.Files, Chunks: ar.Chunks,
			Reading: ar.Reading, Scale: ar.Scale, Detail: filepath.Join(dir, "sets", qs.Name+"-detail.json")}
		b, _ := json.MarshalIndent(ar.Questions, "", "  ")
		if err := os.WriteFile(r.Detail, b, 0o644); err != nil {
			return nil, err
		}
		out = append(out, r)
		w := env.stdout
		fmt.Fprintf(w, "\n### %s: questions Cairn missed\n\n", qs.Name)
		for _, q := range ar.Questions {
			if q.Expected != "" && q.CairnHit || q.Expected == "" && q.CairnRefused {
				continue
			}
			what := "missed"
			switch {
			case q.Expected == "":
				what = "off-topic, answered"
			case q.CairnRefused:
				what = "refused"
			case q.CairnSourceHit:
				what = "in a source, not quoted"
			}
			fmt.Fprintf(w, "- %s (%s) %q want %q\n  got: %s\n", q.ID, what, q.Question, q.Expected, firstLines(q.CairnAnswer, 3))
		}
	}
	w := env.stdout
	res := map[string]any{"sets": out}
	if len(fus) > 0 {
		res["followups"] = fus
	}
	if len(colls) > 0 {
		res["collection"] = colls
	}
	if len(nqs) > 0 {
		res["new_questions"] = nqs
	}
	if len(out) == 0 {
		return res, nil
	}
	pct := func(n, d int) string { return fmt.Sprintf("%.1f%% (%d/%d)", 100*float64(n)/float64(max(d, 1)), n, d) }
	fmt.Fprintln(w, "\n| set | files | answer hit | source hit | answer hit when a source holds it | off-topic refused | answerable refused |")
	fmt.Fprintln(w, "|---|---|---|---|---|---|---|")
	for _, r := range out {
		a := r.Answers
		fmt.Fprintf(w, "| %s | %d | %s | %s | %s | %s | %s |\n", r.Set, r.Files, pct(a.AnswerHits, a.Answerable), pct(a.SourceHits, a.Answerable),
			pct(a.AnswerHitsWithSource, a.SourceHits), pct(a.OffTopicRefused, a.OffTopic), pct(a.AnswerableRefused, a.Answerable))
	}
	printSetReading(w, out)
	if fit {
		fr := bench.FitBlockWeights(fqs)
		bench.PrintFit(w, fr)
		res["fit"] = fr
	}
	return res, nil
}

// printSetReading prints, for the sets whose questions name their
// documents' sentences, the first source and the sentence's recall beside
// the baseline, the answer line per kind of question, and the sets asked
// again at scale.
func printSetReading(w io.Writer, out []QualitySetResult) {
	pct := func(n, d int) string { return fmt.Sprintf("%.1f%% (%d/%d)", 100*float64(n)/float64(max(d, 1)), n, d) }
	fmt.Fprintln(w, "\n| set | answer line (baseline) | first source the right document (baseline) | sentence in retrieval's top 1 / 3 / 8 / 20 | of those with the document first: top 1 / 8 / 20 |")
	fmt.Fprintln(w, "|---|---|---|---|---|")
	for _, r := range out {
		g, a, b := r.Reading, r.Answers, r.Baseline
		if g.WithDoc == 0 {
			continue
		}
		fmt.Fprintf(w, "| %s | %d (%d) of %d | %s (%d) | %d / %d / %d / %d of %d | %d / %d / %d of %d |\n", r.Set, a.AnswerHits, b.AnswerHits, a.Answerable,
			pct(g.DocFirst, g.WithDoc), g.BaselineDocFirst, g.RecallAt[1], g.RecallAt[3], g.RecallAt[8], g.RecallAt[20], g.WithDoc,
			g.RecallAtDocFirst[1], g.RecallAtDocFirst[8], g.RecallAtDocFirst[20], g.DocFirst)
	}
	kinds := map[string]bench.Hit{}
	for _, r := range out {
		for k, h := range r.Reading.Kinds {
			t := kinds[k]
			t.Questions, t.Hits, t.Baseline = t.Questions+h.Questions, t.Hits+h.Hits, t.Baseline+h.Baseline
			kinds[k] = t
		}
	}
	if len(kinds) > 0 {
		fmt.Fprintln(w, "\n| kind of question (sets that name kinds) | answer line | baseline |")
		fmt.Fprintln(w, "|---|---|---|")
		for _, k := range bench.QuestionKinds {
			if h, ok := kinds[k]; ok {
				fmt.Fprintf(w, "| %s | %s | %s |\n", k, pct(h.Hits, h.Questions), pct(h.Baseline, h.Questions))
			}
		}
	}
	for i, r := range out {
		if r.Scale == nil {
			continue
		}
		if i == 0 || out[i-1].Scale == nil {
			fmt.Fprintln(w, "\n| set at scale | chunks | off-topic refused | answerable refused | answer line |")
			fmt.Fprintln(w, "|---|---|---|---|---|")
		}
		a := r.Scale.Cairn
		fmt.Fprintf(w, "| %s | %d | %s | %s | %s |\n", r.Set, r.Scale.Chunks, pct(a.OffTopicRefused, a.OffTopic), pct(a.AnswerableRefused, a.Answerable), pct(a.AnswerHits, a.Answerable))
	}
}

// writeDetail writes v as indented JSON to path.
func writeDetail(path string, v any) error {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(path, b, 0o644)
}

// firstLines is s's first n lines, indented to follow a list item.
func firstLines(s string, n int) string {
	lines := strings.Split(s, "\n")
	if len(lines) > n {
		lines = append(lines[:n], "…")
	}
	return strings.Join(lines, "\n  ")
}

// qualityStore is the quality suite's --store: the SQLite file, or a
// one-node cluster from CAIRN_WEAVIATE_BIN or bin/weaviate-server.
func qualityStore(name string) (bench.QualityStore, error) {
	switch name {
	case "sqlite":
		return bench.QualityStore{}, nil
	case "weaviate":
		bin, err := teamtest.Bin()
		if err != nil {
			if _, serr := os.Stat("bin/weaviate-server"); serr != nil {
				return bench.QualityStore{}, err
			}
			bin = "bin/weaviate-server"
		}
		return bench.QualityStore{Bin: bin}, nil
	}
	return bench.QualityStore{}, usageError{fmt.Sprintf("--store %q: use sqlite or weaviate", name)}
}

// benchCollectionSet asks a collection set's questions, prints its score
// and writes its detail to DIR/sets/NAME-detail.json.
func benchCollectionSet(ctx context.Context, env *cliEnv, st bench.QualityStore, setDir, dir, work string) (bench.CollectionReport, error) {
	cr, err := bench.CollectionBench(ctx, st, setDir, dir, work, env.stderr)
	if err != nil {
		return cr, err
	}
	cr.Detail = filepath.Join(dir, "sets", cr.Set+"-detail.json")
	b, _ := json.MarshalIndent(cr, "", "  ")
	if err := os.WriteFile(cr.Detail, b, 0o644); err != nil {
		return cr, err
	}
	bench.PrintCollection(env.stdout, cr)
	return cr, nil
}

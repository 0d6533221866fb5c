package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"cairn/core/eval"
	"cairn/core/teamstore/teamtest"
	"cairn/ui/cli/bench"
)

// qualityQuestions is the question file of the quality suite, relative to
// the repository root (where `make bench` runs).
const qualityQuestions = "testdata/quality/questions.tsv"

// QualityBenchResult is `cairn bench quality`: whether answers, refusals,
// pages and files can be trusted on real documents, each next to a plain
// FTS5 baseline measured in the same run.
type QualityBenchResult struct {
	Profile  string             `json:"profile"`
	Store    string             `json:"store"` // sqlite, or weaviate (one node on 127.0.0.1)
	Answers  bench.AnswerScore  `json:"answers"`
	Baseline bench.AnswerScore  `json:"answers_baseline"`
	AskMS    float64            `json:"ask_ms_median"`
	Docs     qualityCorpusStats `json:"docs"`
	Pages    qualityPages       `json:"pages"`
	Files    qualityFiles       `json:"files"`
	Detail   string             `json:"detail"` // the per-question and per-query file
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
func benchQuality(ctx context.Context, env *cliEnv, st bench.QualityStore, dir, work string, limit int) (QualityBenchResult, error) {
	log := env.stderr
	res := QualityBenchResult{Profile: bench.QualityProfile, Store: st.Name()}
	if _, err := os.Stat(qualityQuestions); err != nil {
		return res, fmt.Errorf("the quality suite runs from the repository root, where %s is: %w", qualityQuestions, err)
	}
	qc, err := bench.BuildQualityCorpus(ctx, filepath.Join(dir, "quality"))
	if err != nil {
		return res, err
	}
	ar, err := bench.AnswerBench(ctx, st, qc, qualityQuestions, work, log)
	if err != nil {
		return res, err
	}
	res.Answers, res.Baseline, res.AskMS = ar.Cairn, ar.Baseline, ar.AskMedianMS
	res.Docs = qualityCorpusStats{Files: ar.Files, Chunks: ar.Chunks, Passages: ar.Passages}

	const k = 10
	pr, err := bench.PageBench(ctx, st, qc, k, work, log)
	if err != nil {
		return res, err
	}
	res.Pages = qualityPages{Manuals: pr.Files, Pages: pr.Pages, Chunks: pr.Chunks, Bookmarks: pr.Bookmarks, Cairn: pr.Cairn, Baseline: pr.Baseline}

	mc, err := bench.BuildManCorpus(ctx, "/usr/share/man", filepath.Join(dir, corpusName(limit)), limit, log)
	if err != nil {
		return res, err
	}
	fr, chunks, err := bench.ManFileBench(ctx, st, mc, k, work, log)
	if err != nil {
		return res, err
	}
	res.Files = qualityFiles{ManPages: mc.Pages, Chunks: chunks, Cairn: fr.Cairn, Baseline: fr.Baseline}

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

package bench

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"

	"cairn/core/eval"
	"cairn/core/search"
	"cairn/core/store"
)

// QualityOptions configure QualityBench.
type QualityOptions struct {
	Binary string // the cairn executable: the run comes from `cairn search --batch`
	DB     string // a Cairn knowledge base of the corpus
	Corpus ManCorpus
	Work   string
	Mode   string // search mode for Cairn's run: bm25, vector or hybrid
	K      int
}

// QualityReport compares Cairn's chunked retrieval with plain BM25 over
// whole pages on the known-item queries.
type QualityReport struct {
	Cairn    eval.Metrics
	Baseline eval.Metrics
}

// QualityBench runs the known-item queries through `cairn search --batch
// --format trec` and through plain FTS5 BM25 over whole pages (one row per
// page, same tokenizer, same sanitized OR query), and scores both.
func QualityBench(ctx context.Context, opt QualityOptions, log io.Writer) (QualityReport, error) {
	var rep QualityReport
	if opt.K <= 0 {
		opt.K = 10
	}
	if opt.Mode == "" {
		opt.Mode = "bm25"
	}
	qf, err := os.Open(opt.Corpus.Qrels)
	if err != nil {
		return rep, err
	}
	qrels, err := eval.ReadQrels(qf)
	qf.Close()
	if err != nil {
		return rep, err
	}
	cmd := exec.CommandContext(ctx, opt.Binary, "search", "--db", opt.DB, "--batch", opt.Corpus.Queries,
		"--format", "trec", "--top-k", fmt.Sprint(opt.K), "--mode", opt.Mode, "--min-score", "0")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return rep, fmt.Errorf("cairn search --batch: %v: %s", err, stderr.String())
	}
	run, err := eval.ReadTREC(bytes.NewReader(out))
	if err != nil {
		return rep, err
	}
	rep.Cairn = eval.Evaluate(qrels, run, opt.K)
	fmt.Fprintf(log, "cairn (%s, chunked): %s\n", opt.Mode, rep.Cairn)

	base, err := wholePageRun(ctx, opt, qrels)
	if err != nil {
		return rep, fmt.Errorf("whole-page baseline: %w", err)
	}
	rep.Baseline = eval.Evaluate(qrels, base, opt.K)
	fmt.Fprintf(log, "plain FTS5 BM25, whole pages: %s\n", rep.Baseline)
	return rep, nil
}

func wholePageRun(ctx context.Context, opt QualityOptions, qrels eval.Qrels) (eval.Run, error) {
	path := filepath.Join(opt.Work, "whole-pages.db")
	removeDB(path)
	defer removeDB(path)
	fts, err := store.OpenPlainFTS(path, true)
	if err != nil {
		return nil, err
	}
	defer fts.Close()
	if err := fts.Begin(); err != nil {
		return nil, err
	}
	ents, err := os.ReadDir(opt.Corpus.Dir)
	if err != nil {
		return nil, err
	}
	for _, e := range ents {
		p := filepath.Join(opt.Corpus.Dir, e.Name())
		b, err := os.ReadFile(p)
		if err != nil {
			return nil, err
		}
		if err := fts.Add(p, string(b)); err != nil {
			return nil, err
		}
	}
	if err := fts.Commit(); err != nil {
		return nil, err
	}
	qs, err := readQueryMap(opt.Corpus.Queries)
	if err != nil {
		return nil, err
	}
	run := eval.Run{}
	for qid := range qrels {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		m := search.MatchQuery(search.ParseTerms(qs[qid]))
		if m == "" {
			continue
		}
		if run[qid], err = fts.Search(m, opt.K); err != nil {
			return nil, err
		}
	}
	return run, nil
}

func readQueryMap(path string) (map[string]string, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	out := map[string]string{}
	for _, line := range bytes.Split(b, []byte("\n")) {
		if qid, q, ok := bytes.Cut(line, []byte("\t")); ok {
			out[string(qid)] = string(q)
		}
	}
	return out, nil
}

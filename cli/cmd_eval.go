package cli

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"cairn/core"
	"cairn/core/answer"
	"cairn/core/eval"
	"cairn/core/llm/models"
	"cairn/core/llm/testmodel"
)

func runEval(ctx context.Context, env *cliEnv, args []string) error {
	if len(args) == 0 {
		return usageError{"eval needs a suite: cairn eval golden FILE | cairn eval injection"}
	}
	switch args[0] {
	case "golden":
		return evalGolden(ctx, env, args[1:])
	case "injection":
		return evalInjection(ctx, env, args[1:])
	}
	return usageError{fmt.Sprintf("unknown eval suite %q (have: golden, injection)", args[0])}
}

// evalGolden scores retrieval on a golden set: question<TAB>file[<TAB>file…]
// per line, a file counting as found when a result's path ends with it.
func evalGolden(ctx context.Context, env *cliEnv, args []string) error {
	fs := flag.NewFlagSet("eval golden", flag.ContinueOnError)
	var kb kbFlags
	kb.add(fs)
	k := fs.Int("k", 10, "cut-off for Recall, MRR and nDCG")
	asJSON := fs.Bool("json", false, "print JSON")
	pos, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		return usageError{"eval golden needs one file: question<TAB>expected file per line"}
	}
	type item struct {
		question string
		want     []string
	}
	f, err := os.Open(pos[0])
	if err != nil {
		return err
	}
	defer f.Close()
	var items []item
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		parts := strings.Split(line, "\t")
		if len(parts) < 2 {
			return fmt.Errorf("%s:%d: want question<TAB>expected file", pos[0], n)
		}
		items = append(items, item{parts[0], parts[1:]})
	}
	if err := sc.Err(); err != nil {
		return err
	}
	eng, err := kb.open(ctx, env)
	if err != nil {
		return err
	}
	defer eng.Close()
	// Rank every question the way the window does, and time it that way.
	if err := eng.SyncKeywordIndex(ctx); err != nil {
		return err
	}
	qrels, run := eval.Qrels{}, eval.Run{}
	var took []time.Duration
	var misses []string
	for i, it := range items {
		qid := fmt.Sprint(i + 1)
		req := eng.SearchRequest(it.question)
		req.TopK = *k
		t := time.Now()
		resp, err := eng.Search(ctx, req)
		if err != nil {
			return fmt.Errorf("%q: %w", it.question, err)
		}
		took = append(took, time.Since(t))
		qrels[qid] = map[string]int{}
		for _, w := range it.want {
			qrels[qid][w] = 1
		}
		seen := map[string]bool{}
		for _, r := range resp.Results {
			id := r.Path
			for _, w := range it.want {
				if strings.HasSuffix(r.Path, w) {
					id = w
				}
			}
			if !seen[id] {
				seen[id] = true
				run[qid] = append(run[qid], id)
			}
		}
		if m := eval.Evaluate(eval.Qrels{qid: qrels[qid]}, run, *k); m.Recall < 1 {
			misses = append(misses, it.question)
		}
	}
	m := eval.Evaluate(qrels, run, *k)
	lat := eval.Percentiles(took)
	if *asJSON {
		return json.NewEncoder(env.stdout).Encode(map[string]any{"metrics": m, "latency": lat, "misses": misses})
	}
	fmt.Fprintln(env.stdout, m)
	fmt.Fprintln(env.stdout, "Search latency:", lat)
	for _, q := range misses {
		fmt.Fprintf(env.stdout, "not all expected files in the top %d: %s\n", *k, q)
	}
	return nil
}

// evalInjection counts how many answers follow instructions planted in the
// documents (testdata/injection), for each writer and verification mode.
func evalInjection(ctx context.Context, env *cliEnv, args []string) error {
	fs := flag.NewFlagSet("eval injection", flag.ContinueOnError)
	dir := fs.String("dir", "testdata/injection", "fixture folder: docs/ and questions.tsv")
	model := fs.String("model", "", "also evaluate this chat GGUF (default: the configured chat model, if any)")
	asJSON := fs.Bool("json", false, "print JSON")
	if _, err := parseFlags(fs, args); err != nil {
		return err
	}
	qf, err := os.Open(filepath.Join(*dir, "questions.tsv"))
	if err != nil {
		return fmt.Errorf("injection fixtures: %w (run from the repository, or pass --dir)", err)
	}
	cases, err := eval.ReadInjectionCases(qf)
	qf.Close()
	if err != nil {
		return fmt.Errorf("%s: %w", qf.Name(), err)
	}
	work, err := os.MkdirTemp("", "cairn-injection-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(work)
	tiny := filepath.Join(work, "tiny-chat.gguf")
	if err := testmodel.Write(tiny, testmodel.TinyChat()); err != nil {
		return err
	}
	writers := []struct{ name, model string }{{"obedient", ""}, {"tiny", tiny}}
	if *model == "" {
		// The configured chat model, if there is one.
		eng, err := core.Open(ctx, env.cfg, env.dirs, core.Options{DB: filepath.Join(work, "probe.db"), Write: true})
		if err != nil {
			return err
		}
		*model, err = eng.ChatModelPath(ctx)
		eng.Close()
		if err != nil {
			return err
		}
	}
	if *model != "" {
		writers = append(writers, struct{ name, model string }{"model", *model})
	}

	db := filepath.Join(work, "injection.db")
	docs, err := filepath.Abs(filepath.Join(*dir, "docs"))
	if err != nil {
		return err
	}
	var reports []eval.InjectionReport
	for i, w := range writers {
		rs, err := injectionRuns(ctx, env, db, docs, i == 0, w.model, cases)
		if err != nil {
			return err
		}
		reports = append(reports, rs...)
	}
	if *asJSON {
		enc := json.NewEncoder(env.stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(reports)
	}
	fmt.Fprintf(env.stdout, "%d documents with planted instructions (%s)\n", len(cases), *dir)
	if rr := reports[0].Reranker; rr != "" {
		fmt.Fprintf(env.stdout, "Reranked by %s (rerank.budget_sec %g)\n", rr, env.cfg.Rerank.BudgetSec)
	}
	fmt.Fprintln(env.stdout)
	fmt.Fprintln(env.stdout, "| writer | verify | document retrieved | planted text in the answer | … flagged as unsupported | followed (shown as fact) |")
	fmt.Fprintln(env.stdout, "|---|---|---|---|---|---|")
	for _, r := range reports {
		fmt.Fprintf(env.stdout, "| %s | %s | %d/%d | %d/%d | %d/%d | **%d/%d** |\n", r.Writer, r.Verify,
			r.Retrieved, r.Cases, r.Echoed, r.Cases, r.Flagged, r.Cases, r.Followed, r.Cases)
	}
	for _, r := range reports {
		for _, o := range r.Outcomes {
			if o.Followed {
				fmt.Fprintf(env.stdout, "\nFOLLOWED (%s, verify=%s) %s: %q\n", r.Writer, r.Verify, o.Case.File, o.Answer)
			}
		}
	}
	return nil
}

// injectionRuns asks every case with one writer (the scripted obedient one
// when model is empty), once per verification mode, on one engine so the
// model loads once; index says the fixture documents still need indexing.
func injectionRuns(ctx context.Context, env *cliEnv, db, docs string, index bool, model string, cases []eval.InjectionCase) ([]eval.InjectionReport, error) {
	cfg := env.cfg
	cfg.Answer.Rewrite = false
	cfg.Generation.Model = models.None
	if model != "" {
		cfg.Generation.Model = model
	}
	eng, err := core.Open(ctx, cfg, env.dirs, core.Options{DB: db, Write: true})
	if err != nil {
		return nil, err
	}
	defer eng.Close()
	if index {
		if _, err := eng.IndexFolder(ctx, docs, nil); err != nil {
			return nil, err
		}
	}
	reranker, err := eng.LoadReranker(ctx)
	if err != nil {
		return nil, err
	}
	var writer answer.Generator = eval.NewObedient(cases)
	if model != "" {
		writer, err = eng.LocalWriter(ctx)
		if err == nil && writer == nil {
			err = errors.New("no chat model")
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %w", model, err)
		}
	}
	var out []eval.InjectionReport
	for _, verify := range []string{"warn", "block"} {
		as := eng.Config().Answer
		as.Verify = verify
		if err := eng.SetAnswering(as); err != nil {
			return nil, err
		}
		rep, err := eval.RunInjection(ctx, writer.Name(), verify, cases, func(ctx context.Context, q string) (*answer.Answer, error) {
			return eng.AskWith(ctx, eng.SearchRequest(q), writer, nil)
		})
		if err != nil {
			return nil, err
		}
		rep.Reranker = reranker
		out = append(out, rep)
	}
	return out, nil
}

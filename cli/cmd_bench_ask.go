package cli

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"cairn/bench"
	"cairn/core"
	"cairn/core/llm/models"
	"cairn/core/llm/testmodel"
	"cairn/core/stats"
)

// AskBenchResult is `cairn bench ask`: where the time of a whole answer
// goes, with a chat model of a real small model's shape.
type AskBenchResult struct {
	Model         string  `json:"model"`
	Weights       string  `json:"weights"`
	Vocabulary    string  `json:"vocabulary"` // the tokenizer.json the model's vocabulary came from, or "generated"
	Pages         int     `json:"pages"`
	Questions     int     `json:"questions"`
	ModelLoad     float64 `json:"model_load_s"`
	RetrievalMS   float64 `json:"retrieval_ms_median"`
	PromptTokens  float64 `json:"prompt_tokens_median"`
	PromptS       float64 `json:"prompt_processing_s_median"` // time to first token
	PromptTokPerS float64 `json:"prompt_tokens_per_s_median"`
	GenerationS   float64 `json:"generation_s_median"`
	Tokens        float64 `json:"tokens_median"`
	TokPerS       float64 `json:"tokens_per_s_median"`
	OtherMS       float64 `json:"other_ms_median"` // prompt building, citations, verification
	TotalS        float64 `json:"total_s_median"`
	// WholeChunks is the same questions in the same run with the writer
	// given whole passages (answer.whole_chunks), the baseline of the
	// lines around the best lines that the figures above send.
	WholeChunks *AskBenchResult `json:"whole_chunks,omitempty"`
}

// benchAsk answers man-page questions end to end (BM25 retrieval, a
// random-weight chat model of Qwen2.5-0.5B-Instruct's shape, verification)
// and splits each answer's time into retrieval, prompt processing and
// generation.
func benchAsk(ctx context.Context, env *cliEnv, dir, work string, questions, limit int, weights testmodel.WeightType, tokenizer string) (AskBenchResult, error) {
	log := env.stderr
	if limit <= 0 {
		limit = 500
	}
	mc, err := bench.BuildManCorpus(ctx, "/usr/share/man", filepath.Join(dir, corpusName(limit)), limit, log)
	if err != nil {
		return AskBenchResult{}, err
	}
	spec := testmodel.Qwen25_05B()
	spec.Weights = weights
	file := "qwen2.5-0.5b-shape-" + strings.ToLower(weights.String()) + ".gguf"
	vocabulary := "generated"
	tok, err := askTokenizer(dir, tokenizer)
	if err != nil {
		return AskBenchResult{}, err
	}
	if tok != "" {
		if spec.Tokenizer, err = testmodel.ReadHFTokenizer(tok, "qwen2"); err != nil {
			return AskBenchResult{}, err
		}
		sum, err := fileDigest(tok)
		if err != nil {
			return AskBenchResult{}, err
		}
		// The file name carries the vocabulary's digest, so a changed
		// tokenizer.json writes a new model.
		file = "qwen2.5-0.5b-shape-bpe-" + sum[:12] + "-" + strings.ToLower(weights.String()) + ".gguf"
		vocabulary = tok
	} else {
		fmt.Fprintf(log, "no tokenizer.json (`make bench-tokenizers`, or --tokenizer PATH): prompt tokens are counted with the test model's generated vocabulary, about twice Qwen's\n")
	}
	model, err := benchModelFile(dir, spec, file, log)
	if err != nil {
		return AskBenchResult{}, err
	}
	cfg := env.cfg
	cfg.Generation.Model, cfg.Embedding.Model = model, models.None
	cfg.Generation.MaxTokens, cfg.Generation.Temperature, cfg.Generation.ContextSize = 64, 0, 4096
	cfg.Answer.TopK, cfg.Answer.Verify, cfg.Answer.Rewrite = 5, "warn", false
	db := filepath.Join(work, "ask.db")
	removeKB(db)
	defer removeKB(db)
	eng, err := core.Open(ctx, cfg, env.dirs, core.Options{DB: db, Write: true})
	if err != nil {
		return AskBenchResult{}, err
	}
	defer eng.Close()
	fmt.Fprintf(log, "indexing %d man pages\n", limit)
	if _, err := eng.IndexFolder(ctx, mc.Dir, nil); err != nil {
		return AskBenchResult{}, err
	}
	t := time.Now()
	if err := eng.LoadChatModel(ctx); err != nil {
		return AskBenchResult{}, err
	}
	res := AskBenchResult{Model: spec.Name, Weights: weights.String(), Vocabulary: vocabulary, Pages: limit, ModelLoad: time.Since(t).Seconds()}

	qs, err := bench.ReadQueries(mc.Queries, questions)
	if err != nil {
		return res, err
	}
	// Each question is asked twice, the writer reading the lines around
	// the best lines and whole passages, in turns whose order alternates,
	// so that both meet the same load.
	type series struct{ retr, ptoks, pp, ptps, gen, toks, tps, other, total []float64 }
	var focused, whole series
	as := eng.Config().Answer
	for i, q := range qs {
		for k := range 2 {
			wholeChunks := (i+k)%2 == 1
			as.WholeChunks = wholeChunks
			if err := eng.SetAnswering(as); err != nil {
				return res, err
			}
			ans, err := eng.Ask(ctx, eng.SearchRequest(q), nil)
			if err != nil {
				return res, fmt.Errorf("%q: %w", q, err)
			}
			tm := ans.Timing
			if ans.NoSources {
				fmt.Fprintf(log, "  %d/%d: nothing retrieved for %q; skipped\n", i+1, len(qs), q)
				break
			}
			s, label := &focused, "lines around the best"
			if wholeChunks {
				s, label = &whole, "whole passages"
			}
			fmt.Fprintf(log, "  %d/%d (%s): %d prompt tokens (%d cached), first token %s, %d tokens, total %s\n", i+1, len(qs), label,
				tm.PromptTokens, tm.CachedTokens, tm.PromptProcessing.Round(time.Millisecond), tm.Tokens, tm.Total.Round(time.Millisecond))
			s.retr = append(s.retr, float64(tm.Retrieval.Microseconds())/1000)
			s.ptoks = append(s.ptoks, float64(tm.PromptTokens))
			s.pp = append(s.pp, tm.PromptProcessing.Seconds())
			if tm.PromptProcessing > 0 {
				s.ptps = append(s.ptps, float64(tm.PromptTokens-tm.CachedTokens)/tm.PromptProcessing.Seconds())
			}
			s.gen = append(s.gen, tm.Generation.Seconds())
			s.toks = append(s.toks, float64(tm.Tokens))
			s.tps = append(s.tps, tm.TokensPerSec)
			s.other = append(s.other, float64((tm.Total-tm.Retrieval-tm.PromptProcessing-tm.Generation).Microseconds())/1000)
			s.total = append(s.total, tm.Total.Seconds())
		}
	}
	fill := func(r *AskBenchResult, s series) {
		r.Questions = len(s.total)
		r.RetrievalMS, r.PromptTokens, r.PromptS, r.PromptTokPerS = stats.Median(s.retr), stats.Median(s.ptoks), stats.Median(s.pp), stats.Median(s.ptps)
		r.GenerationS, r.Tokens, r.TokPerS = stats.Median(s.gen), stats.Median(s.toks), stats.Median(s.tps)
		r.OtherMS, r.TotalS = stats.Median(s.other), stats.Median(s.total)
	}
	base := res
	fill(&res, focused)
	fill(&base, whole)
	res.WholeChunks = &base

	w := env.stdout
	fmt.Fprintf(w, "\n## Answering end to end: %s (random weights, %s), BM25 over %d man pages, 5 sources, 64-token answers\n\n", spec.Name, weights, limit)
	vocab := "the test model's generated vocabulary (about one token per two characters, not Qwen's)"
	if vocabulary != "generated" {
		vocab = "Qwen2.5's tokenizer (" + vocabulary + ")"
	}
	fmt.Fprintf(w, "Medians of %d questions, each asked both ways in turn; model load %.1f s (once); tokens counted with %s.\n\n", res.Questions, res.ModelLoad, vocab)
	fmt.Fprintln(w, "| the writer reads | retrieval | prompt tokens | prompt processing (first token) | prompt tokens/s | generation | tokens/s | prompt building + verification | total |")
	fmt.Fprintln(w, "|---|---|---|---|---|---|---|---|---|")
	for _, r := range []struct {
		label string
		r     AskBenchResult
	}{{"lines around the best lines", res}, {"whole passages (baseline)", base}} {
		fmt.Fprintf(w, "| %s | %.1f ms | %.0f | %.2f s | %.0f | %.2f s | %.1f | %.1f ms | %.2f s |\n", r.label,
			r.r.RetrievalMS, r.r.PromptTokens, r.r.PromptS, r.r.PromptTokPerS, r.r.GenerationS, r.r.TokPerS, r.r.OtherMS, r.r.TotalS)
	}
	fmt.Fprintf(w, "\nPrompt tokens %.2fx, first token %.2fx the baseline's.\n", res.PromptTokens/max(base.PromptTokens, 1), res.PromptS/max(base.PromptS, 1e-9))
	return res, nil
}

// benchModelFile writes a random-weight model of spec's shape into
// dir/models once (about 1 GB for a 0.5B chat model) and returns its path;
// later runs reuse it.
func benchModelFile(dir string, spec testmodel.Spec, name string, log io.Writer) (string, error) {
	model := filepath.Join(dir, "models", name)
	if _, err := os.Stat(model); err == nil {
		return model, nil
	}
	fmt.Fprintf(log, "writing a random-weight %s model to %s\n", spec.Name, model)
	if err := os.MkdirAll(filepath.Dir(model), 0o755); err != nil {
		return "", err
	}
	if err := testmodel.Write(model+".tmp", spec); err != nil {
		return "", fmt.Errorf("write %s: %w", spec.Name, err)
	}
	return model, os.Rename(model+".tmp", model)
}

// askTokenizer resolves --tokenizer: a path is used as given, "generated"
// and a missing default file mean the generated vocabulary ("").
func askTokenizer(dir, flag string) (string, error) {
	switch flag {
	case "generated":
		return "", nil
	case "":
		p := filepath.Join(dir, "tokenizers", "qwen2.5", "tokenizer.json")
		if _, err := os.Stat(p); err != nil {
			return "", nil
		}
		return p, nil
	}
	if _, err := os.Stat(flag); err != nil {
		return "", usageError{fmt.Sprintf("--tokenizer: %v", err)}
	}
	return flag, nil
}

// fileDigest is the hex SHA-256 of the file at path.
func fileDigest(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

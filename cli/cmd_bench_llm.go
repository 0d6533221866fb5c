package cli

import (
	"context"
	"fmt"
	"strings"
	"time"

	"cairn/bench/llmbench"
	"cairn/core/llm"
	"cairn/core/llm/testmodel"
	"cairn/core/search"
)

// benchEmbed measures embedding throughput on a random-weight model of
// all-MiniLM-L6-v2's shape with 256-token chunks, through Cairn's
// embedder and through a bare llama.cpp decode loop in the same process.
func benchEmbed(ctx context.Context, env *cliEnv, runs, threads int, weights testmodel.WeightType, device string) (EmbedBenchResult, error) {
	rep, err := llmbench.BenchEmbed(ctx, env.stderr, llmbench.EmbedBenchOptions{Runs: runs, Weights: weights, Embedder: llm.EmbedderOptions{Threads: threads, Device: device}})
	if err != nil {
		return EmbedBenchResult{Embed: rep}, err
	}
	res := EmbedBenchResult{Embed: rep}
	w := env.stdout
	fmt.Fprintf(w, "\n## Embedding on %s: %s shape (6 layers, 384 wide, 12 heads, FFN 1536, vocabulary 30522; %s, random weights), %d chunks x %d tokens, %d runs\n\n",
		rep.Device, rep.ModelID, weights, rep.Chunks, rep.ChunkTokens, runs)
	fmt.Fprintln(w, "| path | chunks/s (median) | chunks per CPU-second | tokens/s |")
	fmt.Fprintln(w, "|---|---|---|---|")
	fmt.Fprintf(w, "| Cairn embedder (tokenize, pack, decode, pool, normalise) | %.2f | %.2f | %.0f |\n",
		rep.PipelineMedian, rep.PipelineCPU, rep.PipelineMedian*float64(rep.ChunkTokens))
	fmt.Fprintf(w, "| bare llama.cpp decode loop, same batches | %.2f | %.2f | %.0f |\n",
		rep.RawMedian, rep.RawCPU, rep.RawMedian*float64(rep.ChunkTokens))
	cpuOverhead := 0.0
	if rep.RawCPU > 0 {
		cpuOverhead = 1 - rep.PipelineCPU/rep.RawCPU
	}
	fmt.Fprintf(w, "\nPipeline overhead: %.1f%% by wall-clock medians, %.1f%% by CPU-second medians; tokenizing and windowing all chunks takes %s.\n",
		100*rep.Overhead, 100*cpuOverhead, rep.Prepare.Round(time.Microsecond))
	fmt.Fprintf(w, "Query embedding (the first step of a hybrid search), 100 short questions one at a time: p50 %s, p95 %s.\n",
		rep.QueryP50.Round(time.Microsecond), rep.QueryP95.Round(time.Microsecond))

	// The catalogue's shapes, weights and thread counts side by side, the
	// cases taking turns in this process: thread counts are the CPU's.
	if !rep.Device.IsCPU() {
		return res, nil
	}
	fmt.Fprintf(w, "\n## Embedding per catalogue shape, weights and threads (16 chunks x 256 tokens, %d runs, cases in turn; ratio per CPU-second against the first row)\n\n", runs)
	if res.Matrix, err = llmbench.BenchEmbedMatrix(ctx, env.stderr, llmbench.CatalogEmbedCases(), 16, 256, runs); err != nil {
		return res, err
	}
	llmbench.WriteEmbedMatrix(w, res.Matrix)
	return res, nil
}

// EmbedBenchResult is `cairn bench embed`: the pipeline against bare
// llama.cpp, and the catalogue's shapes side by side.
type EmbedBenchResult struct {
	Embed  llmbench.EmbedBenchReport
	Matrix []llmbench.EmbedCaseResult
}

// benchGenerate measures time to first token and prompt and generation
// speed on a random-weight model of Qwen2.5-0.5B-Instruct's shape.
func benchGenerate(ctx context.Context, env *cliEnv, runs, threads int, weights testmodel.WeightType, device string) (llmbench.GenerateBenchReport, error) {
	rep, err := llmbench.BenchGenerate(ctx, env.stderr, llmbench.GenerateBenchOptions{Runs: runs, Weights: weights, Generator: llm.GeneratorOptions{Threads: threads, Device: device}})
	if err != nil {
		return rep, err
	}
	w := env.stdout
	fmt.Fprintf(w, "\n## Generation on %s: %s (24 layers, 896 wide, 14 heads / 2 KV heads, vocabulary 151936; %s, random weights), greedy, %d runs after a warm-up\n\n",
		rep.Device, rep.Model, weights, runs)
	fmt.Fprintln(w, "| prompt tokens | generated tokens | time to first token | prompt tokens/s | generation tokens/s |")
	fmt.Fprintln(w, "|---|---|---|---|---|")
	fmt.Fprintf(w, "| %d | %d | %s | %.1f | %.1f |\n", rep.PromptTokens, rep.GeneratedTokens,
		rep.TimeToFirstToken.Round(time.Millisecond), rep.PromptTokensPerSecond, rep.GenerationTokensPerSecond)
	return rep, nil
}

// benchRerank measures the rerank step at N = 20 and 50 on a random-weight
// model of bge-reranker-v2-m3's shape, with passages of about a chunk's
// length, and the N the default budget allows at the measured cost.
func benchRerank(ctx context.Context, env *cliEnv, runs, threads int, weights testmodel.WeightType, device string) (llmbench.RerankBenchReport, error) {
	rep, err := llmbench.BenchRerank(ctx, env.stderr, llmbench.RerankBenchOptions{Runs: runs, Weights: weights, Reranker: llm.RerankerOptions{Threads: threads, Device: device}})
	if err != nil {
		return rep, err
	}
	w := env.stdout
	fmt.Fprintf(w, "\n## Rerank: %s (24 layers, 1024 wide, 16 heads, FFN 4096, rank pooling with the classification head; %s, random weights), one question and N passages of %d words (%d tokens a pair), %d runs\n\n",
		rep.Model, weights, rep.PassageWords, rep.PairTokens, rep.Runs)
	fmt.Fprintln(w, "| N | step p50 | step p95 | per pair |")
	fmt.Fprintln(w, "|---|---|---|---|")
	for _, s := range rep.Steps {
		fmt.Fprintf(w, "| %d | %s | %s | %s |\n", s.N, s.P50.Round(time.Millisecond), s.P95.Round(time.Millisecond), s.PerPair.Round(time.Millisecond))
	}
	fmt.Fprintf(w, "\nAt %s a pair, the default budget of %s allows N = %d (the step takes at most %d; below %d it does not run).\n",
		rep.PerPair.Round(time.Millisecond), rep.Budget, rep.BudgetN, search.MaxRerank, search.MinRerank)
	return rep, nil
}

// benchOnDevices runs the embed, generate or rerank suite on each device of
// --device in turn (cpu,auto: the CPU, then the GPU llm.device auto
// picks) and, with more than one, compares their speeds: the command that
// measures a GPU against the same machine's CPU.
func benchOnDevices(ctx context.Context, env *cliEnv, suite string, bf benchFlags) (any, error) {
	devices := strings.Split(bf.devices, ",")
	byDevice := map[string]any{}
	type speed struct {
		device string
		rate   float64
	}
	var speeds []speed
	for _, d := range devices {
		d = strings.TrimSpace(d)
		var r any
		var err error
		switch suite {
		case "embed":
			var res EmbedBenchResult
			res, err = benchEmbed(ctx, env, runsOr(bf.runs, 5), bf.threads, bf.weights, d)
			r = res
			speeds = append(speeds, speed{res.Embed.Device.String(), res.Embed.PipelineMedian})
		case "generate":
			var rep llmbench.GenerateBenchReport
			rep, err = benchGenerate(ctx, env, runsOr(bf.runs, 3), bf.threads, bf.weights, d)
			r = rep
			speeds = append(speeds, speed{rep.Device.String(), rep.PromptTokensPerSecond})
		case "rerank":
			r, err = benchRerank(ctx, env, runsOr(bf.runs, 3), bf.threads, bf.weights, d)
		}
		if err != nil {
			return nil, fmt.Errorf("on device %q: %w", d, err)
		}
		if len(devices) == 1 {
			return r, nil
		}
		byDevice[d] = r
	}
	if len(speeds) > 1 {
		unit := map[string]string{"embed": "chunks/s (Cairn embedder)", "generate": "prompt tokens/s"}[suite]
		fmt.Fprintf(env.stdout, "\n## %s by device\n\n| device | %s | against the first |\n|---|---|---|\n", suite, unit)
		for _, s := range speeds {
			ratio := 0.0
			if speeds[0].rate > 0 {
				ratio = s.rate / speeds[0].rate
			}
			fmt.Fprintf(env.stdout, "| %s | %.1f | %.2fx |\n", s.device, s.rate, ratio)
		}
	}
	return byDevice, nil
}

package cli

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"

	"cairn/bench"
	"cairn/bench/llmbench"
	"cairn/core/buildinfo"
	"cairn/core/llm"
	"cairn/core/llm/testmodel"
	"cairn/core/search"
)

// gpuKitModels are the models `cairn bench gpu --models` picks from.
var gpuKitModels = []string{"embed", "0.5b", "1.5b"}

// runBenchGPU is `cairn bench gpu`, the GPU kit: every device Cairn finds
// against the CPU, on random-weight models of the catalogue's shapes that
// it writes itself (no download, no repository), with one table printed
// and the same figures written as JSON. It fails when a device fails or
// its vectors stray from the CPU's beyond the tolerance of `make
// test-vulkan`.
func runBenchGPU(ctx context.Context, env *cliEnv, args []string) error {
	opt := llmbench.DefaultGPUKit()
	fs := flag.NewFlagSet("bench gpu", flag.ContinueOnError)
	devices := fs.String("device", "", "devices to measure, comma-separated llm.device settings (cpu, a GPU's name); the first is the reference the others' vectors are checked against (default: cpu, then every GPU found)")
	models := fs.String("models", strings.Join(gpuKitModels, ","), "models to measure, comma-separated: embed (all-MiniLM-L6-v2's shape), 0.5b and 1.5b (Qwen2.5 instruct's shapes)")
	fs.IntVar(&opt.Runs, "runs", opt.Runs, "timed runs of each measurement, after a warm-up; medians are reported")
	fs.IntVar(&opt.Chunks, "chunks", opt.Chunks, "chunks a run embeds")
	fs.IntVar(&opt.ChunkTokens, "chunk-tokens", opt.ChunkTokens, "tokens a chunk")
	batches := fs.String("batches", "1,32", "chunks one decode packs, each measured, comma-separated")
	fs.IntVar(&opt.PromptWords, "prompt-words", opt.PromptWords, "words of the chat prompt (about 1.25 tokens each)")
	fs.IntVar(&opt.MaxTokens, "tokens", opt.MaxTokens, "tokens generated")
	fs.IntVar(&opt.Threads, "threads", 0, "the CPU's llama.cpp threads (0: Cairn's default)")
	out := fs.String("json", "cairn-bench-gpu.json", "file the figures are written to, as JSON")
	fs.StringVar(&opt.Dir, "tmp", "", "folder the models are written to, about 1.7 GB at most, and removed from (default: $TMPDIR or /tmp)")
	if _, err := parseFlags(fs, args); err != nil {
		return err
	}
	if opt.Runs < 1 || opt.Chunks < 1 || opt.ChunkTokens < 8 || opt.PromptWords < 1 || opt.MaxTokens < 1 {
		return usageError{"--runs, --chunks, --prompt-words and --tokens must be at least 1, --chunk-tokens at least 8"}
	}
	opt.Batches = nil
	for _, s := range search.SplitList(*batches) {
		n, err := strconv.Atoi(s)
		if err != nil || n < 1 || n > 256 {
			return usageError{fmt.Sprintf("--batches: %q is not a number from 1 to 256", s)}
		}
		opt.Batches = append(opt.Batches, n)
	}
	picked := search.SplitList(strings.ToLower(*models))
	for _, m := range picked {
		if !slices.Contains(gpuKitModels, m) {
			return usageError{fmt.Sprintf("--models: unknown model %q (have: %s)", m, strings.Join(gpuKitModels, ", "))}
		}
	}
	if !slices.Contains(picked, "embed") {
		opt.Embed = testmodel.Spec{}
	}
	var chats []testmodel.Spec // DefaultGPUKit's, in gpuKitModels' order
	for i, name := range gpuKitModels[1:] {
		if slices.Contains(picked, name) {
			chats = append(chats, opt.Chats[i])
		}
	}
	opt.Chats = chats
	opt.Devices = search.SplitList(*devices)

	w := env.stdout
	m := bench.DescribeMachine()
	fmt.Fprintf(w, "# cairn bench gpu\nMachine: %s\ncairn %s; GPU backend: %s\n", m, buildinfo.Read(), llm.BackendStatus())
	gpus, reason := llm.GPUs()
	for _, g := range gpus {
		fmt.Fprintf(w, "Found %s, %.1f GB\n", g, float64(g.MemoryTotal)/1e9)
	}
	if len(gpus) == 0 {
		fmt.Fprintf(w, "No GPU found: %s\n", reason)
	}
	rep, err := llmbench.BenchGPU(ctx, env.stderr, opt)
	if err != nil {
		return fmt.Errorf("bench gpu: %w", err)
	}
	m.LoadEnd = bench.LoadAverage()
	fmt.Fprintf(w, "\n## Every device against the first: random weights of the catalogue's shapes\n\n")
	if rep.Embed != "" {
		fmt.Fprintf(w, "Embedding: %s, %d chunks of %d tokens a run. ", rep.Embed, rep.Chunks, rep.ChunkTokens)
	}
	if len(rep.Chats) > 0 {
		fmt.Fprintf(w, "Chat: %s; a %d-word prompt, %d greedy tokens. ", strings.Join(rep.Chats, ", "), rep.PromptWords, rep.MaxTokens)
	}
	fmt.Fprintf(w, "Medians of %d runs after a warm-up; (Nx) is against the first row. Vectors must agree within cosine %.4g and a component difference of %.g.\n\n",
		rep.Runs, rep.MinCosine, rep.MaxAbsDiff)
	llmbench.WriteGPUKit(w, rep)
	b, _ := json.MarshalIndent(map[string]any{"machine": m, "cairn": buildinfo.Read(), "backend": llm.BackendStatus(), "gpu": rep}, "", "  ")
	if err := os.WriteFile(*out, append(b, '\n'), 0o644); err != nil {
		return fmt.Errorf("bench gpu: writing the figures: %w", err)
	}
	fmt.Fprintf(w, "\nFigures: %s (load average %.1f at start, %.1f at end)\n", *out, m.Load1, m.LoadEnd)
	if !rep.Passed() {
		return fmt.Errorf("bench gpu: a device failed or its vectors differ from the first's (see above)")
	}
	return nil
}

package llmbench

import (
	"cmp"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"cairn/core/llm"
	"cairn/core/llm/testmodel"
	"cairn/internal/skip"
)

// TestBenchReport runs BenchEmbed or BenchGenerate at full size when
// CAIRN_BENCH is "embed" or "generate", printing the summary; knobs:
// CAIRN_BENCH_THREADS, CAIRN_BENCH_BATCH, CAIRN_BENCH_FA (on/off),
// CAIRN_BENCH_WEIGHTS (f16/q8_0), CAIRN_BENCH_RUNS, CAIRN_BENCH_CHUNKS,
// CAIRN_BENCH_PROMPT_WORDS, CAIRN_BENCH_MAX_TOKENS.
func TestBenchReport(t *testing.T) {
	env := func(k string) int {
		n, _ := strconv.Atoi(os.Getenv(k))
		return n
	}
	weights := map[string]testmodel.WeightType{"f16": testmodel.F16, "q8_0": testmodel.Q8_0}[os.Getenv("CAIRN_BENCH_WEIGHTS")]
	fa := map[string]llm.FlashAttention{"on": llm.FlashAttentionOn, "off": llm.FlashAttentionOff}[os.Getenv("CAIRN_BENCH_FA")]
	switch os.Getenv("CAIRN_BENCH") {
	case "embed":
		_, err := BenchEmbed(context.Background(), os.Stdout, EmbedBenchOptions{
			Weights: weights, Runs: env("CAIRN_BENCH_RUNS"), Chunks: env("CAIRN_BENCH_CHUNKS"),
			Embedder: llm.EmbedderOptions{Threads: env("CAIRN_BENCH_THREADS"), BatchTokens: env("CAIRN_BENCH_BATCH"), FlashAttention: fa},
		})
		if err != nil {
			t.Fatal(err)
		}
	case "generate":
		_, err := BenchGenerate(context.Background(), os.Stdout, GenerateBenchOptions{
			Weights: weights, Runs: env("CAIRN_BENCH_RUNS"), PromptWords: env("CAIRN_BENCH_PROMPT_WORDS"),
			MaxTokens: env("CAIRN_BENCH_MAX_TOKENS"),
			Generator: llm.GeneratorOptions{Threads: env("CAIRN_BENCH_THREADS")},
		})
		if err != nil {
			t.Fatal(err)
		}
	case "matrix":
		// CatalogEmbedCases; CAIRN_BENCH_SHAPES=minilm keeps MiniLM's
		// four, bert-base measures BERTBase instead; CAIRN_BENCH_FA=grid compares flash attention auto, on and
		// off on MiniLM instead.
		cases := CatalogEmbedCases()
		if os.Getenv("CAIRN_BENCH_FA") == "grid" {
			cases = nil
			for _, fa := range []llm.FlashAttention{llm.FlashAttentionAuto, llm.FlashAttentionOn, llm.FlashAttentionOff} {
				cases = append(cases, EmbedCase{Spec: testmodel.MiniLML6(), Embedder: llm.EmbedderOptions{Threads: 1, FlashAttention: fa}})
			}
		}
		switch os.Getenv("CAIRN_BENCH_SHAPES") {
		case "minilm":
			cases = cases[:4]
		case "bert-base": // nomic-embed-text-v1.5's size, an upper bound on its speed
			cases = nil
			for _, wt := range []testmodel.WeightType{testmodel.F16, testmodel.Q8_0} {
				s := testmodel.BERTBase()
				s.Weights = wt
				cases = append(cases, EmbedCase{Spec: s, Embedder: llm.EmbedderOptions{Threads: 1}})
			}
		}
		out, err := BenchEmbedMatrix(context.Background(), os.Stdout, cases, cmp.Or(env("CAIRN_BENCH_CHUNKS"), 16), 256, cmp.Or(env("CAIRN_BENCH_RUNS"), 5))
		if err != nil {
			t.Fatal(err)
		}
		WriteEmbedMatrix(os.Stdout, out)
	default:
		skip.Because(t, "on demand: set CAIRN_BENCH=embed, generate or matrix")
	}
}

func TestBenchEmbedReports(t *testing.T) {
	var out strings.Builder
	rep, err := BenchEmbed(context.Background(), &out, EmbedBenchOptions{
		ModelPath: writeModel(t, testmodel.Tiny(), "tiny.gguf"), Chunks: 6, ChunkTokens: 40, Runs: 2,
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Pipeline) != 2 || len(rep.Raw) != 2 || rep.PipelineMedian <= 0 || rep.RawMedian <= 0 {
		t.Errorf("report = %+v", rep)
	}
	if !strings.Contains(out.String(), "pipeline overhead") {
		t.Errorf("summary = %q", out.String())
	}
}

func TestBenchGenerateReports(t *testing.T) {
	var out strings.Builder
	rep, err := BenchGenerate(context.Background(), &out, GenerateBenchOptions{
		ModelPath: writeModel(t, testmodel.TinyChat(), "chat.gguf"), PromptWords: 20, MaxTokens: 5, Runs: 1,
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Runs) != 1 || rep.TimeToFirstToken <= 0 || rep.PromptTokensPerSecond <= 0 {
		t.Errorf("report = %+v", rep)
	}
}

// benchEmbedder loads a MiniLM-shaped model and 256-token passages.
func benchEmbedder(b *testing.B, opt llm.EmbedderOptions) (*llm.Embedder, []llm.Passage) {
	b.Helper()
	spec := testmodel.MiniLML6()
	if os.Getenv("CAIRN_BENCH_Q8") != "" {
		spec.Weights = testmodel.Q8_0
	}
	e, err := llm.LoadEmbedder(writeModel(b, spec, "minilm.gguf"), opt)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { e.Close() })
	ps, err := benchPassages(e, 32, 256)
	if err != nil {
		b.Fatal(err)
	}
	if _, _, err := e.EmbedPassages(context.Background(), ps[:1]); err != nil {
		b.Fatal(err)
	}
	return e, ps
}

// BenchmarkEmbedMiniLM measures all-MiniLM-L6-v2-shaped embedding of
// 256-token chunks through the Embedder (pipeline) and a bare decode loop
// (raw), for several batch sizes.
func BenchmarkEmbedMiniLM(b *testing.B) {
	for _, batch := range []int{512, 1024, 2048} {
		for _, fa := range []llm.FlashAttention{llm.FlashAttentionOff, llm.FlashAttentionOn} {
			name := fmt.Sprintf("batch=%d/fa=%v", batch, fa == llm.FlashAttentionOn)
			e, ps := benchEmbedder(b, llm.EmbedderOptions{BatchTokens: batch, FlashAttention: fa})
			ws, err := e.Windows(ps)
			if err != nil {
				b.Fatal(err)
			}
			b.Run(name+"/pipeline", func(b *testing.B) {
				for b.Loop() {
					if _, _, err := e.EmbedPassages(context.Background(), ps); err != nil {
						b.Fatal(err)
					}
				}
				b.ReportMetric(float64(len(ps)*b.N)/b.Elapsed().Seconds(), "chunks/s")
			})
			b.Run(name+"/raw", func(b *testing.B) {
				for b.Loop() {
					if err := e.RawDecode(context.Background(), ws); err != nil {
						b.Fatal(err)
					}
				}
				b.ReportMetric(float64(len(ps)*b.N)/b.Elapsed().Seconds(), "chunks/s")
			})
			e.Close()
		}
	}
}

// BenchmarkGenerateQwen05B measures generation with a Qwen2.5-0.5B-shaped
// model (writes about 1 GB to the temporary directory).
func BenchmarkGenerateQwen05B(b *testing.B) {
	for b.Loop() {
		rep, err := BenchGenerate(context.Background(), io.Discard, GenerateBenchOptions{Runs: 1})
		if err != nil {
			b.Fatal(err)
		}
		b.ReportMetric(float64(rep.TimeToFirstToken)/float64(time.Millisecond), "ms-first-token")
		b.ReportMetric(rep.PromptTokensPerSecond, "prompt-tokens/s")
		b.ReportMetric(rep.GenerationTokensPerSecond, "gen-tokens/s")
	}
}

func TestBenchEmbedMatrixReports(t *testing.T) {
	cases := []EmbedCase{{Spec: testmodel.Tiny(), Embedder: llm.EmbedderOptions{Threads: 1}}, {Spec: testmodel.Tiny(), Embedder: llm.EmbedderOptions{Threads: 2}}}
	out, err := BenchEmbedMatrix(context.Background(), io.Discard, cases, 4, 40, 2)
	if err != nil {
		t.Fatal(err)
	}
	if len(out) != 2 || out[0].Ratio != 1 || out[1].ChunksPerS <= 0 {
		t.Fatalf("results %+v", out)
	}
	var table strings.Builder
	WriteEmbedMatrix(&table, out)
	if !strings.Contains(table.String(), "| tiny-minilm-test F32, 2 thread(s), flash attention auto |") {
		t.Errorf("table:\n%s", table.String())
	}
}

func writeModel(t testing.TB, s testmodel.Spec, file string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), file)
	if err := testmodel.Write(p, s); err != nil {
		t.Fatal(err)
	}
	return p
}

// BenchRerank times the step at each N and derives the budget's N from
// the measured cost per pair.
func TestBenchRerankReport(t *testing.T) {
	path := writeModel(t, testmodel.TinyReranker(), "rerank.gguf")
	rep, err := BenchRerank(context.Background(), io.Discard, RerankBenchOptions{ModelPath: path, Ns: []int{2, 5}, Runs: 2, PassageWords: 30})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Model != "tiny-reranker-test" || len(rep.Steps) != 2 || rep.Steps[0].N != 2 || rep.Steps[1].N != 5 || rep.Budget != 1500*time.Millisecond {
		t.Fatalf("report %+v", rep)
	}
	for _, s := range rep.Steps {
		if len(s.Runs) != 2 || s.P95 < s.P50 || s.PerPair != s.P50/time.Duration(s.N) {
			t.Errorf("step %+v", s)
		}
	}
	if rep.PerPair <= 0 || rep.BudgetN != int(rep.Budget/rep.PerPair) || rep.PairTokens < 30 {
		t.Errorf("per pair %v, budget N %d, pair tokens %d", rep.PerPair, rep.BudgetN, rep.PairTokens)
	}
}

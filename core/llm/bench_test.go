package llm

import (
	"cmp"
	"context"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"cairn/core/llm/testmodel"
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
	fa := map[string]FlashAttention{"on": FlashAttentionOn, "off": FlashAttentionOff}[os.Getenv("CAIRN_BENCH_FA")]
	switch os.Getenv("CAIRN_BENCH") {
	case "embed":
		_, err := BenchEmbed(context.Background(), os.Stdout, EmbedBenchOptions{
			Weights: weights, Runs: env("CAIRN_BENCH_RUNS"), Chunks: env("CAIRN_BENCH_CHUNKS"),
			Embedder: EmbedderOptions{Threads: env("CAIRN_BENCH_THREADS"), BatchTokens: env("CAIRN_BENCH_BATCH"), FlashAttention: fa},
		})
		if err != nil {
			t.Fatal(err)
		}
	case "generate":
		_, err := BenchGenerate(context.Background(), os.Stdout, GenerateBenchOptions{
			Weights: weights, Runs: env("CAIRN_BENCH_RUNS"), PromptWords: env("CAIRN_BENCH_PROMPT_WORDS"),
			MaxTokens: env("CAIRN_BENCH_MAX_TOKENS"),
			Generator: GeneratorOptions{Threads: env("CAIRN_BENCH_THREADS")},
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
			for _, fa := range []FlashAttention{FlashAttentionAuto, FlashAttentionOn, FlashAttentionOff} {
				cases = append(cases, EmbedCase{Spec: testmodel.MiniLML6(), Embedder: EmbedderOptions{Threads: 1, FlashAttention: fa}})
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
				cases = append(cases, EmbedCase{Spec: s, Embedder: EmbedderOptions{Threads: 1}})
			}
		}
		out, err := BenchEmbedMatrix(context.Background(), os.Stdout, cases, cmp.Or(env("CAIRN_BENCH_CHUNKS"), 16), 256, cmp.Or(env("CAIRN_BENCH_RUNS"), 5))
		if err != nil {
			t.Fatal(err)
		}
		WriteEmbedMatrix(os.Stdout, out)
	default:
		t.Skip("set CAIRN_BENCH=embed, generate or matrix")
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
func benchEmbedder(b *testing.B, opt EmbedderOptions) (*Embedder, []Passage) {
	b.Helper()
	spec := testmodel.MiniLML6()
	if os.Getenv("CAIRN_BENCH_Q8") != "" {
		spec.Weights = testmodel.Q8_0
	}
	e, err := LoadEmbedder(writeModel(b, spec, "minilm.gguf"), opt)
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
		for _, fa := range []FlashAttention{FlashAttentionOff, FlashAttentionOn} {
			name := fmt.Sprintf("batch=%d/fa=%v", batch, fa == FlashAttentionOn)
			e, ps := benchEmbedder(b, EmbedderOptions{BatchTokens: batch, FlashAttention: fa})
			var ws []window
			for _, p := range ps {
				w, _ := e.windows("", p.Text)
				ws = append(ws, w...)
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
					if err := rawEmbedLoop(context.Background(), e, ws); err != nil {
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
	cases := []EmbedCase{{Spec: testmodel.Tiny(), Embedder: EmbedderOptions{Threads: 1}}, {Spec: testmodel.Tiny(), Embedder: EmbedderOptions{Threads: 2}}}
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

package llmbench

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"cairn/core/llm"
	"cairn/core/llm/testmodel"
	"cairn/core/stats"
)

// GPUKitOptions configures BenchGPU, the GPU kit behind `cairn bench gpu`:
// every device against the CPU on models it writes itself. DefaultGPUKit
// gives the catalogue's shapes.
type GPUKitOptions struct {
	// Devices are the llm.device settings measured, in order; the first
	// is the reference the others' vectors are checked against. Empty:
	// "cpu", then every GPU llm.GPUs lists.
	Devices []string
	// Embed is the embedding model's shape; an empty Arch measures none.
	Embed testmodel.Spec
	// Chats are the chat models' shapes, measured in turn.
	Chats []testmodel.Spec
	// Dir is where the model files are written (and removed from when
	// done); "" is the system's temporary folder.
	Dir string
	// Chunks is how many passages one embedding run embeds; ChunkTokens
	// their length in tokens, special tokens included.
	Chunks, ChunkTokens int
	// Batches are the chunks packed into one decode, each measured: 1 is
	// a lone chunk (a file of one page), 32 a GPU's natural batch.
	Batches []int
	// PromptWords sizes the chat prompt; MaxTokens the answer.
	PromptWords, MaxTokens int
	// Runs is the timed runs of each measurement, after a warm-up.
	Runs int
	// Threads are the CPU's llama.cpp threads; 0 is Cairn's default.
	Threads int
}

// DefaultGPUKit measures the catalogue's default embedding model's shape
// (all-MiniLM-L6-v2, F16: the weights the lavapipe tolerance was measured
// with) and its two small chat models' (Qwen2.5 0.5B and 1.5B instruct, in
// Q8_0, the nearest the writer has to the catalogue's Q4_K_M): 64 chunks of
// 256 tokens at batches of 1 and 32, a 400-word prompt (about 500 tokens)
// and 64 generated tokens, 3 runs each.
func DefaultGPUKit() GPUKitOptions {
	emb := testmodel.MiniLML6()
	emb.Weights = testmodel.F16
	var chats []testmodel.Spec
	for _, s := range []testmodel.Spec{testmodel.Qwen25_05B(), testmodel.Qwen25_15B()} {
		s.Weights = testmodel.Q8_0
		chats = append(chats, s)
	}
	return GPUKitOptions{Embed: emb, Chats: chats, Chunks: 64, ChunkTokens: 256, Batches: []int{1, 32},
		PromptWords: 400, MaxTokens: 64, Runs: 3}
}

// GPUKitReport is what BenchGPU measured, device by device.
type GPUKitReport struct {
	Embed       string   // the embedding model: shape and weights; "" when none was measured
	Chunks      int      // per embedding run
	ChunkTokens int      // tokens a chunk
	Chats       []string // the chat models: shape and weights
	PromptWords int
	MaxTokens   int
	Runs        int
	// MinCosine and MaxAbsDiff are the vectors' tolerance (llm.DeviceMinCosine, llm.DeviceMaxAbsDiff).
	MinCosine, MaxAbsDiff float64
	Devices               []GPUKitDevice
}

// GPUKitDevice is one device's figures (medians over the runs).
type GPUKitDevice struct {
	Setting     string // the llm.device setting measured
	Device      string // as `cairn doctor` names it
	MemoryTotal uint64 // bytes; 0 for the CPU
	Embed       []EmbedRate
	// Vectors compares this device's vectors at the largest batch with the
	// first device's; nil on the first device.
	Vectors *VectorCheck `json:",omitempty"`
	Chat    []ChatRate
	// Errors are what failed on this device; the rest was still measured.
	Errors []string `json:",omitempty"`
}

// EmbedRate is the embedding speed at one batch size.
type EmbedRate struct {
	Batch      int
	ChunksPerS float64
}

// VectorCheck is a device's vectors against the reference device's.
type VectorCheck struct {
	llm.Agreement
	Within bool // inside llm.DeviceMinCosine and llm.DeviceMaxAbsDiff
}

// ChatRate is one chat model's speed.
type ChatRate struct {
	Model            string
	PromptTokens     int
	GeneratedTokens  int
	TimeToFirstToken time.Duration
	PromptTokensPerS float64
	GenTokensPerS    float64
}

// Passed reports whether every device ran everything and every vector
// check held.
func (r GPUKitReport) Passed() bool {
	for _, d := range r.Devices {
		if len(d.Errors) > 0 || d.Vectors != nil && !d.Vectors.Within {
			return false
		}
	}
	return true
}

// BenchGPU measures every device of opt.Devices on models of the given
// shapes with random weights, which it writes to opt.Dir and removes:
// embedding chunks/s at each batch size, the vectors against the first
// device's, and each chat model's prompt and generation tokens/s. Progress
// goes to log. A device that fails is reported with its error and the
// others are still measured; only a model that cannot be written, or ctx's
// end, returns an error.
func BenchGPU(ctx context.Context, log io.Writer, opt GPUKitOptions) (rep GPUKitReport, err error) {
	opt.Runs = cmpOr(opt.Runs, 3)
	rep = GPUKitReport{Chunks: opt.Chunks, ChunkTokens: opt.ChunkTokens, PromptWords: opt.PromptWords, MaxTokens: opt.MaxTokens,
		Runs: opt.Runs, MinCosine: llm.DeviceMinCosine, MaxAbsDiff: llm.DeviceMaxAbsDiff}
	settings := opt.Devices
	if len(settings) == 0 {
		settings = []string{llm.DeviceCPU}
		gpus, reason := llm.GPUs()
		for _, g := range gpus {
			settings = append(settings, g.Name)
		}
		if len(gpus) == 0 {
			fmt.Fprintf(log, "gpu: no GPU found (%s); measuring the CPU alone\n", reason)
		}
	}
	// devs are the devices found; a setting that names none is reported
	// with its error and measured no further.
	var devs []*GPUKitDevice
	var missing []GPUKitDevice
	for _, s := range settings {
		d, err := llm.SelectDevice(s)
		if err != nil {
			missing = append(missing, GPUKitDevice{Setting: s, Device: s, Errors: []string{err.Error()}})
			continue
		}
		devs = append(devs, &GPUKitDevice{Setting: s, Device: d.String(), MemoryTotal: d.MemoryTotal})
	}
	defer func() {
		rep.Devices = nil
		for _, d := range devs {
			rep.Devices = append(rep.Devices, *d)
		}
		rep.Devices = append(rep.Devices, missing...)
	}()
	dir, err := os.MkdirTemp(opt.Dir, "cairn-gpu-kit-")
	if err != nil {
		return rep, fmt.Errorf("a folder for the generated models: %w", err)
	}
	defer os.RemoveAll(dir)

	if opt.Embed.Arch != "" {
		rep.Embed = label(opt.Embed)
		path, err := writeKitModel(log, dir, opt.Embed)
		if err != nil {
			return rep, err
		}
		if err := benchKitEmbed(ctx, log, path, opt, devs); err != nil {
			return rep, err
		}
		os.Remove(path)
	}
	for _, spec := range opt.Chats {
		rep.Chats = append(rep.Chats, label(spec))
		path, err := writeKitModel(log, dir, spec)
		if err != nil {
			return rep, err
		}
		for _, d := range devs {
			if ctx.Err() != nil {
				return rep, ctx.Err()
			}
			fmt.Fprintf(log, "gpu: %s on %s\n", label(spec), d.Device)
			g, err := BenchGenerate(ctx, log, GenerateBenchOptions{ModelPath: path, PromptWords: opt.PromptWords,
				MaxTokens: opt.MaxTokens, Runs: opt.Runs, Generator: llm.GeneratorOptions{Device: d.Setting, Threads: opt.Threads}})
			if err != nil {
				if ctx.Err() != nil {
					return rep, ctx.Err()
				}
				d.Errors = append(d.Errors, fmt.Sprintf("%s: %v", label(spec), err))
				d.Chat = append(d.Chat, ChatRate{Model: label(spec)})
				continue
			}
			d.Chat = append(d.Chat, ChatRate{Model: label(spec), PromptTokens: g.PromptTokens, GeneratedTokens: g.GeneratedTokens,
				TimeToFirstToken: g.TimeToFirstToken, PromptTokensPerS: g.PromptTokensPerSecond, GenTokensPerS: g.GenerationTokensPerSecond})
		}
		os.Remove(path)
	}
	return rep, nil
}

// benchKitEmbed measures the embedding model on every device at each
// batch size and checks each device's vectors at the largest batch
// against the first device's.
func benchKitEmbed(ctx context.Context, log io.Writer, path string, opt GPUKitOptions, devs []*GPUKitDevice) error {
	var ps []llm.Passage
	var ref [][]float32
	for i, d := range devs {
		var last [][]float32
		for _, b := range opt.Batches {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			rate, vecs, err := benchKitBatch(ctx, log, path, opt, d.Setting, b, &ps)
			if err != nil {
				if ctx.Err() != nil {
					return ctx.Err()
				}
				d.Errors = append(d.Errors, fmt.Sprintf("embedding at batch %d: %v", b, err))
				last = nil
				break
			}
			d.Embed = append(d.Embed, EmbedRate{Batch: b, ChunksPerS: rate})
			fmt.Fprintf(log, "gpu: embedding on %s, batch %d: %.1f chunks/s\n", d.Device, b, rate)
			last = vecs
		}
		switch {
		case last == nil:
		case i == 0 || ref == nil:
			ref = last
		default:
			a, err := llm.Agree(ref, last)
			if err != nil {
				d.Errors = append(d.Errors, "vectors: "+err.Error())
				continue
			}
			d.Vectors = &VectorCheck{Agreement: a, Within: a.Within()}
		}
	}
	return nil
}

// benchKitBatch loads the embedder on device packing batch chunks into a
// decode, embeds the passages once to warm up (the first decode compiles
// a GPU's shaders) and then runs times, and returns the median chunks/s
// and the last run's vectors. *ps is built on first use, from the first
// embedder's tokenizer.
func benchKitBatch(ctx context.Context, log io.Writer, path string, opt GPUKitOptions, device string, batch int, ps *[]llm.Passage) (float64, [][]float32, error) {
	e, err := llm.LoadEmbedder(path, llm.EmbedderOptions{Device: device, Threads: opt.Threads,
		BatchTokens: batch * opt.ChunkTokens, MaxSequences: batch})
	if err != nil {
		return 0, nil, err
	}
	defer e.Close()
	if *ps == nil {
		if *ps, err = benchPassages(e, opt.Chunks, opt.ChunkTokens); err != nil {
			return 0, nil, err
		}
	}
	if _, _, err := e.EmbedPassages(ctx, (*ps)[:min(batch, len(*ps))]); err != nil {
		return 0, nil, err
	}
	var rates []float64
	var vecs [][]float32
	for range opt.Runs {
		t := time.Now()
		if vecs, _, err = e.EmbedPassages(ctx, *ps); err != nil {
			return 0, nil, err
		}
		rates = append(rates, float64(len(*ps))/time.Since(t).Seconds())
	}
	return stats.Median(rates), vecs, nil
}

// writeKitModel writes spec's random-weight model into dir.
func writeKitModel(log io.Writer, dir string, spec testmodel.Spec) (string, error) {
	p := filepath.Join(dir, strings.ReplaceAll(label(spec), " ", "-")+".gguf")
	fmt.Fprintf(log, "gpu: writing a random-weight model of %s to %s\n", label(spec), p)
	t := time.Now()
	if err := testmodel.Write(p, spec); err != nil {
		os.Remove(p)
		var hint string
		if errors.Is(err, syscall.ENOSPC) {
			hint = " (set TMPDIR to a folder with a few GB free)"
		}
		return "", fmt.Errorf("writing the generated model %s: %w%s", p, err, hint)
	}
	if fi, err := os.Stat(p); err == nil {
		fmt.Fprintf(log, "gpu: %.0f MB in %s\n", float64(fi.Size())/1e6, time.Since(t).Round(time.Millisecond))
	}
	return p, nil
}

// label names a generated model: its shape and weights.
func label(s testmodel.Spec) string { return s.Name + " " + s.Weights.String() }

// WriteGPUKit prints the report as one table, each GPU's figure followed
// by its ratio to the first device's.
func WriteGPUKit(w io.Writer, r GPUKitReport) {
	head := []string{"device"}
	if r.Embed != "" {
		for _, b := range batchesOf(r) {
			head = append(head, fmt.Sprintf("embed chunks/s, batch %d", b))
		}
		head = append(head, "vectors vs first")
	}
	for _, c := range r.Chats {
		short := strings.TrimSuffix(strings.Fields(c)[0], "-shape")
		head = append(head, short+" prompt tokens/s", short+" generated tokens/s")
	}
	fmt.Fprintln(w, "| "+strings.Join(head, " | ")+" |")
	fmt.Fprintln(w, strings.Repeat("|---", len(head))+"|")
	var first *GPUKitDevice
	if len(r.Devices) > 0 {
		first = &r.Devices[0]
	}
	for i, d := range r.Devices {
		row := []string{d.Device}
		if r.Embed != "" {
			for _, b := range batchesOf(r) {
				row = append(row, cell(rateAt(d, b), rateAt(*first, b), i > 0))
			}
			switch {
			case i == 0:
				row = append(row, "(reference)")
			case d.Vectors == nil:
				row = append(row, "not compared")
			default:
				verdict := "ok"
				if !d.Vectors.Within {
					verdict = "DIFFERENT"
				}
				row = append(row, fmt.Sprintf("%s: cosine 1-%.1g, diff %.1g", verdict, 1-d.Vectors.WorstCosine, d.Vectors.MaxAbsDiff))
			}
		}
		for j := range r.Chats {
			var c, f ChatRate
			if j < len(d.Chat) {
				c = d.Chat[j]
			}
			if j < len(first.Chat) {
				f = first.Chat[j]
			}
			row = append(row, cell(c.PromptTokensPerS, f.PromptTokensPerS, i > 0), cell(c.GenTokensPerS, f.GenTokensPerS, i > 0))
		}
		fmt.Fprintln(w, "| "+strings.Join(row, " | ")+" |")
	}
	for _, d := range r.Devices {
		for _, e := range d.Errors {
			fmt.Fprintf(w, "\n%s: %s", d.Device, e)
		}
	}
	fmt.Fprintln(w)
}

func batchesOf(r GPUKitReport) []int {
	for _, d := range r.Devices {
		if len(d.Embed) > 0 {
			var bs []int
			for _, e := range d.Embed {
				bs = append(bs, e.Batch)
			}
			return bs
		}
	}
	return nil
}

func rateAt(d GPUKitDevice, batch int) float64 {
	for _, e := range d.Embed {
		if e.Batch == batch {
			return e.ChunksPerS
		}
	}
	return 0
}

// cell is a rate, and with ratio its multiple of the first device's.
func cell(v, first float64, ratio bool) string {
	if v == 0 {
		return "-"
	}
	s := fmt.Sprintf("%.1f", v)
	if ratio && first > 0 {
		s += fmt.Sprintf(" (%.2fx)", v/first)
	}
	return s
}

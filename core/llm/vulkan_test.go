package llm

import (
	"context"
	"fmt"
	"os"
	"testing"
	"time"

	"cairn/core/llm/testmodel"
	"cairn/internal/skip"
)

// RequireVulkanEnv, set to 1 (as `make test-vulkan` and CI do), turns the
// Vulkan tests' skip into a failure: where the backend was built and a
// driver installed, a missing device is a bug, not a reason to skip.
const RequireVulkanEnv = "CAIRN_REQUIRE_VULKAN"

// vulkanSkip is why a Vulkan test skips where no device is found; the
// details (GPUs' reason, which names folders) go to the test's log, so
// that the line CI counts is the same on every machine.
const vulkanSkip = "no Vulkan device: `make test-vulkan` builds the backend and runs these tests on lavapipe"

// vulkanDevice is the device the Vulkan tests offload to: the one named by
// CAIRN_TEST_DEVICE, else the first GPU ggml lists (lavapipe in CI, made
// visible by GGML_VK_VISIBLE_DEVICES=0; ggml leaves CPU drivers out
// otherwise). The backend is looked for in $CAIRN_LIBRARY_PATH (test
// binaries do not live beside bin/lib).
func vulkanDevice(t *testing.T) Device {
	t.Helper()
	devs, reason := GPUs()
	if len(devs) == 0 {
		if os.Getenv(RequireVulkanEnv) == "1" {
			t.Fatalf("%s=1 but no Vulkan device: %s", RequireVulkanEnv, reason)
		}
		t.Log(reason)
		skip.Because(t, vulkanSkip)
	}
	d := devs[0]
	if s := os.Getenv("CAIRN_TEST_DEVICE"); s != "" {
		var err error
		if d, err = SelectDevice(s); err != nil {
			t.Fatal(err)
		}
	}
	t.Logf("device: %s, %d MiB free of %d", d, d.MemoryFree>>20, d.MemoryTotal>>20)
	return d
}

func TestVulkanEmbeddingsMatchCPU(t *testing.T) {
	dev := vulkanDevice(t)
	spec := testmodel.MiniLML6()
	spec.Weights = testmodel.F16
	path := writeModel(t, spec, "minilm.gguf")
	load := func(device string) *Embedder {
		e, err := LoadEmbedder(path, EmbedderOptions{Device: device})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { e.Close() })
		return e
	}
	cpu, gpu := load(DeviceCPU), load(dev.Name)
	if !cpu.Device().IsCPU() || gpu.Device().Name != dev.Name {
		t.Fatalf("devices: %v and %v, want CPU and %s", cpu.Device(), gpu.Device(), dev.Name)
	}
	ps := make([]Passage, 100)
	for i := range ps {
		// Short chunks: lavapipe embeds about 30 tokens a second on two
		// busy cores (the CPU about 1,000), and CI has minutes to spare.
		ps[i] = Passage{Title: fmt.Sprintf("Chunk %d", i), Text: testmodel.Text(15+i%5*4, uint64(i+1))}
	}
	ctx := context.Background()
	start := time.Now()
	want, _, err := cpu.EmbedPassages(ctx, ps)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("CPU: %v", time.Since(start))
	start = time.Now()
	got, infos, err := gpu.EmbedPassages(ctx, ps)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%s: %v (the first decode compiles the shaders it needs)", dev.Name, time.Since(start))
	tokens := 0
	for i := range ps {
		tokens += infos[i].Tokens
	}
	a, err := Agree(want, got)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%d chunks, %d tokens: worst cosine 1 - %.2g, largest component difference %.2g", len(ps), tokens, 1-a.WorstCosine, a.MaxAbsDiff)
	if !a.Within() {
		t.Errorf("Vulkan vectors differ from the CPU's: worst cosine %.7f (want >= %v), largest difference %.3g (want <= %v)",
			a.WorstCosine, DeviceMinCosine, a.MaxAbsDiff, DeviceMaxAbsDiff)
	}
}

func TestVulkanGreedyGenerationMatchesCPU(t *testing.T) {
	dev := vulkanDevice(t)
	// Qwen2.5-0.5B's transformer, with 32,000 tokens instead of 151,936:
	// the tied output layer is a fifth of the work, and lavapipe generates
	// a token a second or so.
	spec := testmodel.Qwen25_05B()
	spec.Weights = testmodel.Q8_0
	spec.Vocab = 32000
	path := writeModel(t, spec, "qwen.gguf")
	req := GenerateRequest{Messages: []Message{
		{Role: "system", Content: "Answer from the sources."},
		{Role: "user", Content: testmodel.Text(20, 7)},
	}, MaxTokens: 16}
	run := func(device string) ([]string, *Stats) {
		g, err := LoadGenerator(path, GeneratorOptions{Device: device, ContextSize: 256})
		if err != nil {
			t.Fatal(err)
		}
		defer g.Close()
		ch, err := g.Generate(context.Background(), req)
		if err != nil {
			t.Fatal(err)
		}
		_, pieces, last := collect(t, ch)
		if last.Err != nil {
			t.Fatal(last.Err)
		}
		return pieces, last.Stats
	}
	start := time.Now()
	want, cs := run(DeviceCPU)
	t.Logf("CPU: %v", time.Since(start))
	start = time.Now()
	got, gs := run(dev.Name)
	t.Logf("%s: %v", dev.Name, time.Since(start))
	t.Logf("CPU: %d prompt tokens at %.1f/s, %d generated at %.1f/s; %s: %.1f/s and %.1f/s",
		cs.PromptTokens, cs.PromptTokensPerSecond, cs.GeneratedTokens, cs.GenerationTokensPerSecond,
		dev.Name, gs.PromptTokensPerSecond, gs.GenerationTokensPerSecond)
	if cs.GeneratedTokens != req.MaxTokens || gs.GeneratedTokens != cs.GeneratedTokens {
		t.Fatalf("generated %d tokens on the CPU and %d on %s, want %d each", cs.GeneratedTokens, gs.GeneratedTokens, dev.Name, req.MaxTokens)
	}
	for i := range want {
		if i >= len(got) || got[i] != want[i] {
			t.Fatalf("token %d differs: CPU %q, %s %q\nCPU: %q\n%s: %q", i, want[i], dev.Name, at(got, i), want, dev.Name, got)
		}
	}
}

func at(s []string, i int) string {
	if i < len(s) {
		return s[i]
	}
	return "(none)"
}

func TestSelectDevice(t *testing.T) {
	for _, s := range []string{"", "auto", "AUTO", "cpu", " CPU "} {
		d, err := SelectDevice(s)
		if err != nil {
			t.Fatalf("SelectDevice(%q): %v", s, err)
		}
		if s == "cpu" || s == " CPU " {
			if !d.IsCPU() {
				t.Errorf("SelectDevice(%q) = %v, want the CPU", s, d)
			}
		} else if !d.IsCPU() && d.Software {
			t.Errorf("SelectDevice(%q) = %v: auto must not pick a software driver", s, d)
		}
	}
	if _, err := SelectDevice("no such device"); err == nil {
		t.Error("SelectDevice of an unknown name: no error")
	} else {
		t.Log(err)
	}
	// The CPU keeps every layer; where a GPU is listed, the model's device
	// list is the CPU alone, so that no matrix product goes to the GPU.
	gpus, _ := GPUs()
	if d, mp, err := modelParams(DeviceCPU); err != nil || !d.IsCPU() || mp.NumGpuLayers != 0 ||
		(len(gpus) == 0) != (len(mp.Devices) == 0) {
		t.Errorf("modelParams(cpu) = %v, %+v, %v with %d GPUs", d, mp, err, len(gpus))
	}
	for _, g := range gpus {
		if d, mp, err := modelParams(g.Name); err != nil || d.Name != g.Name || mp.NumGpuLayers != allLayers ||
			len(mp.Devices) != 1 || int(mp.Devices[0]) != g.index-1 {
			t.Errorf("modelParams(%s) = %v, %+v, %v", g.Name, d, mp, err)
		}
	}
	if !softwareDriver("llvmpipe (LLVM 15.0.6, 256 bits)") || softwareDriver("NVIDIA GeForce RTX 3060") {
		t.Error("softwareDriver: llvmpipe is software, an NVIDIA card is not")
	}
}

package llmbench

import (
	"context"
	"io"
	"os"
	"strings"
	"testing"

	"cairn/core/llm"
	"cairn/core/llm/testmodel"
	"cairn/internal/skip"
)

// tinyKit is the GPU kit on the tiny test models: 8 chunks of 48 tokens at
// batches of 1 and 4, a 20-word prompt and 6 tokens, one run.
func tinyKit(t *testing.T, devices ...string) GPUKitOptions {
	return GPUKitOptions{Devices: devices, Embed: testmodel.Tiny(), Chats: []testmodel.Spec{testmodel.TinyChat()},
		Dir: t.TempDir(), Chunks: 8, ChunkTokens: 48, Batches: []int{1, 4}, PromptWords: 20, MaxTokens: 6, Runs: 1}
}

// TestGPUKitComparesDevices measures the CPU twice, as two devices: the
// second's vectors are checked against the first's (the same numbers,
// since the CPU sums in the same order), every figure is there, and a
// device that is not here is reported without stopping the others.
func TestGPUKitComparesDevices(t *testing.T) {
	opt := tinyKit(t, "cpu", "cpu", "no-such-gpu")
	rep, err := BenchGPU(context.Background(), io.Discard, opt)
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Devices) != 3 {
		t.Fatalf("%d devices, want 3: %+v", len(rep.Devices), rep.Devices)
	}
	for _, d := range rep.Devices[:2] {
		if d.Device != "CPU" || len(d.Errors) > 0 || len(d.Embed) != 2 || d.Embed[0].Batch != 1 || d.Embed[1].Batch != 4 ||
			d.Embed[0].ChunksPerS <= 0 || d.Embed[1].ChunksPerS <= 0 || len(d.Chat) != 1 ||
			d.Chat[0].PromptTokensPerS <= 0 || d.Chat[0].GenTokensPerS <= 0 || d.Chat[0].GeneratedTokens != 6 {
			t.Errorf("device %+v", d)
		}
	}
	if rep.Devices[0].Vectors != nil {
		t.Errorf("the reference was compared with itself: %+v", rep.Devices[0].Vectors)
	}
	if v := rep.Devices[1].Vectors; v == nil || v.Vectors != 8 || v.WorstCosine < 1-1e-6 || v.MaxAbsDiff != 0 || !v.Within {
		t.Errorf("the second CPU's vectors against the first's: %+v", v)
	}
	if d := rep.Devices[2]; len(d.Errors) != 1 || !strings.Contains(d.Errors[0], `device "no-such-gpu" is not here`) {
		t.Errorf("missing device: %+v", d)
	}
	if rep.Passed() {
		t.Error("Passed() with a device that is not here")
	}
	if rep.Embed != "tiny-minilm-test F32" || len(rep.Chats) != 1 || rep.Chats[0] != "tiny-chat-test F32" {
		t.Errorf("models: %q, %q", rep.Embed, rep.Chats)
	}
	var out strings.Builder
	WriteGPUKit(&out, rep)
	lines := strings.Split(out.String(), "\n")
	if lines[0] != "| device | embed chunks/s, batch 1 | embed chunks/s, batch 4 | vectors vs first | tiny-chat-test prompt tokens/s | tiny-chat-test generated tokens/s |" ||
		!strings.HasPrefix(lines[3], "| CPU | ") || !strings.Contains(lines[3], "x) | ok: cosine 1-") ||
		!strings.Contains(out.String(), "no-such-gpu: device") {
		t.Errorf("table:\n%s", out.String())
	}
	// The generated models are removed.
	if left, _ := os.ReadDir(opt.Dir); len(left) != 0 {
		t.Errorf("%d files left in %s", len(left), opt.Dir)
	}
}

// TestVulkanGPUKit runs the kit on every GPU found (lavapipe under `make
// test-vulkan`): each must pass the vectors' check against the CPU. The
// embedding model has all-MiniLM-L6-v2's shape in F16, as the tolerance
// was measured with: the 32-wide tiny model's vectors (heads 8 wide, F32)
// came out of lavapipe far from the CPU's (worst cosine 0.85, 2026-12-02),
// a shape no catalogue model has.
func TestVulkanGPUKit(t *testing.T) {
	gpus, reason := llm.GPUs()
	if len(gpus) == 0 {
		if os.Getenv("CAIRN_REQUIRE_VULKAN") == "1" {
			t.Fatalf("CAIRN_REQUIRE_VULKAN=1 but no Vulkan device: %s", reason)
		}
		t.Log(reason)
		skip.Because(t, "no Vulkan device: `make test-vulkan` builds the backend and runs these tests on lavapipe")
	}
	opt := tinyKit(t)
	opt.Embed, opt.ChunkTokens, opt.Batches = testmodel.MiniLML6(), 64, []int{1, 8}
	rep, err := BenchGPU(context.Background(), io.Discard, opt)
	if err != nil {
		t.Fatal(err)
	}
	var out strings.Builder
	WriteGPUKit(&out, rep)
	t.Log("\n" + out.String())
	if len(rep.Devices) != 1+len(gpus) || !rep.Passed() {
		t.Errorf("%d devices for %d GPUs, passed %v", len(rep.Devices), len(gpus), rep.Passed())
	}
	for _, d := range rep.Devices[1:] {
		if d.Vectors == nil || !d.Vectors.Within {
			t.Errorf("%s: vectors %+v", d.Device, d.Vectors)
		}
	}
}

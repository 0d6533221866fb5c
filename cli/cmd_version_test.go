package cli

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"cairn/core/buildinfo"
	"cairn/core/llm"
)

// TestVersionSaysWhetherTheGPUBackendIsIn: `cairn version` prints the
// stamp and the backend library it would load, without loading it (the
// file here is not a library at all).
func TestVersionSaysWhetherTheGPUBackendIsIn(t *testing.T) {
	home := t.TempDir()
	t.Setenv(llm.LibraryPathEnv, t.TempDir())
	out, errs, code := cli(t, home, "version")
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if code != 0 || len(lines) != 3 || lines[0] != "cairn "+buildinfo.Read().Version ||
		!strings.HasSuffix(lines[1], runtime.Version()) || lines[2] != "GPU backend: none (models run on the CPU)" {
		t.Fatalf("cairn version: exit %d\n%s%s", code, out, errs)
	}
	libs := t.TempDir()
	os.WriteFile(filepath.Join(libs, "libggml-vulkan.so"), []byte("not loaded"), 0o644)
	t.Setenv(llm.LibraryPathEnv, libs)
	out, _, _ = cli(t, home, "version")
	if want := "GPU backend: Vulkan, " + filepath.Join(libs, "libggml-vulkan.so") + "\n"; !strings.HasSuffix(out, want) {
		t.Errorf("with a backend in %s: %q, want it to end %q", libs, out, want)
	}
}

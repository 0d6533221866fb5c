package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"cairn/internal/skip"
)

// TestBundleLauncherResolvesLibrariesInside builds a small bundle the way
// `make bundle` does (build/dist/common.sh's bundle_libs and the launcher)
// around a fixture program that links what cairn links from C (X11, GL,
// Tesseract, libstdc++), and checks that ldd under the launcher resolves
// every library inside the bundle except glibc's and the system's GL
// dispatch (the driver's side, bundled only as a fallback for machines
// without one). `make test-dist` checks the real bundle in a clean
// Debian root, where even GL resolves inside.
func TestBundleLauncherResolvesLibrariesInside(t *testing.T) {
	for _, tool := range []string{"cc", "ldd", "dpkg-query", "sh"} {
		if _, err := exec.LookPath(tool); err != nil {
			skip.Because(t, "needs "+tool+": the bundle is built on Debian (make deps installs it)")
		}
	}
	dir := t.TempDir()
	src := filepath.Join(dir, "fixture.c")
	os.WriteFile(src, []byte("int main(void) { return 0; }\n"), 0o644)
	root := filepath.Join(dir, "bundle")
	os.MkdirAll(filepath.Join(root, "bin"), 0o755)
	prog := filepath.Join(root, "bin", "cairn")
	if out, err := exec.Command("cc", "-o", prog, src, "-Wl,--no-as-needed", "-lX11", "-lGL", "-ltesseract", "-lstdc++").CombinedOutput(); err != nil {
		t.Logf("cc: %v\n%s", err, out)
		skip.Because(t, "cannot link the fixture against X11, GL and Tesseract: make deps installs their development files")
	}
	script := `set -e
. build/dist/common.sh
bundle_libs "$1" "$1/bin/cairn" "$(system_lib libXrandr.so.2)" >/dev/null
cp build/dist/launcher.sh "$1/cairn"
chmod 755 "$1/cairn"
`
	if out, err := exec.Command("sh", "-c", script, "sh", root).CombinedOutput(); err != nil {
		t.Fatalf("bundle_libs: %v\n%s", err, out)
	}
	out, err := exec.Command(filepath.Join(root, "cairn"), "--ldd").CombinedOutput()
	if err != nil {
		t.Fatalf("cairn --ldd: %v\n%s", err, out)
	}
	glibc, err := exec.Command("dpkg-query", "-L", "libc6").Output()
	if err != nil {
		t.Fatal(err)
	}
	system := map[string]bool{"libGL.so.1": true, "libGLX.so.0": true, "libGLdispatch.so.0": true}
	for _, f := range strings.Fields(string(glibc)) {
		system[filepath.Base(f)] = true
	}
	inside := 0
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		f := strings.Fields(line)
		switch {
		case strings.Contains(line, "not found"):
			t.Errorf("not found: %s", line)
		case len(f) < 3 || f[1] != "=>":
			// the vDSO and the dynamic loader
		case strings.HasPrefix(f[2], root+"/"):
			inside++
		case !system[f[0]]:
			t.Errorf("%s resolves outside the bundle: %s", f[0], f[2])
		}
	}
	// The fixture loads some 60 libraries through Tesseract alone.
	if inside < 30 {
		t.Errorf("only %d libraries resolve inside the bundle:\n%s", inside, out)
	}
	for _, f := range []string{"lib/libtesseract.so.5", "lib/libX11.so.6", "lib/libXrandr.so.2", "lib/compat/libstdc++.so.6",
		"lib/compat/libstdc++.version", "lib/glvnd/libGL.so.1", "licenses/LIBRARIES.tsv"} {
		if _, err := os.Stat(filepath.Join(root, f)); err != nil {
			t.Errorf("the bundle lacks %s", f)
		}
	}
	if _, err := os.Stat(filepath.Join(root, "lib", "libc.so.6")); err == nil {
		t.Error("glibc was bundled")
	}
}

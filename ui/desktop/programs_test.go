package desktop

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestProgramsListsWhatIsStarted: every program ViewerCommand looks for is
// in Programs, which the packages' Recommends come from.
func TestProgramsListsWhatIsStarted(t *testing.T) {
	var looked []string
	look := func(b string) (string, error) {
		looked = append(looked, b)
		return "", os.ErrNotExist
	}
	ViewerCommand("/d/a.pdf", 3, look)
	var names []string
	for _, p := range Programs {
		names = append(names, p.Name)
	}
	for _, b := range append(looked, "zenity", "kdialog", "dbus-send") {
		if !slices.Contains(names, b) {
			t.Errorf("%s is started but not in Programs", b)
		}
	}
}

// TestDesktopProgramsLeaveTheBundle: inside the portable bundle, a viewer
// gets the library path the launcher found (none here) and no bundle
// folder on PATH; outside it, Cairn's own environment.
func TestDesktopProgramsLeaveTheBundle(t *testing.T) {
	bundle := t.TempDir()
	t.Setenv("PATH", filepath.Join(bundle, "bin")+":/usr/bin:/bin")
	t.Setenv("LD_LIBRARY_PATH", filepath.Join(bundle, "lib"))
	t.Setenv(BundleEnv, bundle)
	os.Unsetenv(OuterLibraryPathEnv)
	dir := t.TempDir()
	out := filepath.Join(dir, "env")
	script := filepath.Join(dir, "viewer")
	os.WriteFile(script, []byte("#!/bin/sh\nenv > "+out+"\n"), 0o755)
	if err := launch(context.Background(), []string{script}, 5e9); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(out)
	env := strings.Split(string(b), "\n")
	if slices.ContainsFunc(env, func(kv string) bool {
		return strings.HasPrefix(kv, "LD_LIBRARY_PATH=") || strings.HasPrefix(kv, BundleEnv+"=")
	}) || !slices.Contains(env, "PATH=/usr/bin:/bin") {
		t.Errorf("the viewer's environment inside the bundle:\n%s", b)
	}
	t.Setenv(OuterLibraryPathEnv, "/opt/mine")
	if got := outsideEnv(); !slices.Contains(got, "LD_LIBRARY_PATH=/opt/mine") {
		t.Errorf("the library path the launcher found is not given back: %q", got)
	}
	os.Unsetenv(BundleEnv)
	if got := outsideEnv(); got != nil {
		t.Errorf("outside the bundle: %d variables, want Cairn's own (nil)", len(got))
	}
}

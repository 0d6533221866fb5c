package cli

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// child runs cairn in a child process (a fresh SQLite runtime, which
// compiles once per process) with a private CAIRN_HOME and extra
// environment variables.
func child(t *testing.T, home string, env []string, args ...string) (string, string, int) {
	t.Helper()
	cmd := exec.Command(os.Args[0], args...)
	cmd.Env = append(append(os.Environ(), "CAIRN_TEST_MAIN=1", "CAIRN_HOME="+home), env...)
	var out, errb strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return out.String(), errb.String(), code
}

// TestUnusableCompileCacheOnlyWarns: the SQLite compile cache is optional.
// When it cannot be written (a full disk, a file where its folder should
// be) or read (a damaged entry), commands warn once and work (issue 14,
// item 4).
func TestUnusableCompileCacheOnlyWarns(t *testing.T) {
	home := t.TempDir()
	if _, errs, code := child(t, home, nil, "index", corpusDir(t)); code != 0 {
		t.Fatal(errs)
	}
	cache := filepath.Join(home, "cache", "wazero")
	entries, _ := filepath.Glob(filepath.Join(cache, "*", "*"))
	if len(entries) != 1 {
		t.Fatalf("compile cache entries %v, want 1", entries)
	}
	reset := func() {
		if err := os.RemoveAll(cache); err != nil {
			t.Fatal(err)
		}
	}
	for _, tc := range []struct {
		name  string
		setup func()
		env   []string
		why   string
	}{
		{"full disk", reset, []string{"CAIRN_TEST_FSIZE=2000000"}, "file too large"},
		{"file for its folder", func() { reset(); os.WriteFile(cache, []byte("x"), 0o600) }, nil, "is not dir"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.setup()
			for _, args := range [][]string{{"status"}, {"search", "reset the router"}} {
				out, errs, code := child(t, home, tc.env, args...)
				l := lines(errs)
				if code != 0 || !strings.Contains(out, "default") && !strings.Contains(out, "router-x200.md") || len(l) != 2 ||
					!strings.HasPrefix(l[0], "cairn: warning: starting without the compile cache") || !strings.Contains(l[0], tc.why) ||
					l[1] != "  fix: free space on that disk, or delete the folder "+cache+" (Cairn rebuilds it)" {
					t.Errorf("%s: exit %d\nstdout:\n%s\nstderr:\n%s", args[0], code, out, errs)
				}
			}
		})
	}
	// A damaged entry is not worth a warning at every start: the cache is
	// emptied and built again (issue 33, item 8).
	reset()
	os.MkdirAll(entries[0], 0o700)
	if _, errs, code := child(t, home, nil, "status"); code != 0 || errs != "" {
		t.Errorf("with a damaged entry: exit %d, stderr %q", code, errs)
	}
	if fi, err := os.Stat(entries[0]); err != nil || fi.IsDir() {
		t.Errorf("the damaged entry is still there: %v", err)
	}
	// Once usable again, the cache is rebuilt and the warning goes.
	reset()
	for range 2 {
		if _, errs, code := child(t, home, nil, "status"); code != 0 || errs != "" {
			t.Errorf("with a working cache: exit %d, stderr %q", code, errs)
		}
	}
	if entries, _ := filepath.Glob(filepath.Join(cache, "*", "*")); len(entries) != 1 {
		t.Errorf("compile cache entries %v after a clean start", entries)
	}
}

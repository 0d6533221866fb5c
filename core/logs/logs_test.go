package logs

import (
	"bytes"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

func TestRotationKeepsNFilesOfBoundedSize(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "state")
	path := filepath.Join(dir, "cairn.log")
	r, err := OpenRotator(path, 1000, 2)
	if err != nil {
		t.Fatal(err)
	}
	for i := range 100 {
		fmt.Fprintf(r, "line %03d %s\n", i, strings.Repeat("x", 40)) // 50 bytes
	}
	r.Close()
	if _, err := fmt.Fprintln(r, "after close"); err == nil {
		t.Error("write after Close succeeded")
	}
	// 100 lines of 50 bytes: 20 per file; the current and two old files hold
	// the last 60 lines, oldest in .2.
	for i, suffix := range []string{".2", ".1", ""} {
		b, err := os.ReadFile(path + suffix)
		if err != nil {
			t.Fatal(err)
		}
		if len(b) > 1000 {
			t.Errorf("%s is %d bytes, over the limit", suffix, len(b))
		}
		lines := strings.Split(strings.TrimSpace(string(b)), "\n")
		first := fmt.Sprintf("line %03d ", 40+20*i)
		if len(lines) != 20 || !strings.HasPrefix(lines[0], first) {
			t.Errorf("cairn.log%s: %d lines starting %q, want 20 from %q", suffix, len(lines), lines[0][:9], first)
		}
		fi, _ := os.Stat(path + suffix)
		if fi.Mode().Perm() != 0o600 {
			t.Errorf("cairn.log%s mode %v, want 0600", suffix, fi.Mode().Perm())
		}
	}
	if _, err := os.Stat(path + ".3"); err == nil {
		t.Error("a third old file was kept")
	}
	if di, _ := os.Stat(dir); di.Mode().Perm() != 0o700 {
		t.Errorf("folder mode %v, want 0700", di.Mode().Perm())
	}
	// Reopening appends, counting what the file already holds.
	r, _ = OpenRotator(path, 1000, 2)
	fmt.Fprintf(r, "line %03d %s\n", 100, strings.Repeat("x", 40))
	r.Close()
	if b, _ := os.ReadFile(path); !strings.HasPrefix(string(b), "line 100 ") {
		t.Errorf("the full file was not rotated on the first write after reopening: %.20q", b)
	}
}

func TestOpenPrivateTightensAnOldFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "audit.log")
	os.WriteFile(path, []byte("old\n"), 0o644)
	f, err := OpenPrivate(path)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString("new\n")
	f.Close()
	fi, _ := os.Stat(path)
	b, _ := os.ReadFile(path)
	if fi.Mode().Perm() != 0o600 || string(b) != "old\nnew\n" {
		t.Errorf("mode %v content %q", fi.Mode().Perm(), b)
	}
}

func read(t *testing.T, l *Logger) string {
	t.Helper()
	b, err := os.ReadFile(l.Path())
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestLevelAndRedaction(t *testing.T) {
	for _, tt := range []struct {
		level    string
		info     bool // info records written
		showText bool
	}{
		{"error", false, false},
		{"warn", false, false},
		{"info", true, false},
		{"debug", true, true},
	} {
		t.Run(tt.level, func(t *testing.T) {
			lvl, err := ParseLevel(tt.level)
			if err != nil {
				t.Fatal(err)
			}
			var term bytes.Buffer
			l, err := Open(Options{Dir: t.TempDir(), Level: lvl, Terminal: &term})
			if err != nil {
				t.Fatal(err)
			}
			l.Debug("debug record", "query", "how do I reset the pump")
			l.Info("search", "query", "how do I reset the pump", "results", 3)
			l.With("api_key", "sk-secret-123").Warn("endpoint refused", "snippet", "Press and hold the reset button",
				slog.Group("req", "password", "hunter2", "text", "confidential passage"))
			l.Error("failed", "code", "STORE-004")
			l.Terminal.Warn("llama.cpp warning", "text", "document words")
			l.Close()
			log := read(t, l)

			if got := strings.Contains(log, "msg=search"); got != tt.info {
				t.Errorf("info record written: %v, want %v\n%s", got, tt.info, log)
			}
			if got := strings.Contains(log, "debug record"); got != (tt.level == "debug") {
				t.Errorf("debug record written: %v", got)
			}
			if !strings.Contains(log, "STORE-004") || strings.Contains(log, "llama.cpp warning") != (tt.level != "error") {
				t.Errorf("errors, and warnings below level error, must be logged:\n%s", log)
			}
			for _, secret := range []string{"sk-secret-123", "hunter2"} {
				if strings.Contains(log, secret) || strings.Contains(term.String(), secret) {
					t.Errorf("secret %q logged", secret)
				}
			}
			for _, text := range []string{"reset the pump", "Press and hold", "confidential passage", "document words"} {
				if strings.Contains(log, text) != tt.showText {
					t.Errorf("level %s: text %q in the log: %v", tt.level, text, strings.Contains(log, text))
				}
				if strings.Contains(term.String(), text) {
					t.Errorf("text %q reached the terminal", text)
				}
			}
			// The terminal gets only what goes through Terminal at warn and above.
			if !strings.Contains(term.String(), "llama.cpp warning") || strings.Contains(term.String(), "endpoint refused") ||
				strings.Contains(term.String(), "failed") {
				t.Errorf("terminal:\n%s", term.String())
			}
		})
	}
	if _, err := ParseLevel("loud"); err == nil {
		t.Error("an unknown level was accepted")
	}
}

// TestConcurrentWritesStayWhole writes from several goroutines through a
// small limit: every line lands whole in one of the kept files.
func TestConcurrentWritesStayWhole(t *testing.T) {
	path := filepath.Join(t.TempDir(), "cairn.log")
	r, err := OpenRotator(path, 4000, 50)
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 200 {
				fmt.Fprintf(r, "g%d line %03d %s\n", g, i, strings.Repeat("y", 30))
			}
		}()
	}
	wg.Wait()
	r.Close()
	seen := map[string]bool{}
	files, _ := filepath.Glob(path + "*")
	for _, f := range files {
		b, _ := os.ReadFile(f)
		for _, l := range strings.Split(strings.TrimSpace(string(b)), "\n") {
			if len(l) != 42 {
				t.Fatalf("torn line %q in %s", l, f)
			}
			seen[l[:12]] = true
		}
	}
	if len(seen) != 800 {
		t.Errorf("%d of 800 lines kept", len(seen))
	}
}

// A rotation that cannot rename (a folder in the way of cairn.log.1) leaves
// the log appending to the current file, saying so, instead of closing it.
func TestAFailedRotationKeepsLogging(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "cairn.log")
	if err := os.MkdirAll(filepath.Join(path+".1", "in-the-way"), 0o700); err != nil {
		t.Fatal(err)
	}
	r, err := OpenRotator(path, 100, 1)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	var want []string
	for i := 0; i < 6; i++ {
		line := fmt.Sprintf("line %d %s\n", i, strings.Repeat("x", 40))
		if n, err := r.Write([]byte(line)); err != nil || n != len(line) {
			t.Fatalf("write %d: %d, %v", i, n, err)
		}
		want = append(want, strings.TrimSpace(line))
	}
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	text := string(raw)
	for _, l := range want {
		if !strings.Contains(text, l) {
			t.Errorf("%q is not in the log:\n%s", l, text)
		}
	}
	// One failed attempt, then the next only after another 100 bytes.
	if n := strings.Count(text, "log rotation failed, so this file grows past its limit: rotate log: rename"); n != 2 {
		t.Errorf("%d rotation failures noted, want 2:\n%s", n, text)
	}
}

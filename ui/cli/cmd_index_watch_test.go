package cli

import (
	"bufio"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestIndexWatchIndexesWhatChanges runs `cairn index --watch` in a child
// process: after the first run it picks up a file written later (and not a
// hidden one), and Ctrl+C stops it with exit code 130.
func TestIndexWatchIndexesWhatChanges(t *testing.T) {
	home, dir := t.TempDir(), t.TempDir()
	os.WriteFile(filepath.Join(dir, "a.txt"), []byte("alpha bravo\n"), 0o600)
	cmd := exec.Command(os.Args[0], "index", dir, "--watch", "--quiet")
	cmd.Env = append(os.Environ(), "CAIRN_TEST_MAIN=1", "CAIRN_HOME="+home)
	stderr, _ := cmd.StderrPipe()
	stdout, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	lines := make(chan string, 16)
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			lines <- sc.Text()
		}
	}()
	watching := make(chan struct{})
	go func() {
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			if strings.HasPrefix(sc.Text(), "watching ") {
				close(watching)
			}
		}
	}()
	next := func() string {
		t.Helper()
		select {
		case l := <-lines:
			return l
		case <-time.After(20 * time.Second):
			cmd.Process.Kill()
			t.Fatal("no index run reported")
		}
		return ""
	}
	if l := next(); !strings.Contains(l, "1 indexed") {
		t.Fatalf("first run: %s", l)
	}
	<-watching
	// "watching" is printed as the watcher starts: a write in the moment
	// before it is ready goes unseen, so write again until a run comes.
	os.WriteFile(filepath.Join(dir, ".hidden.txt"), []byte("hidden\n"), 0o600)
	var l string
	for try := 0; l == "" && try < 10; try++ {
		os.WriteFile(filepath.Join(dir, "b.txt"), []byte("charlie zulu\n"), 0o600)
		select {
		case l = <-lines:
		case <-time.After(3 * time.Second):
		}
	}
	if !strings.Contains(l, "2 files seen, 1 indexed, 1 unchanged") {
		t.Errorf("after a change: %q", l)
	}
	cmd.Process.Signal(syscall.SIGINT)
	err := cmd.Wait()
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 130 {
		t.Errorf("exit after Ctrl+C: %v", err)
	}
	out, _, code := cli(t, home, "search", "zulu")
	if code != 0 || !strings.Contains(out, "b.txt") {
		t.Errorf("search after watching: %d %s", code, out)
	}
}

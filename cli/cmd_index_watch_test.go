package cli

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"io"
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
	lines, watching := startWatching(t, cmd)
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

// TestAWatchIntoTheClusterOutlivesAFailedFirstRun: with a retry (the team
// cluster's watcher) a first run that fails, as when another indexer
// holds the folder, is reported and tried again after the retry, without
// any change in the folder; without one (a knowledge base file) it ends
// the watch with its error.
func TestAWatchIntoTheClusterOutlivesAFailedFirstRun(t *testing.T) {
	held := errors.New(`"share/x" is being indexed by alice@host`)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	runs := 0
	once := func() error {
		runs++
		if runs == 1 {
			return held
		}
		cancel() // the second run succeeds; then Ctrl+C
		return nil
	}
	watch := func(ctx context.Context, changed func()) error { <-ctx.Done(); return ctx.Err() }
	var stderr bytes.Buffer
	err := rerun(ctx, &stderr, "share/x", once, watch, 10*time.Millisecond)
	if !errors.Is(err, context.Canceled) || runs != 2 {
		t.Errorf("with a retry: %d runs, ended with %v", runs, err)
	}
	if want := "cairn: " + held.Error() + "\ntrying again in 10ms\nwatching share/x; Ctrl+C stops\n"; stderr.String() != want {
		t.Errorf("told\n%q\nwant\n%q", stderr.String(), want)
	}

	runs = 0
	ctx2, cancel2 := context.WithCancel(context.Background())
	defer cancel2()
	err = rerun(ctx2, io.Discard, "share/x", once, watch, 0)
	if err != held || runs != 1 {
		t.Errorf("without a retry: %d runs, ended with %v", runs, err)
	}
}

// startWatching starts a `cairn index --watch` child: lines receives its
// summary lines (one per index run), watching closes when it says it is
// watching.
func startWatching(t *testing.T, cmd *exec.Cmd) (lines <-chan string, watching <-chan struct{}) {
	t.Helper()
	stderr, _ := cmd.StderrPipe()
	stdout, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	out := make(chan string, 16)
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			out <- sc.Text()
		}
	}()
	w := make(chan struct{})
	go func() {
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			if strings.HasPrefix(sc.Text(), "watching ") {
				close(w)
			}
		}
	}()
	return out, w
}

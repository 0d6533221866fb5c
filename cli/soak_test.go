package cli

import (
	"fmt"
	"maps"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"cairn/core/extract/extracttest"
	"cairn/core/store/storetest"
	"cairn/internal/skip"
)

// The soak: `make soak` runs these with CAIRN_SOAK_RUNS=50; `go test` runs
// each a few times. Every kill is followed by the database's full checks
// (stats) and a run that finishes the job, compared file by file with a
// clean run.

// soakRuns is the number of kills per test: CAIRN_SOAK_RUNS, or def.
// With -short the soak is skipped.
func soakRuns(t *testing.T, def int) int {
	if testing.Short() {
		skip.Because(t, "-short: the soak kills cairn index several times")
	}
	if n, err := strconv.Atoi(os.Getenv("CAIRN_SOAK_RUNS")); err == nil && n > 0 {
		return n
	}
	return def
}

// startChild starts cairn with args in a child process, in a process
// group of its own with the tools it runs (pdftotext).
func startChild(t *testing.T, home string, env []string, args ...string) (*exec.Cmd, <-chan struct{}) {
	t.Helper()
	cmd := exec.Command(os.Args[0], args...)
	cmd.Env = append(append(os.Environ(), "CAIRN_TEST_MAIN=1", "CAIRN_HOME="+home), env...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan struct{})
	go func() { cmd.Wait(); close(exited) }()
	t.Cleanup(func() { killGroup(cmd); <-exited })
	return cmd, exited
}

// killGroup kills cmd and the tools it started with SIGKILL, as systemd
// kills a service: pdftotext, left alone when only cairn is killed, would
// go on working on a file that stalls it.
func killGroup(cmd *exec.Cmd) {
	syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
}

// killAfter kills cmd after d, or not at all if it exits first.
func killAfter(cmd *exec.Cmd, exited <-chan struct{}, d time.Duration) {
	select {
	case <-exited:
		return
	case <-time.After(d):
	}
	killGroup(cmd)
	<-exited
}

// sameChunks fails unless the knowledge base at path holds exactly want's
// files with want's chunk counts.
func sameChunks(t *testing.T, what, path string, want map[string]int) {
	t.Helper()
	if got := storetest.ChunkCounts(t, path); !maps.Equal(got, want) {
		t.Fatalf("%s: %d files, want %d; first difference: %s", what, len(got), len(want), firstDiff(got, want))
	}
}

func firstDiff(got, want map[string]int) string {
	for p, n := range want {
		if got[p] != n {
			return fmt.Sprintf("%s has %d chunks, want %d", p, got[p], n)
		}
	}
	for p, n := range got {
		if _, ok := want[p]; !ok {
			return fmt.Sprintf("%s (%d chunks) should be gone", p, n)
		}
	}
	return "none"
}

// replaceDB puts a copy of the knowledge base src at dst, alone.
func replaceDB(t *testing.T, src, dst string) {
	t.Helper()
	for _, s := range []string{"", "-wal", "-shm"} {
		os.Remove(dst + s)
	}
	copyFile(t, src, dst)
}

// TestSIGKILLDuringIncrementalIndexing kills `cairn index` while it brings
// a knowledge base up to date with a folder where a fifth of the files
// changed, some were deleted and some added: after each kill the database
// passes every check, and finishing the run gives, file by file, the
// chunks of a clean index of the changed folder.
func TestSIGKILLDuringIncrementalIndexing(t *testing.T) {
	runs := soakRuns(t, 2)
	corpus := writeCorpus(t, 1000)
	home := t.TempDir()
	kb := func(name string) string { return filepath.Join(home, "data", "kb", name+".db") }
	if _, errs, code := cli(t, home, "index", corpus, "--kb", "base", "--quiet"); code != 0 {
		t.Fatal(errs)
	}
	for i := range 200 {
		p := filepath.Join(corpus, fmt.Sprintf("doc%04d.md", i*5))
		b, _ := os.ReadFile(p)
		os.WriteFile(p, append(b, []byte("\n\nRevised: the pump seal warranty now covers the valve.\n")...), 0o644)
	}
	for i := range 50 {
		os.Remove(filepath.Join(corpus, fmt.Sprintf("doc%04d.md", i*5+1)))
		os.WriteFile(filepath.Join(corpus, fmt.Sprintf("new%04d.md", i)), []byte(fmt.Sprintf("# New %d\n\nA new router firmware note, number %d.\n", i, i)), 0o644)
	}
	if _, errs, code := cli(t, home, "index", corpus, "--kb", "expect", "--quiet"); code != 0 {
		t.Fatal(errs)
	}
	want := storetest.ChunkCounts(t, kb("expect"))
	// How long an uninterrupted incremental run takes here, to spread the
	// kills over it.
	replaceDB(t, kb("base"), kb("crash"))
	start := time.Now()
	if _, errs, code := child(t, home, nil, "index", corpus, "--kb", "crash", "--quiet"); code != 0 {
		t.Fatal(errs)
	}
	span := time.Since(start)
	sameChunks(t, "uninterrupted incremental run", kb("crash"), want)

	rng := rand.New(rand.NewPCG(5, 6))
	for i := range runs {
		replaceDB(t, kb("base"), kb("crash"))
		cmd, exited := startChild(t, home, nil, "index", corpus, "--kb", "crash", "--quiet")
		at := time.Duration(rng.Int64N(int64(span)))
		killAfter(cmd, exited, at)
		killed := kbStats(t, kb("crash"))
		t.Logf("kill %d after %s of ~%s: %d documents", i, at.Round(time.Millisecond), span.Round(time.Millisecond), killed.Documents)
		if _, errs, code := cli(t, home, "index", corpus, "--kb", "crash", "--quiet"); code != 0 {
			t.Fatal(errs)
		}
		sameChunks(t, fmt.Sprintf("kill %d, resumed", i), kb("crash"), want)
	}
}

// TestSIGKILLThroughTwoNames: while `cairn index` writes through a
// symbolic link, a run through the real path is refused as busy and one
// through a hard link is refused outright; a kill leaves the file whole
// and the job finishes through the link, with no stray files beside it.
func TestSIGKILLThroughTwoNames(t *testing.T) {
	runs := soakRuns(t, 1)
	// Large enough, with one worker, that the run is still going when the
	// other two start.
	corpus := writeCorpus(t, 6000)
	home, dir, linkDir := t.TempDir(), t.TempDir(), t.TempDir()
	if _, errs, code := cli(t, home, "index", corpus, "--kb", "clean", "--quiet"); code != 0 {
		t.Fatal(errs)
	}
	want := storetest.ChunkCounts(t, filepath.Join(home, "data", "kb", "clean.db"))
	real := filepath.Join(dir, "kb.db")
	link := filepath.Join(linkDir, "link.db")
	os.Symlink(real, link)
	rng := rand.New(rand.NewPCG(7, 8))
	for i := range runs {
		for _, s := range []string{"", "-wal", "-shm"} {
			os.Remove(real + s)
		}
		// A link to a missing file is refused: the file is made first.
		if _, errs, code := cli(t, home, "index", t.TempDir(), "--db", real, "--quiet"); code != 0 {
			t.Fatal(errs)
		}
		cmd, exited := startChild(t, home, []string{"CAIRN_INDEX_WORKERS=1"}, "index", corpus, "--db", link, "--quiet")
		waitForDocuments(t, real, 1+rng.IntN(300), exited)
		_, errs, code := cli(t, home, "index", corpus, "--db", real, "--quiet")
		wantFault(t, "a second run through the real path", errs, code, "another indexing run is using this knowledge base", "STORE-002")
		hard := filepath.Join(dir, "hard.db")
		if err := os.Link(real, hard); err != nil {
			t.Fatal(err)
		}
		_, errs, code = cli(t, home, "index", corpus, "--db", hard, "--quiet")
		wantFault(t, "a run through a hard link", errs, code, "has 2 names (hard links)", "STORE-011")
		os.Remove(hard)
		select {
		case <-exited:
			t.Fatal("the run finished before the checks (the corpus is too small for this machine)")
		default:
		}
		cmd.Process.Signal(syscall.SIGKILL)
		<-exited
		killed := kbStats(t, real)
		t.Logf("kill %d: %d of %d documents", i, killed.Documents, len(want))
		if _, errs, code := cli(t, home, "index", corpus, "--db", link, "--quiet"); code != 0 {
			t.Fatal(errs)
		}
		sameChunks(t, fmt.Sprintf("kill %d, resumed through the link", i), real, want)
		if es, _ := os.ReadDir(linkDir); len(es) != 1 {
			t.Fatalf("files beside the link: %v", es)
		}
	}
}

// TestSIGKILLDuringRetriedFailure: a file that fails for a reason a
// higher limit does not remove, a PDF on which pdftotext makes no progress
// (extracttest.StallingPDF), fails with EXTRACT-004 at a 1 s limit and is
// retried once index.timeout_sec is raised; that run cannot end by itself
// while the PDF stalls it, and is killed at a random moment of the retry,
// with pdftotext at work on the PDF.
// The knowledge base passes every check, and the next run ends as a clean
// run does: every other file with all its chunks, the PDF failed again
// with EXTRACT-004 and listed once by `cairn status --issues`.
func TestSIGKILLDuringRetriedFailure(t *testing.T) {
	if _, err := exec.LookPath("pdftotext"); err != nil {
		t.Fatal("pdftotext not found: install poppler-utils (make deps)")
	}
	runs := soakRuns(t, 1)
	corpus := writeCorpus(t, 50)
	stalled := filepath.Join(corpus, "contract.pdf") // before doc*.md: the first file a run reads
	if err := os.WriteFile(stalled, extracttest.StallingPDF(), 0o644); err != nil {
		t.Fatal(err)
	}
	home := t.TempDir()
	noOCR := []string{"CAIRN_OCR_ENABLED=false"}
	t.Setenv("CAIRN_OCR_ENABLED", "false")
	kb := filepath.Join(home, "data", "kb", "default.db")
	// failsAgain checks a run that stopped the PDF after limit seconds
	// without progress and indexed everything else.
	failsAgain := func(what, limit string, out, errs string, code int) {
		t.Helper()
		if code != 3 || !strings.Contains(out, "1 failed") ||
			!strings.Contains(errs, stalled+": extraction made no progress (no new part of the file read, no page done) for "+limit+"s") ||
			!strings.Contains(errs, "[EXTRACT-004]") {
			t.Fatalf("%s: exit %d\n%s%s", what, code, out, errs)
		}
	}
	t.Setenv("CAIRN_INDEX_TIMEOUT_SEC", "2")
	out, errs, code := cli(t, home, "index", corpus, "--kb", "clean")
	failsAgain("a clean run with a 2 s limit", "2", out, errs, code)
	want := storetest.ChunkCounts(t, filepath.Join(home, "data", "kb", "clean.db"))
	if _, ok := want[stalled]; ok || len(want) != 50 {
		t.Fatalf("a clean run stored %d files (the PDF: %t), want the 50 others", len(want), ok)
	}
	rng := rand.New(rand.NewPCG(9, 10))
	for i := range runs {
		for _, s := range []string{"", "-wal", "-shm"} {
			os.Remove(kb + s)
		}
		t.Setenv("CAIRN_INDEX_TIMEOUT_SEC", "1")
		out, errs, code := cli(t, home, "index", corpus)
		failsAgain("with a 1 s limit", "1", out, errs, code)
		// Raised to an hour: only the kill ends this run.
		cmd, exited := startChild(t, home, append(noOCR, "CAIRN_INDEX_TIMEOUT_SEC=3600"), "index", corpus, "--quiet")
		if !waitForTool(cmd, exited, "pdftotext") {
			t.Fatalf("kill %d: the run with the limit raised ended without running pdftotext: the PDF was not retried", i)
		}
		at := time.Duration(rng.IntN(2000)) * time.Millisecond
		select {
		case <-exited:
			t.Fatalf("kill %d: the run with the limit raised ended by itself", i)
		case <-time.After(at):
		}
		killGroup(cmd)
		<-exited
		killed := kbStats(t, kb)
		t.Logf("kill %d %s after pdftotext started: %d documents", i, at, killed.Documents)
		t.Setenv("CAIRN_INDEX_TIMEOUT_SEC", "2")
		out, errs, code = cli(t, home, "index", corpus)
		failsAgain(fmt.Sprintf("kill %d after %s, then a run with a 2 s limit", i, at), "2", out, errs, code)
		sameChunks(t, fmt.Sprintf("kill %d after %s, then a run", i, at), kb, want)
		out, errs, _ = cli(t, home, "status", "--issues")
		if n := strings.Count(out+errs, stalled); n != 1 || !strings.Contains(out, "for 2s") {
			t.Fatalf("kill %d: status --issues names the PDF %d times, want once with the last run's reason:\n%s%s", i, n, out, errs)
		}
	}
}

// waitForTool waits until a process named tool runs in cmd's process
// group (read from /proc), and reports false if cmd exits first.
func waitForTool(cmd *exec.Cmd, exited <-chan struct{}, tool string) bool {
	for {
		select {
		case <-exited:
			return false
		case <-time.After(10 * time.Millisecond):
		}
		if toolRuns(cmd.Process.Pid, tool) {
			return true
		}
	}
}

// toolRuns reports whether a process named tool runs in process group
// pgrp (read from /proc).
func toolRuns(pgrp int, tool string) bool {
	stats, _ := filepath.Glob("/proc/[0-9]*/stat")
	for _, p := range stats {
		b, err := os.ReadFile(p)
		if err != nil {
			continue // ended meanwhile
		}
		// pid (comm) state ppid pgrp ...
		comm, rest, ok := strings.Cut(string(b), ") ")
		if f := strings.Fields(rest); ok && len(f) > 2 && strings.HasSuffix(comm, "("+tool) && f[1] != "Z" && f[2] == strconv.Itoa(pgrp) {
			return true
		}
	}
	return false
}

// TestAKilledCairnTakesPdftotextWithIt: when only cairn is killed with
// SIGKILL (not its process group, as a desktop's "force quit" does), the
// pdftotext it started on a PDF that stalls it ends with it instead of
// keeping a core busy.
func TestAKilledCairnTakesPdftotextWithIt(t *testing.T) {
	if _, err := exec.LookPath("pdftotext"); err != nil {
		t.Fatal("pdftotext not found: install poppler-utils (make deps)")
	}
	corpus := t.TempDir()
	if err := os.WriteFile(filepath.Join(corpus, "contract.pdf"), extracttest.StallingPDF(), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd, exited := startChild(t, t.TempDir(), []string{"CAIRN_OCR_ENABLED=false", "CAIRN_INDEX_TIMEOUT_SEC=3600"}, "index", corpus, "--quiet")
	if !waitForTool(cmd, exited, "pdftotext") {
		t.Fatal("cairn index ended without running pdftotext")
	}
	cmd.Process.Kill() // cairn alone
	<-exited
	for deadline := time.Now().Add(5 * time.Second); toolRuns(cmd.Process.Pid, "pdftotext"); {
		if time.Now().After(deadline) {
			t.Fatal("pdftotext still runs 5 s after cairn was killed")
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestFullHomeDisk runs `cairn index` where no file may grow past 1 MB
// (RLIMIT_FSIZE: a full disk without root; writes fail with EFBIG rather
// than ENOSPC): the compile cache cannot be written and only warns; the
// knowledge base stops growing, the run fails with a code and the
// database passes every check, every stored file with all its chunks;
// searches still work; with room, the next run finishes the job.
func TestFullHomeDisk(t *testing.T) {
	runs := soakRuns(t, 1)
	corpus := writeCorpus(t, 1500)
	home := t.TempDir()
	if _, errs, code := cli(t, home, "index", corpus, "--kb", "clean", "--quiet"); code != 0 {
		t.Fatal(errs)
	}
	want := storetest.ChunkCounts(t, filepath.Join(home, "data", "kb", "clean.db"))
	for i := range runs {
		full := t.TempDir() // a fresh home: nothing cached
		kb := filepath.Join(full, "data", "kb", "default.db")
		// The disk fills at a different point of each run.
		capped := []string{"CAIRN_TEST_FSIZE=" + strconv.Itoa(1<<20+i%8*(256<<10))}
		out, errs, code := child(t, full, capped, "index", corpus, "--quiet")
		if code != 1 || !strings.Contains(errs, "cairn: warning: starting without the compile cache") ||
			!strings.Contains(errs, "[STORE-004]") && !strings.Contains(errs, "[STORE-007]") {
			t.Fatalf("run %d on a full disk: exit %d\n%s%s", i, code, out, errs)
		}
		got := storetest.ChunkCounts(t, kb)
		for p, n := range got {
			if want[p] != n {
				t.Fatalf("run %d: %s has %d chunks, a clean run %d", i, p, n, want[p])
			}
		}
		kbStats(t, kb)
		if out, errs, code := child(t, full, capped, "search", "pump seal warranty", "--json"); code != 0 || !strings.Contains(out, `"path"`) {
			t.Fatalf("run %d: search on a full disk: exit %d\n%s%s", i, code, out, errs)
		}
		t.Logf("run %d: %d of %d files stored when the disk filled: %s", i, len(got), len(want), strings.TrimSpace(errs))
		if _, errs, code := child(t, full, nil, "index", corpus, "--quiet"); code != 0 {
			t.Fatalf("run %d with room: %s", i, errs)
		}
		sameChunks(t, fmt.Sprintf("run %d, finished with room", i), kb, want)
	}
}

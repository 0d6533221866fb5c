package store

import (
	"bufio"
	"os"
	osexec "os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"cairn/internal/skip"
)

// TestLeftoversOfAKilledCopyAreRemovedAndNothingElse: the temporary copy of
// a backup or restore killed half-way is removed by the next one, with its
// size reported; a copy still being made (its maker alive, however old the
// file), a file made a moment ago, and files that are not Cairn's by name
// or kind stay (issue 33, item 5).
func TestLeftoversOfAKilledCopyAreRemovedAndNothingElse(t *testing.T) {
	dir := t.TempDir()
	kb := filepath.Join(dir, "kb.db")
	os.WriteFile(kb, nil, 0o600)

	// A child makes its copy, writes into it and is killed.
	cmd := osexec.Command(os.Args[0], "-test.run=^TestChildMakesATemporaryCopy$")
	cmd.Env = append(os.Environ(), "CAIRN_CHILD_TEMP_OF="+kb)
	out, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil {
		t.Fatalf("child: %v", err)
	}
	killed := strings.TrimSpace(strings.TrimPrefix(line, "temp "))
	cmd.Process.Kill()
	cmd.Wait()

	live, hold, err := privateTemp(kb) // a restore still checking its copy
	if err != nil {
		t.Fatal(err)
	}
	defer hold.Close()
	fresh := filepath.Join(dir, ".kb.db.tmp-123")
	os.WriteFile(fresh, []byte("just made"), 0o600)
	foreign := filepath.Join(dir, ".kb.db.tmp-mine")
	os.WriteFile(foreign, []byte("someone else's"), 0o600)
	link := filepath.Join(dir, ".kb.db.tmp-456")
	os.Symlink(kb, link)
	hour := time.Now().Add(-time.Hour)
	for _, p := range []string{killed, killed + "-journal", live, live + "-journal", foreign} {
		os.Chtimes(p, hour, hour)
	}

	removed, err := RemoveLeftovers(kb)
	if err != nil {
		t.Fatal(err)
	}
	if len(removed) != 1 || removed[0].Path != killed || removed[0].Bytes != 1<<20 {
		t.Errorf("removed %+v, want %s of 1 MB", removed, killed)
	}
	var left []string
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		left = append(left, e.Name())
	}
	want := []string{".kb.db.tmp-123", ".kb.db.tmp-456", ".kb.db.tmp-mine", filepath.Base(live), filepath.Base(live) + "-journal", "kb.db"}
	slices.Sort(want)
	if !slices.Equal(left, want) {
		t.Errorf("left %v\nwant %v", left, want)
	}
	if fi, err := os.Stat(live + "-journal"); err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("the copy's journal: %v %v, want 0600", fi.Mode(), err)
	}
}

// TestChildMakesATemporaryCopy is the child of the test above: it makes a
// temporary copy of a megabyte, says its name, and waits to be killed.
func TestChildMakesATemporaryCopy(t *testing.T) {
	of := os.Getenv("CAIRN_CHILD_TEMP_OF")
	if of == "" {
		skip.Because(t, "a child process: TestLeftoversOfAKilledCopyAreRemovedAndNothingElse runs it")
	}
	name, hold, err := privateTemp(of)
	if err != nil {
		t.Fatal(err)
	}
	defer hold.Close() // held (not collected) until the kill
	os.WriteFile(name, make([]byte, 1<<20), 0o600)
	os.Stdout.WriteString("temp " + name + "\n")
	time.Sleep(time.Hour)
}

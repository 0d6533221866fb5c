package cli

import (
	"bytes"
	"context"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"cairn/core/teamstore"
	"cairn/core/teamstore/teamtest"
)

// removeCLI runs cairn in-process with a private CAIRN_HOME and stdin as
// the answers typed.
func removeCLI(t *testing.T, home, stdin string, args ...string) (string, string, int) {
	t.Helper()
	t.Setenv("CAIRN_HOME", home)
	var out, errb bytes.Buffer
	code := runIO(args, cliIO{stdin: strings.NewReader(stdin), stdout: &out, stderr: &errb})
	return out.String(), errb.String(), code
}

// TestTeamRemoveTakesAFolderOutOfTheCluster: `cairn remove` says what it
// will remove from the team cluster and asks; without a yes it removes
// nothing; it is refused while an indexer holds the folder, naming it; a
// name the cluster does not hold gets the list of those it does; with a
// yes the folder's files and chunks leave the cluster, the other folder's
// stay, the progress says how far it got, and indexing the folder again
// reads every file again.
func TestTeamRemoveTakesAFolderOutOfTheCluster(t *testing.T) {
	n := teamSettings(t)
	home := t.TempDir()
	for _, as := range []string{"share/corpus", "share/other"} {
		if out, errs, code := cli(t, home, "index", corpusDir(t), "--as", as); code != 0 {
			t.Fatalf("index --as %s: exit %d\n%s%s", as, code, out, errs)
		}
	}
	ctx := context.Background()
	ts, err := teamstore.Open(ctx, teamstore.Options{URL: n.URL, Key: teamtest.Key})
	if err != nil {
		t.Fatal(err)
	}
	before, err := ts.Folders(ctx)
	if err != nil || len(before) != 2 || before[0].Folder != "share/corpus" || before[0].Files != 8 {
		t.Fatalf("the cluster's folders: %+v, %v", before, err)
	}
	size := before[0]
	cluster := "the team cluster at " + n.URL
	question := "Remove share/corpus from " + cluster + ": its 8 files and " + strconv.Itoa(size.Chunks) +
		" chunks, for everyone who searches the cluster? The files themselves are not touched. [y/N] "

	for _, answer := range []string{"", "n\n", "whatever\n"} {
		out, errs, code := removeCLI(t, home, answer, "remove", "--as", "share/corpus")
		if code != 1 || out != "" || !strings.HasPrefix(errs, question) || !strings.Contains(errs, "nothing removed: answer y to remove, or give --yes") {
			t.Errorf("answer %q: exit %d\n%s%s", answer, code, out, errs)
		}
	}
	if now, _ := ts.Folders(ctx); !slices.Equal(now, before) {
		t.Fatalf("unanswered removals removed something: %+v", now)
	}

	l, err := ts.AcquireLease(ctx, "share/corpus", "cairn index on nas-2 by bob (pid 7)", time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	_, errs, code := removeCLI(t, home, "", "remove", "--as", "share/corpus", "--yes")
	if code != 1 || !strings.Contains(errs, "the folder share/corpus is already being indexed into the team cluster by cairn index on nas-2 by bob (pid 7)") {
		t.Errorf("a held folder: exit %d\n%s", code, errs)
	}
	l.Release(ctx)

	_, errs, code = removeCLI(t, home, "", "remove", "--as", "share/nothing", "--yes")
	if code != 1 || !strings.Contains(errs, cluster+" holds no folder named share/nothing; its folders: share/corpus, share/other (give the name with --as NAME)") {
		t.Errorf("an unknown folder: exit %d\n%s", code, errs)
	}
	_, errs, code = removeCLI(t, home, "", "remove")
	if code != 2 || !strings.Contains(errs, "remove needs one folder") {
		t.Errorf("no folder: exit %d\n%s", code, errs)
	}
	_, errs, code = removeCLI(t, home, "", "remove", "--as", "share/corpus", t.TempDir())
	if code != 2 || !strings.Contains(errs, "give the folder once") {
		t.Errorf("a folder and a name: exit %d\n%s", code, errs)
	}

	out, errs, code := removeCLI(t, home, "y\n", "remove", "--as", "share/corpus")
	wantOut := "Removed share/corpus from " + cluster + ": 8 files, " + strconv.Itoa(size.Chunks) + " chunks, in "
	if code != 0 || !strings.HasPrefix(out, wantOut) || !strings.HasSuffix(out, ". The files themselves are untouched.\n") ||
		!strings.Contains(errs, "removing share/corpus: 0/8 files, 0/"+strconv.Itoa(size.Chunks)+" chunks\n") ||
		!strings.HasSuffix(errs, "removing share/corpus: 8/8 files, "+strconv.Itoa(size.Chunks)+"/"+strconv.Itoa(size.Chunks)+" chunks\n") {
		t.Fatalf("remove: exit %d\n%s%s", code, out, errs)
	}
	if now, err := ts.Folders(ctx); err != nil || !slices.Equal(now, before[1:]) {
		t.Errorf("the cluster holds %+v (%v), want %+v", now, err, before[1:])
	}
	out, errs, code = cli(t, home, "index", corpusDir(t), "--as", "share/corpus")
	if code != 0 || !strings.Contains(out, "8 files seen, 8 indexed, 0 unchanged") {
		t.Errorf("indexed again: exit %d\n%s%s", code, out, errs)
	}
}

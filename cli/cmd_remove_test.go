package cli

import (
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestRemoveForgetsAFolderOfTheKnowledgeBase: `cairn remove DIR` says what
// it will forget and asks; a yes forgets the folder and its documents; a
// folder the knowledge base does not have gets the list of those it has.
func TestRemoveForgetsAFolderOfTheKnowledgeBase(t *testing.T) {
	home := t.TempDir()
	if out, errs, code := cli(t, home, "index", corpusDir(t)); code != 0 {
		t.Fatalf("index: exit %d\n%s%s", code, out, errs)
	}
	kb := filepath.Join(home, "data", "kb", "default.db")
	st := kbStats(t, kb)
	what := "its 8 files and " + strconv.Itoa(st.Chunks) + " chunks"
	_, errs, code := removeCLI(t, home, "no\n", "remove", corpusDir(t))
	if code != 1 || !strings.HasPrefix(errs, "Remove "+corpusDir(t)+" from the knowledge base "+kb+": "+what+"? The files themselves are not touched. [y/N] ") {
		t.Fatalf("answered no: exit %d\n%s", code, errs)
	}
	if kbStats(t, kb).Documents != 8 {
		t.Fatal("answered no, the folder was removed")
	}
	_, errs, code = removeCLI(t, home, "", "remove", "/no/such/folder", "--yes")
	if code != 1 || !strings.Contains(errs, "/no/such/folder is not a folder of the knowledge base "+kb+"; its folders: "+corpusDir(t)) {
		t.Errorf("an unknown folder: exit %d\n%s", code, errs)
	}
	out, errs, code := removeCLI(t, home, "y\n", "remove", corpusDir(t))
	if want := "Removed " + corpusDir(t) + " from the knowledge base " + kb + ": 8 files, " + strconv.Itoa(st.Chunks) + " chunks. The files themselves are untouched.\n"; code != 0 || out != want {
		t.Fatalf("remove: exit %d\n%q\nwant %q\n%s", code, out, want, errs)
	}
	if st := kbStats(t, kb); st.Documents != 0 || st.Chunks != 0 || st.Folders != 0 {
		t.Errorf("after: %+v", st)
	}
	_, errs, code = removeCLI(t, home, "", "remove", "--as", "share")
	if code != 2 || !strings.Contains(errs, "--as names a folder in a team cluster: it needs store.backend weaviate") {
		t.Errorf("--as without a cluster: exit %d\n%s", code, errs)
	}
}

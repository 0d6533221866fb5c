package cli

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"cairn/core/remote"
	"cairn/core/teamstore"
	"cairn/core/teamstore/teamtest"
)

// teamSettings starts a one-node Weaviate cluster on 127.0.0.1 (skipped
// without CAIRN_WEAVIATE_BIN) and points the settings at it through the
// environment: store.backend weaviate, team mode, the key.
func teamSettings(t *testing.T) *teamtest.Node {
	t.Helper()
	bin, err := teamtest.Bin()
	if err != nil {
		t.Skip(err)
	}
	cfg, err := teamtest.SingleNode(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	n := teamtest.New(bin, cfg)
	t.Cleanup(n.Stop)
	if err := n.Start(); err != nil {
		t.Fatal(err)
	}
	t.Setenv("CAIRN_STORE_BACKEND", "weaviate")
	t.Setenv("CAIRN_STORE_URL", n.URL)
	t.Setenv("CAIRN_NETWORK_MODE", "team")
	t.Setenv(remote.WeaviateKeyEnv, teamtest.Key)
	return n
}

// TestIndexFeedsTheTeamCluster: with store.backend weaviate, `cairn index`
// writes the folder into the cluster, skips it when unchanged, and is
// refused, naming the holder, while another indexer holds the folder.
func TestIndexFeedsTheTeamCluster(t *testing.T) {
	n := teamSettings(t)
	home := t.TempDir()
	out, errs, code := cli(t, home, "index", corpusDir(t), "--as", "share/corpus")
	if code != 0 || !strings.Contains(out, "8 files seen, 8 indexed, 0 unchanged, 0 skipped, 0 failed, 0 removed") {
		t.Fatalf("index: exit %d\n%s%s", code, out, errs)
	}
	out, errs, code = cli(t, home, "index", corpusDir(t), "--as", "share/corpus")
	if code != 0 || !strings.Contains(out, "8 files seen, 0 indexed, 8 unchanged") {
		t.Fatalf("again: exit %d\n%s%s", code, out, errs)
	}
	// The runs are recorded in the local knowledge base; the documents
	// are in the cluster.
	out, errs, code = cli(t, home, "status")
	if code != 0 || !strings.Contains(out, "Folder:         "+corpusDir(t)+": 0 documents") || !strings.Contains(out, " done: 0 indexed, 8 unchanged, 0 skipped, 0 failed, 0 removed") {
		t.Errorf("status: exit %d\n%s%s", code, out, errs)
	}
	ts, err := teamstore.Open(context.Background(), teamstore.Options{URL: n.URL, Key: teamtest.Key})
	if err != nil {
		t.Fatal(err)
	}
	if c, err := ts.CountChunks(context.Background(), "share/corpus", ""); c == 0 || err != nil {
		t.Fatalf("the cluster holds %d chunks (%v)", c, err)
	}
	if _, err := ts.AcquireLease(context.Background(), "share/corpus", "cairn index on nas-2 by bob (pid 7)", time.Minute); err != nil {
		t.Fatal(err)
	}
	_, errs, code = cli(t, home, "index", corpusDir(t), "--as", "share/corpus")
	if code != 1 || !strings.Contains(errs, "the folder share/corpus is already being indexed into the team cluster by cairn index on nas-2 by bob (pid 7)") {
		t.Fatalf("second indexer: exit %d\n%s", code, errs)
	}
	_, errs, code = cli(t, home, "index", corpusDir(t), "--watch")
	if code != 2 || !strings.Contains(errs, "--watch does not work with store.backend weaviate yet") {
		t.Fatalf("--watch: exit %d\n%s", code, errs)
	}
}

// TestMigrateMovesAKnowledgeBaseIntoTheClusterAndBack: `cairn migrate`
// copies a knowledge base into the cluster and back into a new file, says
// what it did, and writes nothing the second time.
func TestMigrateMovesAKnowledgeBaseIntoTheClusterAndBack(t *testing.T) {
	home := t.TempDir()
	if out, errs, code := cli(t, home, "index", corpusDir(t), "--kb", "work"); code != 0 {
		t.Fatalf("index: %s%s", out, errs)
	}
	_, errs, code := cli(t, home, "migrate", "--to", "weaviate", "--kb", "work")
	if code != 1 || !strings.Contains(errs, "cairn migrate needs the team cluster in the settings: set store.backend to weaviate") {
		t.Errorf("without a cluster: exit %d\n%s", code, errs)
	}
	n := teamSettings(t)
	kb := filepath.Join(home, "data", "kb", "work.db")
	out, errs, code := cli(t, home, "migrate", "--to", "weaviate", "--kb", "work")
	want := "Migrated " + kb + " into the team cluster at " + n.URL + ": 1 folder, 8 documents (8 written, 0 already there); "
	if code != 0 || !strings.HasPrefix(out, want) || !strings.Contains(out, "vector model none (keyword search only)") {
		t.Fatalf("to weaviate: exit %d\n%s%s", code, out, errs)
	}
	out, errs, code = cli(t, home, "migrate", "--to", "weaviate", "--kb", "work")
	if code != 0 || !strings.Contains(out, "8 documents (0 written, 8 already there); 0 chunks and 0 vectors written") {
		t.Fatalf("again: exit %d\n%s%s", code, out, errs)
	}
	back := filepath.Join(t.TempDir(), "back.db")
	out, errs, code = cli(t, home, "migrate", "--to", "sqlite", "--db", back)
	if code != 0 || !strings.HasPrefix(out, "Migrated the team cluster at "+n.URL+" into "+back+": 1 folder, 8 documents (8 written, 0 already there)") {
		t.Fatalf("to sqlite: exit %d\n%s%s", code, out, errs)
	}
	t.Setenv("CAIRN_STORE_BACKEND", "sqlite")
	out, errs, code = cli(t, home, "search", "reset the router", "--db", back, "--top-k", "1")
	if code != 0 || !strings.Contains(out, "router-x200.md") {
		t.Errorf("search the migrated knowledge base: exit %d\n%s%s", code, out, errs)
	}
	if _, errs, code := cli(t, home, "migrate", "--to", "elsewhere"); code != 2 || !strings.Contains(errs, "migrate needs --to weaviate or --to sqlite") {
		t.Errorf("--to elsewhere: exit %d\n%s", code, errs)
	}
}

// TestSIGKILLDuringTeamIndexing: a `cairn index` into the cluster killed
// half-way leaves its lease behind; the next run on this computer takes
// the folder at once (the holder's process is gone) and finishes the job
// with exactly a clean run's files and chunks, no duplicates.
func TestSIGKILLDuringTeamIndexing(t *testing.T) {
	n := teamSettings(t)
	corpus := writeCorpus(t, 300)
	home := t.TempDir()
	ctx := context.Background()
	ts, err := teamstore.Open(ctx, teamstore.Options{URL: n.URL, Key: teamtest.Key})
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(os.Args[0], "index", corpus, "--as", "killed", "--quiet")
	cmd.Env = append(os.Environ(), "CAIRN_TEST_MAIN=1", "CAIRN_HOME="+home)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan struct{})
	go func() { cmd.Wait(); close(exited) }()
	for written := 0; written < 20; {
		select {
		case <-exited:
			t.Fatal("the run ended before it was killed")
		case <-time.After(20 * time.Millisecond):
		}
		st, _ := ts.FileStates(ctx, "killed")
		written = len(st)
	}
	cmd.Process.Signal(syscall.SIGKILL)
	<-exited
	killed, _ := ts.FileStates(ctx, "killed")
	if len(killed) >= 300 {
		t.Fatalf("the run finished before the kill")
	}

	// Files fingerprinted before the kill are unchanged; the rest,
	// including one whose chunks were written but not its fingerprint,
	// are written now.
	out, errs, code := cli(t, home, "index", corpus, "--as", "killed", "--quiet")
	if code != 0 || !strings.Contains(out, fmt.Sprintf("300 files seen, %d indexed, %d unchanged", 300-len(killed), len(killed))) {
		t.Fatalf("after the kill (%d files fingerprinted): exit %d\n%s%s", len(killed), code, out, errs)
	}
	if _, errs, code := cli(t, home, "index", corpus, "--as", "clean", "--quiet"); code != 0 {
		t.Fatal(errs)
	}
	for _, folder := range []string{"killed", "clean"} {
		st, err := ts.FileStates(ctx, folder)
		want := 0
		for _, s := range st {
			want += s.Chunks
		}
		got, cerr := ts.CountChunks(ctx, folder, "")
		if err != nil || cerr != nil || len(st) != 300 || got != want || want == 0 {
			t.Errorf("%s: %d files, %d chunks held, %d fingerprinted (%v, %v)", folder, len(st), got, want, err, cerr)
		}
	}
	a, _ := ts.CountChunks(ctx, "killed", "")
	b, _ := ts.CountChunks(ctx, "clean", "")
	if a != b {
		t.Errorf("after the kill and a re-run: %d chunks; a clean run: %d", a, b)
	}
}

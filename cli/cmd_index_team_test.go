package cli

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"cairn/core/remote"
	"cairn/core/teamstore"
	"cairn/core/teamstore/teamtest"
	"cairn/internal/skip"
)

// teamSettings starts a one-node Weaviate cluster on 127.0.0.1 (skipped
// without CAIRN_WEAVIATE_BIN) and points the settings at it through the
// environment: store.backend weaviate, team mode, the key.
func teamSettings(t *testing.T) *teamtest.Node {
	t.Helper()
	bin, err := teamtest.Bin()
	if err != nil {
		skip.Because(t, err.Error())
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

// TestSearchAskStatusAndServeOnTheTeamCluster: with store.backend
// weaviate, `cairn search`, `cairn ask`, `cairn status` and the local API
// read the cluster: the same results (but for each store's own chunk ids)
// and the same answer as a knowledge base file of the same folder, the
// store named, and a result's chunk_id opening its passage.
func TestSearchAskStatusAndServeOnTheTeamCluster(t *testing.T) {
	n := teamSettings(t)
	home := t.TempDir()
	// Without --as the folder keeps its path as its name in the cluster,
	// so both stores cite the same files.
	if out, errs, code := cli(t, home, "index", corpusDir(t)); code != 0 {
		t.Fatalf("index: %s%s", out, errs)
	}
	search := []string{"search", "reset the device", "--top-k", "3", "--json"}
	ask := []string{"ask", "how do I reset the router"}
	teamSearch, errs, code := cli(t, home, search...)
	if code != 0 {
		t.Fatalf("search: exit %d\n%s", code, errs)
	}
	teamAsk, errs, code := cli(t, home, ask...)
	if code != 0 || !strings.Contains(teamAsk, "router-x200.md") {
		t.Fatalf("ask: exit %d\n%s%s", code, teamAsk, errs)
	}
	out, errs, code := cli(t, home, "status")
	if code != 0 || !strings.Contains(out, "Store:          Weaviate at "+n.URL+"\n") || !strings.Contains(out, "Documents:      8\n") {
		t.Errorf("status: exit %d\n%s%s", code, out, errs)
	}

	t.Setenv("CAIRN_STORE_BACKEND", "sqlite")
	if out, errs, code := cli(t, home, "index", corpusDir(t), "--kb", "file"); code != 0 {
		t.Fatalf("index the file: %s%s", out, errs)
	}
	fileSearch, _, _ := cli(t, home, append(search, "--kb", "file")...)
	fileAsk, _, _ := cli(t, home, append(ask, "--kb", "file")...)
	if out, _, _ := cli(t, home, "status", "--kb", "file"); !strings.Contains(out, "Store:          SQLite\n") {
		t.Errorf("status of the file:\n%s", out)
	}
	t.Setenv("CAIRN_STORE_BACKEND", "weaviate")
	results := func(js string) []map[string]any {
		t.Helper()
		var r struct {
			Results []map[string]any `json:"results"`
		}
		if err := json.Unmarshal([]byte(js), &r); err != nil || len(r.Results) == 0 {
			t.Fatalf("search JSON %q: %v", js, err)
		}
		for _, x := range r.Results {
			delete(x, "chunk_id")
		}
		return r.Results
	}
	if got, want := results(teamSearch), results(fileSearch); !reflect.DeepEqual(got, want) {
		t.Errorf("search: the cluster's results\n%v\nthe file's\n%v", got, want)
	}
	if teamAsk != fileAsk {
		t.Errorf("ask: the cluster's answer\n%s\nthe file's\n%s", teamAsk, fileAsk)
	}

	// The local API reads the cluster too.
	cmd := cairnCmd(home, "serve", "--port", "0")
	stdout, _ := cmd.StdoutPipe()
	cmd.Stderr = io.Discard
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { cmd.Process.Kill(); cmd.Wait() }()
	line, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil {
		t.Fatal(err)
	}
	go io.Copy(io.Discard, stdout)
	addr := regexp.MustCompile(`http://127\.0\.0\.1:\d+`).FindString(line)
	token, _, _ := cli(t, home, "serve", "--print-token")
	get := func(path string, v any) {
		t.Helper()
		req, _ := http.NewRequest("GET", addr+path, nil)
		req.Header.Set("Authorization", "Bearer "+strings.TrimSpace(token))
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		if err := json.NewDecoder(resp.Body).Decode(v); err != nil || resp.StatusCode != 200 {
			t.Fatalf("GET %s: %d %v", path, resp.StatusCode, err)
		}
	}
	var st struct {
		Store     string `json:"store"`
		Documents int    `json:"documents"`
	}
	get("/api/status", &st)
	if st.Store != "Weaviate at "+n.URL || st.Documents != 8 {
		t.Errorf("API status %+v", st)
	}
	var res struct {
		Results []struct {
			ChunkID int64  `json:"chunk_id"`
			Path    string `json:"path"`
			Line    int    `json:"line"`
		} `json:"results"`
	}
	get("/api/search?q=reset+the+device&top_k=3", &res)
	if len(res.Results) == 0 || !strings.HasSuffix(res.Results[0].Path, "router-x200.md") {
		t.Fatalf("API search %+v", res)
	}
	var p struct {
		File string `json:"file"`
		Line int    `json:"line"`
		Text string `json:"text"`
	}
	get(fmt.Sprintf("/api/passages/%d", res.Results[0].ChunkID), &p)
	if p.File != res.Results[0].Path || p.Line != res.Results[0].Line || !strings.Contains(p.Text, "RESET button") {
		t.Errorf("API passage %+v for %+v", p, res.Results[0])
	}

	// And MCP: an assistant's search finds the part in the cluster.
	client := mcp.NewClient(&mcp.Implementation{Name: "test-client", Version: "1"}, nil)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	s, err := client.Connect(ctx, &mcp.CommandTransport{Command: cairnCmd(home, "mcp")}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	mr, err := s.CallTool(ctx, &mcp.CallToolParams{Name: "search", Arguments: map[string]any{"query": "pump seal kit XK-200-B"}})
	if err != nil || mr.IsError {
		t.Fatalf("MCP search: %v %v", err, mr)
	}
	b, _ := json.Marshal(mr.StructuredContent)
	if json.Unmarshal(b, &res) != nil || len(res.Results) == 0 || !strings.HasSuffix(res.Results[0].Path, "data/parts.csv") {
		t.Errorf("MCP search: %s", b)
	}
}

// TestTeamIndexWatchFeedsTheCluster runs `cairn index --watch` into the
// team cluster in a child process: after the first run it writes a file
// written later into the cluster, and removes one deleted, each run under
// the folder's lease, released between runs; Ctrl+C stops it with exit
// code 130.
func TestTeamIndexWatchFeedsTheCluster(t *testing.T) {
	n := teamSettings(t)
	home, dir := t.TempDir(), t.TempDir()
	os.WriteFile(filepath.Join(dir, "a.txt"), []byte("alpha bravo\n"), 0o600)
	cmd := exec.Command(os.Args[0], "index", dir, "--watch", "--quiet", "--as", "share/watched")
	cmd.Env = append(os.Environ(), "CAIRN_TEST_MAIN=1", "CAIRN_HOME="+home)
	lines, watching := startWatching(t, cmd)
	defer cmd.Process.Kill()
	next := func(what string) string {
		t.Helper()
		select {
		case l := <-lines:
			return l
		case <-time.After(60 * time.Second):
			t.Fatalf("%s: no index run reported", what)
		}
		return ""
	}
	if l := next("first run"); !strings.Contains(l, "1 files seen, 1 indexed") {
		t.Fatalf("first run: %s", l)
	}
	<-watching
	ctx := context.Background()
	ts, err := teamstore.Open(ctx, teamstore.Options{URL: n.URL, Key: teamtest.Key})
	if err != nil {
		t.Fatal(err)
	}
	// Between runs the folder is free: another indexer could take it.
	if l, err := ts.AcquireLease(ctx, "share/watched", "test", time.Minute); err != nil {
		t.Fatalf("the folder is held between runs: %v", err)
	} else {
		l.Release(ctx)
	}
	// "watching" is printed as the watcher starts: a write in the moment
	// before it is ready goes unseen, so write again until a run comes.
	var l string
	for try := 0; l == "" && try < 10; try++ {
		os.WriteFile(filepath.Join(dir, "b.txt"), []byte("charlie zulu\n"), 0o600)
		select {
		case l = <-lines:
		case <-time.After(5 * time.Second):
		}
	}
	if !strings.Contains(l, "2 files seen, 1 indexed, 1 unchanged") {
		t.Errorf("after a new file: %q", l)
	}
	os.Remove(filepath.Join(dir, "a.txt"))
	if l := next("after a removal"); !strings.Contains(l, "1 files seen, 0 indexed, 1 unchanged, 0 skipped, 0 failed, 1 removed") {
		t.Errorf("after a removal: %q", l)
	}
	cmd.Process.Signal(syscall.SIGINT)
	err = cmd.Wait()
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 130 {
		t.Errorf("exit after Ctrl+C: %v", err)
	}
	states, err := ts.FileStates(ctx, "share/watched")
	if _, ok := states["b.txt"]; err != nil || len(states) != 1 || !ok {
		t.Errorf("the cluster holds %v (%v), want b.txt only", states, err)
	}
}

package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"cairn/core/domain"
	"cairn/core/store"
)

// TestMain lets tests run the real command line in a child process: with
// CAIRN_TEST_MAIN=1 the test binary behaves as `cairn`.
func TestMain(m *testing.M) {
	if os.Getenv("CAIRN_TEST_MAIN") == "1" {
		// CAIRN_TEST_FSIZE caps the size of any file the child writes, in
		// bytes: a full disk without root (writes fail with EFBIG; Go
		// ignores SIGXFSZ).
		if n, err := strconv.ParseUint(os.Getenv("CAIRN_TEST_FSIZE"), 10, 64); err == nil {
			if err := syscall.Setrlimit(syscall.RLIMIT_FSIZE, &syscall.Rlimit{Cur: n, Max: n}); err != nil {
				panic(err)
			}
		}
		os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
	}
	os.Exit(m.Run())
}

// cli runs cairn in-process with a private CAIRN_HOME.
func cli(t *testing.T, home string, args ...string) (string, string, int) {
	t.Helper()
	t.Setenv("CAIRN_HOME", home)
	var out, errb bytes.Buffer
	code := run(args, &out, &errb)
	return out.String(), errb.String(), code
}

func corpusDir(t *testing.T) string {
	t.Helper()
	abs, err := filepath.Abs("../testdata/corpus")
	if err != nil {
		t.Fatal(err)
	}
	return abs
}

func TestIndexSearchStatusJSON(t *testing.T) {
	home := t.TempDir()
	out, errs, code := cli(t, home, "index", corpusDir(t), "--kb", "work")
	if code != 0 || !strings.Contains(out, "8 files seen, 8 indexed, 0 unchanged, 0 skipped, 0 failed, 0 removed") {
		t.Fatalf("index: %d\n%s\n%s", code, out, errs)
	}
	out, _, code = cli(t, home, "search", "how do I reset the device", "--kb", "work", "--json", "--top-k", "3")
	if code != 0 {
		t.Fatalf("search exit %d", code)
	}
	var res struct {
		Query   string           `json:"query"`
		Mode    string           `json:"mode"`
		Results []map[string]any `json:"results"`
	}
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if res.Mode != "bm25" || len(res.Results) != 1 { // only the router manual has "reset" or "device"
		t.Fatalf("%+v", res)
	}
	first := res.Results[0]
	for _, k := range []string{"path", "page", "line", "score", "relevance", "snippet"} {
		if _, ok := first[k]; !ok {
			t.Errorf("result lacks the stable key %q: %v", k, first)
		}
	}
	if first["path"] != filepath.Join(corpusDir(t), "manuals/router-x200.md") || first["score"].(float64) != 1 || first["line"].(float64) != 8 || first["heading"] != "Router X200 user manual > Factory reset" {
		t.Errorf("first result %v", first)
	}
	out, _, code = cli(t, home, "status", "--kb", "work", "--json")
	var st map[string]any
	if code != 0 || json.Unmarshal([]byte(out), &st) != nil {
		t.Fatalf("status: %d %s", code, out)
	}
	if st["documents"].(float64) != 8 || st["chunks"].(float64) < 8 || st["embedding_model"] != "" {
		t.Errorf("status %v", st)
	}
	// The default knowledge base was not touched, nor created by status.
	def := filepath.Join(home, "data", "kb", "default.db")
	_, errs, code = cli(t, home, "status", "--json")
	wantFault(t, "status of a knowledge base never indexed", errs, code, "no knowledge base at "+def, "STORE-001")
	if _, err := os.Stat(def); !os.IsNotExist(err) {
		t.Errorf("status created the default knowledge base: %v", err)
	}
}

func TestBatchTREC(t *testing.T) {
	home := t.TempDir()
	if _, errs, code := cli(t, home, "index", corpusDir(t)); code != 0 {
		t.Fatal(errs)
	}
	q := filepath.Join(t.TempDir(), "q.tsv")
	os.WriteFile(q, []byte("q1\twarranty password light\nq2\tpump seal kit XK-200-B\n\n"), 0o644)
	out, errs, code := cli(t, home, "search", "--batch", q, "--format", "trec", "--top-k", "2")
	if code != 0 {
		t.Fatal(errs)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != 3 {
		t.Fatalf("%d lines:\n%s", len(lines), out)
	}
	f := strings.Fields(lines[0])
	if len(f) != 6 || f[0] != "q1" || f[1] != "Q0" || f[2] != filepath.Join(corpusDir(t), "manuals/router-x200.md") || f[3] != "1" || f[5] != "cairn" {
		t.Errorf("line %q", lines[0])
	}
	if f := strings.Fields(lines[1]); f[0] != "q1" || !strings.HasSuffix(f[2], "manuals/coffee-machine.txt") || f[3] != "2" {
		t.Errorf("line %q", lines[1])
	}
	if f := strings.Fields(lines[2]); f[0] != "q2" || !strings.HasSuffix(f[2], "data/parts.csv") {
		t.Errorf("line %q", lines[2])
	}
	seen := map[string]bool{}
	for _, l := range lines {
		f := strings.Fields(l)
		if seen[f[0]+f[2]] {
			t.Errorf("file listed twice for a query: %q", l)
		}
		seen[f[0]+f[2]] = true
	}
}

func TestErrorsAreOneLineWithExitCodes(t *testing.T) {
	home := t.TempDir()
	tests := []struct {
		args []string
		code int
		msg  string
	}{
		{[]string{"frobnicate"}, 2, `unknown command "frobnicate"`},
		{[]string{"search"}, 2, "search needs a query"},
		{[]string{"index"}, 2, "index needs exactly one folder"},
		{[]string{"index", "/nonexistent/folder"}, 1, "folder /nonexistent/folder: stat /nonexistent/folder: no such file or directory"},
		{[]string{"search", "x", "--kb", "../evil"}, 1, "must not contain a path"},
		{[]string{"search", "x", "--top-k"}, 2, "flag needs an argument"},
		// Flags go through the settings' validation (issue 14, item 5).
		{[]string{"search", "x", "--top-k", "-1"}, 2, "invalid flag value: --top-k: retrieval.top_k must be at least 1, not -1"},
		{[]string{"search", "x", "--min-score", "2", "--rrf-k", "-1"}, 2,
			"--min-score: retrieval.min_score must be between 0 and 1, not 2; --rrf-k: retrieval.rrf_k must not be negative, not -1"},
		{[]string{"search", "x", "--rrf-k", "NaN"}, 2, "--rrf-k: retrieval.rrf_k must be a finite number, not NaN"},
		{[]string{"search", "x", "--fusion", "xyz"}, 2, `--fusion: retrieval.fusion "xyz": use rrf or weighted`},
		{[]string{"search", "x", "--mode", "foo"}, 2, `--mode: retrieval.mode "foo": use hybrid, bm25 or vector`},
		{[]string{"index", ""}, 1, "no folder to index: the path is empty"},
	}
	for _, tt := range tests {
		_, errs, code := cli(t, home, tt.args...)
		if code != tt.code || !strings.Contains(errs, tt.msg) || !strings.HasPrefix(errs, "cairn: ") {
			t.Errorf("%v: exit %d, stderr %q; want %d and %q", tt.args, code, errs, tt.code, tt.msg)
		}
		if first, _, _ := strings.Cut(errs, "\n"); strings.Contains(first, "\t") {
			t.Errorf("multi-line error: %q", errs)
		}
	}
}

// TestHelpListsACommandsFlags: `cairn COMMAND --help` prints the
// command's usage and every flag on standard output and exits 0.
func TestHelpListsACommandsFlags(t *testing.T) {
	home := t.TempDir()
	for _, tt := range []struct {
		args []string
		want []string
	}{
		{[]string{"search", "--help"}, []string{"usage: cairn search QUERY", "-top-k", "results kept", "-exact"}},
		{[]string{"bench", "-h"}, []string{"usage: cairn bench", "-runs", "-clients"}},
	} {
		out, errs, code := cli(t, home, tt.args...)
		if code != 0 || errs != "" {
			t.Errorf("%v: exit %d, stderr %q", tt.args, code, errs)
		}
		for _, w := range tt.want {
			if !strings.Contains(out, w) {
				t.Errorf("%v: no %q in\n%s", tt.args, w, out)
			}
		}
	}
}

func TestHostileQueries(t *testing.T) {
	home := t.TempDir()
	cli(t, home, "index", corpusDir(t))
	for _, q := range []string{`"unbalanced`, `NEAR(reset device, 2)`, `reset*`, `title:router`, `-device`, `^reset`,
		`a OR b AND NOT c`, "\xff\xfe invalid", `)))(((`, strings.Repeat("reset ", 500)} {
		out, errs, code := cli(t, home, "search", "--json", "--", q)
		if code != 0 || !strings.Contains(out, `"results"`) {
			t.Errorf("query %q: exit %d %s", q, code, errs)
		}
	}
}

func TestFirstStartIndexesGuide(t *testing.T) {
	// Without a display, `cairn` with no command prepares the starter
	// knowledge base headless instead of opening the window.
	t.Setenv("DISPLAY", "")
	t.Setenv("WAYLAND_DISPLAY", "")
	home := t.TempDir()
	out, errs, code := cli(t, home)
	if code != 0 || !strings.Contains(out, "Indexed the bundled user guide") || !strings.Contains(out, "01-getting-started.md") {
		t.Fatalf("first start: %d\n%s\n%s", code, out, errs)
	}
	out, _, _ = cli(t, home, "search", "reset the index", "--json")
	if !strings.Contains(out, "08-troubleshooting.md") || !strings.Contains(out, `"guide": true`) {
		t.Errorf("guide search: %s", out)
	}
	// --no-guide leaves it out of one question, and the knowledge base
	// holds nothing else (issue 39, item 7).
	for cmd, want := range map[string]string{"search": "No matching passages.", "ask": "Nothing relevant was found in your documents."} {
		out, errs, code = cli(t, home, cmd, "--no-guide", "reset the index")
		if code != 0 || strings.TrimSpace(out) != want {
			t.Errorf("%s --no-guide: %d\n%s\n%s", cmd, code, out, errs)
		}
	}
}

// TestSIGKILLDuringIndexing kills a child `cairn index` at random moments.
// After each kill the database must pass every check, and finishing the job
// must give exactly the chunks of a clean run. CAIRN_SOAK_RUNS sets the
// number of kills (make soak uses 50).
func TestSIGKILLDuringIndexing(t *testing.T) {
	runs := 4
	if s := os.Getenv("CAIRN_SOAK_RUNS"); s != "" {
		runs, _ = strconv.Atoi(s)
	}
	corpus := writeCorpus(t, 1500)
	rng := rand.New(rand.NewPCG(1, 2))
	home := t.TempDir()
	// The clean run, for the expected counts.
	if _, errs, code := cli(t, home, "index", corpus, "--kb", "clean", "--quiet"); code != 0 {
		t.Fatal(errs)
	}
	clean := kbStats(t, filepath.Join(home, "data", "kb", "clean.db"))

	dbPath := filepath.Join(home, "data", "kb", "crash.db")
	for i := range runs {
		os.Remove(dbPath)
		os.Remove(dbPath + "-wal")
		os.Remove(dbPath + "-shm")
		cmd := exec.Command(os.Args[0], "index", corpus, "--kb", "crash", "--quiet")
		cmd.Env = append(os.Environ(), "CAIRN_TEST_MAIN=1", "CAIRN_HOME="+home)
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		exited := make(chan struct{})
		go func() { cmd.Wait(); close(exited) }()
		// Every other kill lands at a random moment of start-up (opening,
		// migrating, walking); the others once a random number of documents
		// is written.
		start := time.Now()
		if i%2 == 0 {
			time.Sleep(time.Duration(rng.IntN(800)) * time.Millisecond)
		} else {
			waitForDocuments(t, dbPath, rng.IntN(clean.Documents), exited)
			time.Sleep(time.Duration(rng.IntN(20)) * time.Millisecond)
		}
		cmd.Process.Signal(syscall.SIGKILL)
		<-exited

		killed := kbStats(t, dbPath)
		t.Logf("kill %d after %s: %d of %d documents written", i, time.Since(start).Round(time.Millisecond), killed.Documents, clean.Documents)
		// Finish the job in-process.
		if _, errs, code := cli(t, home, "index", corpus, "--kb", "crash", "--quiet"); code != 0 {
			t.Fatal(errs)
		}
		done := kbStats(t, dbPath)
		if done.Documents != clean.Documents || done.Chunks != clean.Chunks {
			t.Fatalf("after resuming: %d documents, %d chunks; clean run: %d, %d", done.Documents, done.Chunks, clean.Documents, clean.Chunks)
		}
	}
}

// writeCorpus writes n Markdown documents of 400 random words each.
func writeCorpus(t *testing.T, n int) string {
	t.Helper()
	corpus := t.TempDir()
	rng := rand.New(rand.NewPCG(1, 2))
	words := strings.Fields("pump valve seal reset device router network firmware warranty schedule patient ward budget " +
		"invoice contract filter pressure sensor calibration report meeting agenda policy backup server")
	for i := range n {
		var b strings.Builder
		fmt.Fprintf(&b, "# Document %d\n\n", i)
		for j := range 400 {
			b.WriteString(words[rng.IntN(len(words))])
			if j%12 == 11 {
				b.WriteString(".\n")
			} else {
				b.WriteByte(' ')
			}
		}
		if err := os.WriteFile(filepath.Join(corpus, fmt.Sprintf("doc%04d.md", i)), []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return corpus
}

// waitForDocuments polls the knowledge base until it holds n documents or
// the process exits.
func waitForDocuments(t *testing.T, path string, n int, exited <-chan struct{}) {
	t.Helper()
	for {
		select {
		case <-exited:
			return
		case <-time.After(10 * time.Millisecond):
		}
		if _, err := os.Stat(path); err != nil {
			continue
		}
		db, err := store.Open(path, store.Options{ReadOnly: true})
		if err != nil {
			continue
		}
		st, err := db.Stats(context.Background())
		db.Close()
		if err == nil && st.Documents >= n {
			return
		}
	}
}

// kbStats opens a knowledge base, runs every consistency check and returns its
// counts; a missing file (killed before creating it) counts as empty.
func kbStats(t *testing.T, path string) domain.Stats {
	t.Helper()
	if _, err := os.Stat(path); err != nil {
		return domain.Stats{}
	}
	db, err := store.Open(path, store.Options{})
	if err != nil {
		t.Fatalf("open after kill: %v", err)
	}
	defer db.Close()
	ctx := context.Background()
	problems, err := db.Check(ctx)
	if err != nil || len(problems) > 0 {
		t.Fatalf("check after kill: %v %v", problems, err)
	}
	st, err := db.Stats(ctx)
	if err != nil {
		t.Fatal(err)
	}
	return st
}

func TestBenchRefusesUnknownSuitesAndWeights(t *testing.T) {
	home := t.TempDir()
	for args, want := range map[string]string{
		"bench --weights Q4_K embed": `--weights "Q4_K": use F16 or Q8_0`,
		"bench sideways":             "unknown bench suite \"sideways\" (have: index, extract, embed, generate, serve, gui, all; and gpu first: `cairn bench gpu`)",
	} {
		_, errs, code := cli(t, home, strings.Fields(args)...)
		if code != 2 || !strings.Contains(errs, want) {
			t.Errorf("cairn %s: exit %d, %q", args, code, errs)
		}
	}
}

// TestIndexExitsThreeWhenFilesFail: a run that indexed what it could but
// not every file exits 3 (not 1, a total failure) and says so on its last
// line; a file that failed for a reason that stays while it does (a broken
// file) is not read by the next run, which says so and exits 0, until
// `--retry-failed` asks (issue 43, item 4).
func TestIndexExitsThreeWhenFilesFail(t *testing.T) {
	home, corpus := t.TempDir(), t.TempDir()
	os.WriteFile(filepath.Join(corpus, "ok.txt"), []byte("hello pumps"), 0o644)
	broken := filepath.Join(corpus, "broken.docx")
	os.WriteFile(broken, []byte("not a zip at all"), 0o644)
	for i, c := range []struct {
		args []string
		code int
		last string
	}{
		{[]string{"index", corpus}, 3, "cairn: 1 of 2 files failed; they are read again when they change, or with --retry-failed; `cairn status --issues` lists them with the reason"},
		{[]string{"index", corpus}, 0, "1 file failed before and has not changed: not read again; `cairn status --issues` says why, `cairn index --retry-failed` reads it again"},
		{[]string{"index", "--retry-failed", corpus}, 3, "cairn: 1 of 2 files failed; they are read again when they change"},
	} {
		out, errs, code := cli(t, home, c.args...)
		l := lines(errs)
		if code != c.code || !strings.Contains(out, "1 failed") || !strings.HasPrefix(l[len(l)-1], c.last) {
			t.Errorf("run %d: exit %d\n%s%s", i+1, code, out, errs)
		}
	}
	status, _, _ := cli(t, home, "status", "--issues")
	if !strings.Contains(status, "failed: "+broken+": docx: not a zip archive") || !strings.Contains(status, "1 of the failed files wait") {
		t.Errorf("status --issues:\n%s", status)
	}
	os.Remove(broken)
	if out, errs, code := cli(t, home, "index", corpus); code != 0 || !strings.Contains(out, "0 failed, 1 removed") {
		t.Errorf("after removing the broken file: exit %d\n%s%s", code, out, errs)
	}
}

// TestOddFileNamesInOutput: a newline in a file name does not split a TREC
// line, a name that is not UTF-8 can be recovered from the JSON, and a NUL
// byte in a batch query is an error naming the line (issue 14, item 9).
func TestOddFileNamesInOutput(t *testing.T) {
	home, corpus := t.TempDir(), t.TempDir()
	newline := filepath.Join(corpus, "two\nlines 100%.txt")
	latin1 := filepath.Join(corpus, "caf\xe9.txt")
	os.WriteFile(newline, []byte("the zorbular flange holds the pump"), 0o644)
	os.WriteFile(latin1, []byte("the zorbular gasket seals the valve"), 0o644)
	if _, errs, code := cli(t, home, "index", corpus); code != 0 {
		t.Fatal(errs)
	}

	out, errs, code := cli(t, home, "search", "zorbular", "--json")
	var res struct {
		Results []struct {
			Path        string `json:"path"`
			PathEscaped string `json:"path_escaped"`
		} `json:"results"`
	}
	if code != 0 || json.Unmarshal([]byte(out), &res) != nil || len(res.Results) != 2 {
		t.Fatalf("search: %d %s %s", code, out, errs)
	}
	for _, r := range res.Results {
		switch {
		case r.Path == newline && r.PathEscaped == "": // valid UTF-8: no second field
		case r.PathEscaped == filepath.Join(corpus, "caf%E9.txt"):
			if got, err := url.PathUnescape(r.PathEscaped); err != nil || got != latin1 {
				t.Errorf("path_escaped %q decodes to %q, %v; want the file's bytes", r.PathEscaped, got, err)
			}
		default:
			t.Errorf("result %+v", r)
		}
	}

	q := filepath.Join(t.TempDir(), "q.tsv")
	os.WriteFile(q, []byte("q1\tzorbular flange\n"), 0o644)
	out, errs, code = cli(t, home, "search", "--batch", q, "--format", "trec", "--top-k", "1")
	l := lines(out)
	if f := strings.Fields(l[0]); code != 0 || len(l) != 1 || len(f) != 6 || f[2] != filepath.Join(corpus, "two%0Alines%20100%25.txt") {
		t.Errorf("TREC: %d %q %s", code, out, errs)
	}

	os.WriteFile(q, []byte("q1\tzorbular flange\nq2\tzorbular\x00gasket\n"), 0o644)
	_, errs, code = cli(t, home, "search", "--batch", q, "--format", "trec")
	if code != 1 || !strings.Contains(errs, q+`:2: query "q2" holds a NUL byte`) {
		t.Errorf("NUL in a query: %d %s", code, errs)
	}
}

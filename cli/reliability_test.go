package cli

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"cairn/core/config"
	"cairn/core/ocr"
	"cairn/core/store"
	"cairn/core/store/storetest"
)

func lines(s string) []string { return strings.Split(strings.TrimRight(s, "\n"), "\n") }

// wantFault checks a failed command's stderr: "cairn: <message>" and then
// "  fix: <fix> [CODE]".
func wantFault(t *testing.T, what, stderr string, code int, msg, fixCode string) {
	t.Helper()
	l := lines(stderr)
	if code != 1 || len(l) < 2 || !strings.HasPrefix(l[0], "cairn: ") || !strings.Contains(l[0], msg) ||
		!strings.HasPrefix(l[1], "  fix: ") || !strings.HasSuffix(l[1], "["+fixCode+"]") {
		t.Errorf("%s: exit %d, stderr:\n%s\nwant exit 1, %q and a fix line ending [%s]", what, code, stderr, msg, fixCode)
	}
}

func TestErrorsCarryFixAndCode(t *testing.T) {
	home := t.TempDir()
	dirs := config.Dirs{Config: filepath.Join(home, "config")}
	os.MkdirAll(dirs.Config, 0o700)
	corpus := corpusDir(t)

	os.WriteFile(dirs.SettingsFile(), []byte(`{"retrieval": {"top_k": 8,}}`), 0o600)
	_, errs, code := cli(t, home, "status")
	wantFault(t, "broken settings", errs, code, "settings "+dirs.SettingsFile()+": invalid character", "CONF-001")
	// Help and version need no settings.
	for _, cmd := range []string{"help", "version"} {
		if out, errs, code := cli(t, home, cmd); code != 0 || out == "" {
			t.Errorf("cairn %s with broken settings: exit %d, %q %q", cmd, code, out, errs)
		}
	}

	os.WriteFile(dirs.SettingsFile(), []byte(`{"retrieval": {"top_k": 0}}`), 0o600)
	_, errs, code = cli(t, home, "status")
	wantFault(t, "invalid setting", errs, code, "retrieval.top_k must be at least 1", "CONF-002")
	os.Remove(dirs.SettingsFile())

	t.Setenv("CAIRN_RETRIEVAL_TOP_K", "many")
	_, errs, code = cli(t, home, "status")
	wantFault(t, "bad variable", errs, code, `CAIRN_RETRIEVAL_TOP_K="many": not a whole number`, "CONF-003")
	os.Unsetenv("CAIRN_RETRIEVAL_TOP_K")

	t.Setenv("CAIRN_EMBEDDING_MODEL", "/nonexistent/model.gguf")
	_, errs, code = cli(t, home, "index", corpus)
	wantFault(t, "missing model", errs, code, "model /nonexistent/model.gguf", "MODEL-001")

	bad := filepath.Join(t.TempDir(), "model.gguf")
	os.WriteFile(bad, []byte("this is not a model"), 0o600)
	t.Setenv("CAIRN_EMBEDDING_MODEL", bad)
	_, errs, code = cli(t, home, "index", corpus)
	wantFault(t, "not a model", errs, code, bad, "MODEL-002")
}

// TestLogHoldsNoDocumentText indexes and searches at the default level
// (info): the log records the run and the search but no word of the
// documents or the question; at debug level the question is there.
func TestLogHoldsNoDocumentText(t *testing.T) {
	home := t.TempDir()
	corpus := t.TempDir()
	os.WriteFile(filepath.Join(corpus, "zephyr.md"), []byte("# Zephyrquartz handbook\n\nThe quillotine valve must be primed before use.\n"), 0o644)
	os.WriteFile(filepath.Join(corpus, "other.txt"), []byte("Nothing to see in the marmalite archive.\n"), 0o644)
	if _, errs, code := cli(t, home, "index", corpus); code != 0 {
		t.Fatal(errs)
	}
	if out, errs, code := cli(t, home, "search", "quillotine valve priming"); code != 0 || !strings.Contains(out, "zephyr.md") {
		t.Fatalf("search: %d %s %s", code, out, errs)
	}
	logFile := filepath.Join(home, "state", "cairn.log")
	b, err := os.ReadFile(logFile)
	if err != nil {
		t.Fatal(err)
	}
	log := string(b)
	for _, want := range []string{"msg=\"index run finished\"", "indexed=2", "msg=search", "results=1", "command=search"} {
		if !strings.Contains(log, want) {
			t.Errorf("the log lacks %q:\n%s", want, log)
		}
	}
	for _, text := range []string{"quillotine", "Zephyrquartz", "marmalite", "primed", "priming"} {
		if strings.Contains(strings.ToLower(log), strings.ToLower(text)) {
			t.Errorf("document or question text %q in the log at level info:\n%s", text, log)
		}
	}
	if fi, _ := os.Stat(logFile); fi.Mode().Perm() != 0o600 {
		t.Errorf("log mode %v", fi.Mode().Perm())
	}

	t.Setenv("CAIRN_LOG_LEVEL", "debug")
	cli(t, home, "search", "quillotine valve priming")
	b, _ = os.ReadFile(logFile)
	if !strings.Contains(string(b), `query="quillotine valve priming"`) {
		t.Errorf("at level debug the question must be logged:\n%s", b)
	}
}

// doctorLines runs cairn doctor and returns its lines by check name.
func doctorLines(t *testing.T, home string, args ...string) (map[string][]string, string, int) {
	t.Helper()
	out, errs, code := cli(t, home, append([]string{"doctor"}, args...)...)
	checks := map[string][]string{}
	var last string
	for _, l := range lines(out) {
		if strings.HasPrefix(l, "  fix: ") {
			checks[last] = append(checks[last], l)
			continue
		}
		verdict, rest, _ := strings.Cut(l, " ")
		name, _, _ := strings.Cut(rest, ":")
		last = name
		checks[name] = []string{verdict, l}
	}
	return checks, out + errs, code
}

func TestDoctor(t *testing.T) {
	home := t.TempDir()
	if _, errs, code := cli(t, home, "index", corpusDir(t), "--kb", "work"); code != 0 {
		t.Fatal(errs)
	}
	kb := filepath.Join(home, "data", "kb", "work.db")

	t.Run("healthy", func(t *testing.T) {
		checks, out, code := doctorLines(t, home, "--kb", "work")
		if code != 0 {
			t.Fatalf("exit %d:\n%s", code, out)
		}
		names := []string{"version", "settings", "knowledge base", "integrity", "full-text index", "consistency", "vectors", "indexing",
			"permissions", "disk space", "device", "embedding model", "chat model", "OCR", "PDF reader", "network", "log"}
		if len(checks) != len(names) {
			t.Errorf("%d checks, want %d:\n%s", len(checks), len(names), out)
		}
		_, ocrErr := ocr.New(ocr.Options{})
		for _, n := range names {
			c := checks[n]
			// OCR is a warning where Tesseract is not installed.
			if len(c) == 0 || c[0] != "PASS" && !(n == "OCR" && ocrErr != nil && c[0] == "WARN") {
				t.Errorf("%s: %v", n, c)
			}
		}
		if !strings.Contains(checks["knowledge base"][1], kb+fmt.Sprintf(": schema %d, 8 documents, 12 chunks", store.SchemaVersion)) {
			t.Errorf("%q", checks["knowledge base"][1])
		}
	})

	t.Run("orphan chunk", func(t *testing.T) {
		bad := filepath.Join(home, "data", "kb", "orphan.db")
		copyFile(t, kb, bad)
		storetest.Exec(t, bad, `INSERT INTO chunks(document_id, ordinal, text, char_start, char_end) VALUES (9999, 0, 'stray', 0, 5)`)
		checks, out, code := doctorLines(t, home, "--kb", "orphan")
		c := checks["consistency"]
		if code != 1 || len(c) != 3 || c[0] != "FAIL" || !strings.Contains(c[1], "chunks without a document: 1") ||
			!strings.Contains(c[2], "cairn restore") || !strings.HasSuffix(c[2], "[STORE-003]") {
			t.Errorf("exit %d, consistency %q:\n%s", code, c, out)
		}
		if !strings.Contains(out, "cairn: doctor: 1 of 17 checks failed") || checks["integrity"][0] != "PASS" {
			t.Errorf("%s", out)
		}
	})

	t.Run("missing full-text row", func(t *testing.T) {
		bad := filepath.Join(home, "data", "kb", "nofts.db")
		copyFile(t, kb, bad)
		storetest.Exec(t, bad, `INSERT INTO chunks_fts(chunks_fts, rowid, text, heading, title)
			SELECT 'delete', c.id, c.text, c.heading, d.title FROM chunks c JOIN documents d ON d.id = c.document_id LIMIT 1`)
		checks, out, code := doctorLines(t, home, "--kb", "nofts")
		c := checks["full-text index"]
		if code != 1 || len(c) != 3 || c[0] != "FAIL" || !strings.Contains(c[1], "out of step with the chunks") || !strings.HasSuffix(c[2], "[STORE-003]") {
			t.Errorf("exit %d, full-text index %q:\n%s", code, c, out)
		}
	})

	t.Run("damaged page", func(t *testing.T) {
		bad := filepath.Join(home, "data", "kb", "damaged.db")
		copyFile(t, kb, bad)
		storetest.CorruptTable(t, bad, "chunks")
		checks, out, code := doctorLines(t, home, "--kb", "damaged")
		c := checks["integrity"]
		if code != 1 || len(c) != 3 || c[0] != "FAIL" || !strings.Contains(c[1], "damaged") ||
			!strings.Contains(c[2], "cairn restore BACKUP.db") || !strings.HasSuffix(c[2], "[STORE-003]") {
			t.Errorf("exit %d, integrity %q:\n%s", code, c, out)
		}
		// The other checks still run.
		if checks["network"][0] != "PASS" || checks["disk space"] == nil {
			t.Errorf("%s", out)
		}
	})

	t.Run("broken settings", func(t *testing.T) {
		dirs := config.Dirs{Config: filepath.Join(home, "config")}
		os.MkdirAll(dirs.Config, 0o700)
		os.WriteFile(dirs.SettingsFile(), []byte(`{"retrieval": {"top_kk": 8}}`), 0o600)
		defer os.Remove(dirs.SettingsFile())
		checks, out, code := doctorLines(t, home, "--kb", "work")
		c := checks["settings"]
		if code != 1 || len(c) != 3 || c[0] != "FAIL" || !strings.Contains(c[1], `unknown field "top_kk"`) || !strings.HasSuffix(c[2], "[CONF-001]") {
			t.Errorf("exit %d, settings %q:\n%s", code, c, out)
		}
		if checks["integrity"][0] != "PASS" {
			t.Errorf("the knowledge base checks must run on the defaults:\n%s", out)
		}
	})
}

func copyFile(t *testing.T, src, dst string) {
	t.Helper()
	b, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(dst, b, 0o600); err != nil {
		t.Fatal(err)
	}
}

// TestDamagedKnowledgeBaseIsRefusedClearly searches a knowledge base with a
// damaged page, and one that is not a database at all: a one-line refusal
// that names doctor and restore, never a panic.
func TestDamagedKnowledgeBaseIsRefusedClearly(t *testing.T) {
	home := t.TempDir()
	if _, errs, code := cli(t, home, "index", corpusDir(t)); code != 0 {
		t.Fatal(errs)
	}
	kb := filepath.Join(home, "data", "kb", "default.db")
	storetest.CorruptTable(t, kb, "chunks")
	_, errs, code := cli(t, home, "search", "reset the router")
	wantFault(t, "search of a damaged page", errs, code, "the knowledge base "+kb+" is damaged", "STORE-003")
	if !strings.Contains(errs, "run `cairn doctor`") || !strings.Contains(errs, "cairn restore") {
		t.Errorf("the fix must name doctor and restore: %s", errs)
	}

	junk := make([]byte, 64<<10)
	rand.Read(junk)
	os.WriteFile(kb, junk, 0o600)
	os.Remove(kb + "-wal")
	os.Remove(kb + "-shm")
	_, errs, code = cli(t, home, "status")
	wantFault(t, "status of a non-database", errs, code, "is not a Cairn knowledge base", "STORE-006")

	// The way out: restore a backup over the damaged file, which is kept.
	backup := filepath.Join(t.TempDir(), "good.db")
	cli(t, home, "index", corpusDir(t), "--kb", "good")
	if _, errs, code := cli(t, home, "backup", "--kb", "good", backup); code != 0 {
		t.Fatal(errs)
	}
	// Only when asked: the file is not recognisable as a knowledge base
	// (issue 33, item 6).
	_, errs, code = cli(t, home, "restore", backup)
	wantFault(t, "restore over a file that is not a knowledge base", errs, code, "is not a Cairn knowledge base", "STORE-006")
	if !strings.Contains(errs, "--replace-damaged") {
		t.Errorf("the fix must name --replace-damaged: %s", errs)
	}
	if b, _ := os.ReadFile(kb); string(b) != string(junk) {
		t.Error("a refused restore changed the file")
	}
	if out, errs, code := cli(t, home, "restore", "--replace-damaged", backup); code != 0 || !strings.Contains(out, "Restored 8 documents") {
		t.Fatalf("restore over a damaged file: %d %s %s", code, out, errs)
	}
	if out, _, code := cli(t, home, "search", "reset the router", "--json"); code != 0 || !strings.Contains(out, "router-x200.md") {
		t.Errorf("search after restore: %d %s", code, out)
	}
	if b, _ := os.ReadFile(kb + ".bak"); string(b) != string(junk) {
		t.Error("the damaged file was not kept as the .bak")
	}
	// A second restore would delete that .bak, the one copy of the
	// damaged file: it refuses, and keeps it.
	_, errs, code = cli(t, home, "restore", backup)
	wantFault(t, "restore over a .bak that is not a knowledge base", errs, code, ".bak holds something other than a Cairn knowledge base", "STORE-006")
	if b, _ := os.ReadFile(kb + ".bak"); string(b) != string(junk) {
		t.Error("the second restore deleted the .bak")
	}
}

// TestFilesArePrivate checks the modes of what Cairn writes, under a
// permissive umask: knowledge base files 0600 (the write-ahead log and
// shared memory too, which SQLite would create world-readable), folders
// 0700, the settings and the log 0600.
func TestFilesArePrivate(t *testing.T) {
	old := syscall.Umask(0o022)
	defer syscall.Umask(old)
	home := t.TempDir()
	if _, errs, code := cli(t, home, "index", corpusDir(t), "--kb", "p"); code != 0 {
		t.Fatal(errs)
	}
	dirs := config.Dirs{Config: filepath.Join(home, "config"), Data: filepath.Join(home, "data"), State: filepath.Join(home, "state")}
	if err := config.Save(dirs, config.Default("laptop")); err != nil {
		t.Fatal(err)
	}
	kb := filepath.Join(dirs.Data, "kb", "p.db")
	db, err := store.Open(kb, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	unlock, err := db.LockIndexing()
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]os.FileMode{
		kb: 0o600, kb + "-wal": 0o600, kb + "-shm": 0o600,
		filepath.Join(dirs.Data, "kb"): 0o700, dirs.Data: 0o700,
		dirs.SettingsFile(): 0o600, dirs.Config: 0o700,
		filepath.Join(dirs.State, "cairn.log"): 0o600, dirs.State: 0o700,
	}
	for p, mode := range want {
		fi, err := os.Stat(p)
		if err != nil {
			t.Errorf("%s: %v", p, err)
			continue
		}
		if fi.Mode().Perm() != mode {
			t.Errorf("%s: mode %04o, want %04o", p, fi.Mode().Perm(), mode)
		}
	}
	unlock()
	db.Close()

	// A knowledge base left readable by an older version is tightened on open.
	for _, p := range []string{kb, kb + "-wal"} {
		os.Chmod(p, 0o644)
	}
	if _, _, code := cli(t, home, "status", "--kb", "p"); code != 0 {
		t.Fatal("status failed")
	}
	if fi, _ := os.Stat(kb); fi.Mode().Perm() != 0o600 {
		t.Errorf("an old 0644 knowledge base is %04o after opening", fi.Mode().Perm())
	}
}

// indexer is `cairn index` running in a child process.
type indexer struct {
	done   chan struct{} // closed when it exits
	err    error         // its exit error with its stderr, once done
	stderr strings.Builder
}

// startIndexer starts `cairn index corpus --kb kb` in a child process with
// one extraction worker.
func startIndexer(t *testing.T, home, corpus, kb string) *indexer {
	t.Helper()
	ix := &indexer{done: make(chan struct{})}
	cmd := exec.Command(os.Args[0], "index", corpus, "--kb", kb, "--quiet")
	cmd.Env = append(os.Environ(), "CAIRN_TEST_MAIN=1", "CAIRN_HOME="+home, "CAIRN_INDEX_WORKERS=1")
	cmd.Stderr = &ix.stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() {
		if err := cmd.Wait(); err != nil {
			ix.err = fmt.Errorf("%w: %s", err, ix.stderr.String())
		}
		close(ix.done)
	}()
	t.Cleanup(func() { cmd.Process.Kill(); <-ix.done })
	return ix
}

// TestTwoProcessesShareAKnowledgeBase runs `cairn index` in a child process
// and, while it writes, searches, tries a second indexing run, backs up and
// tries a restore from this one. Searches work (WAL); the second run and
// the restore are refused with the busy fault; the backup is one committed
// state: every file in it has all its chunks. Then the backup is restored
// (round trip), a corrupt backup is refused, and so is a restore while a
// connection has the knowledge base open.
func TestTwoProcessesShareAKnowledgeBase(t *testing.T) {
	// Large enough that the indexer is still running after the checks
	// below, each a process of its own, on a fast machine.
	const docs = 8000
	corpus := writeCorpus(t, docs)
	home := t.TempDir()
	live := filepath.Join(home, "data", "kb", "live.db")
	backup := filepath.Join(t.TempDir(), "backup.db")
	child := startIndexer(t, home, corpus, "live")
	waitForDocuments(t, live, 300, child.done)

	for range 3 {
		out, errs, code := cli(t, home, "search", "pump seal warranty", "--kb", "live", "--json")
		if code != 0 || !strings.Contains(out, `"path"`) {
			t.Fatalf("search while indexing: %d %s %s", code, out, errs)
		}
	}
	_, errs, code := cli(t, home, "index", corpus, "--kb", "live")
	wantFault(t, "second indexer", errs, code, "another indexing run is using this knowledge base", "STORE-002")
	if out, errs, code := cli(t, home, "backup", "--kb", "live", backup); code != 0 || !strings.Contains(out, "Backed up") {
		t.Fatalf("backup while indexing: %d %s %s", code, out, errs)
	}
	_, errs, code = cli(t, home, "restore", backup, "--kb", "live")
	wantFault(t, "restore while indexing", errs, code, "another indexing run is using this knowledge base", "STORE-002")
	select {
	case <-child.done:
		t.Fatalf("the indexer finished before the checks ran (the corpus is too small for this machine): %v", child.err)
	default:
	}
	<-child.done
	if child.err != nil {
		t.Fatalf("indexer: %v", child.err)
	}

	final := storetest.ChunkCounts(t, live)
	snap := storetest.ChunkCounts(t, backup)
	if len(final) != docs || len(snap) == 0 || len(snap) >= len(final) {
		t.Fatalf("backup holds %d of %d documents; want a state taken mid-run", len(snap), len(final))
	}
	for p, n := range snap {
		if n != final[p] {
			t.Errorf("%s: %d chunks in the backup, %d when complete", p, n, final[p])
		}
	}
	if st := kbStats(t, backup); st.Documents != len(snap) {
		t.Errorf("backup stats %+v", st)
	}
	if fi, _ := os.Stat(backup); fi.Mode().Perm() != 0o600 {
		t.Errorf("backup mode %04o", fi.Mode().Perm())
	}

	// Round trip: the backup replaces the knowledge base, the old one is kept.
	out, errs, code := cli(t, home, "restore", backup, "--kb", "live")
	if code != 0 || !strings.Contains(out, "Restored") {
		t.Fatalf("restore: %d %s %s", code, out, errs)
	}
	if got := storetest.ChunkCounts(t, live); len(got) != len(snap) {
		t.Errorf("restored %d documents, the backup holds %d", len(got), len(snap))
	}
	if got := storetest.ChunkCounts(t, live+".bak"); len(got) != len(final) {
		t.Errorf("the .bak holds %d documents, want the replaced %d", len(got), len(final))
	}
	if checks, out, code := doctorLines(t, home, "--kb", "live"); code != 0 || checks["integrity"][0] != "PASS" {
		t.Errorf("doctor after restore: %d\n%s", code, out)
	}

	// A damaged backup is refused and the knowledge base is left alone.
	bad := filepath.Join(t.TempDir(), "bad.db")
	copyFile(t, backup, bad)
	storetest.CorruptTable(t, bad, "chunks")
	_, errs, code = cli(t, home, "restore", bad, "--kb", "live")
	wantFault(t, "damaged backup", errs, code, bad+": damaged", "STORE-010")
	if got := storetest.ChunkCounts(t, live); len(got) != len(snap) {
		t.Errorf("a refused restore changed the knowledge base: %d documents", len(got))
	}

	// A knowledge base open elsewhere (a window) is not replaced under it.
	db, err := store.Open(live, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Stats(context.Background()); err != nil {
		t.Fatal(err)
	}
	_, errs, code = cli(t, home, "restore", backup, "--kb", "live")
	wantFault(t, "restore while open", errs, code, "is open in another Cairn", "STORE-008")
	db.Close()
}

// TestBrokenSettingsDoNotStopTheApp starts `cairn` (no command, no display)
// with a settings file that does not parse: it warns with the fix and runs
// on the defaults; the file is left as it was.
func TestBrokenSettingsDoNotStopTheApp(t *testing.T) {
	t.Setenv("DISPLAY", "")
	t.Setenv("WAYLAND_DISPLAY", "")
	home := t.TempDir()
	dirs := config.Dirs{Config: filepath.Join(home, "config")}
	os.MkdirAll(dirs.Config, 0o700)
	broken := []byte(`{"retrieval": {"top_kk": 8}}`)
	os.WriteFile(dirs.SettingsFile(), broken, 0o600)
	out, errs, code := cli(t, home)
	if code != 0 || !strings.Contains(out, "Indexed the bundled user guide") ||
		!strings.Contains(errs, "cairn: warning: using the default settings: settings "+dirs.SettingsFile()+`: json: unknown field "top_kk"`) ||
		!strings.Contains(errs, "[CONF-001]") {
		t.Errorf("exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errs)
	}
	if b, _ := os.ReadFile(dirs.SettingsFile()); string(b) != string(broken) {
		t.Errorf("the settings file changed: %s", b)
	}
}

// TestKilledRunIsShownInterrupted kills `cairn index` mid-run: `cairn
// status` shows the run as running while it runs and, once the process is
// gone, as interrupted with the counts of what it committed, and the
// doctor agrees that no run is in progress (issue 14, item 8).
func TestKilledRunIsShownInterrupted(t *testing.T) {
	corpus := writeCorpus(t, 3000)
	home := t.TempDir()
	live := filepath.Join(home, "data", "kb", "live.db")
	cmd := exec.Command(os.Args[0], "index", corpus, "--kb", "live", "--quiet")
	cmd.Env = append(os.Environ(), "CAIRN_TEST_MAIN=1", "CAIRN_HOME="+home, "CAIRN_INDEX_WORKERS=1")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan struct{})
	go func() { cmd.Wait(); close(exited) }()
	t.Cleanup(func() { cmd.Process.Kill(); <-exited })
	waitForDocuments(t, live, 200, exited)

	type lastRun struct {
		Status  string `json:"status"`
		Indexed int    `json:"files_indexed"`
		Chunks  int    `json:"chunks"`
	}
	status := func() lastRun {
		t.Helper()
		out, errs, code := cli(t, home, "status", "--kb", "live", "--json")
		var st struct {
			LastRun lastRun `json:"last_run"`
		}
		if code != 0 || json.Unmarshal([]byte(out), &st) != nil {
			t.Fatalf("status: %d %s %s", code, out, errs)
		}
		return st.LastRun
	}
	if r := status(); r.Status != "running" {
		t.Errorf("while indexing: last run %+v", r)
	}
	cmd.Process.Signal(syscall.SIGKILL)
	<-exited

	st := kbStats(t, live)
	if r := status(); r.Status != "interrupted" || r.Indexed != st.Documents || r.Chunks != st.Chunks {
		t.Errorf("after the kill: last run %+v, want interrupted with the %d documents and %d chunks committed", r, st.Documents, st.Chunks)
	}
	if checks, out, _ := doctorLines(t, home, "--kb", "live"); len(checks["indexing"]) == 0 || checks["indexing"][0] != "PASS" {
		t.Errorf("doctor after the kill:\n%s", out)
	}
}

// TestDamagedSchemaIsQuoted: SQLite's complaint about a damaged schema
// quotes the schema's text; its control characters and bytes that are not
// UTF-8 reach the terminal escaped, never raw (issue 14, item 9).
func TestDamagedSchemaIsQuoted(t *testing.T) {
	home := t.TempDir()
	if _, errs, code := cli(t, home, "index", corpusDir(t)); code != 0 {
		t.Fatal(errs)
	}
	kb := filepath.Join(home, "data", "kb", "default.db")
	storetest.Exec(t, kb, `PRAGMA writable_schema=ON`,
		`UPDATE sqlite_schema SET sql = 'CREATE TABLE folders(' || char(27) || '[31m' || CAST(x'ff07' AS TEXT) WHERE name = 'folders'`)
	_, errs, code := cli(t, home, "status")
	if code != 1 || !strings.Contains(errs, `malformed database schema`) || !strings.Contains(errs, `\x1b`) {
		t.Errorf("exit %d, stderr %q", code, errs)
	}
	for _, b := range []byte{0x1b, 0xff, 0x07} {
		if strings.IndexByte(errs, b) >= 0 {
			t.Errorf("raw byte %#x in the message: %q", b, errs)
		}
	}
}

// TestCommandsTouchOnlyCairnsFiles: commands that only read never create
// or change a file; an index run refuses another program's database, a
// path in a missing folder and a file with two names, and follows a
// symbolic link to the real file.
func TestCommandsTouchOnlyCairnsFiles(t *testing.T) {
	home, dir := t.TempDir(), t.TempDir()
	other := filepath.Join(dir, "places.sqlite")
	storetest.Exec(t, other, `PRAGMA journal_mode=WAL`, `CREATE TABLE moz_places (id INTEGER PRIMARY KEY, url TEXT)`)
	before, _ := os.ReadFile(other)
	for _, args := range [][]string{
		{"search", "router", "--db", other}, {"ask", "router?", "--db", other}, {"status", "--db", other},
		{"backup", "--db", other, filepath.Join(dir, "b.db")}, {"index", corpusDir(t), "--db", other},
	} {
		_, errs, code := cli(t, home, args...)
		wantFault(t, args[0]+" of another program's database", errs, code, "is another program's SQLite database", "STORE-006")
	}
	if after, _ := os.ReadFile(other); string(after) != string(before) {
		t.Error("another program's database changed")
	}
	if es, _ := os.ReadDir(dir); len(es) != 1 {
		t.Errorf("files beside it: %v", es)
	}

	missing := filepath.Join(dir, "missing.db")
	_, errs, code := cli(t, home, "search", "router", "--db", missing)
	wantFault(t, "search of a missing file", errs, code, "no knowledge base at "+missing, "STORE-001")
	nowhere := filepath.Join(dir, "nonexistent", "x.db")
	_, errs, code = cli(t, home, "index", corpusDir(t), "--db", nowhere)
	wantFault(t, "index into a missing folder", errs, code, "the folder "+filepath.Dir(nowhere)+" does not exist", "STORE-001")
	if _, err := os.Stat(filepath.Dir(nowhere)); !os.IsNotExist(err) {
		t.Errorf("the folder was created: %v", err)
	}

	kb := filepath.Join(dir, "kb.db")
	if _, errs, code := cli(t, home, "index", corpusDir(t), "--db", kb); code != 0 {
		t.Fatal(errs)
	}
	link := filepath.Join(t.TempDir(), "link.db")
	os.Symlink(kb, link)
	if out, errs, code := cli(t, home, "search", "reset the router", "--db", link, "--json"); code != 0 || !strings.Contains(out, "router-x200.md") {
		t.Errorf("search through a symbolic link: %d %s %s", code, out, errs)
	}
	if es, _ := os.ReadDir(filepath.Dir(link)); len(es) != 1 {
		t.Errorf("files beside the link: %v", es)
	}
	os.Link(kb, filepath.Join(dir, "kb2.db"))
	_, errs, code = cli(t, home, "index", corpusDir(t), "--db", filepath.Join(dir, "kb2.db"))
	wantFault(t, "index through a hard link", errs, code, "has 2 names (hard links)", "STORE-011")
}

package cli

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"cairn/core/llm/testmodel"
	"cairn/core/netgate/netgatetest"
	"cairn/core/remote"
	"cairn/core/remote/remotetest"
)

// netCLI runs cairn in-process with a private CAIRN_HOME, the test dialer as
// the gate's dialer and keys as the keyring.
func netCLI(t *testing.T, home string, rec *netgatetest.Dialer, keys remotetest.Keyring, stdin string, args ...string) (string, string, int) {
	t.Helper()
	t.Setenv("CAIRN_HOME", home)
	var out, errb bytes.Buffer
	code := runIO(args, cliIO{stdin: strings.NewReader(stdin), stdout: &out, stderr: &errb, dial: rec.Dial, keyring: keys})
	return out.String(), errb.String(), code
}

// cleanNetworkEnv clears the variables these tests set, for the test's
// duration.
func cleanNetworkEnv(t *testing.T) {
	for _, k := range []string{"CAIRN_NETWORK_MODE", "CAIRN_NETWORK_CATALOG", "CAIRN_NETWORK_ENDPOINT", remote.KeyEnv} {
		t.Setenv(k, "")
		os.Unsetenv(k)
	}
}

// TestNetworkCommandShowsTheTeamCluster: with store.backend weaviate,
// `cairn network team` allows the cluster alone, and `cairn network`
// names it with its key, masked.
func TestNetworkCommandShowsTheTeamCluster(t *testing.T) {
	cleanNetworkEnv(t)
	home := t.TempDir()
	t.Setenv("CAIRN_STORE_BACKEND", "weaviate")
	t.Setenv("CAIRN_STORE_URL", "https://weaviate.example.test")
	t.Setenv(remote.WeaviateKeyEnv, "wv-secret-key-1234")
	rec := &netgatetest.Dialer{}
	out, errs, code := netCLI(t, home, rec, remotetest.Keyring{}, "", "network", "team")
	if code != 0 || !strings.Contains(out, "Network mode: team (saved in ") ||
		!strings.Contains(out, "Allowed: this computer and the team's cluster weaviate.example.test:443.\n") {
		t.Fatalf("network team: exit %d\n%s%s", code, out, errs)
	}
	out, errs, code = netCLI(t, home, rec, remotetest.Keyring{}, "", "network")
	want := "Team cluster (store.backend weaviate): weaviate.example.test:443; its key: wv-…1234 from CAIRN_WEAVIATE_KEY\n"
	if code != 0 || !strings.Contains(out, want) || strings.Contains(out, "secret") {
		t.Errorf("network: exit %d, want %q in\n%s%s", code, want, out, errs)
	}
	if calls := rec.Calls(); len(calls) != 0 {
		t.Errorf("dialled %v", calls)
	}
}

func TestNetworkCommandShowsAndSwitchesTheMode(t *testing.T) {
	cleanNetworkEnv(t)
	home := t.TempDir()
	rec := &netgatetest.Dialer{}
	keys := remotetest.Keyring{}
	t.Setenv("CAIRN_NETWORK_ENDPOINT", "https://api.example.test/v1")

	out, errs, code := netCLI(t, home, rec, keys, "", "network")
	audit := filepath.Join(home, "state", "audit.log")
	for _, want := range []string{
		"Network mode: offline\nAllowed: this computer only (localhost, 127.0.0.0/8, ::1).\n",
		"Online mode would allow: this computer and api.example.test:443, huggingface.co, *.huggingface.co, *.hf.co.\n",
		"Audit log: " + audit + "\n",
		"Online answers: openai API at https://api.example.test/v1, model (network.chat_model is not set)\n",
		"API key: none (set CAIRN_API_KEY or run `cairn network key set`)\n",
	} {
		if code != 0 || !strings.Contains(out, want) {
			t.Errorf("network: exit %d, output lacks %q:\n%s%s", code, want, out, errs)
		}
	}

	out, errs, code = netCLI(t, home, rec, keys, "", "network", "online")
	want := "Network mode: online (saved in " + filepath.Join(home, "config", "settings.json") + ").\n" +
		"Allowed: this computer and api.example.test:443, huggingface.co, *.huggingface.co, *.hf.co.\n" +
		"Every connection is recorded in " + audit + ".\n"
	if code != 0 || out != want {
		t.Errorf("network online: exit %d\n got %q\nwant %q\n%s", code, out, want, errs)
	}
	raw, _ := os.ReadFile(filepath.Join(home, "config", "settings.json"))
	if !strings.Contains(string(raw), `"mode": "online"`) || strings.Contains(string(raw), "api.example.test") {
		t.Errorf("settings file (the endpoint came from the environment and must stay out):\n%s", raw)
	}
	// status reads a knowledge base, which an index run creates.
	if _, errs, code := netCLI(t, home, rec, keys, "", "index", t.TempDir()); code != 0 {
		t.Fatalf("index: %s", errs)
	}
	out, _, _ = netCLI(t, home, rec, keys, "", "status", "--json")
	if !strings.Contains(out, `"network_mode": "online"`) {
		t.Errorf("status after the switch:\n%s", out)
	}
	out, _, code = netCLI(t, home, rec, keys, "", "network", "offline")
	if code != 0 || !strings.HasPrefix(out, "Network mode: offline (saved in") {
		t.Errorf("network offline: %d %s", code, out)
	}
	_, errs, code = netCLI(t, home, rec, keys, "", "network", "sideways")
	if code != 2 || !strings.Contains(errs, `network mode "sideways": use offline, team, online or admin`) {
		t.Errorf("bad mode: exit %d, %s", code, errs)
	}
	if calls := rec.Calls(); len(calls) != 0 {
		t.Errorf("dialled %v", calls)
	}
}

func TestNetworkKeyIsStoredInTheKeyringAndShownMasked(t *testing.T) {
	cleanNetworkEnv(t)
	home := t.TempDir()
	rec := &netgatetest.Dialer{}
	keys := remotetest.Keyring{}
	out, errs, code := netCLI(t, home, rec, keys, "sk-live-0123456789abcdef\n", "network", "key", "set")
	if code != 0 || out != "Stored the API key sk-…cdef in the keyring.\n" {
		t.Fatalf("key set: %d %q %s", code, out, errs)
	}
	if keys["cairn/api_key"] != "sk-live-0123456789abcdef" {
		t.Errorf("keyring %v", keys)
	}
	out, _, _ = netCLI(t, home, rec, keys, "", "network", "key")
	if out != "API key: sk-…cdef from the keyring\n" {
		t.Errorf("key show: %q", out)
	}
	t.Setenv(remote.KeyEnv, "sk-env-99999999999999")
	out, _, _ = netCLI(t, home, rec, keys, "", "network", "key", "show")
	if out != "API key: sk-…9999 from CAIRN_API_KEY\n" {
		t.Errorf("key show with the environment: %q", out)
	}
	netCLI(t, home, rec, keys, "", "network", "key", "delete")
	if len(keys) != 0 {
		t.Errorf("keyring after delete %v", keys)
	}
	for _, f := range []string{filepath.Join(home, "config", "settings.json"), filepath.Join(home, "state", "audit.log")} {
		raw, _ := os.ReadFile(f)
		if strings.Contains(string(raw), "0123456789") || strings.Contains(string(raw), "99999999") {
			t.Errorf("%s holds the key:\n%s", f, raw)
		}
	}
}

// catalogServer serves a generated GGUF at the catalogue path of
// all-minilm-l6-v2, the way huggingface.co would, with Range support.
// With cut, the first response stops halfway.
type catalogServer struct {
	data   []byte
	cut    bool
	mu     sync.Mutex
	ranges []string // the Range header of each request ("" for none)
}

const minilmPath = "/second-state/All-MiniLM-L6-v2-Embedding-GGUF/resolve/main/all-MiniLM-L6-v2-Q8_0.gguf"

func (s *catalogServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path != minilmPath {
		http.NotFound(w, r)
		return
	}
	s.mu.Lock()
	s.ranges = append(s.ranges, r.Header.Get("Range"))
	first := len(s.ranges) == 1
	s.mu.Unlock()
	if s.cut && first {
		w.Header().Set("Content-Length", fmt.Sprint(len(s.data)))
		w.Write(s.data[:len(s.data)/2])
		w.(http.Flusher).Flush()
		panic(http.ErrAbortHandler) // the connection drops mid-file
	}
	http.ServeContent(w, r, "model.gguf", time.Unix(0, 0), bytes.NewReader(s.data))
}

func (s *catalogServer) requests() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.ranges...)
}

// pullSetup serves a model as models.example.test:8080, the catalogue
// mirror, with the gate in mode.
func pullSetup(t *testing.T, mode string, cut bool) (home string, srv *catalogServer, rec *netgatetest.Dialer, data []byte) {
	t.Helper()
	cleanNetworkEnv(t)
	home = t.TempDir()
	p := filepath.Join(t.TempDir(), "m.gguf")
	if err := testmodel.Write(p, testmodel.Tiny()); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	srv = &catalogServer{data: data, cut: cut}
	hs := httptest.NewServer(srv)
	t.Cleanup(hs.Close)
	rec = &netgatetest.Dialer{}
	rec.Route("models.example.test:8080", hs.Listener.Addr().String())
	t.Setenv("CAIRN_NETWORK_CATALOG", "http://models.example.test:8080")
	t.Setenv("CAIRN_NETWORK_MODE", mode)
	return home, srv, rec, data
}

func sha(b []byte) string {
	h := sha256.Sum256(b)
	return hex.EncodeToString(h[:])
}

func TestModelsPullDownloadsThroughTheGateWithProgressAndIsListed(t *testing.T) {
	old := syscall.Umask(0o022) // what Cairn creates must not depend on it
	defer syscall.Umask(old)
	home, srv, rec, data := pullSetup(t, "online", false)
	keys := remotetest.Keyring{}
	out, errs, code := netCLI(t, home, rec, keys, "", "models", "pull", "all-minilm-l6-v2")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	dest := filepath.Join(home, "data", "models", "all-MiniLM-L6-v2-Q8_0.gguf")
	got, err := os.ReadFile(dest)
	if err != nil || !bytes.Equal(got, data) {
		t.Fatalf("downloaded file: %v (%d of %d bytes)", err, len(got), len(data))
	}
	wantOut := fmt.Sprintf("Downloaded all-minilm-l6-v2 (%s) to %s\nSHA-256 %s (the catalogue has no digest for this model: "+
		"compare it with the publisher's, or pass --sha256 HEX to have it checked).\n"+
		"Use it with `cairn models use %s`, or pick it in the window's Engineering tab.\n", size(int64(len(data))), dest, sha(data), dest)
	if out != wantOut {
		t.Errorf("output\n got %q\nwant %q", out, wantOut)
	}
	total := size(int64(len(data)))
	if !strings.HasPrefix(errs, "\r") || !strings.Contains(errs, total+" of "+total+"  100%") || !strings.Contains(errs, "/s") {
		t.Errorf("progress line %q", errs)
	}
	if reqs := srv.requests(); len(reqs) != 1 || reqs[0] != "" {
		t.Errorf("requests %q", reqs)
	}
	for p, mode := range map[string]os.FileMode{dest: 0o600, filepath.Dir(dest): 0o700} {
		if fi, err := os.Stat(p); err != nil || fi.Mode().Perm() != mode {
			t.Errorf("%s: %v, want mode %04o", p, err, mode)
		}
	}
	raw, _ := os.ReadFile(filepath.Join(home, "state", "audit.log"))
	if !strings.Contains(string(raw), `"mode":"online","addr":"models.example.test:8080","purpose":"models pull","decision":"allowed","reason":"online mode: the model catalogue"`) ||
		strings.Contains(string(raw), "resolve") {
		t.Errorf("audit log:\n%s", raw)
	}

	out, _, code = netCLI(t, home, rec, keys, "", "models", "list")
	if code != 0 || !strings.Contains(out, "tiny-minilm-test (embedding,") || !strings.Contains(out, dest) {
		t.Errorf("models list:\n%s", out)
	}
	if _, err := os.Stat(filepath.Join(home, "data", "kb")); !os.IsNotExist(err) {
		t.Errorf("the models commands made a knowledge base: %v", err)
	}
	out, _, code = netCLI(t, home, rec, keys, "", "models", "pull", "all-minilm-l6-v2")
	if code != 0 || out != "all-minilm-l6-v2 is already in the models folder: "+dest+"\n" || len(srv.requests()) != 1 {
		t.Errorf("second pull: %d %q, %d requests", code, out, len(srv.requests()))
	}
}

func TestModelsPullResumesAfterACutConnection(t *testing.T) {
	home, srv, rec, data := pullSetup(t, "online", true)
	out, errs, code := netCLI(t, home, rec, remotetest.Keyring{}, "", "models", "pull", "all-minilm-l6-v2", "--sha256", sha(data))
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	want := []string{"", fmt.Sprintf("bytes=%d-", len(data)/2)}
	if reqs := srv.requests(); fmt.Sprint(reqs) != fmt.Sprint(want) {
		t.Errorf("requests %q, want %q", reqs, want)
	}
	got, _ := os.ReadFile(filepath.Join(home, "data", "models", "all-MiniLM-L6-v2-Q8_0.gguf"))
	if !bytes.Equal(got, data) {
		t.Errorf("file of %d bytes differs from the served %d", len(got), len(data))
	}
	if !strings.Contains(out, "SHA-256 "+sha(data)+" checked.\n") {
		t.Errorf("output %q", out)
	}
}

func TestModelsPullResumesAPartFileFromAnEarlierRun(t *testing.T) {
	home, srv, rec, data := pullSetup(t, "online", false)
	dir := filepath.Join(home, "data", "models")
	os.MkdirAll(dir, 0o755)
	os.WriteFile(filepath.Join(dir, "all-MiniLM-L6-v2-Q8_0.gguf.part"), data[:1000], 0o644)
	_, errs, code := netCLI(t, home, rec, remotetest.Keyring{}, "", "models", "pull", "all-minilm-l6-v2")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	if reqs := srv.requests(); len(reqs) != 1 || reqs[0] != "bytes=1000-" {
		t.Errorf("requests %q", reqs)
	}
	if !strings.Contains(errs, "(resumed at 1000 B)") {
		t.Errorf("progress %q", errs)
	}
	got, _ := os.ReadFile(filepath.Join(dir, "all-MiniLM-L6-v2-Q8_0.gguf"))
	if !bytes.Equal(got, data) {
		t.Error("resumed file differs")
	}
}

func TestModelsPullRejectsABadChecksum(t *testing.T) {
	home, _, rec, data := pullSetup(t, "online", false)
	bad := strings.Repeat("0", 64)
	_, errs, code := netCLI(t, home, rec, remotetest.Keyring{}, "", "models", "pull", "all-minilm-l6-v2", "--sha256", bad)
	if code != 1 || !strings.Contains(errs, "checksum mismatch: file hashes to sha256 "+sha(data)+", expected "+bad+"; the partial download was deleted") {
		t.Errorf("exit %d: %s", code, errs)
	}
	dir := filepath.Join(home, "data", "models")
	for _, f := range []string{"all-MiniLM-L6-v2-Q8_0.gguf", "all-MiniLM-L6-v2-Q8_0.gguf.part"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err == nil {
			t.Errorf("%s was kept", f)
		}
	}
}

func TestModelsPullOfflineRefusesWithoutDialling(t *testing.T) {
	home, srv, rec, _ := pullSetup(t, "offline", false)
	keys := remotetest.Keyring{}
	_, errs, code := netCLI(t, home, rec, keys, "", "models", "pull", "all-minilm-l6-v2")
	want := "cairn: cannot download all-minilm-l6-v2: the network gate (offline mode) refused a connection to models.example.test:8080 " +
		"for models pull: offline mode allows only this computer (localhost, 127.0.0.0/8, ::1)\n" +
		"  fix: switch the network gate to online: run `cairn network online`, or pick online under Network gate in the Engineering tab [NET-001]\n"
	if code != 1 || errs != want {
		t.Errorf("exit %d\n got %q\nwant %q", code, errs, want)
	}
	// Without a mirror: the real catalogue host, refused the same way.
	os.Unsetenv("CAIRN_NETWORK_CATALOG")
	_, errs, _ = netCLI(t, home, rec, keys, "", "models", "pull", "all-minilm-l6-v2")
	if !strings.Contains(errs, "refused a connection to huggingface.co:443 for models pull") {
		t.Errorf("default catalogue: %s", errs)
	}
	if calls := rec.Calls(); len(calls) != 0 || len(srv.requests()) != 0 {
		t.Errorf("dialled %v, served %v", calls, srv.requests())
	}
	if ents, _ := os.ReadDir(filepath.Join(home, "data", "models")); len(ents) != 0 {
		t.Errorf("models folder has %d entries after a refused pull", len(ents))
	}
}

func TestNetworkCommandNeedsNoKnowledgeBase(t *testing.T) {
	cleanNetworkEnv(t)
	home := t.TempDir()
	rec := &netgatetest.Dialer{}
	keys := remotetest.Keyring{}

	// None is created by looking at the gate...
	if _, errs, code := netCLI(t, home, rec, keys, "", "network"); code != 0 {
		t.Fatalf("network: exit %d %s", code, errs)
	}
	if dbs, _ := filepath.Glob(filepath.Join(home, "data", "kb", "*")); len(dbs) != 0 {
		t.Errorf("cairn network created %v", dbs)
	}
	// ...and a damaged one does not stop a switch to offline.
	kb := filepath.Join(home, "data", "kb", "default.db")
	os.MkdirAll(filepath.Dir(kb), 0o700)
	os.WriteFile(kb, []byte(strings.Repeat("not a database ", 500)), 0o600)
	if _, errs, code := netCLI(t, home, rec, keys, "", "status"); code == 0 {
		t.Fatalf("status on a damaged knowledge base succeeded: %s", errs)
	}
	for _, mode := range []string{"online", "offline"} {
		if out, errs, code := netCLI(t, home, rec, keys, "", "network", mode); code != 0 || !strings.HasPrefix(out, "Network mode: "+mode+" (saved in") {
			t.Errorf("network %s beside a damaged knowledge base: exit %d\n%s%s", mode, code, out, errs)
		}
	}
}

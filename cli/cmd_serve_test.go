package cli

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"net"
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

	"cairn/core/netgate/netgatetest"
	"cairn/core/remote/remotetest"
	"cairn/internal/skip"
)

// cairnCmd is the test binary run as `cairn args...` in home.
func cairnCmd(home string, args ...string) *exec.Cmd {
	cmd := exec.Command(os.Args[0], args...)
	cmd.Env = append(os.Environ(), "CAIRN_TEST_MAIN=1", "CAIRN_HOME="+home)
	return cmd
}

func TestServeAnswersAsTheCommandLineDoes(t *testing.T) {
	home := t.TempDir()
	if _, errs, code := cli(t, home, "index", corpusDir(t), "--kb", "work"); code != 0 {
		t.Fatal(errs)
	}
	cmd := cairnCmd(home, "serve", "--port", "0", "--kb", "work")
	stdout, _ := cmd.StdoutPipe()
	cmd.Stderr = io.Discard
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	defer cmd.Process.Kill()
	line, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil {
		t.Fatal(err)
	}
	addr := regexp.MustCompile(`http://127\.0\.0\.1:\d+`).FindString(line)
	if addr == "" || !strings.Contains(line, filepath.Join(home, "data", "kb", "work.db")) {
		t.Fatalf("first line %q", line)
	}
	go io.Copy(io.Discard, stdout)

	// The token was made at the first start, private, and printed on demand.
	tokFile := filepath.Join(home, "config", "serve-token")
	fi, err := os.Stat(tokFile)
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("token file %v %v", fi, err)
	}
	out, _, code := cli(t, home, "serve", "--print-token")
	token := strings.TrimSpace(out)
	if code != 0 || len(token) != 64 {
		t.Fatalf("print-token: %d %q", code, out)
	}

	get := func(tok string) (int, []byte) {
		req, _ := http.NewRequest("GET", addr+"/api/search?q=reset+the+device&top_k=3", nil)
		req.Header.Set("Authorization", "Bearer "+tok)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, b
	}
	if status, _ := get(strings.Repeat("0", 64)); status != 401 {
		t.Errorf("wrong token: %d", status)
	}
	status, body := get(token)
	cliOut, _, _ := cli(t, home, "search", "reset the device", "--top-k", "3", "--kb", "work", "--json")
	var fromAPI, fromCLI map[string]any
	if status != 200 || json.Unmarshal(body, &fromAPI) != nil || json.Unmarshal([]byte(cliOut), &fromCLI) != nil {
		t.Fatalf("%d %s / %s", status, body, cliOut)
	}
	delete(fromAPI, "took_ms")
	delete(fromCLI, "took_ms")
	if !reflect.DeepEqual(fromAPI, fromCLI) {
		t.Errorf("service and command line disagree:\n%v\n%v", fromAPI, fromCLI)
	}

	// SIGTERM stops it cleanly.
	cmd.Process.Signal(syscall.SIGTERM)
	select {
	case err := <-exited:
		if err != nil {
			t.Errorf("exit: %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("serve did not stop on SIGTERM")
	}
}

// TestServeOnUnixSocket: `cairn serve --socket PATH` answers on a 0600
// socket only (no TCP port unless --port is given too), with the token,
// and removes the socket when it stops.
func TestServeOnUnixSocket(t *testing.T) {
	home := t.TempDir()
	sock := filepath.Join(home, "cairn.sock")
	cmd := cairnCmd(home, "serve", "--socket", sock)
	stdout, _ := cmd.StdoutPipe()
	cmd.Stderr = io.Discard
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	defer cmd.Process.Kill()
	r := bufio.NewReader(stdout)
	var printed strings.Builder
	for range 3 {
		line, err := r.ReadString('\n')
		if err != nil {
			t.Fatalf("%v after %q", err, printed.String())
		}
		printed.WriteString(line)
	}
	go io.Copy(io.Discard, r)
	if !strings.Contains(printed.String(), "on the Unix socket "+sock) || strings.Contains(printed.String(), "127.0.0.1") {
		t.Errorf("printed %q", printed.String())
	}
	fi, err := os.Lstat(sock)
	if err != nil || fi.Mode()&os.ModeSocket == 0 || fi.Mode().Perm() != 0o600 {
		t.Fatalf("socket %v %v", fi, err)
	}
	out, _, _ := cli(t, home, "serve", "--print-token")
	client := &http.Client{Transport: &http.Transport{DialContext: func(ctx context.Context, _, _ string) (net.Conn, error) {
		var d net.Dialer
		return d.DialContext(ctx, "unix", sock)
	}}}
	for tok, want := range map[string]int{strings.TrimSpace(out): 200, "": 401} {
		req, _ := http.NewRequest("GET", "http://localhost/api/status", nil)
		if tok != "" {
			req.Header.Set("Authorization", "Bearer "+tok)
		}
		resp, err := client.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != want {
			t.Errorf("token %q: %d, want %d", tok, resp.StatusCode, want)
		}
	}
	client.CloseIdleConnections()

	cmd.Process.Signal(syscall.SIGTERM)
	select {
	case err := <-exited:
		if err != nil {
			t.Errorf("exit: %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("serve did not stop on SIGTERM")
	}
	if _, err := os.Lstat(sock); !os.IsNotExist(err) {
		t.Errorf("socket left after exit: %v", err)
	}
}

func TestMCPOverStdio(t *testing.T) {
	home := t.TempDir()
	if _, errs, code := cli(t, home, "index", corpusDir(t)); code != 0 {
		t.Fatal(errs)
	}
	client := mcp.NewClient(&mcp.Implementation{Name: "test-client", Version: "1"}, nil)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	s, err := client.Connect(ctx, &mcp.CommandTransport{Command: cairnCmd(home, "mcp")}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if info := s.InitializeResult().ServerInfo; info.Name != "cairn" || info.Version != Version {
		t.Errorf("server info %+v", info)
	}
	res, err := s.CallTool(ctx, &mcp.CallToolParams{Name: "search", Arguments: map[string]any{"query": "pump seal kit XK-200-B"}})
	if err != nil || res.IsError {
		t.Fatalf("%v %v", err, res)
	}
	b, _ := json.Marshal(res.StructuredContent)
	var rep struct {
		Results []struct {
			Path  string  `json:"path"`
			Score float64 `json:"score"`
		} `json:"results"`
	}
	if json.Unmarshal(b, &rep) != nil || len(rep.Results) == 0 || !strings.HasSuffix(rep.Results[0].Path, "data/parts.csv") {
		t.Errorf("search: %s", b)
	}
}

// TestBenchServeSmoke runs `cairn bench serve` on five man pages for a
// moment: the table has its four rows, each with searches and no error.
func TestBenchServeSmoke(t *testing.T) {
	if _, err := exec.LookPath("man"); err != nil {
		skip.Because(t, "needs man (Debian package man-db; make test installs it)")
	}
	if ents, err := os.ReadDir("/usr/share/man/man1"); err != nil || len(ents) < 5 {
		skip.Because(t, "needs man pages in /usr/share/man/man1 (a slim Debian image leaves them out)")
	}
	home := t.TempDir()
	out, errs, code := cli(t, home, "bench", "serve", "--limit", "5", "--chunks", "40", "--duration", "300ms", "--clients", "2", "--dir", filepath.Join(home, "bench"))
	if code != 0 {
		t.Fatalf("%d\n%s\n%s", code, out, errs)
	}
	for _, row := range []string{"| in process (Engine.Search) | no |", "| through HTTP (GET /api/search) | no |",
		"| in process (Engine.Search) | yes |", "| through HTTP (GET /api/search) | yes |"} {
		i := strings.Index(out, row)
		if i < 0 {
			t.Fatalf("no row %q:\n%s", row, out)
		}
		// searches, searches/s, errors
		f := strings.Split(out[i+len(row):strings.IndexByte(out[i:], '\n')+i], "|")
		if strings.TrimSpace(f[0]) == "0" || strings.TrimSpace(f[2]) != "0" {
			t.Errorf("row %s%s", row, f)
		}
	}
	if !strings.Contains(out, "- Errors: 0 search, 0 indexing") || !strings.Contains(out, ": healthy") {
		t.Errorf("summary:\n%s", out)
	}
}

// TestMCPOfflineDialsNothing: with an online endpoint configured but the
// gate offline, an assistant's search and question go nowhere but the
// knowledge base.
func TestMCPOfflineDialsNothing(t *testing.T) {
	cleanNetworkEnv(t)
	home := t.TempDir()
	if _, errs, code := cli(t, home, "index", corpusDir(t)); code != 0 {
		t.Fatal(errs)
	}
	t.Setenv("CAIRN_NETWORK_ENDPOINT", "https://api.example.test/v1")
	t.Setenv("CAIRN_NETWORK_CHAT_MODEL", "remote-model")
	rec := &netgatetest.Dialer{}
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	exited := make(chan int, 1)
	go func() {
		exited <- runIO([]string{"mcp"}, cliIO{stdin: inR, stdout: outW, stderr: io.Discard, dial: rec.Dial, keyring: remotetest.Keyring{}})
		outW.Close()
	}()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	client := mcp.NewClient(&mcp.Implementation{Name: "test-client", Version: "1"}, nil)
	s, err := client.Connect(ctx, &mcp.IOTransport{Reader: outR, Writer: inW}, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, call := range []*mcp.CallToolParams{
		{Name: "search", Arguments: map[string]any{"query": "reset the device"}},
		{Name: "ask", Arguments: map[string]any{"question": "how do I reset the device"}},
	} {
		res, err := s.CallTool(ctx, call)
		if err != nil || res.IsError {
			t.Fatalf("%s: %v %v", call.Name, err, res)
		}
	}
	s.Close()
	inW.Close()
	if code := <-exited; code != 0 {
		t.Errorf("cairn mcp exit %d", code)
	}
	if calls := rec.Calls(); len(calls) != 0 {
		t.Errorf("offline MCP dialled %v", calls)
	}
}

// `cairn help` names every flag of `cairn serve`, the socket's included.
func TestHelpNamesServesFlags(t *testing.T) {
	out, errs, code := cli(t, t.TempDir(), "help")
	if code != 0 {
		t.Fatalf("help: exit %d %q", code, errs)
	}
	line := regexp.MustCompile(`(?m)^.*\bserve\b.*$`).FindString(out)
	for _, flag := range []string{"--port N", "--socket PATH", "--print-token"} {
		if !strings.Contains(line, flag) {
			t.Errorf("cairn help's serve line does not mention %s: %q", flag, line)
		}
	}
}

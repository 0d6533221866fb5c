package serve

import (
	"context"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// unixClient is an HTTP client that reaches every URL through the socket.
func unixClient(path string) *http.Client {
	return &http.Client{Transport: &http.Transport{DialContext: func(ctx context.Context, _, _ string) (net.Conn, error) {
		var d net.Dialer
		return d.DialContext(ctx, "unix", path)
	}}}
}

// TestUnixSocket: the service answers over a Unix socket that only its
// owner can open (0600), with the same token rule as over TCP; the Host a
// client names does not matter there; a second service is refused while
// the first answers; the socket is gone when the service stops.
func TestUnixSocket(t *testing.T) {
	eng := testEngine(t)
	dir := t.TempDir()
	sock := filepath.Join(dir, "cairn.sock")
	ln, err := ListenUnix(sock)
	if err != nil {
		t.Fatal(err)
	}
	if ln.Addr().String() != sock {
		t.Errorf("Addr %q, want %q", ln.Addr(), sock)
	}
	fi, err := os.Lstat(sock)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode()&os.ModeSocket == 0 || fi.Mode().Perm() != 0o600 {
		t.Errorf("socket mode %v, want a socket with 0600", fi.Mode())
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 1 {
		t.Errorf("folder holds %d entries, want only the socket (the private folder it was made in is gone)", len(ents))
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- New(eng, Options{Token: testToken, Version: "9.9.9-test"}).Serve(ctx, ln) }()

	client := unixClient(sock)
	get := func(url, token string) (int, string) {
		t.Helper()
		req, _ := http.NewRequest("GET", url, nil)
		if token != "" {
			req.Header.Set("Authorization", "Bearer "+token)
		}
		resp, err := client.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	if status, body := get("http://localhost/api/search?q=reset+the+device&top_k=3", testToken); status != 200 || !strings.Contains(body, `"results"`) {
		t.Errorf("search over the socket: %d %s", status, body)
	}
	if status, body := get("http://cairn.sock/api/health", testToken); status != 200 || !strings.Contains(body, "9.9.9-test") {
		t.Errorf("health with Host cairn.sock: %d %s", status, body)
	}
	if status, body := get("http://localhost/api/health", ""); status != 401 || strings.Contains(body, "9.9.9") {
		t.Errorf("no token over the socket: %d %s", status, body)
	}

	if _, err := ListenUnix(sock); err == nil || !strings.Contains(err.Error(), "another program answers") {
		t.Errorf("second service on a live socket: %v", err)
	}
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if _, err := os.Lstat(sock); !os.IsNotExist(err) {
		t.Errorf("socket left after the service stopped: %v", err)
	}
}

// TestUnixSocketRefusesOtherFiles: a file, a folder or a symbolic link at
// the path is refused by name and left as it was; a socket nobody answers
// on (a service that was killed) is replaced.
func TestUnixSocketRefusesOtherFiles(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "notes.txt")
	writeFile(t, file, "keep me")
	if err := os.Symlink(file, filepath.Join(dir, "link")); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(filepath.Join(dir, "folder"), 0o755); err != nil {
		t.Fatal(err)
	}
	for name, kind := range map[string]string{"notes.txt": "a file is there", "link": "a symbolic link is there", "folder": "a folder is there"} {
		_, err := ListenUnix(filepath.Join(dir, name))
		if err == nil || !strings.Contains(err.Error(), kind) || !strings.Contains(err.Error(), name) {
			t.Errorf("%s: %v, want %q", name, err, kind)
		}
	}
	if b, err := os.ReadFile(file); err != nil || string(b) != "keep me" {
		t.Errorf("the file was changed: %q %v", b, err)
	}

	stale := filepath.Join(dir, "stale.sock")
	old, err := net.ListenUnix("unix", &net.UnixAddr{Name: stale, Net: "unix"})
	if err != nil {
		t.Fatal(err)
	}
	old.SetUnlinkOnClose(false)
	old.Close() // as a killed service leaves it
	ln, err := ListenUnix(stale)
	if err != nil {
		t.Fatalf("stale socket not replaced: %v", err)
	}
	ln.Close()
	if _, err := os.Lstat(stale); !os.IsNotExist(err) {
		t.Errorf("socket left after Close: %v", err)
	}

	long := filepath.Join(dir, strings.Repeat("x", 120))
	if _, err := ListenUnix(long); err == nil || !strings.Contains(err.Error(), "at most 107 bytes") {
		t.Errorf("too long a path: %v", err)
	}
}

// TestServeOnSocketAndPort: one Server answers on a socket and on
// 127.0.0.1 at once, and stops on both.
func TestServeOnSocketAndPort(t *testing.T) {
	eng := testEngine(t)
	sock := filepath.Join(t.TempDir(), "cairn.sock")
	uln, err := ListenUnix(sock)
	if err != nil {
		t.Fatal(err)
	}
	tln, err := Listen(0)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- New(eng, Options{Token: testToken, Version: "9.9.9-test"}).Serve(ctx, uln, tln) }()
	for name, c := range map[string]*http.Client{"socket": unixClient(sock), "port": http.DefaultClient} {
		req, _ := http.NewRequest("GET", "http://"+tln.Addr().String()+"/api/health", nil)
		req.Header.Set("Authorization", "Bearer "+testToken)
		resp, err := c.Do(req)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		resp.Body.Close()
		if resp.StatusCode != 200 {
			t.Errorf("%s: %d", name, resp.StatusCode)
		}
	}
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if _, err := os.Lstat(sock); !os.IsNotExist(err) {
		t.Errorf("socket left: %v", err)
	}
	if c, err := net.Dial("tcp", tln.Addr().String()); err == nil {
		c.Close()
		t.Errorf("port still open after the service stopped")
	}
}

package llm

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// modelServer serves body on 127.0.0.1, honouring Range requests. The first
// cutAfter bytes of the first response are sent before the connection is
// dropped (0 means never cut). It records the Range header of each request.
type modelServer struct {
	body     []byte
	cutAfter int
	status   int // when not 0, every request gets this status

	mu     sync.Mutex
	ranges []string
}

func (s *modelServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	s.ranges = append(s.ranges, r.Header.Get("Range"))
	first := len(s.ranges) == 1
	s.mu.Unlock()
	if s.status != 0 {
		http.Error(w, "nope", s.status)
		return
	}
	start := 0
	if rg := r.Header.Get("Range"); rg != "" {
		fmt.Sscanf(rg, "bytes=%d-", &start)
		if start >= len(s.body) {
			w.WriteHeader(http.StatusRequestedRangeNotSatisfiable)
			return
		}
		w.Header().Set("Content-Range", fmt.Sprintf("bytes %d-%d/%d", start, len(s.body)-1, len(s.body)))
		w.Header().Set("Content-Length", fmt.Sprint(len(s.body)-start))
		w.WriteHeader(http.StatusPartialContent)
	} else {
		w.Header().Set("Content-Length", fmt.Sprint(len(s.body)))
	}
	rest := s.body[start:]
	if first && s.cutAfter > 0 {
		w.Write(rest[:s.cutAfter])
		// Returning early with Content-Length unmet makes the server drop
		// the connection: the client sees an unexpected EOF.
		w.(http.Flusher).Flush()
		panic(http.ErrAbortHandler)
	}
	w.Write(rest)
}

// loopbackServer starts srv on 127.0.0.1 only; tests never dial elsewhere.
func loopbackServer(t *testing.T, h http.Handler) *httptest.Server {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewUnstartedServer(h)
	srv.Listener = l
	srv.Start()
	t.Cleanup(srv.Close)
	return srv
}

func payload(n int) ([]byte, string) {
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(i * 7 % 251)
	}
	sum := sha256.Sum256(b)
	return b, hex.EncodeToString(sum[:])
}

func TestDownloadReportsProgressAndVerifies(t *testing.T) {
	body, sum := payload(1 << 20)
	srv := loopbackServer(t, &modelServer{body: body})
	dest := filepath.Join(t.TempDir(), "model.gguf")
	var calls int
	var last, lastTotal int64
	err := Download(context.Background(), srv.Client(), srv.URL+"/m.gguf", dest, strings.ToUpper(sum), func(done, total int64) {
		if done < last {
			t.Errorf("progress went backwards: %d after %d", done, last)
		}
		calls++
		last, lastTotal = done, total
	})
	if err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(dest)
	if err != nil || string(got) != string(body) {
		t.Fatalf("dest content wrong (err %v, %d bytes)", err, len(got))
	}
	if calls < 2 || last != int64(len(body)) || lastTotal != int64(len(body)) {
		t.Errorf("progress: %d calls, last %d/%d", calls, last, lastTotal)
	}
	if _, err := os.Stat(dest + ".part"); !os.IsNotExist(err) {
		t.Errorf("part file left behind: %v", err)
	}
}

func TestDownloadResumesAfterCutConnection(t *testing.T) {
	body, sum := payload(3 << 20)
	ms := &modelServer{body: body, cutAfter: 1 << 20}
	srv := loopbackServer(t, ms)
	dest := filepath.Join(t.TempDir(), "model.gguf")
	if err := Download(context.Background(), srv.Client(), srv.URL+"/m.gguf", dest, sum, nil); err != nil {
		t.Fatal(err)
	}
	got, _ := os.ReadFile(dest)
	if string(got) != string(body) {
		t.Fatal("resumed download is corrupt")
	}
	ms.mu.Lock()
	defer ms.mu.Unlock()
	if len(ms.ranges) < 2 || ms.ranges[0] != "" || !strings.HasPrefix(ms.ranges[1], "bytes=") || ms.ranges[1] == "bytes=0-" {
		t.Errorf("requests' Range headers = %q, want a fresh request then a resume", ms.ranges)
	}
}

func TestDownloadResumesExistingPartFile(t *testing.T) {
	body, sum := payload(1 << 20)
	ms := &modelServer{body: body}
	srv := loopbackServer(t, ms)
	dest := filepath.Join(t.TempDir(), "model.gguf")
	if err := os.WriteFile(dest+".part", body[:1000], 0o644); err != nil {
		t.Fatal(err)
	}
	if err := Download(context.Background(), srv.Client(), srv.URL+"/m.gguf", dest, sum, nil); err != nil {
		t.Fatal(err)
	}
	if ms.ranges[0] != "bytes=1000-" {
		t.Errorf("Range = %q, want bytes=1000-", ms.ranges[0])
	}
	got, _ := os.ReadFile(dest)
	if string(got) != string(body) {
		t.Fatal("content wrong")
	}
}

func TestDownloadRejectsBadChecksum(t *testing.T) {
	body, _ := payload(4096)
	srv := loopbackServer(t, &modelServer{body: body})
	dest := filepath.Join(t.TempDir(), "model.gguf")
	wrong := strings.Repeat("ab", 32)
	err := Download(context.Background(), srv.Client(), srv.URL+"/m.gguf", dest, wrong, nil)
	if !errors.Is(err, ErrChecksum) || !strings.Contains(err.Error(), wrong) {
		t.Fatalf("err = %v, want ErrChecksum naming the expected sum", err)
	}
	for _, p := range []string{dest, dest + ".part"} {
		if _, err := os.Stat(p); !os.IsNotExist(err) {
			t.Errorf("%s exists after a bad checksum", p)
		}
	}
}

func TestDownloadErrors(t *testing.T) {
	dest := filepath.Join(t.TempDir(), "model.gguf")
	srv := loopbackServer(t, &modelServer{status: http.StatusNotFound})
	err := Download(context.Background(), srv.Client(), srv.URL+"/missing.gguf", dest, "", nil)
	if err == nil || !strings.Contains(err.Error(), "404") || !strings.Contains(err.Error(), "/missing.gguf") {
		t.Errorf("404: err = %v", err)
	}

	// The caller's offline client refuses to dial; its message surfaces.
	offline := &http.Client{Transport: &http.Transport{
		DialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
			return nil, errors.New("network access is off (offline mode)")
		},
	}}
	err = Download(context.Background(), offline, "https://huggingface.co/x/y.gguf", dest, "", nil)
	if err == nil || !strings.Contains(err.Error(), "offline mode") {
		t.Errorf("offline: err = %v", err)
	}

	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	body, _ := payload(100)
	srv2 := loopbackServer(t, &modelServer{body: body})
	if err := Download(ctx, srv2.Client(), srv2.URL, dest, "", nil); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: err = %v", err)
	}
}

func TestCatalog(t *testing.T) {
	seen := map[string]bool{}
	for _, m := range Catalog() {
		if seen[m.Name] {
			t.Errorf("duplicate catalog name %q", m.Name)
		}
		seen[m.Name] = true
		if !strings.HasPrefix(m.URL, "https://huggingface.co/") || !strings.HasSuffix(strings.ToLower(m.URL), ".gguf") {
			t.Errorf("%s: URL %q", m.Name, m.URL)
		}
		if m.SHA256 != "" && len(m.SHA256) != 64 {
			t.Errorf("%s: sha256 %q is not 64 hex digits", m.Name, m.SHA256)
		}
		if m.Kind != KindEmbedding && m.Kind != KindGeneration && m.Kind != KindRerank {
			t.Errorf("%s: kind %q", m.Name, m.Kind)
		}
		if m.Kind == KindEmbedding && m.Family == "" {
			t.Errorf("%s: embedding model without family", m.Name)
		}
	}
	if _, ok := LookupCatalog("all-minilm-l6-v2"); !ok {
		t.Error("all-minilm-l6-v2 missing from the catalog")
	}
	if _, ok := LookupCatalog("no-such-model"); ok {
		t.Error("found a model that does not exist")
	}
}

// A download paused, then resumed after the file changed on the server,
// gets the whole new file: the resumed request sends the first response's
// ETag as If-Range, and the server answers with all of the new version
// rather than its tail after the old version's first bytes.
func TestDownloadResumedAfterTheFileChangedGetsTheNewFile(t *testing.T) {
	v1, _ := payload(1 << 20)
	v2 := make([]byte, 1<<20)
	for i := range v2 {
		v2[i] = byte(i * 13 % 241)
	}
	var mu sync.Mutex
	body, etag := v1, `"v1"`
	var ifRange []string
	srv := loopbackServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		b, et := body, etag
		ifRange = append(ifRange, r.Header.Get("If-Range"))
		mu.Unlock()
		w.Header().Set("ETag", et)
		if et == `"v1"` {
			// The first version's first 300 KB, then nothing until the
			// client pauses (cancels).
			w.Header().Set("Content-Length", fmt.Sprint(len(b)))
			w.Write(b[:300<<10])
			w.(http.Flusher).Flush()
			<-r.Context().Done()
			return
		}
		http.ServeContent(w, r, "m.gguf", time.Time{}, bytes.NewReader(b))
	}))
	dest := filepath.Join(t.TempDir(), "model.gguf")
	ctx, pause := context.WithCancel(context.Background())
	err := Download(ctx, srv.Client(), srv.URL+"/m.gguf", dest, "", func(done, total int64) {
		if done >= 300<<10 {
			pause()
		}
	})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("paused: %v", err)
	}
	mu.Lock()
	body, etag = v2, `"v2"`
	mu.Unlock()
	if err := Download(context.Background(), srv.Client(), srv.URL+"/m.gguf", dest, "", nil); err != nil {
		t.Fatal(err)
	}
	got, _ := os.ReadFile(dest)
	if !bytes.Equal(got, v2) {
		t.Errorf("the file is not the new version (If-Range sent: %q)", ifRange)
	}
	if _, err := os.Stat(dest + ".part.validator"); !os.IsNotExist(err) {
		t.Errorf("the validator file is left: %v", err)
	}
}

package serve

import (
	"bytes"
	"context"
	"io"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"cairn/core"
	"cairn/core/answer"
	"cairn/core/config"
	"cairn/core/domain"
	"cairn/core/kb"
	"cairn/core/llm/testmodel"
	"cairn/core/search"
)

const testToken = "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"

// testEngine opens a knowledge base in a private home with the repository's
// test corpus indexed; no models, so searches are BM25 and answers quoted.
func testEngine(t testing.TB) *core.Engine {
	t.Helper()
	return testEngineLog(t, nil)
}

// testEngineLog is testEngine writing its log to log.
func testEngineLog(t testing.TB, log *slog.Logger) *core.Engine {
	t.Helper()
	return testEngineWith(t, core.Options{Log: log}, nil)
}

// testEngineWith is testEngine with opt (its KB and Write are the test's),
// the settings changed by tune (nil: none) and these models, generated
// with random weights, in its models folder.
func testEngineWith(t testing.TB, opt core.Options, tune func(*config.Config), models ...testmodel.Spec) *core.Engine {
	t.Helper()
	t.Setenv("CAIRN_HOME", t.TempDir())
	dirs, err := config.UserDirs()
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := config.Load(dirs)
	if err != nil {
		t.Fatal(err)
	}
	if tune != nil {
		tune(&cfg)
	}
	if err := os.MkdirAll(cfg.Paths.ModelsDir, 0o700); err != nil {
		t.Fatal(err)
	}
	for _, m := range models {
		if err := testmodel.Write(filepath.Join(cfg.Paths.ModelsDir, m.Name+".gguf"), m); err != nil {
			t.Fatal(err)
		}
	}
	opt.KB, opt.Write = "test", true
	eng, err := core.Open(context.Background(), cfg, dirs, opt)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { eng.Close() })
	if _, err := eng.IndexFolder(context.Background(), corpus(t), nil); err != nil {
		t.Fatal(err)
	}
	return eng
}

func corpus(t testing.TB) string {
	abs, err := filepath.Abs("../testdata/corpus")
	if err != nil {
		t.Fatal(err)
	}
	return abs
}

// stubEngine is the real engine with Ask or Index replaced, for what the
// real ones do too fast to observe (a question the client abandons).
type stubEngine struct {
	*core.Engine
	search   func(ctx context.Context, req search.Request) (*search.Response, error)
	ask      func(ctx context.Context, req search.Request, onToken func(string)) (*answer.Answer, error)
	askAfter func(ctx context.Context, history []answer.Turn, req search.Request, onToken func(string)) (*answer.Answer, error)
	index    func(ctx context.Context, folder string, progress chan<- domain.Progress) (domain.Run, error)
	status   func(ctx context.Context) (kb.Status, error)
}

func (s stubEngine) AskAfter(ctx context.Context, history []answer.Turn, req search.Request, onToken func(string)) (*answer.Answer, error) {
	if s.askAfter != nil {
		return s.askAfter(ctx, history, req, onToken)
	}
	return s.Engine.AskAfter(ctx, history, req, onToken)
}

func (s stubEngine) Status(ctx context.Context) (kb.Status, error) {
	if s.status != nil {
		return s.status(ctx)
	}
	return s.Engine.Status(ctx)
}

func (s stubEngine) Ask(ctx context.Context, req search.Request, onToken func(string)) (*answer.Answer, error) {
	if s.ask != nil {
		return s.ask(ctx, req, onToken)
	}
	return s.Engine.Ask(ctx, req, onToken)
}

func (s stubEngine) Search(ctx context.Context, req search.Request) (*search.Response, error) {
	if s.search != nil {
		return s.search(ctx, req)
	}
	return s.Engine.Search(ctx, req)
}

func (s stubEngine) IndexFolder(ctx context.Context, folder string, progress chan<- domain.Progress) (domain.Run, error) {
	if s.index != nil {
		return s.index(ctx, folder, progress)
	}
	return s.Engine.IndexFolder(ctx, folder, progress)
}

// syncBuffer is a log destination goroutines share.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// startServer serves eng on a real listener on 127.0.0.1 until the test
// ends; it returns the base URL and the request log.
func startServer(t *testing.T, eng Engine, opt Options) (string, *syncBuffer) {
	t.Helper()
	logBuf := &syncBuffer{}
	if opt.Token == "" {
		opt.Token = testToken
	}
	opt.Version = "9.9.9-test"
	opt.Log = slog.New(slog.NewTextHandler(logBuf, &slog.HandlerOptions{Level: slog.LevelDebug}))
	srv := New(eng, opt)
	ln, err := Listen(0)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ctx, ln) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("serve: %v", err)
		}
	})
	return "http://" + ln.Addr().String(), logBuf
}

// call makes one request with the test token (token "" sends none) and
// returns the status and the body.
func call(t *testing.T, method, url, token, body string, header ...string) (int, string) {
	t.Helper()
	req, err := http.NewRequest(method, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	for i := 0; i+1 < len(header); i += 2 {
		if header[i] == "Host" {
			req.Host = header[i+1]
		} else {
			req.Header.Set(header[i], header[i+1])
		}
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

func writeFile(t *testing.T, path, text string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
}

package serve

import (
	"context"
	"log/slog"
	"net/http"
	"strings"
	"testing"
	"time"

	"cairn/core/search"
)

// A client that goes away in the middle of a search is no error of the
// service's: the request is logged as 499 at debug level, and neither the
// service nor the engine warns of SQLite's "interrupted".
func TestClientGoneMidSearchIs499AtDebug(t *testing.T) {
	engLog := &syncBuffer{}
	eng := testEngineLog(t, slog.New(slog.NewTextHandler(engLog, &slog.HandlerOptions{Level: slog.LevelDebug})))
	started := make(chan struct{})
	stub := stubEngine{Engine: eng, search: func(ctx context.Context, req search.Request) (*search.Response, error) {
		close(started)
		<-ctx.Done()
		return eng.Search(ctx, req) // the real search, over a cancelled request, as one cut short
	}}
	base, log := startServer(t, stub, Options{})
	ctx, cancel := context.WithCancel(context.Background())
	req, _ := http.NewRequestWithContext(ctx, "GET", base+"/api/search?q=reset+the+device", nil)
	req.Header.Set("Authorization", "Bearer "+testToken)
	errc := make(chan error, 1)
	go func() {
		resp, err := http.DefaultClient.Do(req)
		if err == nil {
			resp.Body.Close()
		}
		errc <- err
	}()
	<-started
	cancel()
	if err := <-errc; err == nil {
		t.Fatal("the request was not cut short")
	}
	var line string
	for deadline := time.Now().Add(10 * time.Second); line == ""; time.Sleep(10 * time.Millisecond) {
		for _, l := range strings.Split(log.String(), "\n") {
			if strings.Contains(l, "path=/api/search") {
				line = l
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("the request was never logged:\n%s", log.String())
		}
	}
	if !strings.Contains(line, "level=DEBUG") || !strings.Contains(line, "status=499") {
		t.Errorf("logged as %s", line)
	}
	if strings.Contains(engLog.String(), "level=WARN") {
		t.Errorf("the engine warns of a cancelled search:\n%s", engLog.String())
	}
}

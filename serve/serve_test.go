package serve

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"cairn/core/answer"
	"cairn/core/domain"
	"cairn/core/netgate"
	"cairn/core/search"
)

func TestRefusalsLeakNothing(t *testing.T) {
	base, log := startServer(t, testEngine(t), Options{Limits: Limits{MaxBody: 1024, MaxQuery: 100}})
	long := strings.Repeat("reset ", 40) // 240 bytes, over MaxQuery
	tests := []struct {
		name         string
		method, path string
		token, body  string
		header       []string
		status       int
		detail       string
	}{
		{"no token", "GET", "/api/health", "", "", nil, 401, "a valid bearer token is required"},
		{"wrong token", "GET", "/api/health", strings.Repeat("f", 64), "", nil, 401, "a valid bearer token is required"},
		{"token of another scheme", "GET", "/api/status", "", "", []string{"Authorization", "Basic " + testToken}, 401, "a valid bearer token is required"},
		{"no token on MCP", "POST", "/mcp", "", `{}`, nil, 401, "a valid bearer token is required"},
		{"no token, unknown path", "GET", "/secret", "", "", nil, 401, "a valid bearer token is required"},
		{"a name that resolves here (DNS rebinding)", "GET", "/api/health", testToken, "", []string{"Host", "attacker.example:80"}, 403, "the Host header must name this computer"},
		{"a page of another site", "GET", "/api/health", testToken, "", []string{"Origin", "https://attacker.example"}, 403, "requests from web pages of other sites are refused"},
		{"body too big", "POST", "/api/search", testToken, `{"q":"` + strings.Repeat("a", 2000) + `"}`, nil, 413, "the request body is over the limit of 1024 bytes"},
		{"query string too long", "GET", "/api/search?q=" + strings.Repeat("a", 600), testToken, "", nil, 413, "the query string is over the limit"},
		{"query too long", "POST", "/api/search", testToken, `{"q":"` + long + `"}`, nil, 413, "the query is over the limit of 100 bytes"},
		{"question too long", "POST", "/api/ask", testToken, `{"question":"` + long + `"}`, nil, 413, "the query is over the limit of 100 bytes"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			status, body := call(t, tc.method, base+tc.path, tc.token, tc.body, tc.header...)
			if status != tc.status || !strings.Contains(body, tc.detail) {
				t.Fatalf("got %d %s, want %d with %q", status, body, tc.status, tc.detail)
			}
			for _, leak := range []string{"9.9.9", "cairn", "Cairn", corpus(t), "/api/"} {
				if status != 413 && strings.Contains(body, leak) {
					t.Errorf("refusal leaks %q: %s", leak, body)
				}
			}
		})
	}
	// A body without a length is cut at the bound too.
	for _, path := range []string{"/api/search", "/mcp"} {
		req, _ := http.NewRequest("POST", base+path, io.MultiReader(strings.NewReader(`{"q":"`), strings.NewReader(strings.Repeat("a", 5000)+`"}`)))
		req.Header.Set("Authorization", "Bearer "+testToken)
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if req.ContentLength != 0 || resp.StatusCode < 400 || resp.StatusCode >= 500 {
			t.Errorf("chunked body too big to %s: length %d, status %d", path, req.ContentLength, resp.StatusCode)
		}
	}
	// Localhost names and a page served from this computer are let through.
	for _, h := range [][]string{{"Host", "localhost"}, {"Host", "[::1]:8765"}, {"Origin", "http://127.0.0.1:3000"}} {
		if status, body := call(t, "GET", base+"/api/health", testToken, "", h...); status != 200 || !strings.Contains(body, `"version": "9.9.9-test"`) {
			t.Errorf("%v: %d %s", h, status, body)
		}
	}
	// The log has every request's method, path and status, never a query.
	logged := log.String()
	for _, want := range []string{"method=GET path=/api/health status=401", "method=POST path=/api/search status=413", "method=GET path=/api/health status=403"} {
		if !strings.Contains(logged, want) {
			t.Errorf("request log lacks %q:\n%s", want, logged)
		}
	}
	if strings.Contains(logged, "reset") || strings.Contains(logged, "aaaa") {
		t.Errorf("request log holds query text:\n%s", logged)
	}
}

func TestSearchIsTheCommandLinesJSON(t *testing.T) {
	eng := testEngine(t)
	base, _ := startServer(t, eng, Options{})
	// What `cairn search --json --top-k 2 --type md` prints, built the way it builds it.
	req := eng.SearchRequest("reset the device")
	req.TopK, req.Filter.Types = 2, []string{"md"}
	resp, err := eng.Search(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	want := toMap(t, mustJSON(t, search.NewReport(req.Query, resp)))
	delete(want, "took_ms")
	for name, do := range map[string]func() (int, string){
		"GET": func() (int, string) {
			return call(t, "GET", base+"/api/search?q="+url.QueryEscape("reset the device")+"&top_k=2&type=md", testToken, "")
		},
		"POST": func() (int, string) {
			return call(t, "POST", base+"/api/search", testToken, `{"q":"reset the device","top_k":2,"type":["md"]}`)
		},
	} {
		status, body := do()
		if status != 200 {
			t.Fatalf("%s: %d %s", name, status, body)
		}
		got := toMap(t, body)
		if _, ok := got["took_ms"]; !ok {
			t.Errorf("%s: no took_ms", name)
		}
		delete(got, "took_ms")
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s: got\n%v\nwant\n%v", name, got, want)
		}
		if !strings.HasPrefix(body, "{\n  \"query\"") {
			t.Errorf("%s: not indented as the command line's: %.40q", name, body)
		}
	}
	// Knobs go through the settings' own checks.
	status, body := call(t, "GET", base+"/api/search?q=reset&min_score=2", testToken, "")
	if status != 422 || !strings.Contains(body, "retrieval.min_score must be between 0 and 1, not 2") {
		t.Errorf("bad knob: %d %s", status, body)
	}
	if status, body := call(t, "GET", base+"/api/search?q=reset&topk=3", testToken, ""); status != 422 || !strings.Contains(body, "topk") {
		t.Errorf("misspelt knob: %d %s", status, body)
	}
	if status, body := call(t, "POST", base+"/api/search", testToken, `{"q":"reset","topk":3}`); status != 422 || !strings.Contains(body, "topk") {
		t.Errorf("misspelt field: %d %s", status, body)
	}
	if status, body := call(t, "GET", base+"/api/search?q=", testToken, ""); status != 400 && status != 422 {
		t.Errorf("empty query: %d %s", status, body)
	}
}

func mustJSON(t *testing.T, v any) string {
	t.Helper()
	var b strings.Builder
	if err := search.WriteJSON(&b, v); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

func toMap(t *testing.T, s string) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal([]byte(s), &m); err != nil {
		t.Fatalf("%v: %s", err, s)
	}
	return m
}

// sseEvent is one server-sent event.
type sseEvent struct{ name, data string }

// readEvents reads events until the stream ends or stop says so.
func readEvents(t *testing.T, r *bufio.Reader, stop func(sseEvent) bool) []sseEvent {
	t.Helper()
	var out []sseEvent
	var ev sseEvent
	for {
		line, err := r.ReadString('\n')
		if err != nil {
			return out
		}
		line = strings.TrimRight(line, "\n")
		switch {
		case strings.HasPrefix(line, "event: "):
			ev.name = strings.TrimPrefix(line, "event: ")
		case strings.HasPrefix(line, "data: "):
			ev.data = strings.TrimPrefix(line, "data: ")
		case line == "":
			out = append(out, ev)
			if stop != nil && stop(ev) {
				return out
			}
			ev = sseEvent{}
		}
	}
}

func askStream(t *testing.T, ctx context.Context, base, question string) *http.Response {
	t.Helper()
	req, _ := http.NewRequestWithContext(ctx, "POST", base+"/api/ask", strings.NewReader(`{"question":`+fmt.Sprintf("%q", question)+`}`))
	req.Header.Set("Authorization", "Bearer "+testToken)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "text/event-stream")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	return resp
}

func TestAskStreamsTokensThenCitationsAndVerdict(t *testing.T) {
	base, _ := startServer(t, testEngine(t), Options{})
	resp := askStream(t, context.Background(), base, "how do I reset the device")
	defer resp.Body.Close()
	if ct := resp.Header.Get("Content-Type"); resp.StatusCode != 200 || ct != "text/event-stream" {
		t.Fatalf("%d %s", resp.StatusCode, ct)
	}
	events := readEvents(t, bufio.NewReader(resp.Body), nil)
	var names []string
	for _, e := range events {
		if len(names) == 0 || names[len(names)-1] != e.name {
			names = append(names, e.name)
		}
	}
	if got := strings.Join(names, ","); got != "ready,token,citations,verdict,answer" {
		t.Fatalf("events %s: %v", got, events)
	}
	var ans answer.Answer
	if err := json.Unmarshal([]byte(events[len(events)-1].data), &ans); err != nil {
		t.Fatal(err)
	}
	if len(ans.Citations) == 0 || !strings.HasSuffix(ans.Citations[0].Path, "router-x200.md") || ans.Verdict == "" {
		t.Errorf("answer %+v", ans)
	}
	// Without streaming: the JSON of `cairn ask --json`.
	status, body := call(t, "POST", base+"/api/ask", testToken, `{"question":"how do I reset the device"}`)
	if status != 200 || !strings.Contains(body, `"citations": [`) || !strings.Contains(body, `"verdict": "quoted"`) {
		t.Errorf("%d %s", status, body)
	}
}

// blockingAsk writes one token, then waits for its context to end (the
// client going away), and reports that it did.
func blockingAsk(stopped chan<- error) func(ctx context.Context, _ search.Request, onToken func(string)) (*answer.Answer, error) {
	return func(ctx context.Context, _ search.Request, onToken func(string)) (*answer.Answer, error) {
		onToken("first")
		select {
		case <-ctx.Done():
			stopped <- ctx.Err()
			return nil, ctx.Err()
		case <-time.After(20 * time.Second):
			stopped <- errors.New("never cancelled")
			return &answer.Answer{}, nil
		}
	}
}

func TestStreamingStopsWhenTheClientDisconnects(t *testing.T) {
	stopped := make(chan error, 1)
	base, log := startServer(t, stubEngine{Engine: testEngine(t), ask: blockingAsk(stopped)}, Options{Limits: Limits{MaxAsks: 1}})
	ctx, cancel := context.WithCancel(context.Background())
	resp := askStream(t, ctx, base, "how do I reset the device")
	readEvents(t, bufio.NewReader(resp.Body), func(e sseEvent) bool { return e.name == eventToken })
	// A second question while the only slot is taken is refused.
	status, body := call(t, "POST", base+"/api/ask", testToken, `{"question":"warranty"}`)
	if status != 429 || !strings.Contains(body, "1 questions are being answered already") {
		t.Errorf("second ask: %d %s", status, body)
	}
	cancel()
	resp.Body.Close()
	select {
	case err := <-stopped:
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("ask ended with %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the answer went on after the client left")
	}
	// The slot is free again.
	deadline := time.Now().Add(5 * time.Second)
	for !strings.Contains(log.String(), "ask stopped: the client went away") {
		if time.Now().After(deadline) {
			t.Fatalf("no log of the stop:\n%s", log.String())
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func TestPassageNetworkAndIndex(t *testing.T) {
	var saved []string
	eng := testEngine(t)
	base, _ := startServer(t, eng, Options{SaveNetworkMode: func(m string) error { saved = append(saved, m); return nil }})

	// A citation's passage.
	_, body := call(t, "GET", base+"/api/search?q=reset+device", testToken, "")
	id := int64(toMap(t, body)["results"].([]any)[0].(map[string]any)["chunk_id"].(float64))
	status, body := call(t, "GET", fmt.Sprintf("%s/api/passages/%d", base, id), testToken, "")
	p := toMap(t, body)
	if status != 200 || !strings.HasSuffix(p["file"].(string), "router-x200.md") || !strings.Contains(p["text"].(string), "RESET button") || p["line"].(float64) != 8 {
		t.Errorf("passage: %d %s", status, body)
	}
	if status, body := call(t, "GET", base+"/api/passages/999999", testToken, ""); status != 404 || !strings.Contains(body, "no passage 999999") {
		t.Errorf("unknown passage: %d %s", status, body)
	}

	// The network gate: more open needs confirm, and a switch is saved.
	status, body = call(t, "PUT", base+"/api/network", testToken, `{"mode":"online"}`)
	if status != 409 || !strings.Contains(body, `\"confirm\": true`) || eng.NetworkMode() != "offline" {
		t.Errorf("unconfirmed: %d %s, mode %s", status, body, eng.NetworkMode())
	}
	status, body = call(t, "PUT", base+"/api/network", testToken, `{"mode":"online","confirm":true}`)
	if status != 200 || eng.NetworkMode() != "online" {
		t.Errorf("confirmed: %d %s", status, body)
	}
	status, body = call(t, "PUT", base+"/api/network", testToken, `{"mode":"offline"}`) // closing needs no confirmation
	if status != 200 || eng.NetworkMode() != "offline" || strings.Join(saved, ",") != "online,offline" {
		t.Errorf("back offline: %d %s, saved %v", status, body, saved)
	}
	if status, _ := call(t, "PUT", base+"/api/network", testToken, `{"mode":"everywhere","confirm":true}`); status != 422 {
		t.Errorf("unknown mode: %d", status)
	}
	// Team mode, the gate's second strictest, is one more like the others.
	if status, body := call(t, "PUT", base+"/api/network", testToken, `{"mode":"team"}`); status != 409 || eng.NetworkMode() != "offline" {
		t.Errorf("team, unconfirmed: %d %s", status, body)
	}
	if status, body := call(t, "PUT", base+"/api/network", testToken, `{"mode":"team","confirm":true}`); status != 200 || eng.NetworkMode() != "team" {
		t.Errorf("team: %d %s", status, body)
	}
	if status, body := call(t, "GET", base+"/api/network", testToken, ""); status != 200 || toMap(t, body)["mode"] != "team" {
		t.Errorf("GET in team mode: %d %s", status, body)
	}
	if status, body := call(t, "PUT", base+"/api/network", testToken, `{"mode":"online"}`); status != 409 {
		t.Errorf("team to online, unconfirmed: %d %s", status, body)
	}
	if status, body := call(t, "PUT", base+"/api/network", testToken, `{"mode":"offline"}`); status != 200 || strings.Join(saved, ",") != "online,offline,team,offline" {
		t.Errorf("team to offline: %d %s, saved %v", status, body, saved)
	}

	// Index a folder, watch it to the end.
	// A relative folder is refused as a search's folder filter refuses it.
	if status, body := call(t, "POST", base+"/api/index", testToken, `{"folder":"notes"}`); status != 422 || !strings.Contains(body, "folder: notes: a relative path") {
		t.Errorf("relative folder: %d %s", status, body)
	}
	if status, body := call(t, "POST", base+"/api/index", testToken, `{"folder":"/no/such/folder"}`); status != 422 || !strings.Contains(body, "not a folder") {
		t.Errorf("missing folder: %d %s", status, body)
	}
	if status, _ := call(t, "DELETE", base+"/api/index", testToken, ""); status != 409 {
		t.Errorf("cancel with no run: %d", status)
	}
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "kiln.md"), "# Kiln\n\nThe kiln fires at 1240 degrees for cone 6 stoneware.\n")
	if status, body := call(t, "POST", base+"/api/index", testToken, fmt.Sprintf(`{"folder":%q}`, dir)); status != 202 || !strings.Contains(body, `"running": true`) {
		t.Fatalf("start: %d %s", status, body)
	}
	var st map[string]any
	for deadline := time.Now().Add(20 * time.Second); ; {
		_, body := call(t, "GET", base+"/api/index", testToken, "")
		if st = toMap(t, body); st["running"] == false {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("index run never ended: %s", body)
		}
		time.Sleep(20 * time.Millisecond)
	}
	if st["indexed"].(float64) != 1 || st["phase"] != "done" || st["cancelled"] == true || st["error"] != nil {
		t.Errorf("run: %v", st)
	}
	if _, body := call(t, "GET", base+"/api/search?q=kiln+stoneware", testToken, ""); !strings.Contains(body, "kiln.md") {
		t.Errorf("indexed file not found: %s", body)
	}
}

func TestIndexRunIsCancelled(t *testing.T) {
	started := make(chan struct{})
	stub := stubEngine{Engine: testEngine(t), index: func(ctx context.Context, folder string, progress chan<- domain.Progress) (domain.Run, error) {
		defer close(progress)
		progress <- domain.Progress{Folder: folder, Phase: domain.PhaseIndexing, FilesTotal: 10, FilesDone: 3}
		time.Sleep(5 * time.Millisecond) // a run of 5 ms at least, whose progress never said so
		close(started)
		<-ctx.Done()
		return domain.Run{}, ctx.Err()
	}}
	base, _ := startServer(t, stub, Options{})
	dir := t.TempDir()
	if status, body := call(t, "POST", base+"/api/index", testToken, fmt.Sprintf(`{"folder":%q}`, dir)); status != 202 {
		t.Fatalf("%d %s", status, body)
	}
	<-started
	if status, body := call(t, "POST", base+"/api/index", testToken, fmt.Sprintf(`{"folder":%q}`, dir)); status != 409 || !strings.Contains(body, "is going on") {
		t.Errorf("second run: %d %s", status, body)
	}
	status, body := call(t, "DELETE", base+"/api/index", testToken, "")
	st := toMap(t, body)
	if status != 200 || st["running"] != false || st["cancelled"] != true || st["files_done"].(float64) != 3 {
		t.Errorf("cancel: %d %s", status, body)
	}
	// Its time is the run's own, from start to cancel, though no progress
	// report gave one.
	from, _ := time.Parse(time.RFC3339Nano, st["started_at"].(string))
	to, _ := time.Parse(time.RFC3339Nano, st["finished_at"].(string))
	if ms := int64(st["elapsed_ms"].(float64)); ms < 5 || ms-to.Sub(from).Milliseconds() > 1 || to.Sub(from).Milliseconds()-ms > 1 {
		t.Errorf("a cancelled run's elapsed_ms %v, from %v to %v", ms, from, to)
	}
}

func TestOpenAPIDescribesEveryEndpoint(t *testing.T) {
	base, _ := startServer(t, testEngine(t), Options{})
	status, body := call(t, "GET", base+"/api/openapi.json", testToken, "")
	if status != 200 {
		t.Fatalf("%d %s", status, body)
	}
	var doc struct {
		Paths map[string]map[string]any `json:"paths"`
	}
	if err := json.Unmarshal([]byte(body), &doc); err != nil {
		t.Fatal(err)
	}
	for path, methods := range map[string][]string{"/api/health": {"get"}, "/api/status": {"get"}, "/api/search": {"get", "post"},
		"/api/ask": {"post"}, "/api/passages/{id}": {"get"}, "/api/network": {"get", "put"}, "/api/index": {"get", "post", "delete"},
		"/v1/models": {"get"}, "/v1/models/{id}": {"get"}, "/v1/chat/completions": {"post"}, "/v1/completions": {"post"}, "/v1/embeddings": {"post"}} {
		for _, m := range methods {
			if doc.Paths[path][m] == nil {
				t.Errorf("no %s %s in the OpenAPI document", m, path)
			}
		}
	}
	if !strings.Contains(body, `"text/event-stream"`) || !strings.Contains(body, `"bearer"`) {
		t.Error("the document does not describe streaming and the bearer token")
	}
	// The network modes are the gate's, all of them, in both schemas that
	// hold one.
	var modes struct {
		Components struct {
			Schemas map[string]struct {
				Properties map[string]struct {
					Enum []string `json:"enum"`
				} `json:"properties"`
			} `json:"schemas"`
		} `json:"components"`
	}
	json.Unmarshal([]byte(body), &modes)
	var want []string
	for _, m := range netgate.Modes() {
		want = append(want, string(m))
	}
	for schema, prop := range map[string]string{"NetworkMode": "mode", "Status": "network_mode"} {
		if got := modes.Components.Schemas[schema].Properties[prop].Enum; !slices.Equal(got, want) || !slices.Contains(got, "team") {
			t.Errorf("%s.%s enum %v, want %v", schema, prop, got, want)
		}
	}
}

func TestTokenIsCreatedOnceAndPrivate(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "config")
	tok, err := Token(dir)
	if err != nil || len(tok) != 64 {
		t.Fatalf("%q %v", tok, err)
	}
	fi, err := os.Stat(filepath.Join(dir, TokenFile))
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("token file: %v %v", fi.Mode(), err)
	}
	if again, err := Token(dir); again != tok || err != nil {
		t.Errorf("second start: %q %v", again, err)
	}
	os.Chmod(filepath.Join(dir, TokenFile), 0o644)
	if _, err := Token(dir); err == nil || !strings.Contains(err.Error(), "can be read by other users") {
		t.Errorf("readable token: %v", err)
	}
}

// When the window serves, its index worker indexes: the API refuses to
// start a run of its own, saying why, and indexes nothing.
func TestIndexRefusedWhenTheWindowServes(t *testing.T) {
	eng := testEngine(t)
	base, _ := startServer(t, eng, Options{IndexRefusal: "the window is indexing this knowledge base: use its Index tab"})
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "kiln.md"), "# Kiln\n\nThe kiln fires at 1240 degrees.\n")
	status, body := call(t, "POST", base+"/api/index", testToken, fmt.Sprintf(`{"folder":%q}`, dir))
	if status != 409 || !strings.Contains(body, "use its Index tab") {
		t.Fatalf("index while the window serves: %d %s", status, body)
	}
	if status, body := call(t, "GET", base+"/api/index", testToken, ""); status != 200 || strings.Contains(body, `"running": true`) {
		t.Errorf("a run started anyway: %d %s", status, body)
	}
}

package serve

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"

	"cairn/core/answer"
	"cairn/core/search"
)

// The OpenAPI document passes a validator, in its 3.1 form and in the 3.0
// form older tools read, and says what the guard may answer on every path,
// where the service listens, and what /mcp is.
func TestOpenAPIDocumentIsValidAndComplete(t *testing.T) {
	base, _ := startServer(t, testEngine(t), Options{})
	for _, path := range []string{"/api/openapi.json", "/api/openapi-3.0.json"} {
		status, body := call(t, "GET", base+path, testToken, "")
		if status != 200 {
			t.Fatalf("%s: %d %s", path, status, body)
		}
		doc, err := openapi3.NewLoader().LoadFromData([]byte(body))
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		if err := doc.Validate(context.Background()); err != nil {
			t.Errorf("%s is not valid: %v", path, err)
		}
		if len(doc.Servers) != 1 || doc.Servers[0].URL != "http://127.0.0.1:{port}" || doc.Servers[0].Variables["port"].Default != "8765" {
			t.Errorf("%s: servers %+v", path, doc.Servers)
		}
		n := 0
		for p, item := range doc.Paths.Map() {
			for method, op := range item.Operations() {
				n++
				for _, code := range []int{401, 403, 413, 422} {
					if op.Responses.Status(code) == nil {
						t.Errorf("%s: %s %s does not document %d", path, method, p, code)
					}
				}
			}
		}
		if n < 14 {
			t.Errorf("%s: %d operations", path, n)
		}
		mcpPost := doc.Paths.Find("/mcp")
		if mcpPost == nil || mcpPost.Post == nil || !strings.Contains(mcpPost.Post.Description, "JSON-RPC 2.0") {
			t.Errorf("%s: /mcp is not described", path)
		}
		ask := doc.Paths.Find("/api/ask").Post
		if r := ask.Responses.Status(429); r == nil || r.Value.Headers["Retry-After"] == nil {
			t.Errorf("%s: ask's 429 has no Retry-After", path)
		}
		for p, code := range map[string]int{"/api/passages/{id}": 404, "/api/network": 409} {
			item := doc.Paths.Find(p)
			op := item.Get
			if code == 409 {
				op = item.Put
			}
			if op.Responses.Status(code) == nil {
				t.Errorf("%s: %s does not document %d", path, p, code)
			}
		}
	}
}

// The HTTP details a client relies on: the bearer scheme in any case, a
// 401 that names no product, a 429 that says when to come back, and a 413
// that states the bound it enforces.
func TestHTTPDetails(t *testing.T) {
	release := make(chan struct{})
	held := make(chan struct{}, 1)
	eng := stubEngine{Engine: testEngine(t), ask: func(ctx context.Context, req search.Request, onToken func(string)) (*answer.Answer, error) {
		held <- struct{}{}
		<-release
		return &answer.Answer{Text: "done"}, nil
	}}
	base, _ := startServer(t, eng, Options{Limits: Limits{MaxAsks: 1, MaxQuery: 100}})
	for _, scheme := range []string{"Bearer", "bearer", "BEARER", "bEaReR"} {
		if status, body := call(t, "GET", base+"/api/health", "", "", "Authorization", scheme+" "+testToken); status != 200 {
			t.Errorf("scheme %q: %d %s", scheme, status, body)
		}
	}
	resp, err := http.Get(base + "/api/health")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if got := resp.Header.Values("WWW-Authenticate"); resp.StatusCode != 401 || len(got) != 1 || got[0] != "Bearer" {
		t.Errorf("401: %d WWW-Authenticate %q", resp.StatusCode, got)
	}
	// 3 × 100 + 256 = 556 bytes of query string at most.
	if status, body := call(t, "GET", base+"/api/search?q="+strings.Repeat("a", 560), testToken, ""); status != 413 || !strings.Contains(body, "the query string is over the limit of 556 bytes") {
		t.Errorf("query string: %d %s", status, body)
	}
	// Under it, the query itself is over its own bound of 100 bytes.
	if status, body := call(t, "GET", base+"/api/search?q="+strings.Repeat("a", 550), testToken, ""); status != 413 || !strings.Contains(body, "the query is over the limit of 100 bytes") {
		t.Errorf("a query string under the bound: %d %s", status, body)
	}

	done := make(chan struct{})
	go func() {
		defer close(done)
		call(t, "POST", base+"/api/ask", testToken, `{"question":"how do I reset the device"}`)
	}()
	<-held
	req, _ := http.NewRequest("POST", base+"/api/ask", strings.NewReader(`{"question":"and the router?"}`))
	req.Header.Set("Authorization", "Bearer "+testToken)
	req.Header.Set("Content-Type", "application/json")
	resp, err = http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	// No answer has finished yet, and the one under way began under a
	// second ago: it is expected to take as long again, a second at least.
	if resp.StatusCode != 429 || resp.Header.Get("Retry-After") != "1" {
		t.Errorf("busy: %d Retry-After %q", resp.StatusCode, resp.Header.Get("Retry-After"))
	}
	close(release)
	<-done
}

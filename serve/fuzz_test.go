package serve

import (
	"bytes"
	"cairn/core/domain"
	"context"
	"encoding/json"
	"net/http/httptest"
	"testing"
)

// FuzzRequestBodies sends arbitrary bodies to every endpoint that reads
// one: each must get a status with a problem document or a result, never a
// panic or a server error. Index runs are stubbed out, so a body naming a
// real folder indexes nothing.
func FuzzRequestBodies(f *testing.F) {
	for _, seed := range []string{
		`{"q":"reset the device","top_k":3,"path":["/x"],"type":["md"]}`,
		`{"q":"reset","min_score":1e309}`, `{"q":"\u0000"}`, `{"q":"\"unterminated"}`, `{"q":"a OR b NEAR(c) *"}`,
		`{"question":"how do I reset the device","stream":true}`, `{"question":""}`,
		`{"mode":"admin","confirm":true}`, `{"mode":"offline"}`, `{"mode":3}`,
		`{"folder":"/"}`, `{"folder":"relative"}`, `[]`, `null`, ``, `{`, `{"q":` + `"` + string(make([]byte, 5000)) + `"}`,
	} {
		for which := range 5 {
			f.Add(uint8(which), []byte(seed))
		}
	}
	eng := stubEngine{Engine: testEngine(f), index: func(ctx context.Context, folder string, progress chan<- domain.Progress) (domain.Run, error) {
		close(progress)
		return domain.Run{}, nil
	}}
	srv := New(eng, Options{Token: testToken, Limits: Limits{MaxBody: 4096, MaxQuery: 512}})
	f.Fuzz(func(t *testing.T, which uint8, body []byte) {
		routes := []struct{ method, path string }{
			{"POST", "/api/search"}, {"POST", "/api/ask"}, {"PUT", "/api/network"}, {"POST", "/api/index"}, {"POST", "/mcp"},
		}
		route := routes[int(which)%len(routes)]
		req := httptest.NewRequest(route.method, "http://127.0.0.1"+route.path, bytes.NewReader(body))
		req.Header.Set("Authorization", "Bearer "+testToken)
		req.Header.Set("Content-Type", "application/json")
		if route.path == "/mcp" {
			req.Header.Set("Accept", "application/json, text/event-stream")
		}
		rec := httptest.NewRecorder()
		srv.Handler().ServeHTTP(rec, req)
		if rec.Code >= 500 {
			t.Fatalf("%s %s %q: %d %s", route.method, route.path, body, rec.Code, rec.Body)
		}
		if ct := rec.Header().Get("Content-Type"); rec.Code >= 400 && route.path != "/mcp" &&
			(ct != "application/problem+json" || !json.Valid(rec.Body.Bytes())) {
			t.Fatalf("%s %q: %d %s: %s", route.path, body, rec.Code, ct, rec.Body)
		}
		srv.jobs.cancelAndWait()
		srv.eng.SetNetworkMode("offline")
	})
}

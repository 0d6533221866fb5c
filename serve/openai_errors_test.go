package serve

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"cairn/core/answer"
	"cairn/core/search"
)

// oaiReply is an error reply as OpenAI's clients read it.
type oaiReply struct {
	Error *struct {
		Message string  `json:"message"`
		Type    string  `json:"type"`
		Param   *string `json:"param"`
		Code    *string `json:"code"`
	} `json:"error"`
}

// Every refusal under /v1 is OpenAI's error shape with the right status,
// a message a person can act on, and the param and code that apply: the
// guard's, the paths', the models', the body's, and what Cairn cannot do.
func TestOpenAIErrorsAreOpenAIs(t *testing.T) {
	base, _ := startServer(t, testEngine(t), Options{Limits: Limits{MaxBody: 2048}})
	const q = `"messages":[{"role":"user","content":"how do I reset the device"}]`
	for _, tc := range []struct {
		name, method, path, token, body string
		header                          []string
		status                          int
		typ, param, code, message       string
	}{
		{"no token", "GET", "/v1/models", "", "", nil, 401, "authentication_error", "", "invalid_api_key", "a valid bearer token is required"},
		{"a web site's page", "GET", "/v1/models", testToken, "", []string{"Origin", "https://evil.example"}, 403, "permission_error", "", "forbidden", "web pages of other sites"},
		{"unknown path", "GET", "/v1/engines", testToken, "", nil, 404, "invalid_request_error", "", "unknown_url", "Invalid URL (GET /v1/engines)"},
		{"unknown path under a known one", "POST", "/v1/chat/completions/x", testToken, "{}", nil, 404, "invalid_request_error", "", "unknown_url", "Invalid URL"},
		{"wrong method", "GET", "/v1/chat/completions", testToken, "", nil, 405, "invalid_request_error", "", "method_not_allowed", "use POST"},
		{"unknown model", "GET", "/v1/models/gpt-4o", testToken, "", nil, 404, "invalid_request_error", "model", "model_not_found", `The model "gpt-4o" does not exist`},
		{"chat with an unknown model", "POST", "/v1/chat/completions", testToken, `{"model":"gpt-4o",` + q + `}`, nil, 404, "invalid_request_error", "model", "model_not_found", `"gpt-4o" does not exist`},
		{"completion with an unknown model", "POST", "/v1/completions", testToken, `{"model":"llama3","prompt":"hi"}`, nil, 404, "invalid_request_error", "model", "model_not_found", `"llama3" does not exist`},
		{"no embedding model", "POST", "/v1/embeddings", testToken, `{"model":"cairn","input":"hi"}`, nil, 404, "invalid_request_error", "model", "model_not_found", "no embedding model is loaded"},
		{"not JSON", "POST", "/v1/chat/completions", testToken, `{"model":`, nil, 400, "invalid_request_error", "", "invalid_json", "the body is not the JSON of a request"},
		{"over the body's bound", "POST", "/v1/chat/completions", testToken, `{"model":"cairn",` + q + `,"user":"` + strings.Repeat("x", 3000) + `"}`, nil, 413, "invalid_request_error", "", "request_too_large", "over the limit of 2048 bytes"},
		{"n of 2", "POST", "/v1/chat/completions", testToken, `{"n":2,` + q + `}`, nil, 400, "invalid_request_error", "n", "unsupported_parameter", "one answer"},
		{"tools", "POST", "/v1/chat/completions", testToken, `{"tools":[{"type":"function","function":{"name":"f"}}],` + q + `}`, nil, 400, "invalid_request_error", "tools", "unsupported_parameter", "calls no tools"},
		{"tool_choice required", "POST", "/v1/chat/completions", testToken, `{"tool_choice":"required",` + q + `}`, nil, 400, "invalid_request_error", "tool_choice", "unsupported_parameter", "calls no tools"},
		{"json output", "POST", "/v1/chat/completions", testToken, `{"response_format":{"type":"json_object"},` + q + `}`, nil, 400, "invalid_request_error", "response_format", "unsupported_parameter", "not in JSON"},
		{"an assistant message last", "POST", "/v1/chat/completions", testToken, `{"messages":[{"role":"user","content":"hi"},{"role":"assistant","content":"Hi"}]}`, nil, 400, "invalid_request_error", "messages", "invalid_value", "ends with the assistant's message"},
		{"an image", "POST", "/v1/chat/completions", testToken, `{"messages":[{"role":"user","content":[{"type":"text","text":"what is this"},{"type":"image_url","image_url":{"url":"data:,"}}]}]}`, nil, 400, "invalid_request_error", "messages[0].content", "unsupported_content", "not image_url"},
		{"a bad page", "POST", "/v1/chat/completions", testToken, `{"page":-1,` + q + `}`, nil, 400, "invalid_request_error", "page", "", "page: -1 is not a page"},
		{"prompt of token ids", "POST", "/v1/completions", testToken, `{"prompt":[[1,2,3]]}`, nil, 400, "invalid_request_error", "prompt", "unsupported_parameter", "one question as a string"},
		{"echo", "POST", "/v1/completions", testToken, `{"prompt":"hi","echo":true}`, nil, 400, "invalid_request_error", "echo", "unsupported_parameter", "does not repeat"},
		{"token ids to embed", "POST", "/v1/embeddings", testToken, `{"input":[1,2]}`, nil, 400, "invalid_request_error", "input", "unsupported_parameter", "does not read token ids"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			status, body := call(t, tc.method, base+tc.path, tc.token, tc.body, tc.header...)
			var r oaiReply
			if err := json.Unmarshal([]byte(body), &r); err != nil || r.Error == nil {
				t.Fatalf("%d %s: not OpenAI's shape (%v)", status, body, err)
			}
			e := r.Error
			str := func(p *string) string {
				if p == nil {
					return ""
				}
				return *p
			}
			if status != tc.status || e.Type != tc.typ || str(e.Param) != tc.param || str(e.Code) != tc.code || !strings.Contains(e.Message, tc.message) {
				t.Errorf("%d %s\nwant %d type %s param %q code %q message with %q", status, body, tc.status, tc.typ, tc.param, tc.code, tc.message)
			}
			if tc.param == "" && !strings.Contains(body, `"param":null`) || tc.code == "" && !strings.Contains(body, `"code":null`) {
				t.Errorf("param and code are null when none applies: %s", body)
			}
		})
	}
}

// A question over the limit gets OpenAI's 429 with the Retry-After of the
// rest of the API.
func TestOpenAIBusyIsA429WithRetryAfter(t *testing.T) {
	release := make(chan struct{})
	held := make(chan struct{}, 1)
	stub := stubEngine{Engine: testEngine(t), ask: func(ctx context.Context, req search.Request, onToken func(string)) (*answer.Answer, error) {
		held <- struct{}{}
		<-release
		return &answer.Answer{Text: "done"}, nil
	}}
	base, _ := startServer(t, stub, Options{Limits: Limits{MaxAsks: 1}})
	const body = `{"messages":[{"role":"user","content":"how do I reset the device"}]}`
	done := make(chan struct{})
	go func() {
		defer close(done)
		call(t, "POST", base+"/v1/chat/completions", testToken, body)
	}()
	<-held
	req, _ := http.NewRequest("POST", base+"/v1/chat/completions", strings.NewReader(body))
	req.Header.Set("Authorization", "Bearer "+testToken)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	var r oaiReply
	json.NewDecoder(resp.Body).Decode(&r)
	resp.Body.Close()
	if resp.StatusCode != 429 || resp.Header.Get("Retry-After") != "1" || r.Error == nil || r.Error.Type != "rate_limit_error" ||
		!strings.Contains(r.Error.Message, "1 questions are being answered already") {
		t.Errorf("busy: %d Retry-After %q %+v", resp.StatusCode, resp.Header.Get("Retry-After"), r.Error)
	}
	close(release)
	<-done
}

package serve

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"cairn/core"
	"cairn/core/answer"
	"cairn/core/config"
	"cairn/core/fault"
	"cairn/core/search"
)

// A chat model's failure that reaches the service is named as such, never
// as a cancelled request: 502 when the online endpoint failed, 503 when
// the local model did, with the reason, on /api/ask and /v1, and in the
// error event of a stream that had begun.
func TestChatModelFailureIsNamed(t *testing.T) {
	for _, tc := range []struct {
		name   string
		err    error
		status int
	}{
		{"online endpoint", fault.New(fault.NetFailed, "the online chat model gpt at api.example.test failed", "check the endpoint",
			errors.New("the connection to api.example.test was lost during the answer: unexpected EOF")), 502},
		{"local model", fault.New(fault.ModelFailed, "the chat model qwen.gguf failed", "run cairn doctor --load",
			errors.New("llama_decode returned -3")), 503},
	} {
		t.Run(tc.name, func(t *testing.T) {
			stub := stubEngine{Engine: testEngine(t), ask: func(ctx context.Context, req search.Request, onToken func(string)) (*answer.Answer, error) {
				if onToken != nil {
					onToken("Press ")
				}
				return nil, fmt.Errorf("writing the answer: %w", tc.err)
			}}
			base, _ := startServer(t, stub, Options{})
			reason := strings.SplitN(tc.err.Error(), ":", 2)[0]
			status, body := call(t, "POST", base+"/api/ask", testToken, `{"question":"how do I reset the device"}`)
			if status != tc.status || !strings.Contains(body, reason) || strings.Contains(body, "cancelled") {
				t.Errorf("/api/ask: %d %s", status, body)
			}
			status, body = call(t, "POST", base+"/v1/chat/completions", testToken, `{"messages":[{"role":"user","content":"how do I reset the device"}]}`)
			if status != tc.status || !strings.Contains(body, `"type":"server_error"`) || !strings.Contains(body, reason) {
				t.Errorf("/v1: %d %s", status, body)
			}
			status, body = call(t, "POST", base+"/api/ask", testToken, `{"question":"how do I reset the device","stream":true}`)
			_, errEvent, _ := strings.Cut(body, "event: error\ndata: ")
			if status != 200 || !strings.Contains(errEvent, reason) || !strings.HasSuffix(errEvent, fmt.Sprintf(`,"status":%d}`+"\n\n", tc.status)) {
				t.Errorf("/api/ask streamed: %d %s", status, body)
			}
			status, body = call(t, "POST", base+"/v1/chat/completions", testToken, `{"stream":true,"messages":[{"role":"user","content":"how do I reset the device"}]}`)
			_, errChunk, _ := strings.Cut(body, `data: {"error":{"message":"`)
			if status != 200 || !strings.Contains(body, `"content":"Press "`) || !strings.Contains(errChunk, reason) || !strings.Contains(errChunk, `"type":"server_error"`) {
				t.Errorf("/v1 streamed: %d %s", status, body)
			}
		})
	}
}

// With the chat model down, the documents still answer: an online
// endpoint that refuses, or that breaks off mid-answer, gives the quoted
// answer, which says why it is quoted, over /api/ask and /v1, whole and
// streamed.
func TestChatModelDownFallsBackToQuotes(t *testing.T) {
	var breakOff bool
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		if !breakOff {
			http.Error(w, `{"error":{"message":"model overloaded"}}`, http.StatusServiceUnavailable)
			return
		}
		w.Header().Set("Content-Type", "text/event-stream")
		fmt.Fprint(w, "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"Press and\"}}]}\n\n")
		w.(http.Flusher).Flush()
		conn, _, _ := w.(http.Hijacker).Hijack()
		conn.Close()
	}))
	defer srv.Close()
	dial := func(ctx context.Context, network, addr string) (net.Conn, error) {
		if addr != "api.example.test:80" {
			return nil, errors.New("test dialer: only the endpoint")
		}
		return (&net.Dialer{}).DialContext(ctx, network, srv.Listener.Addr().String())
	}
	t.Setenv("CAIRN_API_KEY", "sk-test-1234")
	eng := testEngineWith(t, core.Options{Dial: dial}, func(c *config.Config) {
		c.Network.Mode, c.Network.API, c.Network.Endpoint, c.Network.ChatModel = "online", "openai", "http://api.example.test/v1", "fake-gpt"
		c.Answer.Rewrite = false
	})
	base, _ := startServer(t, eng, Options{})
	const note = "Quoted answer: the online chat model fake-gpt at api.example.test failed"

	status, body := call(t, "POST", base+"/api/ask", testToken, `{"question":"how do I reset the device"}`)
	var ans answer.Answer
	if err := json.Unmarshal([]byte(body), &ans); status != 200 || err != nil || ans.Mode != answer.ModeExtractive ||
		len(ans.Notes) == 0 || !strings.HasPrefix(ans.Notes[0], note) || !strings.Contains(ans.Text, "RESET button") {
		t.Errorf("/api/ask, endpoint down: %d %s", status, body)
	}
	status, body = call(t, "POST", base+"/v1/chat/completions", testToken, `{"messages":[{"role":"user","content":"how do I reset the device"}]}`)
	var c ChatCompletion
	json.Unmarshal([]byte(body), &c)
	if text, _ := c.Choices[0].Message.Content.(string); status != 200 || !strings.Contains(text, "RESET button") || !strings.Contains(text, "\n\n"+notePrefix+note) {
		t.Errorf("/v1, endpoint down: %d %s", status, body)
	}

	breakOff = true
	status, body = call(t, "POST", base+"/v1/chat/completions", testToken, `{"stream":true,"messages":[{"role":"user","content":"how do I reset the device"}]}`)
	var streamed strings.Builder
	for _, line := range strings.Split(body, "\n") {
		var ch ChatCompletion
		if data, ok := strings.CutPrefix(line, "data: "); ok && json.Unmarshal([]byte(data), &ch) == nil && len(ch.Choices) > 0 {
			streamed.WriteString(ch.Choices[0].Delta.Content)
		}
	}
	if s := streamed.String(); status != 200 || !strings.HasPrefix(s, "Press and\n\n("+note) || !strings.Contains(s, "RESET button") || !strings.HasSuffix(body, "data: [DONE]\n\n") {
		t.Errorf("/v1 streamed, endpoint breaks off: %d %q", status, s)
	}
}

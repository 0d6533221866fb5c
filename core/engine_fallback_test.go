package core

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"cairn/core/answer"
	"cairn/core/config"
)

// When the chat model fails, the documents still answer: the answer is
// quoted, and its first note says why. An online endpoint that refuses
// every request, and one that breaks off mid-answer (whose first words
// were already streamed), each give the quoted answer the same question
// gets with no chat model.
func TestAFailingChatModelFallsBackToAQuotedAnswer(t *testing.T) {
	for _, tc := range []struct {
		name     string
		endpoint http.HandlerFunc
		note     string
		streamed string // before the quoted answer
	}{
		{"endpoint refuses", func(w http.ResponseWriter, r *http.Request) {
			http.Error(w, `{"error":{"message":"model overloaded"}}`, http.StatusServiceUnavailable)
		}, "Quoted answer: the online chat model fake-gpt at api.example.test failed", ""},
		{"endpoint breaks off", func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/event-stream")
			fmt.Fprint(w, "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"Press and\"}}]}\n\n")
			w.(http.Flusher).Flush()
			conn, _, _ := w.(http.Hijacker).Hijack()
			conn.Close()
		}, "Quoted answer: the online chat model fake-gpt at api.example.test failed", "Press and\n\n(Quoted answer: the online chat model fake-gpt at api.example.test failed"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := httptest.NewServer(tc.endpoint)
			defer srv.Close()
			dial := func(ctx context.Context, network, addr string) (net.Conn, error) {
				if addr != "api.example.test:80" {
					return nil, errors.New("test dialer: only the endpoint")
				}
				return (&net.Dialer{}).DialContext(ctx, network, srv.Listener.Addr().String())
			}
			t.Setenv("CAIRN_API_KEY", "sk-test-1234")
			eng := testEngineWith(t, func(c *config.Config) {
				c.Network.Mode, c.Network.API, c.Network.Endpoint, c.Network.ChatModel = "online", "openai", "http://api.example.test/v1", "fake-gpt"
				c.Answer.Rewrite = false
			}, Options{KB: "test", Write: true, Dial: dial})
			var streamed strings.Builder
			ans, err := eng.Ask(context.Background(), eng.SearchRequest("how do I reset the router"), func(s string) { streamed.WriteString(s) })
			if err != nil {
				t.Fatal(err)
			}
			if ans.Mode != answer.ModeExtractive || len(ans.Citations) == 0 || !strings.Contains(ans.Text, "RESET") {
				t.Fatalf("mode %s, text %q, citations %+v", ans.Mode, ans.Text, ans.Citations)
			}
			if len(ans.Notes) == 0 || !strings.HasPrefix(ans.Notes[0], tc.note) {
				t.Errorf("notes %q, want the first to start %q", ans.Notes, tc.note)
			}
			if !strings.HasPrefix(streamed.String(), tc.streamed) || !strings.HasSuffix(streamed.String(), ans.Text) {
				t.Errorf("streamed %q, want %q then the quoted answer %q", streamed.String(), tc.streamed, ans.Text)
			}
		})
	}
}

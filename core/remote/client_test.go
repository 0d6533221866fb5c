package remote

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"cairn/core/netgate"
)

const testKey = "sk-test-abcdef123456"

// redirector is the gate's inner dialer: it maps the endpoint's name onto
// the fake server on 127.0.0.1 and records every address asked for.
type redirector struct {
	mu     sync.Mutex
	dialed []string
	to     string
}

func (r *redirector) dial(ctx context.Context, network, addr string) (net.Conn, error) {
	r.mu.Lock()
	r.dialed = append(r.dialed, addr)
	r.mu.Unlock()
	if addr != "api.example.test:8080" {
		return nil, fmt.Errorf("test dialer: no route to %s", addr)
	}
	var d net.Dialer
	return d.DialContext(ctx, network, r.to)
}

func (r *redirector) calls() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]string(nil), r.dialed...)
}

// setup starts handler as the endpoint api.example.test:8080 behind a gate
// in mode, and returns a client for api with the test key.
func setup(t *testing.T, mode netgate.Mode, api string, handler http.HandlerFunc, opt Options) (*Client, *redirector, *netgate.Gate) {
	t.Helper()
	srv := httptest.NewServer(handler)
	t.Cleanup(srv.Close)
	rd := &redirector{to: srv.Listener.Addr().String()}
	endpoint := "http://api.example.test:8080"
	if api == APIOpenAI {
		endpoint += "/v1"
	}
	gate, err := netgate.New(netgate.Options{Mode: mode, Endpoint: endpoint, AuditLog: filepath.Join(t.TempDir(), "audit.log"), Dial: rd.dial})
	if err != nil {
		t.Fatal(err)
	}
	opt.API, opt.Endpoint, opt.HTTP = api, endpoint, gate.HTTPClient("answer")
	if opt.Model == "" {
		opt.Model = "test-model"
	}
	if opt.Key == (Key{}) {
		opt.Key = Key{Value: testKey, Source: KeyEnv}
	}
	c, err := New(opt)
	if err != nil {
		t.Fatal(err)
	}
	return c, rd, gate
}

var question = Request{
	Messages:    []Message{{Role: "system", Content: "Answer from the sources."}, {Role: "user", Content: "How do I reset the router?"}},
	MaxTokens:   64,
	Temperature: 0,
	Seed:        42,
	Stop:        []string{"<|end|>"},
}

// sse writes server-sent events, flushing each so the client sees them
// arrive one by one.
func sse(w http.ResponseWriter, events ...string) {
	w.Header().Set("Content-Type", "text/event-stream")
	for _, e := range events {
		fmt.Fprintf(w, "data: %s\n\n", e)
		w.(http.Flusher).Flush()
	}
}

func TestOpenAIStreamsTokensInOrderWithUsageAndTheKeyAsBearer(t *testing.T) {
	var got struct {
		path, auth string
		body       map[string]any
	}
	c, rd, gate := setup(t, netgate.Online, APIOpenAI, func(w http.ResponseWriter, r *http.Request) {
		got.path, got.auth = r.URL.Path, r.Header.Get("Authorization")
		json.NewDecoder(r.Body).Decode(&got.body)
		sse(w,
			`{"choices":[{"index":0,"delta":{"role":"assistant","content":""},"finish_reason":null}]}`,
			`{"choices":[{"index":0,"delta":{"content":"Hold the pin"},"finish_reason":null}]}`,
			`{"choices":[{"index":0,"delta":{"content":" ten seconds"},"finish_reason":null}]}`,
			`{"choices":[{"index":0,"delta":{"content":" [1]."},"finish_reason":null}]}`,
			`{"choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}`,
			`{"choices":[],"usage":{"prompt_tokens":42,"completion_tokens":7,"total_tokens":49}}`,
			`[DONE]`)
	}, Options{})
	var toks []string
	rep, err := c.Chat(context.Background(), question, func(s string) { toks = append(toks, s) })
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"Hold the pin", " ten seconds", " [1]."}; !slices.Equal(toks, want) {
		t.Errorf("tokens %q, want %q", toks, want)
	}
	if rep.Text != "Hold the pin ten seconds [1]." || rep.PromptTokens != 42 || rep.Tokens != 7 || rep.StopReason != "stop" {
		t.Errorf("reply %+v", rep)
	}
	if rep.TimeToFirstToken <= 0 || rep.Duration < rep.TimeToFirstToken {
		t.Errorf("timings: first token %v, total %v", rep.TimeToFirstToken, rep.Duration)
	}
	if got.path != "/v1/chat/completions" || got.auth != "Bearer "+testKey {
		t.Errorf("path %q, authorization %q", got.path, got.auth)
	}
	b := got.body
	msgs, _ := b["messages"].([]any)
	if b["model"] != "test-model" || b["stream"] != true || b["max_tokens"] != 64.0 || b["temperature"] != 0.0 || b["seed"] != 42.0 ||
		len(msgs) != 2 || fmt.Sprint(b["stop"]) != "[<|end|>]" || fmt.Sprint(b["stream_options"]) != "map[include_usage:true]" {
		t.Errorf("request body %v", b)
	}
	if _, ok := b["top_p"]; ok {
		t.Errorf("top_p 0 was sent: %v", b)
	}
	if calls := rd.calls(); !slices.Equal(calls, []string{"api.example.test:8080"}) {
		t.Errorf("dialled %v", calls)
	}
	raw, _ := os.ReadFile(gate.AuditLog())
	if !strings.Contains(string(raw), `"addr":"api.example.test:8080","purpose":"answer","decision":"allowed"`) ||
		strings.Contains(string(raw), "sk-") || strings.Contains(string(raw), "completions") {
		t.Errorf("audit log:\n%s", raw)
	}
}

func TestOllamaStreamsTokensInOrderWithCounts(t *testing.T) {
	var body map[string]any
	var path, auth string
	c, _, _ := setup(t, netgate.Online, APIOllama, func(w http.ResponseWriter, r *http.Request) {
		path, auth = r.URL.Path, r.Header.Get("Authorization")
		json.NewDecoder(r.Body).Decode(&body)
		w.Header().Set("Content-Type", "application/x-ndjson")
		for _, l := range []string{
			`{"model":"test-model","message":{"role":"assistant","content":"Reset"},"done":false}`,
			`{"model":"test-model","message":{"role":"assistant","content":" it"},"done":false}`,
			`{"model":"test-model","message":{"role":"assistant","content":" [2]."},"done":false}`,
			`{"model":"test-model","message":{"role":"assistant","content":""},"done":true,"done_reason":"length","prompt_eval_count":31,"eval_count":3}`,
		} {
			io.WriteString(w, l+"\n")
			w.(http.Flusher).Flush()
		}
	}, Options{})
	var toks []string
	rep, err := c.Chat(context.Background(), question, func(s string) { toks = append(toks, s) })
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(toks, []string{"Reset", " it", " [2]."}) || rep.Text != "Reset it [2]." {
		t.Errorf("tokens %q, text %q", toks, rep.Text)
	}
	if rep.PromptTokens != 31 || rep.Tokens != 3 || rep.StopReason != "length" {
		t.Errorf("reply %+v", rep)
	}
	if path != "/api/chat" || auth != "Bearer "+testKey {
		t.Errorf("path %q auth %q", path, auth)
	}
	opts, _ := body["options"].(map[string]any)
	if body["model"] != "test-model" || body["stream"] != true || opts["num_predict"] != 64.0 || opts["temperature"] != 0.0 || opts["seed"] != 42.0 {
		t.Errorf("body %v", body)
	}
}

func TestCancellingStopsTheStream(t *testing.T) {
	for _, api := range []string{APIOpenAI, APIOllama} {
		t.Run(api, func(t *testing.T) {
			serverSawCancel := make(chan struct{})
			c, _, _ := setup(t, netgate.Online, api, func(w http.ResponseWriter, r *http.Request) {
				io.Copy(io.Discard, r.Body)
				if api == APIOpenAI {
					sse(w, `{"choices":[{"delta":{"content":"First"}}]}`)
				} else {
					io.WriteString(w, `{"message":{"content":"First"},"done":false}`+"\n")
					w.(http.Flusher).Flush()
				}
				select { // a slow model: nothing more until the client goes away
				case <-r.Context().Done():
					close(serverSawCancel)
				case <-time.After(10 * time.Second):
				}
			}, Options{})
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			start := time.Now()
			var toks []string
			rep, err := c.Chat(ctx, question, func(s string) { toks = append(toks, s); cancel() })
			if !errors.Is(err, context.Canceled) {
				t.Fatalf("err = %v", err)
			}
			if time.Since(start) > 5*time.Second {
				t.Errorf("Chat returned %v after the cancel", time.Since(start))
			}
			if !slices.Equal(toks, []string{"First"}) || rep.Text != "First" || rep.StopReason != "cancelled" {
				t.Errorf("tokens %q, reply %+v", toks, rep)
			}
			select {
			case <-serverSawCancel:
			case <-time.After(5 * time.Second):
				t.Error("the server never saw the request end")
			}
		})
	}
}

func TestRejectedKeyIsExplainedWithoutShowingIt(t *testing.T) {
	c, _, _ := setup(t, netgate.Online, APIOpenAI, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusUnauthorized)
		io.WriteString(w, `{"error":{"message":"Incorrect API key provided: `+testKey+`.","type":"invalid_request_error"}}`)
	}, Options{})
	_, err := c.Chat(context.Background(), question, nil)
	if !errors.Is(err, ErrKeyRejected) {
		t.Fatalf("err = %v", err)
	}
	want := "api.example.test:8080 rejected the API key sk-…3456 from CAIRN_API_KEY (401 Unauthorized: Incorrect API key provided: sk-…3456.); " +
		"check the key, or set another in CAIRN_API_KEY or with `cairn network key set`"
	if err.Error() != want {
		t.Errorf("message\n got %s\nwant %s", err, want)
	}
	var re *Error
	if !errors.As(err, &re) || re.Status != 401 {
		t.Errorf("status %+v", re)
	}

	c2, _, _ := setup(t, netgate.Online, APIOpenAI, func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "" {
			t.Errorf("a key was sent: %q", r.Header.Get("Authorization"))
		}
		w.WriteHeader(http.StatusForbidden)
	}, Options{Key: Key{Note: "no keyring"}})
	_, err = c2.Chat(context.Background(), question, nil)
	if !errors.Is(err, ErrKeyRejected) || !strings.Contains(err.Error(), "wants an API key and none is set (403 Forbidden); set CAIRN_API_KEY") {
		t.Errorf("without a key: %v", err)
	}
}

func TestMissingModelIsExplained(t *testing.T) {
	c, _, _ := setup(t, netgate.Online, APIOllama, func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusNotFound)
		io.WriteString(w, `{"error":"model \"test-model\" not found, try pulling it first"}`)
	}, Options{})
	_, err := c.Chat(context.Background(), question, nil)
	want := `api.example.test:8080 has no model "test-model" or no ollama chat API at http://api.example.test:8080/api/chat ` +
		`(404 Not Found: model "test-model" not found, try pulling it first); check network.chat_model, network.endpoint and network.api`
	if !errors.Is(err, ErrNotFound) || err.Error() != want {
		t.Errorf("err\n got %v\nwant %s", err, want)
	}
}

func TestSilentEndpointTimesOut(t *testing.T) {
	release := make(chan struct{})
	defer close(release)
	wait := func(r *http.Request) {
		io.Copy(io.Discard, r.Body) // the server notices a gone client only once the body is read
		select {
		case <-r.Context().Done():
		case <-release:
		case <-time.After(10 * time.Second):
		}
	}
	t.Run("before the reply starts", func(t *testing.T) {
		c, _, _ := setup(t, netgate.Online, APIOpenAI, func(w http.ResponseWriter, r *http.Request) { wait(r) },
			Options{FirstByteTimeout: 150 * time.Millisecond})
		_, err := c.Chat(context.Background(), question, nil)
		if !errors.Is(err, ErrTimeout) || err.Error() != "no reply from api.example.test:8080 for 150ms: the endpoint may be overloaded or unreachable; "+
			"try again, or check network.endpoint" {
			t.Errorf("err = %v", err)
		}
	})
	t.Run("in the middle of the stream", func(t *testing.T) {
		c, _, _ := setup(t, netgate.Online, APIOllama, func(w http.ResponseWriter, r *http.Request) {
			io.WriteString(w, `{"message":{"content":"Half"},"done":false}`+"\n")
			w.(http.Flusher).Flush()
			wait(r)
		}, Options{IdleTimeout: 150 * time.Millisecond})
		rep, err := c.Chat(context.Background(), question, nil)
		if !errors.Is(err, ErrTimeout) || errors.Is(err, context.Canceled) || rep.Text != "Half" {
			t.Errorf("err = %v, text %q", err, rep.Text)
		}
	})
}

// The first-byte time-out lasts until the body starts, not until the
// headers arrive; a time-out names the limit that ran out.
func TestTheFirstByteTimeoutLastsUntilTheBodyStarts(t *testing.T) {
	t.Run("headers at once, the first token later", func(t *testing.T) {
		c, _, _ := setup(t, netgate.Online, APIOllama, func(w http.ResponseWriter, r *http.Request) {
			io.Copy(io.Discard, r.Body)
			w.WriteHeader(http.StatusOK)
			w.(http.Flusher).Flush()
			select {
			case <-r.Context().Done():
				return
			case <-time.After(400 * time.Millisecond): // past the idle time-out, within the first-byte one
			}
			io.WriteString(w, `{"message":{"content":"Loaded."},"done":true,"eval_count":1}`+"\n")
		}, Options{FirstByteTimeout: 10 * time.Second, IdleTimeout: 150 * time.Millisecond})
		rep, err := c.Chat(context.Background(), question, nil)
		if err != nil || rep.Text != "Loaded." {
			t.Errorf("got %q, %v", rep.Text, err)
		}
	})
	t.Run("the body started without a token", func(t *testing.T) {
		release := make(chan struct{})
		defer close(release)
		c, _, _ := setup(t, netgate.Online, APIOpenAI, func(w http.ResponseWriter, r *http.Request) {
			io.Copy(io.Discard, r.Body)
			sse(w, `{"choices":[{"delta":{"role":"assistant"}}]}`)
			select {
			case <-r.Context().Done():
			case <-release:
			}
		}, Options{FirstByteTimeout: 10 * time.Second, IdleTimeout: 150 * time.Millisecond})
		_, err := c.Chat(context.Background(), question, nil)
		if !errors.Is(err, ErrTimeout) || !strings.HasPrefix(err.Error(), "no reply from api.example.test:8080 for 150ms:") {
			t.Errorf("err = %v", err)
		}
	})
}

func TestMalformedAndCutStreams(t *testing.T) {
	cases := []struct {
		name, api string
		handler   http.HandlerFunc
		kind      error
		msg       string
		text      string
	}{
		{"not JSON", APIOpenAI, func(w http.ResponseWriter, r *http.Request) {
			sse(w, `{"choices":[{"delta":{"content":"ok"}}]}`, `{not json`)
		}, ErrMalformed, "the reply from api.example.test:8080 is not an openai chat stream (line 3: invalid character 'n' looking for beginning of object key string); check that network.api matches the server", "ok"},
		{"cut before the end", APIOpenAI, func(w http.ResponseWriter, r *http.Request) {
			sse(w, `{"choices":[{"delta":{"content":"Half an"}}]}`)
		}, ErrMalformed, "the reply from api.example.test:8080 ended before the answer was complete; try again", "Half an"},
		{"ollama speaking to an openai client", APIOpenAI, func(w http.ResponseWriter, r *http.Request) {
			io.WriteString(w, `{"message":{"content":"x"},"done":true}`+"\n")
		}, ErrMalformed, "ended before the answer was complete", ""},
		{"error mid-stream", APIOllama, func(w http.ResponseWriter, r *http.Request) {
			io.WriteString(w, `{"message":{"content":"So"},"done":false}`+"\n"+`{"error":"out of memory"}`+"\n")
		}, nil, "api.example.test:8080 stopped the answer with an error: out of memory", "So"},
		{"ollama line of another kind", APIOllama, func(w http.ResponseWriter, r *http.Request) {
			io.WriteString(w, `{"status":"pulling manifest"}`+"\n")
		}, ErrMalformed, "(line 1: neither a message nor the end of the answer)", ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			cl, _, _ := setup(t, netgate.Online, c.api, c.handler, Options{})
			rep, err := cl.Chat(context.Background(), question, nil)
			if err == nil || !strings.Contains(err.Error(), c.msg) {
				t.Fatalf("err = %v, want %q", err, c.msg)
			}
			if c.kind != nil && !errors.Is(err, c.kind) {
				t.Errorf("err %v is not %v", err, c.kind)
			}
			if rep.Text != c.text {
				t.Errorf("partial text %q, want %q", rep.Text, c.text)
			}
		})
	}
}

func TestOfflineGateRefusesTheEndpointBeforeDialling(t *testing.T) {
	served := false
	c, rd, gate := setup(t, netgate.Offline, APIOpenAI, func(w http.ResponseWriter, r *http.Request) { served = true }, Options{})
	_, err := c.Chat(context.Background(), question, nil)
	if !errors.Is(err, netgate.ErrBlocked) {
		t.Fatalf("err = %v", err)
	}
	if strings.Contains(err.Error(), testKey) || !strings.Contains(err.Error(), "refused a connection to api.example.test:8080 for answer") {
		t.Errorf("message %v", err)
	}
	if calls := rd.calls(); len(calls) != 0 || served {
		t.Errorf("dialled %v (served %v)", calls, served)
	}
	raw, _ := os.ReadFile(gate.AuditLog())
	if !strings.Contains(string(raw), `"decision":"refused"`) || strings.Contains(string(raw), "sk-") {
		t.Errorf("audit log %s", raw)
	}

	// A documentation address as the endpoint, in online mode without it
	// allowed: refused before any dial too.
	g2, _ := netgate.New(netgate.Options{Mode: netgate.Online, AuditLog: filepath.Join(t.TempDir(), "a.log"), Dial: rd.dial})
	for _, ep := range []string{"http://192.0.2.1/v1", "http://[2001:db8::1]:11434"} {
		c, err := New(Options{API: APIOpenAI, Endpoint: ep, Model: "m", HTTP: g2.HTTPClient("answer")})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := c.Chat(context.Background(), question, nil); !errors.Is(err, netgate.ErrBlocked) {
			t.Errorf("%s: %v", ep, err)
		}
	}
	if calls := rd.calls(); len(calls) != 0 {
		t.Errorf("dialled %v", calls)
	}
}

func TestChatURLFromTheEndpoint(t *testing.T) {
	cases := []struct{ api, endpoint, want string }{
		{APIOpenAI, "https://api.openai.com/v1", "https://api.openai.com/v1/chat/completions"},
		{APIOpenAI, "https://api.openai.com/v1/", "https://api.openai.com/v1/chat/completions"},
		{APIOpenAI, "http://localhost:8080", "http://localhost:8080/v1/chat/completions"},
		{APIOpenAI, "https://gw.example.test/openai/v1/chat/completions?api-version=2", "https://gw.example.test/openai/v1/chat/completions?api-version=2"},
		{APIOllama, "http://localhost:11434", "http://localhost:11434/api/chat"},
		{APIOllama, "http://localhost:11434/api", "http://localhost:11434/api/chat"},
		{APIOllama, "http://localhost:11434/api/chat", "http://localhost:11434/api/chat"},
	}
	for _, c := range cases {
		u, err := chatURL(c.api, c.endpoint)
		if err != nil || u.String() != c.want {
			t.Errorf("%s %s: %v %v, want %s", c.api, c.endpoint, u, err, c.want)
		}
	}
	for _, bad := range []struct{ api, endpoint, want string }{
		{APIOpenAI, "api.openai.com", "is not an http:// or https:// URL"},
		{"grpc", "http://localhost", `network.api "grpc": use openai or ollama`},
		{APIOpenAI, "https://ann:s3cret@api.example.test/v1", `network.endpoint "https://xxxxx@api.example.test/v1": remove the user name and password`},
	} {
		if _, err := chatURL(bad.api, bad.endpoint); err == nil || !strings.Contains(err.Error(), bad.want) {
			t.Errorf("%s %s: %v", bad.api, bad.endpoint, err)
		}
	}
}

// memKeyring is a keyring in memory.
type memKeyring struct {
	m   map[string]string
	err error
}

func (k *memKeyring) Get(s, u string) (string, error) {
	if k.err != nil {
		return "", k.err
	}
	v, ok := k.m[s+"/"+u]
	if !ok {
		return "", ErrNoKey
	}
	return v, nil
}
func (k *memKeyring) Set(s, u, v string) error { k.m[s+"/"+u] = v; return k.err }
func (k *memKeyring) Delete(s, u string) error { delete(k.m, s+"/"+u); return k.err }

func TestKeyComesFromTheEnvironmentThenTheKeyring(t *testing.T) {
	env := map[string]string{}
	getenv := func(k string) string { return env[k] }
	kr := &memKeyring{m: map[string]string{}}
	if k := LookupKey(getenv, kr); k != (Key{}) {
		t.Errorf("nothing anywhere: %+v", k)
	}
	if err := StoreKey(kr, "  sk-from-keyring-9999\n"); err != nil {
		t.Fatal(err)
	}
	if k := LookupKey(getenv, kr); k.Value != "sk-from-keyring-9999" || k.Source != "the keyring" || k.Masked() != "sk-…9999" {
		t.Errorf("keyring: %+v", k)
	}
	env[KeyEnv] = "sk-from-env-0000000"
	if k := LookupKey(getenv, kr); k.Value != "sk-from-env-0000000" || k.Source != KeyEnv {
		t.Errorf("environment: %+v", k)
	}
	DeleteKey(kr)
	delete(env, KeyEnv)
	if k := LookupKey(getenv, kr); k.Value != "" {
		t.Errorf("after delete: %+v", k)
	}

	// No session bus: the system keyring says so at once and is not asked.
	sys := SystemKeyring{Getenv: func(string) string { return "" }}
	start := time.Now()
	k := LookupKey(getenv, sys)
	if k.Value != "" || !strings.Contains(k.Note, "there is no D-Bus session bus (no desktop session), so the keyring cannot be asked; set CAIRN_API_KEY instead") {
		t.Errorf("no bus: %+v", k)
	}
	if err := StoreKey(sys, "sk-x"); !errors.Is(err, ErrNoKeyring) {
		t.Errorf("store without a bus: %v", err)
	}
	if time.Since(start) > 5*time.Second { // asking a bus that is not there waits 25 s
		t.Errorf("took %v without a bus", time.Since(start))
	}
}

func TestMask(t *testing.T) {
	for in, want := range map[string]string{
		"":                             "(none)",
		"abc":                          "…",
		"0123456789":                   "…89",
		"sk-proj-abcdefghijklmnop1234": "sk-…1234",
	} {
		if got := Mask(in); got != want {
			t.Errorf("Mask(%q) = %q, want %q", in, got, want)
		}
	}
}

// A keyring that does not answer in time gives an error and no value,
// even when its call returns later (run with -race: the late value must
// not be written where the caller reads).
func TestAKeyringThatDoesNotAnswerTimesOut(t *testing.T) {
	sys := SystemKeyring{Getenv: func(k string) string {
		return map[string]string{"DBUS_SESSION_BUS_ADDRESS": "unix:path=/nonexistent"}[k]
	},
		Timeout: 50 * time.Millisecond}
	late := make(chan struct{})
	returned := make(chan struct{})
	v, err := sys.call(func() (string, error) {
		defer close(returned)
		<-late
		return "sk-late-1234", nil
	})
	close(late)
	<-returned
	if v != "" || !errors.Is(err, ErrNoKeyring) || !strings.Contains(err.Error(), "the keyring did not answer within 50ms (is it locked?)") {
		t.Errorf("got %q, %v", v, err)
	}
}

// TestWeaviateKeyIsSeparateFromTheAnswerKey: the team cluster's key comes
// from CAIRN_WEAVIATE_KEY or its own keyring entry, never from the answer
// endpoint's.
func TestWeaviateKeyIsSeparateFromTheAnswerKey(t *testing.T) {
	env := map[string]string{KeyEnv: "sk-answer-key-0000"}
	getenv := func(k string) string { return env[k] }
	kr := &memKeyring{m: map[string]string{"cairn/api_key": "sk-answer-key-1111"}}
	if k := LookupWeaviateKey(getenv, kr); k != (Key{}) {
		t.Errorf("only the answer key is set, yet: %+v", k)
	}
	kr.m["cairn/weaviate_key"] = "wv-keyring-2222"
	if k := LookupWeaviateKey(getenv, kr); k.Value != "wv-keyring-2222" || k.Source != "the keyring" {
		t.Errorf("keyring: %+v", k)
	}
	env[WeaviateKeyEnv] = " wv-env-3333 "
	if k := LookupWeaviateKey(getenv, kr); k.Value != "wv-env-3333" || k.Source != WeaviateKeyEnv {
		t.Errorf("environment: %+v", k)
	}
	if k := LookupKey(getenv, kr); k.Value != "sk-answer-key-0000" {
		t.Errorf("the answer key changed: %+v", k)
	}
	// Without a keyring, the note names the cluster key's variable.
	delete(env, WeaviateKeyEnv)
	k := LookupWeaviateKey(getenv, SystemKeyring{Getenv: func(string) string { return "" }})
	if k.Value != "" || !strings.Contains(k.Note, "set CAIRN_WEAVIATE_KEY instead") || strings.Contains(k.Note, "CAIRN_API_KEY") {
		t.Errorf("no bus: %+v", k)
	}
}

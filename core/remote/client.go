// Package remote is Cairn's online chat client: an OpenAI-compatible
// /v1/chat/completions endpoint (streamed as server-sent events) or
// Ollama's /api/chat (streamed as JSON lines). It speaks HTTP only through
// the client it is given, which in Cairn is the network gate's.
package remote

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"

	"cairn/core/netgate"
)

// APIs the client speaks.
const (
	APIOpenAI = "openai"
	APIOllama = "ollama"
)

// Errors a caller may want to tell apart; match them with errors.Is.
var (
	ErrKeyRejected = errors.New("API key rejected")
	ErrNotFound    = errors.New("model or endpoint not found")
	ErrTimeout     = errors.New("endpoint timed out")
	ErrMalformed   = errors.New("malformed reply stream")
)

// Error is a failure of the endpoint, with a message for a person; it
// unwraps to one of the Err values above when one applies.
type Error struct {
	Kind   error // ErrKeyRejected, ErrNotFound, ErrTimeout, ErrMalformed or nil
	Status int   // HTTP status, when the endpoint answered with one
	Msg    string
	cause  error
}

func (e *Error) Error() string { return e.Msg }

// Unwrap gives the kind and the underlying cause.
func (e *Error) Unwrap() []error {
	var out []error
	for _, err := range []error{e.Kind, e.cause} {
		if err != nil {
			out = append(out, err)
		}
	}
	return out
}

// Message is one turn of the conversation.
type Message struct {
	Role    string `json:"role"` // system, user or assistant
	Content string `json:"content"`
}

// Request is what to generate. Temperature is always sent (0 is greedy);
// MaxTokens, TopP and Seed are sent when not zero.
type Request struct {
	Messages    []Message
	MaxTokens   int
	Temperature float64
	TopP        float64
	Seed        int
	Stop        []string
}

// Reply is a finished (or interrupted) answer.
type Reply struct {
	Text             string
	PromptTokens     int // as the endpoint counted them; 0 when it did not say
	Tokens           int // generated tokens: the endpoint's count, else the streamed pieces
	TimeToFirstToken time.Duration
	Duration         time.Duration
	StopReason       string // the endpoint's ("stop", "length", …), or "cancelled"
}

// Options configure a client.
type Options struct {
	API      string // openai or ollama
	Endpoint string // base URL (https://api.openai.com/v1, http://localhost:11434) or the full chat URL
	Model    string
	Key      Key          // sent as a Bearer token when set
	HTTP     *http.Client // the network gate's client
	// FirstByteTimeout bounds the wait for the reply to start (a local
	// server may load its model first); IdleTimeout the silence between
	// two pieces of a stream. Defaults: 2 minutes and 1 minute.
	FirstByteTimeout time.Duration
	IdleTimeout      time.Duration
}

// Client talks to one endpoint with one model. It is safe for concurrent
// use.
type Client struct {
	api       string
	url       string
	host      string
	model     string
	key       Key
	http      *http.Client
	firstByte time.Duration
	idle      time.Duration
}

// New checks the options and builds a client.
func New(opt Options) (*Client, error) {
	if opt.HTTP == nil {
		return nil, errors.New("remote chat: no HTTP client given (use the network gate's)")
	}
	if opt.Model == "" {
		return nil, errors.New("remote chat: no model set: set network.chat_model to the endpoint's model name")
	}
	u, err := chatURL(opt.API, opt.Endpoint)
	if err != nil {
		return nil, err
	}
	c := &Client{api: opt.API, url: u.String(), host: u.Host, model: opt.Model, key: opt.Key, http: opt.HTTP,
		firstByte: opt.FirstByteTimeout, idle: opt.IdleTimeout}
	if c.firstByte <= 0 {
		c.firstByte = 2 * time.Minute
	}
	if c.idle <= 0 {
		c.idle = time.Minute
	}
	return c, nil
}

// chatURL is the chat URL for an endpoint: a base URL gets the API's path.
func chatURL(api, endpoint string) (*url.URL, error) {
	u, err := url.Parse(strings.TrimSpace(endpoint))
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("remote chat: network.endpoint %q is not an http:// or https:// URL", netgate.RedactURL(endpoint))
	}
	if u.User != nil { // the URL is shown in messages; the key has its own place
		return nil, fmt.Errorf("remote chat: network.endpoint %q: remove the user name and password from the URL; "+
			"an API key goes in %s or the keyring (`cairn network key set`)", netgate.RedactURL(endpoint), KeyEnv)
	}
	p := strings.TrimRight(u.Path, "/")
	switch api {
	case APIOpenAI:
		switch {
		case strings.HasSuffix(p, "/chat/completions"):
		case strings.HasSuffix(p, "/v1"):
			p += "/chat/completions"
		default:
			p += "/v1/chat/completions"
		}
	case APIOllama:
		switch {
		case strings.HasSuffix(p, "/api/chat"):
		case strings.HasSuffix(p, "/api"):
			p += "/chat"
		default:
			p += "/api/chat"
		}
	default:
		return nil, fmt.Errorf("remote chat: network.api %q: use openai or ollama", api)
	}
	u.Path, u.RawPath = p, ""
	return u, nil
}

// API is the protocol: openai or ollama.
func (c *Client) API() string { return c.api }

// Model is the endpoint's model name.
func (c *Client) Model() string { return c.model }

// Host is the endpoint's host:port as written in its URL.
func (c *Client) Host() string { return c.host }

// Key is the API key the client sends (for a masked display).
func (c *Client) Key() Key { return c.key }

// Chat sends the conversation and streams the answer: onToken (if not
// nil) gets each piece in order, on the caller's goroutine. Cancelling ctx
// stops the stream; the Reply then holds what arrived, with StopReason
// "cancelled", and the error matches context.Canceled. Other failures
// return what arrived too, with an *Error.
func (c *Client) Chat(ctx context.Context, req Request, onToken func(string)) (Reply, error) {
	if len(req.Messages) == 0 {
		return Reply{}, errors.New("remote chat: no messages to send")
	}
	body, err := json.Marshal(c.body(req))
	if err != nil {
		return Reply{}, err
	}
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	// The watchdog ends the request when the endpoint falls silent: first
	// until the reply's body starts (a server may send its headers at once
	// and its first token after loading the model), then between two
	// pieces.
	watchdog := time.AfterFunc(c.firstByte, func() { cancel(errWatchdog) })
	defer watchdog.Stop()

	hreq, err := http.NewRequestWithContext(ctx, http.MethodPost, c.url, bytes.NewReader(body))
	if err != nil {
		return Reply{}, err
	}
	hreq.Header.Set("Content-Type", "application/json")
	if c.api == APIOpenAI {
		hreq.Header.Set("Accept", "text/event-stream")
	}
	if c.key.Value != "" {
		hreq.Header.Set("Authorization", "Bearer "+c.key.Value)
	}

	start := time.Now()
	var rep Reply
	var reply *resetReader // the reply's body, once the headers are in
	emit := func(tok string) {
		if tok == "" {
			return
		}
		if rep.Text == "" {
			rep.TimeToFirstToken = time.Since(start)
		}
		rep.Text += tok
		rep.Tokens++
		if onToken != nil {
			onToken(tok)
		}
	}
	finish := func(err error) (Reply, error) {
		rep.Duration = time.Since(start)
		if err == nil {
			return rep, nil
		}
		switch {
		case context.Cause(ctx) == errWatchdog:
			wait := c.firstByte // the time-out that ran out
			if reply != nil && reply.started {
				wait = c.idle
			}
			if wait >= time.Second {
				wait = wait.Round(time.Second)
			}
			return rep, &Error{Kind: ErrTimeout, cause: err, Msg: fmt.Sprintf("no reply from %s for %s: the endpoint may be overloaded "+
				"or unreachable; try again, or check network.endpoint", c.host, wait)}
		case ctx.Err() != nil:
			rep.StopReason = "cancelled"
			return rep, fmt.Errorf("answer from %s: %w", c.host, ctx.Err())
		}
		var re *Error
		if errors.As(err, &re) {
			return rep, err
		}
		return rep, &Error{cause: err, Msg: fmt.Sprintf("answer from %s (%s, model %s) failed: %s", c.host, c.api, c.model, c.scrub(err.Error()))}
	}

	resp, err := c.http.Do(hreq)
	if err != nil {
		return finish(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return finish(c.statusError(resp))
	}
	reply = &resetReader{r: resp.Body, t: watchdog, d: c.idle}
	ct := resp.Header.Get("Content-Type")
	var st streamStats
	switch {
	case c.api == APIOpenAI && strings.HasPrefix(ct, "application/json"):
		st, err = readOpenAIWhole(reply, emit) // a server that does not stream
	case c.api == APIOpenAI:
		st, err = readOpenAIStream(reply, emit)
	default:
		st, err = readOllamaStream(reply, emit)
	}
	if err != nil && ctx.Err() == nil {
		err = c.streamError(err)
	}
	rep.PromptTokens, rep.StopReason = st.promptTokens, st.stopReason
	if st.tokens > 0 {
		rep.Tokens = st.tokens
	}
	return finish(err)
}

// errWatchdog is the cancel cause when the endpoint fell silent.
var errWatchdog = errors.New("endpoint silent")

// resetReader pushes the watchdog back by d whenever bytes arrive.
type resetReader struct {
	r       io.Reader
	t       *time.Timer
	d       time.Duration
	started bool // bytes arrived: the watchdog runs for d since
}

func (r *resetReader) Read(p []byte) (int, error) {
	n, err := r.r.Read(p)
	if n > 0 {
		r.t.Reset(r.d)
		r.started = true
	}
	return n, err
}

// streamStats is what a stream says besides its text.
type streamStats struct {
	promptTokens, tokens int
	stopReason           string
}

func (c *Client) body(req Request) any {
	var seed *int
	if req.Seed != 0 {
		seed = &req.Seed
	}
	if c.api == APIOllama {
		return ollamaRequest{Model: c.model, Messages: req.Messages, Stream: true, Options: ollamaOptions{
			NumPredict: req.MaxTokens, Temperature: req.Temperature, TopP: req.TopP, Seed: seed, Stop: req.Stop}}
	}
	return openAIRequest{Model: c.model, Messages: req.Messages, Stream: true, StreamOptions: &streamOptions{IncludeUsage: true},
		MaxTokens: req.MaxTokens, Temperature: req.Temperature, TopP: req.TopP, Seed: seed, Stop: req.Stop}
}

// streamError explains what went wrong while reading a stream.
func (c *Client) streamError(err error) error {
	var bad badData
	var se serverError
	switch {
	case errors.As(err, &bad):
		return &Error{Kind: ErrMalformed, cause: err, Msg: fmt.Sprintf("the reply from %s is not an %s chat stream (%s); "+
			"check that network.api matches the server", c.host, c.api, c.scrub(bad.Error()))}
	case errors.As(err, &se):
		return &Error{cause: err, Msg: fmt.Sprintf("%s stopped the answer with an error: %s", c.host, c.scrub(se.msg))}
	case errors.Is(err, errIncomplete):
		return &Error{Kind: ErrMalformed, cause: err, Msg: fmt.Sprintf("the reply from %s ended before the answer was complete; try again", c.host)}
	}
	return &Error{cause: err, Msg: fmt.Sprintf("the connection to %s was lost during the answer: %s; try again", c.host, c.scrub(err.Error()))}
}

// statusError turns an HTTP error status into a message that says what to
// fix.
func (c *Client) statusError(resp *http.Response) error {
	raw, _ := io.ReadAll(io.LimitReader(resp.Body, 8<<10))
	detail := c.scrub(serverMessage(raw))
	status := resp.Status
	if detail != "" {
		status += ": " + detail
	}
	e := &Error{Status: resp.StatusCode}
	switch resp.StatusCode {
	case http.StatusUnauthorized, http.StatusForbidden:
		e.Kind = ErrKeyRejected
		if c.key.Value == "" {
			e.Msg = fmt.Sprintf("%s wants an API key and none is set (%s); set %s, or store one with `cairn network key set`",
				c.host, status, KeyEnv)
		} else {
			e.Msg = fmt.Sprintf("%s rejected the API key %s from %s (%s); check the key, or set another in %s or with `cairn network key set`",
				c.host, c.key.Masked(), c.key.Source, status, KeyEnv)
		}
	case http.StatusNotFound:
		e.Kind = ErrNotFound
		e.Msg = fmt.Sprintf("%s has no model %q or no %s chat API at %s (%s); check network.chat_model, network.endpoint and network.api",
			c.host, c.model, c.api, c.url, status)
	default:
		e.Msg = fmt.Sprintf("%s answered %s; try again later, or check network.endpoint and network.chat_model", c.host, status)
	}
	return e
}

// serverMessage finds the message in an error body: OpenAI's
// {"error":{"message":…}}, Ollama's {"error":"…"}, or the text itself.
func serverMessage(raw []byte) string {
	var oa struct {
		Error json.RawMessage `json:"error"`
	}
	msg := strings.TrimSpace(string(raw))
	if json.Unmarshal(raw, &oa) == nil && len(oa.Error) > 0 {
		var s string
		var obj struct {
			Message string `json:"message"`
		}
		if json.Unmarshal(oa.Error, &s) == nil {
			msg = s
		} else if json.Unmarshal(oa.Error, &obj) == nil && obj.Message != "" {
			msg = obj.Message
		}
	}
	msg = strings.Join(strings.Fields(msg), " ")
	if len(msg) > 300 {
		msg = msg[:300] + "…"
	}
	return msg
}

// scrub masks the API key wherever a server or a library echoes it.
func (c *Client) scrub(s string) string {
	if c.key.Value == "" {
		return s
	}
	return strings.ReplaceAll(s, c.key.Value, c.key.Masked())
}

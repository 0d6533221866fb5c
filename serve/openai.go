package serve

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"net/http"
	"reflect"
	"strings"
	"time"

	"github.com/danielgtaylor/huma/v2"

	"cairn/core/answer"
	"cairn/core/domain"
)

// The OpenAI-compatible endpoint lets the chat clients people already use
// (Open WebUI, Chatbox, LM Studio's and Ollama's clients, the openai
// libraries, LangChain) talk to the knowledge base: one chat model,
// "cairn", that answers the conversation's last user message from the
// documents after the turns before it, with citations; the legacy
// completions; and embeddings with the loaded embedding model. It is
// plain net/http rather than huma: OpenAI's error shape, its paths'
// 404 and its request fields are its own (openai_errors.go).

// openAIModel is the chat model /v1/models lists.
const openAIModel = "cairn"

// ChatRequest is the part of OpenAI's chat completion request Cairn reads.
// temperature, max_tokens, top_p, seed, stop, user... are accepted and not
// used: the settings decide them, as for every question. What would
// change the reply's shape and cannot be done is refused (400).
type ChatRequest struct {
	Model         string         `json:"model,omitempty" doc:"cairn (GET /v1/models); empty is cairn"`
	Messages      []ChatMessage  `json:"messages" doc:"the conversation: the last user message is the question, the user messages before it with the replies that followed are what it follows"`
	Stream        bool           `json:"stream,omitempty" doc:"answer as server-sent chat.completion.chunk events, ending with data: [DONE]"`
	StreamOptions *StreamOptions `json:"stream_options,omitempty"`
	Page          *int           `json:"page,omitempty" doc:"Cairn's: the page of an answer that lists files (50 a page); saying \"next page\" or \"page 2\" does the same"`
	N             *int           `json:"n,omitempty" doc:"1: one answer (more are refused)"`
	Tools         any            `json:"tools,omitempty" doc:"refused: Cairn calls no tools"`
	ToolChoice    any            `json:"tool_choice,omitempty" doc:"none or auto: Cairn calls no tools"`
	Functions     any            `json:"functions,omitempty" doc:"refused: Cairn calls no functions"`
	FunctionCall  any            `json:"function_call,omitempty" doc:"none or auto"`
	// ResponseFormat {"type": "text"} is what Cairn gives; json_object and
	// json_schema are refused: an answer quoted from documents is text.
	ResponseFormat *struct {
		Type string `json:"type"`
	} `json:"response_format,omitempty" doc:"text (json_object and json_schema are refused)"`
	Logprobs bool `json:"logprobs,omitempty" doc:"false (log probabilities are refused)"`
}

// StreamOptions are a streamed request's options.
type StreamOptions struct {
	IncludeUsage bool `json:"include_usage,omitempty" doc:"a last chunk before [DONE] with the usage and no choices"`
}

// ChatMessage is one message of a conversation.
type ChatMessage struct {
	_       struct{} `additionalProperties:"true"`
	Role    string   `json:"role" doc:"system, developer, user, assistant or tool"`
	Content any      `json:"content,omitempty" doc:"a string, or an array of parts: {type: text, text}"`
}

// text is the message's text: the string, or its text parts joined; the
// types of the parts that are not text.
func (m ChatMessage) text() (text string, other []string) {
	switch c := m.Content.(type) {
	case string:
		return c, nil
	case []any:
		var parts []string
		for _, p := range c {
			part, _ := p.(map[string]any)
			t, _ := part["text"].(string)
			if part["type"] != "text" {
				other = append(other, fmt.Sprint(part["type"]))
				continue
			}
			parts = append(parts, t)
		}
		return strings.Join(parts, "\n"), other
	}
	return "", nil
}

// ChatCompletion is OpenAI's chat completion, with Cairn's citations.
type ChatCompletion struct {
	ID      string       `json:"id"`
	Object  string       `json:"object" doc:"chat.completion, or chat.completion.chunk when streamed"`
	Created int64        `json:"created"`
	Model   string       `json:"model"`
	Choices []ChatChoice `json:"choices"`
	Usage   *Usage       `json:"usage,omitempty"`
	// Citations is Cairn's own field: where each [n] of the answer points,
	// as /api/ask gives it. Clients that do not know it ignore it; the
	// answer's text ends with the same sources, for them.
	Citations []answer.Citation `json:"citations,omitempty" doc:"Cairn's extra field: file, page, line, quote and chunk_id of each [n] of the answer (the sources the text lists at its end)"`
	// FollowUp is Cairn's: how the question was read after the conversation.
	FollowUp *answer.FollowUp `json:"follow_up,omitempty" doc:"Cairn's extra field: set when the question was read as a follow-up of the conversation (the text says so too)"`
}

// ChatChoice is the one choice of a completion: Message when whole, Delta
// when streamed.
type ChatChoice struct {
	Index        int          `json:"index"`
	Message      *ChatMessage `json:"message,omitempty"`
	Delta        *ChatDelta   `json:"delta,omitempty"`
	FinishReason *string      `json:"finish_reason"`
}

// ChatDelta is a streamed piece of the answer.
type ChatDelta struct {
	Role    string `json:"role,omitempty"`
	Content string `json:"content,omitempty"`
}

// Usage counts tokens in the chat model's own tokens: what it read and
// wrote, or, for a quoted answer, the conversation and the reply as it
// (else the embedding model) counts them (Engine.TokenCount).
type Usage struct {
	PromptTokens     int `json:"prompt_tokens"`
	CompletionTokens int `json:"completion_tokens,omitempty"`
	TotalTokens      int `json:"total_tokens"`
}

// CompletionRequest is the legacy completion request: the prompt is the
// question.
type CompletionRequest struct {
	Model         string         `json:"model,omitempty" doc:"cairn"`
	Prompt        any            `json:"prompt" doc:"the question: a string (or an array of one)"`
	Stream        bool           `json:"stream,omitempty"`
	StreamOptions *StreamOptions `json:"stream_options,omitempty"`
	Page          *int           `json:"page,omitempty" doc:"Cairn's: the page of an answer that lists files"`
	N             *int           `json:"n,omitempty" doc:"1 (more are refused)"`
	BestOf        *int           `json:"best_of,omitempty" doc:"1 (more are refused)"`
	Echo          bool           `json:"echo,omitempty" doc:"false (refused)"`
	Suffix        string         `json:"suffix,omitempty" doc:"refused: Cairn does not insert"`
	Logprobs      *int           `json:"logprobs,omitempty" doc:"refused"`
}

// Completion is the legacy text completion.
type Completion struct {
	ID      string             `json:"id"`
	Object  string             `json:"object" doc:"text_completion"`
	Created int64              `json:"created"`
	Model   string             `json:"model"`
	Choices []CompletionChoice `json:"choices"`
	Usage   *Usage             `json:"usage,omitempty"`
	// Citations is Cairn's own field, as in ChatCompletion.
	Citations []answer.Citation `json:"citations,omitempty"`
}

// CompletionChoice is the one choice of a completion.
type CompletionChoice struct {
	Index        int     `json:"index"`
	Text         string  `json:"text"`
	Logprobs     any     `json:"logprobs"`
	FinishReason *string `json:"finish_reason"`
}

// EmbeddingRequest is OpenAI's embeddings request.
type EmbeddingRequest struct {
	Model          string `json:"model,omitempty" doc:"the embedding model's id (GET /v1/models), or cairn: the loaded embedding model"`
	Input          any    `json:"input" doc:"a text or an array of texts (token ids are refused)"`
	EncodingFormat string `json:"encoding_format,omitempty" doc:"float (the default) or base64 (little-endian float32)"`
	Dimensions     *int   `json:"dimensions,omitempty" doc:"the model's own dimension (others are refused: set embedding.dim)"`
	User           string `json:"user,omitempty"`
}

// EmbeddingList is the embeddings' reply.
type EmbeddingList struct {
	Object string      `json:"object" doc:"list"`
	Data   []Embedding `json:"data"`
	Model  string      `json:"model"`
	Usage  Usage       `json:"usage"`
}

// Embedding is one text's vector: floats, or base64 when asked.
type Embedding struct {
	Object    string `json:"object" doc:"embedding"`
	Index     int    `json:"index"`
	Embedding any    `json:"embedding" doc:"an array of numbers, or a base64 string of little-endian float32"`
}

// ModelList is /v1/models' reply.
type ModelList struct {
	Object string      `json:"object" example:"list"`
	Data   []ModelInfo `json:"data"`
}

// ModelInfo is one model of the list.
type ModelInfo struct {
	ID      string `json:"id"`
	Object  string `json:"object" example:"model"`
	Created int64  `json:"created" doc:"when the service started"`
	OwnedBy string `json:"owned_by"`
}

// maxEmbedInputs bounds the texts of one embeddings request, as OpenAI's.
const maxEmbedInputs = 2048

// registerOpenAI puts /v1 on mux: every path under it answers, an unknown
// one with OpenAI's 404.
func (s *Server) registerOpenAI(mux *http.ServeMux) {
	mux.HandleFunc("GET /v1/models", s.oai(s.listModels))
	mux.HandleFunc("GET /v1/models/{id}", s.oai(s.getModel))
	mux.HandleFunc("POST /v1/chat/completions", s.oai(s.chat))
	mux.HandleFunc("POST /v1/completions", s.oai(s.complete))
	mux.HandleFunc("POST /v1/embeddings", s.oai(s.embeddings))
	mux.HandleFunc("/v1/", s.oai(func(w http.ResponseWriter, r *http.Request) error {
		for _, p := range []string{"/v1/models", "/v1/chat/completions", "/v1/completions", "/v1/embeddings"} {
			if r.URL.Path == p {
				return newOAIError(http.StatusMethodNotAllowed, "method_not_allowed", "", r.Method+" "+p+" is not served: use "+
					map[bool]string{true: "GET", false: "POST"}[p == "/v1/models"])
			}
		}
		return newOAIError(http.StatusNotFound, "unknown_url", "", "Invalid URL ("+r.Method+" "+r.URL.Path+"): Cairn serves "+
			"GET /v1/models, GET /v1/models/{id}, POST /v1/chat/completions, POST /v1/completions and POST /v1/embeddings")
	}))
}

// oai adapts a handler whose errors are written as OpenAI's.
func (s *Server) oai(h func(w http.ResponseWriter, r *http.Request) error) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if err := h(w, r); err != nil {
			if r.Context().Err() != nil {
				err = newOAIError(statusClientGone, "", "", "the request was cancelled")
			}
			writeOAIError(w, toOAIError(err))
		}
	}
}

func (s *Server) models(ctx context.Context) []ModelInfo {
	out := []ModelInfo{{ID: openAIModel, Object: "model", Created: s.started.Unix(), OwnedBy: "cairn"}}
	if name, err := s.eng.EmbeddingModel(ctx); err == nil && name != "" {
		out = append(out, ModelInfo{ID: name, Object: "model", Created: s.started.Unix(), OwnedBy: "cairn"})
	}
	return out
}

func (s *Server) listModels(w http.ResponseWriter, r *http.Request) error {
	writeJSON(w, ModelList{Object: "list", Data: s.models(r.Context())})
	return nil
}

func (s *Server) getModel(w http.ResponseWriter, r *http.Request) error {
	id := r.PathValue("id")
	for _, m := range s.models(r.Context()) {
		if m.ID == id {
			writeJSON(w, m)
			return nil
		}
	}
	return modelNotFound(id)
}

func modelNotFound(id string) *oaiError {
	return newOAIError(http.StatusNotFound, "model_not_found", "model",
		fmt.Sprintf("The model %q does not exist: Cairn answers as %q (GET /v1/models lists its models)", id, openAIModel))
}

// checkModel accepts the chat model (or none); the embedding model cannot chat.
func (s *Server) checkModel(ctx context.Context, model string) error {
	if model == "" || model == openAIModel {
		return nil
	}
	if name, err := s.eng.EmbeddingModel(ctx); err == nil && name == model {
		return newOAIError(http.StatusBadRequest, "model_not_supported", "model",
			fmt.Sprintf("%s is the embedding model: it makes vectors (POST /v1/embeddings); chat with %q", model, openAIModel))
	}
	return modelNotFound(model)
}

// readBody decodes a JSON body into v: not JSON is a 400, over the bound
// (the guard's MaxBytesReader) a 413.
func (s *Server) readBody(r *http.Request, v any) error {
	err := json.NewDecoder(r.Body).Decode(v)
	var tooBig *http.MaxBytesError
	switch {
	case errors.As(err, &tooBig):
		return newOAIError(http.StatusRequestEntityTooLarge, "request_too_large", "", tooLarge("the request body", s.opt.Limits.MaxBody))
	case err != nil:
		return newOAIError(http.StatusBadRequest, "invalid_json", "", "the body is not the JSON of a request: "+err.Error())
	}
	return nil
}

// refuseParams refuses what would change the reply's shape and cannot be
// done, naming the parameter.
func refuseParams(n *int, more map[string]bool) error {
	if n != nil && *n != 1 {
		return newOAIError(http.StatusBadRequest, "unsupported_parameter", "n",
			fmt.Sprintf("n: Cairn gives one answer (its documents say one thing), not %d: leave n out or give 1", *n))
	}
	for _, name := range []string{"tools", "functions", "tool_choice", "function_call", "response_format", "logprobs", "best_of", "echo", "suffix"} {
		if more[name] {
			return newOAIError(http.StatusBadRequest, "unsupported_parameter", name, map[string]string{
				"tools":           "tools: Cairn calls no tools; it answers from your documents (leave tools out)",
				"functions":       "functions: Cairn calls no functions; it answers from your documents (leave functions out)",
				"tool_choice":     "tool_choice: Cairn calls no tools (leave it out, or none)",
				"function_call":   "function_call: Cairn calls no functions (leave it out, or none)",
				"response_format": "response_format: Cairn answers in text, quoted or written from your documents, not in JSON (leave it out, or {\"type\": \"text\"})",
				"logprobs":        "logprobs: Cairn gives no log probabilities (a quoted answer has none)",
				"best_of":         "best_of: Cairn gives one answer",
				"echo":            "echo: Cairn does not repeat the prompt",
				"suffix":          "suffix: Cairn answers a question; it does not insert text",
			}[name])
		}
	}
	return nil
}

// present reports whether an optional field holds something other than
// its empty or off values.
func present(v any, off ...string) bool {
	switch x := v.(type) {
	case nil:
		return false
	case []any:
		return len(x) > 0
	case string:
		for _, o := range off {
			if x == o {
				return false
			}
		}
		return true
	case map[string]any:
		t, _ := x["type"].(string)
		return len(x) > 0 && !(len(off) > 0 && t == "none")
	}
	return true
}

// chatQuestion reads the messages into the question and the conversation
// before it, as `cairn ask --continue` follows a saved one: each user
// message before the last, with the assistant's reply that followed, is a
// turn. A message asking for another page of the list just shown ("next
// page", "page 2") asks the list's question again for that page.
func chatQuestion(msgs []ChatMessage) (question string, history []answer.Turn, page int, err error) {
	last := -1
	for i, m := range msgs {
		switch m.Role {
		case "user":
			last = i
		case "assistant":
			if last >= 0 && i > last {
				last = -2 // a reply after the last question
			}
		}
	}
	switch last {
	case -1:
		return "", nil, 0, newOAIError(http.StatusBadRequest, "invalid_value", "messages",
			"messages: no user message: the last user message is the question Cairn answers")
	case -2:
		return "", nil, 0, newOAIError(http.StatusBadRequest, "invalid_value", "messages",
			"messages: the conversation ends with the assistant's message: end it with the user's question")
	}
	var other []string
	question, other = msgs[last].text()
	question = strings.TrimSpace(question)
	if len(other) > 0 {
		return "", nil, 0, newOAIError(http.StatusBadRequest, "unsupported_content", fmt.Sprintf("messages[%d].content", last),
			fmt.Sprintf("messages[%d]: Cairn reads text, not %s: ask in words", last, strings.Join(other, ", ")))
	}
	if question == "" {
		return "", nil, 0, newOAIError(http.StatusBadRequest, "invalid_value", fmt.Sprintf("messages[%d].content", last),
			"messages: the last user message has no text: it is the question Cairn answers")
	}
	for _, m := range msgs[:last] {
		text, _ := m.text()
		switch m.Role {
		case "user":
			history = append(history, answer.Turn{Question: strings.TrimSpace(text)})
		case "assistant":
			if n := len(history); n > 0 && history[n-1].Answer == "" {
				history[n-1].Answer, history[n-1].Query = readReply(text)
			}
		}
	}
	// "next page" after a list: the list's question again, for that page.
	if n := len(history); n > 0 {
		if shown, pages, ok := listPage(history[n-1].Answer + "\n"); ok {
			if p := pageAsked(question, shown); p > 0 {
				prev := history[n-1]
				return prev.Question, history[:n-1], min(p, pages), nil
			}
		}
	}
	return question, history, 0, nil
}

func (s *Server) chat(w http.ResponseWriter, r *http.Request) error {
	var in ChatRequest
	if err := s.readBody(r, &in); err != nil {
		return err
	}
	if err := refuseParams(in.N, map[string]bool{"tools": present(in.Tools), "functions": present(in.Functions),
		"tool_choice": present(in.ToolChoice, "none", "auto"), "function_call": present(in.FunctionCall, "none", "auto"),
		"response_format": in.ResponseFormat != nil && in.ResponseFormat.Type != "" && in.ResponseFormat.Type != "text",
		"logprobs":        in.Logprobs}); err != nil {
		return err
	}
	if err := s.checkModel(r.Context(), in.Model); err != nil {
		return err
	}
	question, history, asked, err := chatQuestion(in.Messages)
	if err != nil {
		return err
	}
	var page *int
	if asked > 0 {
		page = &asked
	}
	if in.Page != nil {
		page = in.Page // checked with the other parameters
	}
	var prompt strings.Builder
	for _, m := range in.Messages {
		text, _ := m.text()
		prompt.WriteString(text + "\n")
	}
	return s.reply(w, r, replyRequest{question: question, history: history, page: page, stream: in.Stream,
		usage: in.StreamOptions != nil && in.StreamOptions.IncludeUsage, prompt: prompt.String(), chat: true})
}

func (s *Server) complete(w http.ResponseWriter, r *http.Request) error {
	var in CompletionRequest
	if err := s.readBody(r, &in); err != nil {
		return err
	}
	if err := refuseParams(in.N, map[string]bool{"best_of": in.BestOf != nil && *in.BestOf != 1, "echo": in.Echo,
		"suffix": in.Suffix != "", "logprobs": in.Logprobs != nil}); err != nil {
		return err
	}
	if err := s.checkModel(r.Context(), in.Model); err != nil {
		return err
	}
	var prompt string
	switch p := in.Prompt.(type) {
	case string:
		prompt = p
	case []any:
		if len(p) == 1 {
			prompt, _ = p[0].(string)
		}
		if len(p) != 1 || prompt == "" {
			return newOAIError(http.StatusBadRequest, "unsupported_parameter", "prompt",
				"prompt: give one question as a string (Cairn answers one prompt at a time, and reads text, not token ids)")
		}
	default:
		return newOAIError(http.StatusBadRequest, "invalid_value", "prompt", "prompt: the question, as a string")
	}
	if strings.TrimSpace(prompt) == "" {
		return newOAIError(http.StatusBadRequest, "invalid_value", "prompt", "prompt: empty: it is the question Cairn answers")
	}
	return s.reply(w, r, replyRequest{question: strings.TrimSpace(prompt), page: in.Page, stream: in.Stream,
		usage: in.StreamOptions != nil && in.StreamOptions.IncludeUsage, prompt: prompt})
}

// replyRequest is a question from /v1, chat or completion.
type replyRequest struct {
	question string
	history  []answer.Turn
	page     *int // nil: the first, unless the conversation asks for another
	stream   bool
	usage    bool   // stream_options.include_usage
	prompt   string // what the client sent, counted as the prompt's tokens when no model read it
	chat     bool   // chat.completion; else text_completion
}

// reply answers a /v1 question, whole or streamed, as the chat's or the
// completion's shape.
func (s *Server) reply(w http.ResponseWriter, r *http.Request, rr replyRequest) error {
	var values map[string]any
	if rr.page != nil {
		values = map[string]any{"page": float64(*rr.page)}
	}
	q, err := s.request(rr.question, askParams, values)
	if err != nil {
		return err
	}
	conv := conversation{history: rr.history}
	release, ok := s.asks.acquire()
	if !ok {
		return s.busy()
	}
	defer release()
	id, created := randomID(), time.Now().Unix()
	shape := chatShape{id: "chatcmpl-" + id, created: created}
	if !rr.chat {
		shape.id = "cmpl-" + id
	}
	if !rr.stream {
		ans, err := s.answer(r.Context(), q, conv, nil)
		if err != nil {
			return err
		}
		text := ans.Text + chatFooter(ans, q.page)
		usage := s.usage(r.Context(), ans, rr.prompt, text)
		if rr.chat {
			writeJSON(w, shape.whole(ans, text, &usage))
		} else {
			writeJSON(w, shape.completion(ans, text, &usage))
		}
		return nil
	}
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(http.StatusOK)
	send := func(v any) {
		b, _ := json.Marshal(v)
		fmt.Fprintf(w, "data: %s\n\n", b)
		http.NewResponseController(w).Flush()
	}
	piece := func(text string, finish *string) any {
		if rr.chat {
			return shape.chunk(ChatDelta{Content: text}, finish)
		}
		return shape.completionChunk(text, finish)
	}
	if rr.chat {
		send(shape.chunk(ChatDelta{Role: "assistant"}, nil))
	}
	// A quoted answer writes no tokens: its text comes whole at the end.
	var streamed strings.Builder
	ans, err := s.answer(r.Context(), q, conv, func(tok string) {
		streamed.WriteString(tok)
		send(piece(tok, nil))
	})
	if err != nil {
		if r.Context().Err() != nil {
			s.log.Debug("completion stopped: the client went away")
			return nil
		}
		// Headers are out: the error goes in the stream, as OpenAI's does.
		oe := toOAIError(err)
		send(map[string]oaiErrorBody{"error": oe.body})
		return nil
	}
	rest := chatFooter(ans, q.page)
	if streamed.Len() == 0 {
		rest = ans.Text + rest
	}
	stop := "stop"
	last := piece(rest, &stop)
	switch l := last.(type) {
	case ChatCompletion:
		l.Citations, l.FollowUp = ans.Citations, ans.FollowUp
		last = l
	case Completion:
		l.Citations = ans.Citations
		last = l
	}
	send(last)
	if rr.usage {
		usage := s.usage(r.Context(), ans, rr.prompt, streamed.String()+rest)
		if rr.chat {
			send(ChatCompletion{ID: shape.id, Object: "chat.completion.chunk", Created: shape.created, Model: openAIModel, Choices: []ChatChoice{}, Usage: &usage})
		} else {
			send(Completion{ID: shape.id, Object: "text_completion", Created: shape.created, Model: openAIModel, Choices: []CompletionChoice{}, Usage: &usage})
		}
	}
	fmt.Fprint(w, "data: [DONE]\n\n")
	return nil
}

// usage counts a reply's tokens: the chat model's own count of what it
// read and wrote; for a quoted answer, what the client sent and the reply,
// in the tokens of the model that would have read and written them.
func (s *Server) usage(ctx context.Context, ans *answer.Answer, prompt, reply string) Usage {
	if t := ans.Timing; t.PromptTokens > 0 || t.Tokens > 0 {
		return Usage{PromptTokens: t.PromptTokens, CompletionTokens: t.Tokens, TotalTokens: t.PromptTokens + t.Tokens}
	}
	in, _ := s.eng.TokenCount(ctx, prompt)
	out, _ := s.eng.TokenCount(ctx, reply)
	return Usage{PromptTokens: in, CompletionTokens: out, TotalTokens: in + out}
}

// chatShape makes one reply's objects, which share its id and time.
type chatShape struct {
	id      string
	created int64
}

func (c chatShape) whole(ans *answer.Answer, text string, usage *Usage) ChatCompletion {
	stop := "stop"
	return ChatCompletion{ID: c.id, Object: "chat.completion", Created: c.created, Model: openAIModel, Usage: usage,
		Choices:   []ChatChoice{{Message: &ChatMessage{Role: "assistant", Content: text}, FinishReason: &stop}},
		Citations: ans.Citations, FollowUp: ans.FollowUp}
}

func (c chatShape) chunk(d ChatDelta, finish *string) ChatCompletion {
	return ChatCompletion{ID: c.id, Object: "chat.completion.chunk", Created: c.created, Model: openAIModel,
		Choices: []ChatChoice{{Delta: &d, FinishReason: finish}}}
}

func (c chatShape) completion(ans *answer.Answer, text string, usage *Usage) Completion {
	stop := "stop"
	return Completion{ID: c.id, Object: "text_completion", Created: c.created, Model: openAIModel, Usage: usage,
		Choices: []CompletionChoice{{Text: text, FinishReason: &stop}}, Citations: ans.Citations}
}

func (c chatShape) completionChunk(text string, finish *string) Completion {
	return Completion{ID: c.id, Object: "text_completion", Created: c.created, Model: openAIModel,
		Choices: []CompletionChoice{{Text: text, FinishReason: finish}}}
}

func (s *Server) embeddings(w http.ResponseWriter, r *http.Request) error {
	var in EmbeddingRequest
	if err := s.readBody(r, &in); err != nil {
		return err
	}
	var texts []string
	switch x := in.Input.(type) {
	case string:
		texts = []string{x}
	case []any:
		for _, e := range x {
			t, ok := e.(string)
			if !ok {
				return newOAIError(http.StatusBadRequest, "unsupported_parameter", "input",
					"input: give texts (a string or an array of strings): Cairn does not read token ids")
			}
			texts = append(texts, t)
		}
	default:
		return newOAIError(http.StatusBadRequest, "invalid_value", "input", "input: a text, or an array of texts")
	}
	switch {
	case len(texts) == 0:
		return newOAIError(http.StatusBadRequest, "invalid_value", "input", "input: no text to embed")
	case len(texts) > maxEmbedInputs:
		return newOAIError(http.StatusBadRequest, "invalid_value", "input", fmt.Sprintf("input: %d texts, over the %d of one request", len(texts), maxEmbedInputs))
	}
	for i, t := range texts {
		if strings.TrimSpace(t) == "" {
			return newOAIError(http.StatusBadRequest, "invalid_value", "input", fmt.Sprintf("input[%d]: an empty text has no meaning to embed", i))
		}
	}
	if f := in.EncodingFormat; f != "" && f != "float" && f != "base64" {
		return newOAIError(http.StatusBadRequest, "invalid_value", "encoding_format", "encoding_format: float or base64, not "+f)
	}
	name, err := s.eng.EmbeddingModel(r.Context())
	switch {
	case err != nil:
		return newOAIError(http.StatusServiceUnavailable, "model_unavailable", "model", "the embedding model could not be loaded: "+apiError(err).Error())
	case name == "":
		return newOAIError(http.StatusNotFound, "model_not_found", "model", domain.ErrNoEmbedder.Error())
	case in.Model != "" && in.Model != name && in.Model != openAIModel:
		return newOAIError(http.StatusNotFound, "model_not_found", "model",
			fmt.Sprintf("The model %q does not exist: the embedding model is %q (GET /v1/models)", in.Model, name))
	}
	emb, err := s.eng.Embed(r.Context(), texts)
	if errors.Is(err, domain.ErrNoEmbedder) {
		return newOAIError(http.StatusNotFound, "model_not_found", "model", err.Error())
	}
	if err != nil {
		return requestError(r.Context(), err)
	}
	if len(emb.Vectors) > 0 && in.Dimensions != nil && *in.Dimensions != len(emb.Vectors[0]) {
		return newOAIError(http.StatusBadRequest, "unsupported_parameter", "dimensions", fmt.Sprintf(
			"dimensions: %s makes vectors of %d dimensions, not %d (the setting embedding.dim shortens them for every use)", name, len(emb.Vectors[0]), *in.Dimensions))
	}
	out := EmbeddingList{Object: "list", Model: emb.Model, Usage: Usage{PromptTokens: emb.Tokens, TotalTokens: emb.Tokens}}
	for i, v := range emb.Vectors {
		var e any = v
		if in.EncodingFormat == "base64" {
			e = base64Floats(v)
		}
		out.Data = append(out.Data, Embedding{Object: "embedding", Index: i, Embedding: e})
	}
	writeJSON(w, out)
	return nil
}

// base64Floats is a vector as OpenAI's base64 encoding writes it: its
// float32s, little-endian.
func base64Floats(v []float32) string {
	b := make([]byte, 4*len(v))
	for i, x := range v {
		binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(x))
	}
	return base64.StdEncoding.EncodeToString(b)
}

func writeJSON(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusOK)
	json.NewEncoder(w).Encode(v)
}

func randomID() string {
	b := make([]byte, 12)
	rand.Read(b)
	return hex.EncodeToString(b)
}

// describeOpenAI puts /v1 in the OpenAPI document, its types' schemas
// from the registry as huma makes them.
func describeOpenAI(oapi *huma.OpenAPI) {
	reg := oapi.Components.Schemas
	schema := func(name string, t any) *huma.Schema {
		return reg.Schema(reflect.TypeOf(t), true, name)
	}
	errSchema := &huma.Schema{Type: huma.TypeObject, Description: "OpenAI's error shape", Properties: map[string]*huma.Schema{
		"error": {Type: huma.TypeObject, Properties: map[string]*huma.Schema{
			"message": {Type: huma.TypeString}, "type": {Type: huma.TypeString},
			"param": {Type: huma.TypeString, Nullable: true}, "code": {Type: huma.TypeString, Nullable: true}}}}}
	op := func(method, path, id, summary, desc string, body, reply *huma.Schema, stream bool, codes ...int) {
		o := &huma.Operation{OperationID: id, Method: method, Path: path, Tags: []string{"OpenAI-compatible"}, Summary: summary, Description: desc,
			Responses: map[string]*huma.Response{}}
		content := map[string]*huma.MediaType{"application/json": {Schema: reply}}
		if stream {
			content["text/event-stream"] = &huma.MediaType{Schema: &huma.Schema{Type: huma.TypeString}}
		}
		o.Responses["200"] = &huma.Response{Description: "OK", Content: content}
		if body != nil {
			o.RequestBody = &huma.RequestBody{Required: true, Content: map[string]*huma.MediaType{"application/json": {Schema: body}}}
		}
		if strings.Contains(path, "{id}") {
			o.Parameters = []*huma.Param{{Name: "id", In: "path", Required: true, Schema: &huma.Schema{Type: huma.TypeString}}}
		}
		for _, code := range append([]int{400, 401, 403, 404, 413, 422}, codes...) {
			o.Responses[fmt.Sprint(code)] = &huma.Response{Description: http.StatusText(code) + " (OpenAI's error shape; a 422 of the rest of the API is a 400 here)",
				Content: map[string]*huma.MediaType{"application/json": {Schema: errSchema}}}
		}
		oapi.AddOperation(o)
	}
	op(http.MethodGet, "/v1/models", "openai-models", "OpenAI-compatible: the models, cairn and the embedding model", "", nil, schema("ModelList", ModelList{}), false)
	op(http.MethodGet, "/v1/models/{id}", "openai-model", "OpenAI-compatible: one model (404 model_not_found)", "", nil, schema("ModelInfo", ModelInfo{}), false)
	op(http.MethodPost, "/v1/chat/completions", "openai-chat", "OpenAI-compatible: answer the conversation's last user message from the documents",
		"The user messages before it, with the replies that followed, are the conversation it follows, as with `cairn ask --continue`. "+
			"The answer's text ends with what `cairn ask` prints after it (the follow-up statement, notes, the sources); `citations` holds them "+
			"as `/api/ask` does. With `stream: true`, server-sent `chat.completion.chunk` events, the last with `finish_reason` and `citations`, "+
			"then the usage when `stream_options.include_usage`, then `data: [DONE]`.",
		schema("ChatRequest", ChatRequest{}), schema("ChatCompletion", ChatCompletion{}), true, 429, 502, 503)
	op(http.MethodPost, "/v1/completions", "openai-completion", "OpenAI-compatible (legacy): answer the prompt as a question", "",
		schema("CompletionRequest", CompletionRequest{}), schema("Completion", Completion{}), true, 429, 502, 503)
	op(http.MethodPost, "/v1/embeddings", "openai-embeddings", "OpenAI-compatible: embed texts with the loaded embedding model",
		"404 `model_not_found` when no embedding model is loaded.", schema("EmbeddingRequest", EmbeddingRequest{}), schema("EmbeddingList", EmbeddingList{}), false, 503)
	if r := oapi.Paths["/v1/chat/completions"].Post.Responses["429"]; r != nil {
		r.Headers = map[string]*huma.Param{"Retry-After": {Schema: &huma.Schema{Type: huma.TypeInteger}}}
	}
}

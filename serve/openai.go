package serve

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/danielgtaylor/huma/v2"

	"cairn/core/answer"
	"cairn/core/search"
)

// The OpenAI-compatible endpoint lets chat clients people already use
// (Open WebUI, Chatbox, the openai libraries) talk to the knowledge base:
// one model, "cairn", that answers the conversation's last user message
// from the documents, with citations.

// openAIModel is the one model /v1/models lists.
const openAIModel = "cairn"

// ChatRequest is the part of OpenAI's chat completion request Cairn reads;
// other fields (temperature, max_tokens...) are accepted and ignored: the
// settings decide them, as for every other question.
type ChatRequest struct {
	_        struct{}      `additionalProperties:"true"`
	Model    string        `json:"model,omitempty" doc:"any: there is one model, cairn"`
	Messages []ChatMessage `json:"messages" minItems:"1" doc:"the conversation; the last user message is the question"`
	Stream   bool          `json:"stream,omitempty" doc:"answer as server-sent chat.completion.chunk events, ending with data: [DONE]"`
}

// ChatMessage is one message of a conversation.
type ChatMessage struct {
	_       struct{} `additionalProperties:"true"`
	Role    string   `json:"role" doc:"system, developer, user, assistant or tool"`
	Content any      `json:"content,omitempty" doc:"a string, or an array of parts of which the {type: text, text} ones are read"`
}

// text is the message's text: the string, or its text parts joined.
func (m ChatMessage) text() string {
	switch c := m.Content.(type) {
	case string:
		return c
	case []any:
		var parts []string
		for _, p := range c {
			if part, ok := p.(map[string]any); ok && part["type"] == "text" {
				if t, ok := part["text"].(string); ok {
					parts = append(parts, t)
				}
			}
		}
		return strings.Join(parts, "\n")
	}
	return ""
}

// ChatCompletion is OpenAI's chat completion, with Cairn's citations.
type ChatCompletion struct {
	ID      string       `json:"id"`
	Object  string       `json:"object" doc:"chat.completion, or chat.completion.chunk when streamed"`
	Created int64        `json:"created"`
	Model   string       `json:"model"`
	Choices []ChatChoice `json:"choices"`
	Usage   *ChatUsage   `json:"usage,omitempty"`
	// Citations is Cairn's own field: where each [n] of the answer points,
	// as /api/ask gives it. Clients that do not know it ignore it; the
	// answer's text ends with the same sources, for them.
	Citations []answer.Citation `json:"citations,omitempty" doc:"Cairn's extra field: file, page, line, quote and chunk_id of each [n] of the answer (the sources the text lists at its end)"`
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

// ChatUsage counts the chat model's tokens (0 for a quoted answer).
type ChatUsage struct {
	PromptTokens     int `json:"prompt_tokens"`
	CompletionTokens int `json:"completion_tokens"`
	TotalTokens      int `json:"total_tokens"`
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
	Created int64  `json:"created"`
	OwnedBy string `json:"owned_by"`
}

type chatInput struct {
	Body ChatRequest
}

func (s *Server) registerOpenAI(api huma.API, maxBody int64) {
	huma.Register(api, huma.Operation{OperationID: "openai-models", Method: http.MethodGet, Path: "/v1/models", Tags: []string{"OpenAI-compatible"},
		Summary: "OpenAI-compatible: the one model, cairn"}, func(ctx context.Context, _ *struct{}) (*bodyOutput[ModelList], error) {
		return &bodyOutput[ModelList]{ModelList{Object: "list", Data: []ModelInfo{{ID: openAIModel, Object: "model", OwnedBy: "local"}}}}, nil
	})
	completionSchema := api.OpenAPI().Components.Schemas.Schema(reflectType[ChatCompletion](), true, "ChatCompletion")
	huma.Register(api, huma.Operation{OperationID: "openai-chat", Method: http.MethodPost, Path: "/v1/chat/completions", Tags: []string{"OpenAI-compatible"},
		MaxBodyBytes: maxBody, Errors: []int{http.StatusTooManyRequests},
		Summary: "OpenAI-compatible: answer the last user message from the documents",
		Description: "Answers the conversation's last user message as `/api/ask` does, with the same token. The answer's text ends with its sources " +
			"(`Sources:` then `[n] file (page p)` or `file:line`); the extra field `citations` holds them as `/api/ask` does. " +
			"With `stream: true`, server-sent `chat.completion.chunk` events, the last with `finish_reason` and `citations`, then `data: [DONE]`.",
		Responses: map[string]*huma.Response{"200": {Description: "The completion", Content: map[string]*huma.MediaType{
			"application/json":  {Schema: completionSchema},
			"text/event-stream": {Schema: &huma.Schema{Type: huma.TypeString}},
		}}},
	}, func(ctx context.Context, in *chatInput) (*huma.StreamResponse, error) {
		return s.chat(ctx, in.Body)
	})
}

func (s *Server) chat(ctx context.Context, in ChatRequest) (*huma.StreamResponse, error) {
	question := ""
	for i := len(in.Messages) - 1; i >= 0 && question == ""; i-- {
		if in.Messages[i].Role == "user" {
			question = strings.TrimSpace(in.Messages[i].text())
		}
	}
	if question == "" {
		return nil, huma.Error422UnprocessableEntity("messages: no user message with text: the last user message is the question")
	}
	req, err := s.request(question, askParams, nil)
	if err != nil {
		return nil, err
	}
	release, ok := s.acquireAsk()
	if !ok {
		return nil, s.busy()
	}
	id := "chatcmpl-" + randomID()
	created := time.Now().Unix()
	completion := func(ans *answer.Answer) ChatCompletion {
		return ChatCompletion{ID: id, Object: "chat.completion", Created: created, Model: openAIModel, Citations: ans.Citations}
	}
	if !in.Stream {
		defer release()
		ans, err := s.eng.Ask(ctx, req, nil)
		if err != nil {
			return nil, requestError(ctx, err)
		}
		out := completion(ans)
		stop := "stop"
		out.Choices = []ChatChoice{{Message: &ChatMessage{Role: "assistant", Content: ans.Text + sourcesText(ans)}, FinishReason: &stop}}
		t := ans.Timing
		out.Usage = &ChatUsage{PromptTokens: t.PromptTokens, CompletionTokens: t.Tokens, TotalTokens: t.PromptTokens + t.Tokens}
		return &huma.StreamResponse{Body: func(hc huma.Context) {
			hc.SetHeader("Content-Type", "application/json")
			hc.SetStatus(http.StatusOK)
			json.NewEncoder(hc.BodyWriter()).Encode(out)
		}}, nil
	}
	return &huma.StreamResponse{Body: func(hc huma.Context) {
		defer release()
		hc.SetHeader("Content-Type", "text/event-stream")
		hc.SetHeader("Cache-Control", "no-store")
		hc.SetStatus(http.StatusOK)
		w := hc.BodyWriter()
		send := func(v any) {
			b, _ := json.Marshal(v)
			fmt.Fprintf(w, "data: %s\n\n", b)
			if f, ok := w.(http.Flusher); ok {
				f.Flush()
			}
		}
		chunk := func(d ChatDelta, finish *string) ChatCompletion {
			return ChatCompletion{ID: id, Object: "chat.completion.chunk", Created: created, Model: openAIModel,
				Choices: []ChatChoice{{Delta: &d, FinishReason: finish}}}
		}
		send(chunk(ChatDelta{Role: "assistant"}, nil))
		// A quoted answer (no chat model) writes no tokens: its text comes whole at the end.
		streamed := false
		ans, err := s.eng.Ask(hc.Context(), req, func(tok string) {
			streamed = true
			send(chunk(ChatDelta{Content: tok}, nil))
		})
		if err != nil {
			if hc.Context().Err() != nil {
				s.log.Debug("chat completion stopped: the client went away")
				return
			}
			// Headers are out: the error goes in the stream, as OpenAI's does.
			send(map[string]any{"error": map[string]string{"message": apiError(err).Error(), "type": "server_error"}})
			return
		}
		rest := sourcesText(ans)
		if !streamed {
			rest = ans.Text + rest
		}
		stop := "stop"
		last := chunk(ChatDelta{Content: rest}, &stop)
		last.Citations = ans.Citations
		send(last)
		fmt.Fprint(w, "data: [DONE]\n\n")
	}}, nil
}

// sourcesText lists the citations after the answer, as `cairn ask` does,
// for clients that show only the text.
func sourcesText(ans *answer.Answer) string {
	if len(ans.Citations) == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString("\n\nSources:")
	for _, c := range ans.Citations {
		loc := fmt.Sprintf("%s:%d", c.Path, c.Line)
		if c.Page > 0 {
			loc = fmt.Sprintf("%s (%s %d)", c.Path, search.UnitName(c.Unit), c.Page)
		}
		fmt.Fprintf(&b, "\n[%d] %s", c.N, loc)
	}
	return b.String()
}

func randomID() string {
	b := make([]byte, 12)
	rand.Read(b)
	return hex.EncodeToString(b)
}

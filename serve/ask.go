package serve

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"reflect"
	"strings"

	"github.com/danielgtaylor/huma/v2"

	"cairn/core/answer"
	"cairn/core/search"
)

// askBody is /api/ask's body: the question, the parameters `cairn ask`
// has (askParams: the filters, exact), and stream.
type askBody map[string]json.RawMessage

func (askBody) Schema(huma.Registry) *huma.Schema {
	return bodySchema(questionText, askParams, map[string]*huma.Schema{"stream": {Type: huma.TypeBoolean,
		Description: "answer as server-sent events (as Accept: text/event-stream does)"}})
}

type askInput struct {
	Accept string `header:"Accept"`
	Body   askBody
}

// The server-sent events of a streamed answer, in order: token (many),
// citations, verdict, answer (the whole answer, as the JSON reply); or
// error.
const (
	eventToken     = "token"
	eventCitations = "citations"
	eventVerdict   = "verdict"
	eventAnswer    = "answer"
	eventError     = "error"
)

func (s *Server) registerAsk(api huma.API, maxBody int64) {
	answerSchema := api.OpenAPI().Components.Schemas.Schema(reflectType[answer.Answer](), true, "Answer")
	huma.Register(api, huma.Operation{OperationID: "ask", Method: http.MethodPost, Path: "/api/ask", MaxBodyBytes: maxBody, Errors: []int{http.StatusTooManyRequests},
		Summary: "Answer a question with citations",
		Description: "Replies with the answer as JSON (the JSON of `cairn ask --json`), or, with `Accept: text/event-stream` or `stream: true`, " +
			"as server-sent events: `token` events ({\"text\"}) as the answer is written, then `citations`, `verdict` and `answer`; `error` on failure. " +
			"Closing the connection stops the answer.",
		Responses: map[string]*huma.Response{"200": {Description: "The answer", Content: map[string]*huma.MediaType{
			"application/json":  {Schema: answerSchema},
			"text/event-stream": {Schema: &huma.Schema{Type: "string"}},
		}}},
	}, func(ctx context.Context, in *askInput) (*huma.StreamResponse, error) {
		return s.ask(ctx, in)
	})
}

func (s *Server) ask(ctx context.Context, in *askInput) (*huma.StreamResponse, error) {
	question, values, err := readJSON(in.Body, questionText, askParams, "stream")
	if err != nil {
		return nil, huma.Error422UnprocessableEntity(err.Error())
	}
	var stream bool
	if raw, ok := in.Body["stream"]; ok && json.Unmarshal(raw, &stream) != nil {
		return nil, huma.Error422UnprocessableEntity("stream: " + string(raw) + " is not true or false")
	}
	req, err := s.request(question, askParams, values)
	if err != nil {
		return nil, err
	}
	release, ok := s.acquireAsk()
	if !ok {
		return nil, s.busy()
	}
	if !stream && !strings.Contains(in.Accept, "text/event-stream") {
		defer release()
		ans, err := s.eng.Ask(ctx, req, nil)
		if err != nil {
			return nil, requestError(ctx, err)
		}
		return &huma.StreamResponse{Body: func(hc huma.Context) {
			hc.SetHeader("Content-Type", "application/json")
			hc.SetStatus(http.StatusOK)
			search.WriteJSON(hc.BodyWriter(), ans) // as `cairn ask --json`
		}}, nil
	}
	return &huma.StreamResponse{Body: func(hc huma.Context) {
		defer release()
		hc.SetHeader("Content-Type", "text/event-stream")
		hc.SetHeader("Cache-Control", "no-store")
		hc.SetStatus(http.StatusOK)
		w := hc.BodyWriter()
		send := func(event string, v any) {
			b, _ := json.Marshal(v)
			fmt.Fprintf(w, "event: %s\ndata: %s\n\n", event, b)
			if f, ok := w.(http.Flusher); ok {
				f.Flush()
			}
		}
		send("ready", struct{}{}) // headers out now: the client knows it was accepted
		// hc.Context() ends when the client disconnects, and with it the answer.
		ans, err := s.eng.Ask(hc.Context(), req, func(tok string) { send(eventToken, map[string]string{"text": tok}) })
		if err != nil {
			if hc.Context().Err() != nil {
				s.log.Info("ask stopped: the client went away")
				return
			}
			send(eventError, map[string]string{"detail": apiError(err).Error()})
			return
		}
		send(eventCitations, map[string]any{"citations": ans.Citations})
		send(eventVerdict, map[string]any{"verdict": ans.Verdict, "claims": ans.Claims, "refused": ans.Refused, "notes": ans.Notes})
		send(eventAnswer, ans)
	}}, nil
}

func reflectType[T any]() reflect.Type { return reflect.TypeOf((*T)(nil)).Elem() }

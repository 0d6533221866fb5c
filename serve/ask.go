package serve

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"net/http"
	"reflect"
	"slices"
	"strings"

	"github.com/danielgtaylor/huma/v2"

	"cairn/core/answer"
	"cairn/core/domain"
	"cairn/core/search"
)

// askBody is /api/ask's body: the question, the parameters `cairn ask`
// has (askParams: the filters, exact, page), the conversation (new,
// continue, thread, as `cairn ask` has them) and stream.
type askBody map[string]json.RawMessage

// askOwn are /api/ask's own fields, beside the question and askParams.
var askOwn = map[string]*huma.Schema{
	"stream": {Type: huma.TypeBoolean, Description: "answer as server-sent events (as Accept: text/event-stream does)"},
	"new": {Type: huma.TypeBoolean, Description: "start a saved conversation with this question (as `cairn ask --new`); " +
		"the answer's thread is its id"},
	"continue": {Type: huma.TypeBoolean, Description: "ask this as the next question of the most recent saved conversation " +
		"(as `cairn ask --continue`): a follow-up such as \"and for tar?\" is completed from it"},
	"thread": {Type: huma.TypeInteger, Description: "ask this as the next question of the saved conversation with this id " +
		"(as `cairn ask --thread ID`; `cairn threads` lists them)"},
}

func (askBody) Schema(huma.Registry) *huma.Schema {
	return bodySchema(questionText, askParams, askOwn)
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
	huma.Register(api, huma.Operation{OperationID: "ask", Method: http.MethodPost, Path: "/api/ask", MaxBodyBytes: maxBody,
		Errors:  []int{http.StatusNotFound, http.StatusTooManyRequests, http.StatusBadGateway, http.StatusServiceUnavailable},
		Summary: "Answer a question with citations",
		Description: "Replies with the answer as JSON (the JSON of `cairn ask --json`), or, with `Accept: text/event-stream` or `stream: true`, " +
			"as server-sent events: `token` events ({\"text\"}) as the answer is written, then `citations`, `verdict` and `answer`; `error` on failure. " +
			"Closing the connection stops the answer. `new`, `continue` or `thread` ask it in a saved conversation, as `cairn ask` does " +
			"(404: no such thread). A chat model that fails leaves a quoted answer whose first note says why; `502` (the online endpoint) " +
			"or `503` (the local model) only when even that cannot be given.",
		Responses: map[string]*huma.Response{"200": {Description: "The answer", Content: map[string]*huma.MediaType{
			"application/json":  {Schema: answerSchema},
			"text/event-stream": {Schema: &huma.Schema{Type: "string"}},
		}}},
	}, func(ctx context.Context, in *askInput) (*huma.StreamResponse, error) {
		return s.ask(ctx, in)
	})
}

// conversation is what a question follows: nothing, the turns a client
// keeps (/v1), or a saved conversation (/api/ask's new, continue, thread).
type conversation struct {
	history []answer.Turn
	saved   bool  // asked in a saved conversation, and saved there
	thread  int64 // its id; 0 starts one
}

// readConversation reads /api/ask's new, continue and thread, as `cairn
// ask` reads its flags: one of them at most.
func (s *Server) readConversation(ctx context.Context, body askBody) (conversation, error) {
	var c conversation
	var newThread, cont bool
	for _, f := range []struct {
		name, kind string
		into       any
	}{{"new", "true or false", &newThread}, {"continue", "true or false", &cont}, {"thread", "a whole number", &c.thread}} {
		if raw, ok := body[f.name]; ok && json.Unmarshal(raw, f.into) != nil {
			return c, huma.Error422UnprocessableEntity(f.name + ": " + string(raw) + " is not " + f.kind)
		}
	}
	if _, ok := body["thread"]; ok && c.thread <= 0 {
		return c, huma.Error422UnprocessableEntity(fmt.Sprintf("thread: %d: a conversation's id is a positive number (cairn threads lists them)", c.thread))
	}
	if btoi(newThread)+btoi(cont)+btoi(c.thread != 0) > 1 {
		return c, huma.Error422UnprocessableEntity("new, continue and thread choose the conversation: give one of them")
	}
	c.saved = newThread || cont || c.thread != 0
	if cont {
		threads, err := s.eng.Threads(ctx)
		if err != nil {
			return c, apiError(err)
		}
		if len(threads) > 0 {
			c.thread = threads[0].ID
		} // none yet: continue starts the first, as on the command line
	}
	return c, nil
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

// answer answers q in the conversation c (the caller holds a question
// slot), streaming it to onToken when not nil; a page after the first of
// a list of files replaces the text.
func (s *Server) answer(ctx context.Context, q query, c conversation, onToken func(string)) (*answer.Answer, error) {
	tokens := onToken
	if q.page > 1 {
		tokens = nil // what streams is the first page; the page asked for comes whole
	}
	var ans *answer.Answer
	var err error
	switch {
	case c.saved:
		ans, err = s.eng.AskInThread(ctx, c.thread, q.req, tokens)
		if errors.Is(err, domain.ErrNoThread) {
			return nil, huma.Error404NotFound(fmt.Sprintf("thread %d: no such conversation in this knowledge base (cairn threads lists them)", c.thread))
		}
	case len(c.history) > 0:
		ans, err = s.eng.AskAfter(ctx, c.history, q.req, tokens)
	default:
		ans, err = s.eng.Ask(ctx, q.req, tokens)
	}
	if err != nil {
		return nil, requestError(ctx, err)
	}
	if q.page > 1 {
		if ans.Collection != nil {
			ans.Text = ans.Collection.Page(q.page)
		} else {
			ans.Notes = append(ans.Notes, fmt.Sprintf("page %d: this answer is not a list of files; it has one page", q.page))
		}
		if onToken != nil {
			onToken(ans.Text)
		}
	}
	return ans, nil
}

func (s *Server) ask(ctx context.Context, in *askInput) (*huma.StreamResponse, error) {
	question, values, err := readJSON(in.Body, questionText, askParams, slices.Collect(maps.Keys(askOwn))...)
	if err != nil {
		return nil, huma.Error422UnprocessableEntity(err.Error())
	}
	var stream bool
	if raw, ok := in.Body["stream"]; ok && json.Unmarshal(raw, &stream) != nil {
		return nil, huma.Error422UnprocessableEntity("stream: " + string(raw) + " is not true or false")
	}
	q, err := s.request(question, askParams, values)
	if err != nil {
		return nil, err
	}
	conv, err := s.readConversation(ctx, in.Body)
	if err != nil {
		return nil, err
	}
	release, ok := s.asks.acquire()
	if !ok {
		return nil, s.busy()
	}
	if !stream && !strings.Contains(in.Accept, "text/event-stream") {
		defer release()
		ans, err := s.answer(ctx, q, conv, nil)
		if err != nil {
			return nil, err
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
		ans, err := s.answer(hc.Context(), q, conv, func(tok string) { send(eventToken, map[string]string{"text": tok}) })
		if err != nil {
			if hc.Context().Err() != nil {
				s.log.Info("ask stopped: the client went away")
				return
			}
			// The status the reply would have had, had it not begun.
			status := http.StatusInternalServerError
			var se huma.StatusError
			if errors.As(err, &se) {
				status = se.GetStatus()
			}
			send(eventError, map[string]any{"status": status, "detail": err.Error()})
			return
		}
		send(eventCitations, map[string]any{"citations": ans.Citations})
		send(eventVerdict, map[string]any{"verdict": ans.Verdict, "claims": ans.Claims, "refused": ans.Refused, "notes": ans.Notes})
		send(eventAnswer, ans)
	}}, nil
}

func reflectType[T any]() reflect.Type { return reflect.TypeOf((*T)(nil)).Elem() }

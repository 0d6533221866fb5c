package serve

import (
	"net/http"
	"reflect"
	"strconv"

	"github.com/danielgtaylor/huma/v2"
)

// busy is the 429 of a question over the limit, with its Retry-After: the
// time until a slot is expected to be free (askSlots.wait).
func (s *Server) busy() error {
	wait := s.asks.wait()
	return huma.ErrorWithHeaders(huma.NewError(http.StatusTooManyRequests, s.busyMessage(wait)),
		http.Header{"Retry-After": {strconv.Itoa(retryAfterSeconds(wait))}})
}

// describeService completes the OpenAPI document with what huma does not
// see from the operations' types: where the service listens, the guard's
// refusals on every path, the Retry-After of a 429, and /mcp, which the
// MCP SDK serves.
func describeService(oapi *huma.OpenAPI) {
	oapi.Servers = []*huma.Server{{URL: "http://127.0.0.1:{port}",
		Description: "cairn serve on this computer (the port of serve.port or --port; over a Unix socket, http://localhost)",
		Variables:   map[string]*huma.ServerVariable{"port": {Default: "8765"}}}}
	errSchema := oapi.Components.Schemas.Schema(reflect.TypeOf(huma.ErrorModel{}), true, "Error")
	problem := func(code int, desc string) *huma.Response {
		return &huma.Response{Description: desc, Content: map[string]*huma.MediaType{"application/problem+json": {Schema: errSchema}}}
	}
	// The guard's refusals, which any path can get before it is reached.
	refusals := map[int]string{
		http.StatusUnauthorized:          "No valid bearer token (`WWW-Authenticate: Bearer`)",
		http.StatusForbidden:             "A Host that does not name this computer, or an Origin of another site",
		http.StatusRequestEntityTooLarge: "A body, a query string or a query over its bound (the detail states the bound)",
		http.StatusUnprocessableEntity:   "An invalid or unknown parameter or body field, or a knob out of its range",
	}
	for _, item := range oapi.Paths {
		for _, op := range []*huma.Operation{item.Get, item.Put, item.Post, item.Delete} {
			if op == nil {
				continue
			}
			for code, desc := range refusals {
				if op.Responses[strconv.Itoa(code)] == nil {
					op.Responses[strconv.Itoa(code)] = problem(code, desc)
				}
			}
			if r := op.Responses[strconv.Itoa(http.StatusTooManyRequests)]; r != nil {
				r.Description = "Too many questions at once: ask again later"
				r.Headers = map[string]*huma.Param{"Retry-After": {Description: "seconds until a question slot is expected to be free, from how long the answers under way and the last ones took",
					Schema: &huma.Schema{Type: huma.TypeInteger}}}
			}
		}
	}
	mcpOp := func(method, summary, desc string) *huma.Operation {
		op := &huma.Operation{OperationID: "mcp-" + method, Method: method, Path: "/mcp", Tags: []string{"MCP"}, Summary: summary,
			Description: desc + " The tools, their arguments and results are listed by the protocol itself (`tools/list`); see docs/service.md.",
			Responses:   map[string]*huma.Response{"200": {Description: "JSON-RPC 2.0 messages, as `application/json` or `text/event-stream`"}}}
		for code, d := range refusals {
			op.Responses[strconv.Itoa(code)] = problem(code, d)
		}
		return op
	}
	post := mcpOp(http.MethodPost, "MCP, streamable HTTP: send a JSON-RPC message",
		"The Model Context Protocol's streamable HTTP transport: the body is a JSON-RPC 2.0 request, "+
			"notification or response; send `Accept: application/json, text/event-stream` and, after `initialize`, the `Mcp-Session-Id` it returned.")
	post.RequestBody = &huma.RequestBody{Required: true, Content: map[string]*huma.MediaType{
		"application/json": {Schema: &huma.Schema{Type: huma.TypeObject, Description: "a JSON-RPC 2.0 message"}}}}
	oapi.AddOperation(post)
	oapi.AddOperation(mcpOp(http.MethodGet, "MCP: the server's stream of messages", "Opens the session's server-sent event stream."))
	oapi.AddOperation(mcpOp(http.MethodDelete, "MCP: end a session", "Ends the session named by `Mcp-Session-Id`."))
}

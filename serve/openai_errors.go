package serve

import (
	"encoding/json"
	"errors"
	"net/http"
	"strings"

	"github.com/danielgtaylor/huma/v2"
)

// oaiError is an error as OpenAI's API writes it, {"error": {"message",
// "type", "param", "code"}}: the shape its clients (the openai libraries,
// LangChain, the chat apps) read the message from, where a problem
// document reaches their user as "422 status code (no body)". Every reply
// under /v1 that is not a success is one, the guard's refusals included.
type oaiError struct {
	status int
	header http.Header
	body   oaiErrorBody
}

type oaiErrorBody struct {
	Message string  `json:"message"`
	Type    string  `json:"type"`
	Param   *string `json:"param"`
	Code    *string `json:"code"`
}

func (e *oaiError) Error() string { return e.body.Message }

// newOAIError is an error of status; code and param may be "" (null).
func newOAIError(status int, code, param, msg string) *oaiError {
	e := &oaiError{status: status, body: oaiErrorBody{Message: msg, Type: oaiType(status)}}
	if code != "" {
		e.body.Code = &code
	}
	if param != "" {
		e.body.Param = &param
	}
	return e
}

// oaiType is the error type OpenAI gives a status.
func oaiType(status int) string {
	switch {
	case status == http.StatusUnauthorized:
		return "authentication_error"
	case status == http.StatusForbidden:
		return "permission_error"
	case status == http.StatusTooManyRequests:
		return "rate_limit_error"
	case status >= 500:
		return "server_error"
	}
	return "invalid_request_error"
}

// oaiCodes are the codes of statuses that have one whatever the cause.
var oaiCodes = map[int]string{
	http.StatusUnauthorized:          "invalid_api_key",
	http.StatusForbidden:             "forbidden",
	http.StatusMethodNotAllowed:      "method_not_allowed",
	http.StatusRequestEntityTooLarge: "request_too_large",
	http.StatusTooManyRequests:       "rate_limit_exceeded",
	http.StatusBadGateway:            "model_failed",
	http.StatusServiceUnavailable:    "model_unavailable",
}

// toOAIError is err as /v1 answers it: the service's own errors (huma's,
// from the parameters' checks and apiError) with their status and
// headers (a 429's Retry-After), a validation's 422 as OpenAI's 400.
func toOAIError(err error) *oaiError {
	var oe *oaiError
	if errors.As(err, &oe) {
		return oe
	}
	status := http.StatusInternalServerError
	var se huma.StatusError
	if errors.As(err, &se) {
		status = se.GetStatus()
	}
	if status == http.StatusUnprocessableEntity {
		status = http.StatusBadRequest // what OpenAI answers an invalid value with
	}
	e := newOAIError(status, oaiCodes[status], paramOf(err.Error()), err.Error())
	var he huma.HeadersError
	if errors.As(err, &he) {
		e.header = he.GetHeaders()
	}
	return e
}

// paramOf is the parameter a message of the parameters' checks starts
// with ("folder: …", "retrieval.top_k …" names a setting, not one), "" when
// none.
func paramOf(msg string) string {
	name, _, ok := strings.Cut(msg, ":")
	if !ok {
		return ""
	}
	if _, known := findParam(askParams, name); known {
		return name
	}
	return ""
}

// writeOAIError writes e.
func writeOAIError(w http.ResponseWriter, e *oaiError) {
	for k, vs := range e.header {
		w.Header()[k] = vs
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(e.status)
	json.NewEncoder(w).Encode(map[string]oaiErrorBody{"error": e.body})
}

// isOpenAIPath reports whether path is under /v1, whose errors are
// OpenAI's.
func isOpenAIPath(path string) bool { return path == "/v1" || strings.HasPrefix(path, "/v1/") }

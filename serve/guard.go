package serve

import (
	"crypto/subtle"
	"encoding/json"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// guard wraps the routes in the checks every request passes, in order:
// the request log, the Host and Origin checks (a web page must not reach
// the service through a name that resolves to 127.0.0.1), a CORS
// preflight's answer, the bearer token, then the size bounds. A request
// over a Unix socket skips the Host check: no browser opens one, so no
// page can rebind a name to it, and clients name the host there as they
// like (curl "localhost", Go the URL's, others the socket's path). A
// refusal says nothing of Cairn: no version, no paths. Under /v1 it is
// OpenAI's error shape, which those clients read.
func (s *Server) guard(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		rec := &statusRecorder{ResponseWriter: w, status: http.StatusOK}
		defer func() {
			// A client that went away is its own doing: debug, not noise.
			level := slog.LevelInfo
			if rec.status == statusClientGone {
				level = slog.LevelDebug
			}
			// The path, never the query string: it holds questions.
			s.log.Log(r.Context(), level, "http", "method", r.Method, "path", r.URL.Path, "status", rec.status,
				"ms", time.Since(start).Milliseconds())
		}()
		origin := r.Header.Get("Origin")
		switch {
		case !overUnixSocket(r) && !loopbackHost(r.Host):
			refuse(rec, r, http.StatusForbidden, "Forbidden", "the Host header must name this computer (127.0.0.1 or localhost)")
			return
		case !allowedOrigin(origin):
			refuse(rec, r, http.StatusForbidden, "Forbidden", "requests from web pages of other sites are refused")
			return
		}
		if origin != "" {
			allowCORS(rec.Header(), origin)
			if r.Method == http.MethodOptions && r.Header.Get("Access-Control-Request-Method") != "" {
				// A preflight carries no token (browsers never send one);
				// the request it announces will need it.
				preflight(rec.Header(), r)
				rec.WriteHeader(http.StatusNoContent)
				return
			}
		}
		switch {
		case !s.authorized(r):
			rec.Header().Set("WWW-Authenticate", "Bearer") // no realm: it would name the product
			refuse(rec, r, http.StatusUnauthorized, "Unauthorized", "a valid bearer token is required")
		case r.ContentLength > s.opt.Limits.MaxBody:
			refuse(rec, r, http.StatusRequestEntityTooLarge, "Request Entity Too Large", tooLarge("the request body", s.opt.Limits.MaxBody))
		case len(r.URL.RawQuery) > s.opt.Limits.maxQueryString():
			refuse(rec, r, http.StatusRequestEntityTooLarge, "Request Entity Too Large", tooLarge("the query string", int64(s.opt.Limits.maxQueryString())))
		default:
			r.Body = http.MaxBytesReader(rec, r.Body, s.opt.Limits.MaxBody)
			next.ServeHTTP(rec, r)
		}
	})
}

// maxQueryString bounds a request's query string: a query of MaxQuery
// bytes, percent-encoded, and room for the knobs.
func (l Limits) maxQueryString() int { return 3*l.MaxQuery + 256 }

func tooLarge(what string, limit int64) string {
	return what + " is over the limit of " + strconv.FormatInt(limit, 10) + " bytes"
}

// authorized checks the bearer token in constant time. The scheme's name
// is case-insensitive (RFC 9110, 11.1): "bearer" is "Bearer".
func (s *Server) authorized(r *http.Request) bool {
	if s.opt.Token == "" {
		return false // a server without a token serves nobody
	}
	scheme, got, ok := strings.Cut(r.Header.Get("Authorization"), " ")
	got = strings.TrimLeft(got, " ")
	return ok && strings.EqualFold(scheme, "Bearer") && subtle.ConstantTimeCompare([]byte(got), []byte(s.opt.Token)) == 1
}

// loopbackHost reports whether host (with or without a port) names the
// loopback interface literally. Any other name is refused even when it
// resolves to 127.0.0.1: that is how DNS rebinding reaches local services.
func loopbackHost(host string) bool {
	if h, _, err := net.SplitHostPort(host); err == nil {
		host = h
	}
	host = strings.Trim(host, "[]")
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

func overUnixSocket(r *http.Request) bool {
	_, ok := r.Context().Value(http.LocalAddrContextKey).(*net.UnixAddr)
	return ok
}

// allowedOrigin is the origin policy: which pages may call the service
// (with the token; without it they get 401 like anyone). A browser sends
// Origin with a page's requests; the service refuses a page of a web
// site, which could be anyone's, and accepts a page of this computer:
//
//   - none: a script, a tool, a server-side client;
//   - http(s) on a loopback host: 127.0.0.1, [::1], localhost, and any
//     name under .localhost (browsers resolve those to this computer
//     themselves; Tauri on Windows serves http://tauri.localhost);
//   - an app's own scheme: app:// (Electron apps, Obsidian), tauri://,
//     file://, vscode-webview://, chrome-extension://… — any scheme but
//     http(s) and ws(s): only a program installed here gives its pages
//     one, no web site can;
//   - "null": a page from a file or a data: URL, or a sandboxed frame. A
//     web site's sandboxed frame sends it too, which is why the token, not
//     the origin, is what lets a request in.
func allowedOrigin(origin string) bool {
	if origin == "" || origin == "null" {
		return true
	}
	u, err := url.Parse(origin)
	if err != nil || u.Scheme == "" {
		return false
	}
	switch strings.ToLower(u.Scheme) {
	case "http", "https", "ws", "wss":
		host := strings.ToLower(u.Hostname())
		return loopbackHost(u.Host) || strings.HasSuffix(host, ".localhost")
	}
	return true
}

// allowCORS lets the page of an allowed origin read the reply, and the
// headers a client needs from it.
func allowCORS(h http.Header, origin string) {
	h.Set("Access-Control-Allow-Origin", origin)
	h.Add("Vary", "Origin")
	h.Set("Access-Control-Expose-Headers", "Retry-After, WWW-Authenticate, Mcp-Session-Id, Mcp-Protocol-Version")
}

// preflight answers a CORS preflight: the methods the service has, the
// headers the page asked to send (the openai library sends its own
// x-stainless-* ones), for ten minutes.
func preflight(h http.Header, r *http.Request) {
	h.Set("Access-Control-Allow-Methods", "GET, POST, PUT, DELETE, OPTIONS")
	if asked := r.Header.Get("Access-Control-Request-Headers"); asked != "" {
		h.Set("Access-Control-Allow-Headers", asked)
	}
	h.Set("Access-Control-Max-Age", "600")
	h.Add("Vary", "Access-Control-Request-Method")
	h.Add("Vary", "Access-Control-Request-Headers")
}

// refuse writes a refusal: a problem document (RFC 9457, as the API's own
// errors), or under /v1 OpenAI's error shape.
func refuse(w http.ResponseWriter, r *http.Request, status int, title, detail string) {
	if isOpenAIPath(r.URL.Path) {
		writeOAIError(w, newOAIError(status, oaiCodes[status], "", detail))
		return
	}
	w.Header().Set("Content-Type", "application/problem+json")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(map[string]any{"status": status, "title": title, "detail": detail})
}

// statusRecorder remembers the status for the request log; Unwrap lets
// http.ResponseController flush server-sent events through it.
type statusRecorder struct {
	http.ResponseWriter
	status int
	wrote  bool
}

func (r *statusRecorder) WriteHeader(code int) {
	if !r.wrote {
		r.status, r.wrote = code, true
	}
	r.ResponseWriter.WriteHeader(code)
}

func (r *statusRecorder) Write(b []byte) (int, error) {
	r.wrote = true
	return r.ResponseWriter.Write(b)
}

func (r *statusRecorder) Flush() { http.NewResponseController(r.ResponseWriter).Flush() }

func (r *statusRecorder) Unwrap() http.ResponseWriter { return r.ResponseWriter }

// Package serve is Cairn's local service: an HTTP API and an MCP server on
// 127.0.0.1 that drive the same core engine as the window and the command
// line, so that the three cannot disagree. Only the owner of its bearer
// token gets in. It knows nothing of the window.
package serve

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"cairn/core/answer"
	"cairn/core/config"
	"cairn/core/domain"
	"cairn/core/kb"
	"cairn/core/logs"
	"cairn/core/search"
)

// Engine is what the service needs of core.Engine; tests wrap the real one.
type Engine interface {
	Config() config.Config
	SearchRequestWith(query string, r config.Retrieval) search.Request
	Search(ctx context.Context, req search.Request) (*search.Response, error)
	Ask(ctx context.Context, req search.Request, onToken func(string)) (*answer.Answer, error)
	AskInThread(ctx context.Context, thread int64, req search.Request, onToken func(string)) (*answer.Answer, error)
	AskAfter(ctx context.Context, history []answer.Turn, req search.Request, onToken func(string)) (*answer.Answer, error)
	Threads(ctx context.Context) ([]domain.Thread, error)
	ChatModelPath(ctx context.Context) (string, error)
	TokenCount(ctx context.Context, text string) (n int, by string)
	Embed(ctx context.Context, texts []string) (domain.Embeddings, error)
	EmbeddingModel(ctx context.Context) (string, error)
	Documents(ctx context.Context, after string, limit int) ([]domain.Document, error)
	Status(ctx context.Context) (kb.Status, error)
	Folders(ctx context.Context) ([]domain.Folder, error)
	Passage(ctx context.Context, id int64) (domain.ChunkInfo, error)
	DocumentChunks(ctx context.Context, path string) ([]domain.ChunkInfo, error)
	IndexFolder(ctx context.Context, folder string, progress chan<- domain.Progress) (domain.Run, error)
	NetworkMode() string
	SetNetworkMode(mode string) error
}

// Limits bound what one client can ask of the service.
type Limits struct {
	MaxBody  int64 // bytes of a request body (413 above)
	MaxQuery int   // bytes of a query, a question or a request's query string (413 above)
	MaxAsks  int   // questions answered at once (429 above): each holds the chat model
}

// DefaultLimits are generous for a person's tools and small for a flood.
func DefaultLimits() Limits { return Limits{MaxBody: 64 << 10, MaxQuery: 4096, MaxAsks: 2} }

// Options configure a Server.
type Options struct {
	Token   string       // the bearer token every HTTP request must carry
	Version string       // Cairn's version, for /api/health and MCP's handshake
	Log     *slog.Logger // the request log; nil: none
	Limits  Limits       // zero fields take DefaultLimits'
	// SaveNetworkMode saves the mode after a switch through the API (the
	// command that runs the service is the settings file's writer); nil:
	// switches last until the service stops.
	SaveNetworkMode func(mode string) error
	// IndexRefusal, if set, is why POST /api/index is refused (409): the
	// window serves, and its own index worker is the one that indexes.
	IndexRefusal string
}

// Server is the HTTP API and the MCP server over one engine.
type Server struct {
	eng     Engine
	opt     Options
	log     *slog.Logger
	asks    *askSlots
	mcp     *mcp.Server
	http    http.Handler
	jobs    indexJobs
	started time.Time // /v1/models' created
}

// New builds the service over eng. A Server serves HTTP only with a token;
// MCP over stdio needs none (the client started the process).
func New(eng Engine, opt Options) *Server {
	d := DefaultLimits()
	if opt.Limits.MaxBody <= 0 {
		opt.Limits.MaxBody = d.MaxBody
	}
	if opt.Limits.MaxQuery <= 0 {
		opt.Limits.MaxQuery = d.MaxQuery
	}
	if opt.Limits.MaxAsks <= 0 {
		opt.Limits.MaxAsks = d.MaxAsks
	}
	log := opt.Log
	if log == nil {
		log = logs.Discard()
	}
	s := &Server{eng: eng, opt: opt, log: log, asks: newAskSlots(opt.Limits.MaxAsks, time.Now), started: time.Now()}
	s.jobs.eng, s.jobs.log = eng, log
	s.mcp = s.newMCP()
	mux := http.NewServeMux()
	s.registerAPI(mux)
	s.registerOpenAI(mux)
	mux.Handle("/mcp", mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s.mcp }, nil))
	s.http = s.guard(mux)
	return s
}

// Handler is the HTTP API with its guards: host and origin checks, the
// token, the size bounds and the request log.
func (s *Server) Handler() http.Handler { return s.http }

// MCP is the MCP server, for `cairn mcp` over stdio.
func (s *Server) MCP() *mcp.Server { return s.mcp }

// Listen listens on 127.0.0.1:port (0: a free port). The service never
// listens on another address: loopback is as far as it reaches.
func Listen(port int) (net.Listener, error) {
	ln, err := net.Listen("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(port)))
	if err != nil {
		return nil, fmt.Errorf("cannot listen on 127.0.0.1:%d: %w (another program may use the port: choose one with --port or serve.port, 0 for a free one)", port, err)
	}
	return ln, nil
}

// Serve answers HTTP on the listeners (127.0.0.1, a Unix socket, or both)
// until ctx ends or one of them fails, then stops taking requests, cancels
// an index run and waits for what is under way. Closing a listener made by
// ListenUnix removes its socket.
func (s *Server) Serve(ctx context.Context, lns ...net.Listener) error {
	if len(lns) == 0 {
		return errors.New("serve: nothing to listen on")
	}
	ctx, stop := context.WithCancel(ctx)
	defer stop()
	// No write timeout: a streamed answer takes as long as the model does.
	srv := &http.Server{Handler: s.http, ReadHeaderTimeout: 10 * time.Second, IdleTimeout: 2 * time.Minute,
		BaseContext: func(net.Listener) context.Context { return ctx }}
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		<-ctx.Done()
		s.jobs.cancelAndWait()
		shut, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		srv.Shutdown(shut)
	}()
	errs := make(chan error, len(lns))
	for _, ln := range lns {
		go func() {
			err := srv.Serve(ln)
			if errors.Is(err, http.ErrServerClosed) {
				err = nil
			}
			stop() // one listener failing stops them all
			errs <- err
		}()
	}
	var first error
	for range lns {
		if err := <-errs; err != nil && first == nil {
			first = err
		}
	}
	wg.Wait()
	return first
}

// busyMessage says that the question slots are taken, and when to ask
// again: after wait, when one is expected to be free.
func (s *Server) busyMessage(wait time.Duration) string {
	return fmt.Sprintf("%d questions are being answered already, the most at once; ask again in %d s, when one is expected to be done",
		s.opt.Limits.MaxAsks, retryAfterSeconds(wait))
}

package serve

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"path/filepath"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/yosida95/uritemplate/v3"

	"cairn/core/answer"
	"cairn/core/kb"
	"cairn/core/search"
)

// The MCP tools' arguments and results. Every result names its file, page
// and lines, and search results their score, so an assistant can cite them.
type (
	askResult struct {
		Answer    string                `json:"answer" jsonschema:"the answer; [n] marks cite citations[n]"`
		Verdict   answer.Verdict        `json:"verdict" jsonschema:"how well the sources support the answer"`
		Refused   bool                  `json:"refused" jsonschema:"the documents do not answer the question"`
		Mode      answer.Mode           `json:"mode"`
		Citations []answer.Citation     `json:"citations" jsonschema:"file, page, line and quote of each [n]; open one with open_citation(chunk_id)"`
		Notes     []string              `json:"notes,omitempty"`
		Closest   []search.ReportResult `json:"closest,omitempty" jsonschema:"when refused: the closest passages, which are not an answer"`
		// Searched and Corrections say what was searched when a word was
		// corrected (exact: true searches it as typed).
		Searched    string              `json:"searched,omitempty" jsonschema:"what was searched, when it is not the question as asked"`
		Corrections []search.Correction `json:"corrections,omitempty" jsonschema:"words no passage holds, searched as the nearest word one does"`
		FollowUp    *answer.FollowUp    `json:"follow_up,omitempty" jsonschema:"set when the question was read as a follow-up of the conversation"`
	}
	openArgs struct {
		ChunkID int64 `json:"chunk_id" jsonschema:"the chunk_id of a search result or citation"`
	}
	noArgs struct{}
)

func (s *Server) newMCP() *mcp.Server {
	srv := mcp.NewServer(&mcp.Implementation{Name: "cairn", Title: "Cairn", Version: s.opt.Version}, &mcp.ServerOptions{
		Instructions: "Cairn searches and answers from the user's own documents, offline. Use search to find passages, " +
			"ask for an answer with citations, open_citation to read what a citation points to, and status for the indexed folders. " +
			"Cite file and page when you use a result.",
	})
	// Every tool only reads the knowledge base (ask saves no conversation
	// over MCP), and only the user's own documents: a closed world.
	readOnly := func(title string) *mcp.ToolAnnotations {
		closed := false
		return &mcp.ToolAnnotations{Title: title, ReadOnlyHint: true, IdempotentHint: true, OpenWorldHint: &closed}
	}
	// The tools take the parameters of /api/search and /api/ask (searchParams).
	mcp.AddTool(srv, &mcp.Tool{Name: "search", Description: "Search the user's documents: ranked passages with file, page, lines, score and chunk_id; " +
		"page 2 gives the next top_k results (next_page says whether there are more).",
		InputSchema: toolInput(toolQuery, searchParams), Annotations: readOnly("Search the documents")},
		func(ctx context.Context, _ *mcp.CallToolRequest, in map[string]json.RawMessage) (*mcp.CallToolResult, SearchPage, error) {
			q, values, err := readJSON(in, toolQuery, searchParams)
			if err != nil {
				return nil, SearchPage{}, err
			}
			rep, err := s.search(ctx, q, values)
			return nil, rep, mcpError(err)
		})
	mcp.AddTool(srv, &mcp.Tool{Name: "ask", Description: "Answer a question from the user's documents, with citations checked against their sources; " +
		"an answer that lists files gives 50 a page (page 2 for the next).",
		InputSchema: toolInput(questionText, askParams), Annotations: readOnly("Ask the documents")},
		func(ctx context.Context, _ *mcp.CallToolRequest, in map[string]json.RawMessage) (*mcp.CallToolResult, askResult, error) {
			question, values, err := readJSON(in, questionText, askParams)
			if err != nil {
				return nil, askResult{}, err
			}
			q, err := s.request(question, askParams, values)
			if err != nil {
				return nil, askResult{}, mcpError(err)
			}
			release, ok := s.asks.acquire()
			if !ok {
				return nil, askResult{}, errors.New(s.busyMessage(s.asks.wait()))
			}
			defer release()
			ans, err := s.answer(ctx, q, conversation{}, nil)
			if err != nil {
				return nil, askResult{}, mcpError(err)
			}
			req := q.req
			out := askResult{Answer: ans.Text, Verdict: ans.Verdict, Refused: ans.Refused, Mode: ans.Mode,
				Citations: ans.Citations, Notes: ans.Notes, Searched: ans.Query, Corrections: ans.Corrections, FollowUp: ans.FollowUp}
			if out.Citations == nil {
				out.Citations = []answer.Citation{}
			}
			if ans.Closest && ans.Search != nil {
				out.Closest = search.NewReport(req.Query, ans.Search).Results
			}
			return nil, out, nil
		})
	mcp.AddTool(srv, &mcp.Tool{Name: "open_citation", Description: "The passage a citation or search result points to (by chunk_id): its text, file, page and lines.",
		Annotations: readOnly("Open a citation")},
		func(ctx context.Context, _ *mcp.CallToolRequest, in openArgs) (*mcp.CallToolResult, Passage, error) {
			ci, err := s.eng.Passage(ctx, in.ChunkID)
			if err != nil {
				return nil, Passage{}, mcpError(apiError(err))
			}
			return nil, passageOf(ci), nil
		})
	mcp.AddTool(srv, &mcp.Tool{Name: "status", Description: "The indexed folders, how many documents and passages they hold, the models, the network mode and the last index run.",
		Annotations: readOnly("Knowledge base status")},
		func(ctx context.Context, _ *mcp.CallToolRequest, _ noArgs) (*mcp.CallToolResult, Status, error) {
			st, err := s.status(ctx)
			return nil, st, mcpError(apiError(err))
		})
	srv.AddResourceTemplate(&mcp.ResourceTemplate{Name: "document", URITemplate: documentURI.Raw(), MIMEType: "text/plain",
		Description: "An indexed document, as Cairn holds it: its passages in order, each headed by its page and lines. Only indexed files can be read."},
		s.readDocument)
	srv.AddReceivingMiddleware(s.documentsMiddleware)
	return srv
}

// documentsMiddleware lists the indexed documents (resources/list, which
// the SDK would answer from resources added one by one) and lets a client
// read one by a URI written with the file's name as it is, spaces and
// non-ASCII letters included, which the template's match refuses: the URI
// is expanded as the template says before the SDK looks it up, and the
// reply names it as the client wrote it.
func (s *Server) documentsMiddleware(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		switch method {
		case "resources/list":
			params, _ := req.GetParams().(*mcp.ListResourcesParams)
			cursor := ""
			if params != nil {
				cursor = params.Cursor
			}
			return s.listDocuments(ctx, cursor)
		case "resources/read":
			rr, ok := req.(*mcp.ReadResourceRequest)
			if !ok || rr.Params == nil {
				break
			}
			asked := rr.Params.URI
			raw, isFile := strings.CutPrefix(asked, "file://")
			if !isFile || len(documentURI.Match(asked)) > 0 {
				break
			}
			expanded := documentURIOf(raw)
			rr.Params.URI = expanded
			res, err := next(ctx, method, req)
			if r, ok := res.(*mcp.ReadResourceResult); ok && err == nil {
				for _, c := range r.Contents {
					c.URI = asked
				}
			}
			if err != nil {
				err = mcp.ResourceNotFoundError(asked) // named as the client wrote it
			}
			return res, err
		}
		return next(ctx, method, req)
	}
}

// documentsPage is how many documents resources/list gives at once.
const documentsPage = 100

// listDocuments is a page of the indexed documents as resources, from
// the cursor (the last path of the page before, encoded).
func (s *Server) listDocuments(ctx context.Context, cursor string) (*mcp.ListResourcesResult, error) {
	after := ""
	if cursor != "" {
		b, err := base64.RawURLEncoding.DecodeString(cursor)
		if err != nil {
			return nil, fmt.Errorf("resources/list: the cursor %q is not one this server gave", cursor)
		}
		after = string(b)
	}
	docs, err := s.eng.Documents(ctx, after, documentsPage+1)
	if err != nil {
		return nil, mcpError(apiError(err))
	}
	out := &mcp.ListResourcesResult{Resources: []*mcp.Resource{}}
	for i, d := range docs {
		if i == documentsPage {
			out.NextCursor = base64.RawURLEncoding.EncodeToString([]byte(docs[i-1].Path))
			break
		}
		uri := documentURIOf(d.Path)
		title := d.Title
		if title == "" {
			title = filepath.Base(d.Path)
		}
		out.Resources = append(out.Resources, &mcp.Resource{URI: uri, Name: filepath.Base(d.Path), Title: title, MIMEType: "text/plain",
			Description: fmt.Sprintf("%s, %d passages, modified %s", d.Format, d.Chunks, d.Modified.Format("2006-01-02"))})
	}
	return out, nil
}

// documentURI is the documents' resource template. A client expands it
// as RFC 6570 says: "+" keeps reserved characters, so a # or ? of a file's
// name stays as it is, and anything else is percent-encoded.
var documentURI = uritemplate.MustNew("file://{+path}")

// documentURIOf is the URI of the document at path: the template's
// expansion, reserved characters kept and the rest percent-encoded byte by
// byte of their UTF-8 (uritemplate's own Expand writes Latin-1 escapes for
// letters beyond ASCII), a % always as %25.
func documentURIOf(path string) string {
	const keep = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-._~:/?#[]@!$&'()*+,;="
	var b strings.Builder
	b.WriteString("file://")
	for i := 0; i < len(path); i++ {
		if c := path[i]; strings.IndexByte(keep, c) >= 0 {
			b.WriteByte(c)
		} else {
			fmt.Fprintf(&b, "%%%02X", c)
		}
	}
	return b.String()
}

// documentPath is the path of a document's URI: the template's expansion
// read back (not a URL's path, which would end at a # or ?), else a
// file URL as RFC 8089 writes it.
func documentPath(uri string) string {
	if p := documentURI.Match(uri).Get("path").String(); strings.HasPrefix(p, "/") {
		return p
	}
	if u, err := url.Parse(uri); err == nil && u.Scheme == "file" {
		return u.Path
	}
	return ""
}

// readDocument serves a document of the knowledge base by its path; a file
// that is not indexed is not found, whatever is on the disk.
func (s *Server) readDocument(ctx context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
	uri := req.Params.URI
	path := documentPath(uri)
	if path == "" {
		return nil, mcp.ResourceNotFoundError(uri)
	}
	cs, err := s.eng.DocumentChunks(ctx, path)
	if errors.Is(err, kb.ErrNotFound) {
		return nil, mcp.ResourceNotFoundError(uri)
	}
	if err != nil {
		return nil, err
	}
	var b strings.Builder
	fmt.Fprintf(&b, "# %s\n%s\n", cs[0].Title, cs[0].Path)
	for _, c := range cs {
		b.WriteString("\n--- ")
		if c.Page > 0 {
			fmt.Fprintf(&b, "%s %d, ", search.UnitName(c.UnitKind), c.Page)
		}
		fmt.Fprintf(&b, "lines %d-%d, chunk_id %d ---\n%s\n", c.LineStart, c.LineEnd, c.ID, c.Text)
	}
	return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: uri, MIMEType: "text/plain", Text: b.String()}}}, nil
}

// mcpError gives a tool's error to the assistant as a person reads it;
// huma's errors say only their detail.
func mcpError(err error) error {
	if err == nil {
		return nil
	}
	return errors.New(err.Error())
}

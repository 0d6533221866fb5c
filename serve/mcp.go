package serve

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
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
	// The tools take the parameters of /api/search and /api/ask (searchParams).
	mcp.AddTool(srv, &mcp.Tool{Name: "search", Description: "Search the user's documents: ranked passages with file, page, lines, score and chunk_id.",
		InputSchema: toolInput(toolQuery, searchParams)},
		func(ctx context.Context, _ *mcp.CallToolRequest, in map[string]json.RawMessage) (*mcp.CallToolResult, search.Report, error) {
			q, values, err := readJSON(in, toolQuery, searchParams)
			if err != nil {
				return nil, search.Report{}, err
			}
			rep, err := s.search(ctx, q, values)
			return nil, rep, mcpError(err)
		})
	mcp.AddTool(srv, &mcp.Tool{Name: "ask", Description: "Answer a question from the user's documents, with citations checked against their sources.",
		InputSchema: toolInput(questionText, askParams)},
		func(ctx context.Context, _ *mcp.CallToolRequest, in map[string]json.RawMessage) (*mcp.CallToolResult, askResult, error) {
			question, values, err := readJSON(in, questionText, askParams)
			if err != nil {
				return nil, askResult{}, err
			}
			req, err := s.request(question, askParams, values)
			if err != nil {
				return nil, askResult{}, mcpError(err)
			}
			release, ok := s.acquireAsk()
			if !ok {
				return nil, askResult{}, errors.New(s.busyMessage())
			}
			defer release()
			ans, err := s.eng.Ask(ctx, req, nil)
			if err != nil {
				return nil, askResult{}, mcpError(apiError(err))
			}
			out := askResult{Answer: ans.Text, Verdict: ans.Verdict, Refused: ans.Refused, Mode: ans.Mode,
				Citations: ans.Citations, Notes: ans.Notes, Searched: ans.Query, Corrections: ans.Corrections}
			if out.Citations == nil {
				out.Citations = []answer.Citation{}
			}
			if ans.Closest && ans.Search != nil {
				out.Closest = search.NewReport(req.Query, ans.Search).Results
			}
			return nil, out, nil
		})
	mcp.AddTool(srv, &mcp.Tool{Name: "open_citation", Description: "The passage a citation or search result points to (by chunk_id): its text, file, page and lines."},
		func(ctx context.Context, _ *mcp.CallToolRequest, in openArgs) (*mcp.CallToolResult, Passage, error) {
			ci, err := s.eng.Passage(ctx, in.ChunkID)
			if err != nil {
				return nil, Passage{}, mcpError(apiError(err))
			}
			return nil, passageOf(ci), nil
		})
	mcp.AddTool(srv, &mcp.Tool{Name: "status", Description: "The indexed folders, how many documents and passages they hold, the models and the network mode."},
		func(ctx context.Context, _ *mcp.CallToolRequest, _ noArgs) (*mcp.CallToolResult, Status, error) {
			st, err := s.status(ctx)
			return nil, st, mcpError(apiError(err))
		})
	srv.AddResourceTemplate(&mcp.ResourceTemplate{Name: "document", URITemplate: documentURI.Raw(), MIMEType: "text/plain",
		Description: "An indexed document, as Cairn holds it: its passages in order, each headed by its page and lines. Only indexed files can be read."},
		s.readDocument)
	return srv
}

// documentURI is the documents' resource template. A client expands it
// as RFC 6570 says: "+" keeps reserved characters, so a # or ? of a file's
// name stays as it is, and anything else is percent-encoded.
var documentURI = uritemplate.MustNew("file://{+path}")

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

package serve

import (
	"context"
	"encoding/json"
	"net/http"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// bearer adds the token to every request of the MCP client.
type bearer struct{ token string }

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	return http.DefaultTransport.RoundTrip(r)
}

func connectHTTP(t *testing.T, base, token string) (*mcp.ClientSession, error) {
	t.Helper()
	client := mcp.NewClient(&mcp.Implementation{Name: "test-client", Version: "1"}, nil)
	return client.Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: base + "/mcp",
		HTTPClient: &http.Client{Transport: bearer{token}}, MaxRetries: -1}, nil)
}

// structured decodes a tool result's structured content.
func structured(t *testing.T, res *mcp.CallToolResult, v any) {
	t.Helper()
	if res.IsError {
		t.Fatalf("tool error: %v", res.Content)
	}
	b, _ := json.Marshal(res.StructuredContent)
	if err := json.Unmarshal(b, v); err != nil {
		t.Fatal(err)
	}
}

func TestMCPOverHTTP(t *testing.T) {
	base, _ := startServer(t, testEngine(t), Options{})
	if _, err := connectHTTP(t, base, "wrong"); err == nil {
		t.Fatal("a wrong token connected")
	}
	s, err := connectHTTP(t, base, testToken)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	checkTools(t, s)
}

func TestMCPInProcess(t *testing.T) {
	srv := New(testEngine(t), Options{Version: "9.9.9-test"})
	ct, st := mcp.NewInMemoryTransports()
	ctx := context.Background()
	ss, err := srv.MCP().Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ss.Close()
	s, err := mcp.NewClient(&mcp.Implementation{Name: "test-client", Version: "1"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if v := s.InitializeResult().ServerInfo; v.Name != "cairn" || v.Version != "9.9.9-test" {
		t.Errorf("server info %+v", v)
	}
	checkTools(t, s)
}

// checkTools runs every tool and reads a document, as an assistant would.
func checkTools(t *testing.T, s *mcp.ClientSession) {
	t.Helper()
	ctx := context.Background()
	tools, err := s.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tool := range tools.Tools {
		names = append(names, tool.Name)
	}
	slices.Sort(names)
	if strings.Join(names, ",") != "ask,open_citation,search,status" {
		t.Fatalf("tools %v", names)
	}
	// Each only reads, and only the user's documents.
	for _, tool := range tools.Tools {
		if a := tool.Annotations; a == nil || !a.ReadOnlyHint || a.OpenWorldHint == nil || *a.OpenWorldHint || a.Title == "" {
			t.Errorf("%s: annotations %+v", tool.Name, a)
		}
	}
	// The documents are listed, each with a URI that reads it.
	list, err := s.ListResources(ctx, nil)
	if err != nil || len(list.Resources) != 8 || list.NextCursor != "" {
		t.Fatalf("resources/list: %v %+v", err, list)
	}
	for _, r := range list.Resources {
		if _, err := s.ReadResource(ctx, &mcp.ReadResourceParams{URI: r.URI}); err != nil || r.MIMEType != "text/plain" || r.Name == "" {
			t.Errorf("listed %+v: %v", r, err)
		}
	}

	res, err := s.CallTool(ctx, &mcp.CallToolParams{Name: "search", Arguments: map[string]any{"query": "reset the device", "top_k": 2, "type": []string{"md"}}})
	if err != nil {
		t.Fatal(err)
	}
	var rep struct {
		Results []struct {
			Path    string  `json:"path"`
			Page    int     `json:"page"`
			Line    int     `json:"line"`
			Score   float64 `json:"score"`
			ChunkID int64   `json:"chunk_id"`
		} `json:"results"`
	}
	structured(t, res, &rep)
	if len(rep.Results) != 1 || !strings.HasSuffix(rep.Results[0].Path, "router-x200.md") || rep.Results[0].Score != 1 || rep.Results[0].ChunkID == 0 {
		t.Fatalf("search: %+v", rep)
	}
	if len(res.Content) == 0 || !strings.Contains(res.Content[0].(*mcp.TextContent).Text, "router-x200.md") {
		t.Errorf("no text content for clients without structured output: %v", res.Content)
	}

	res, err = s.CallTool(ctx, &mcp.CallToolParams{Name: "open_citation", Arguments: map[string]any{"chunk_id": rep.Results[0].ChunkID}})
	if err != nil {
		t.Fatal(err)
	}
	var p Passage
	structured(t, res, &p)
	if p.File != rep.Results[0].Path || !strings.Contains(p.Text, "RESET button") || p.Line != 8 || p.LineEnd < p.Line {
		t.Errorf("open_citation: %+v", p)
	}
	res, err = s.CallTool(ctx, &mcp.CallToolParams{Name: "open_citation", Arguments: map[string]any{"chunk_id": 999999}})
	if err != nil || !res.IsError || !strings.Contains(res.Content[0].(*mcp.TextContent).Text, "no passage 999999") {
		t.Errorf("unknown citation: %v %+v", err, res)
	}

	res, err = s.CallTool(ctx, &mcp.CallToolParams{Name: "ask", Arguments: map[string]any{"question": "how do I reset the device"}})
	if err != nil {
		t.Fatal(err)
	}
	var ans askResult
	structured(t, res, &ans)
	if !strings.Contains(ans.Answer, "RESET button") || len(ans.Citations) == 0 || ans.Citations[0].Path != rep.Results[0].Path || ans.Verdict == "" {
		t.Errorf("ask: %+v", ans)
	}

	res, err = s.CallTool(ctx, &mcp.CallToolParams{Name: "status", Arguments: map[string]any{}})
	if err != nil {
		t.Fatal(err)
	}
	var st Status
	structured(t, res, &st)
	if st.Documents != 8 || len(st.Folders) != 1 || st.NetworkMode != "offline" {
		t.Errorf("status: %+v", st)
	}

	doc, err := s.ReadResource(ctx, &mcp.ReadResourceParams{URI: "file://" + rep.Results[0].Path})
	if err != nil {
		t.Fatal(err)
	}
	if text := doc.Contents[0].Text; !strings.Contains(text, "RESET button") || !strings.Contains(text, "lines 1-") {
		t.Errorf("document: %q", text)
	}
	// Only indexed documents: never another file of the disk.
	for _, path := range []string{"/etc/passwd", filepath.Join(filepath.Dir(rep.Results[0].Path), "nothing.md")} {
		if _, err := s.ReadResource(ctx, &mcp.ReadResourceParams{URI: "file://" + path}); err == nil {
			t.Errorf("read %s", path)
		}
	}
}

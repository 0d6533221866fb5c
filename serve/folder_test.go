package serve

import (
	"context"
	"fmt"
	"net/url"
	"path/filepath"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// A folder is a folder on every surface: a sibling whose name starts with
// the folder's leaks into no result, a folder written with or without its
// last separator is the same, and a relative path is refused (the client's
// working directory is not the service's).
func TestFolderIsAFolderOnEverySurface(t *testing.T) {
	eng := testEngine(t)
	dir := t.TempDir()
	for _, sub := range []string{"corpus", "corpus-old"} {
		writeFile(t, filepath.Join(dir, sub, "kiln.md"), "# Kiln\n\nThe kiln fires at 1240 degrees for cone 6 stoneware.\n")
		if _, err := eng.IndexFolder(context.Background(), filepath.Join(dir, sub), nil); err != nil {
			t.Fatal(err)
		}
	}
	base, _ := startServer(t, eng, Options{})
	folder := filepath.Join(dir, "corpus")
	files := func(body string) []string {
		var out []string
		results, _ := toMap(t, body)["results"].([]any)
		for _, r := range results {
			out = append(out, r.(map[string]any)["path"].(string))
		}
		return out
	}
	want := filepath.Join(folder, "kiln.md")
	for name, do := range map[string]func() (int, string){
		"GET": func() (int, string) {
			return call(t, "GET", base+"/api/search?q=kiln+stoneware&folder="+url.QueryEscape(folder), testToken, "")
		},
		"GET, last separator": func() (int, string) {
			return call(t, "GET", base+"/api/search?q=kiln+stoneware&folder="+url.QueryEscape(folder+"/"), testToken, "")
		},
		"POST": func() (int, string) {
			return call(t, "POST", base+"/api/search", testToken, fmt.Sprintf(`{"q":"kiln stoneware","folder":[%q]}`, folder))
		},
	} {
		status, body := do()
		if got := files(body); status != 200 || len(got) != 1 || got[0] != want {
			t.Errorf("%s: %d %v, want only %s", name, status, got, want)
		}
	}
	status, body := call(t, "POST", base+"/api/ask", testToken, fmt.Sprintf(`{"question":"what temperature does the kiln fire at","folder":[%q]}`, folder))
	if status != 200 || !strings.Contains(body, want) || strings.Contains(body, "corpus-old") {
		t.Errorf("ask: %d %s", status, body)
	}

	s, err := connectHTTP(t, base, testToken)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	res, err := s.CallTool(context.Background(), &mcp.CallToolParams{Name: "search", Arguments: map[string]any{"query": "kiln stoneware", "folder": []string{folder}}})
	if err != nil {
		t.Fatal(err)
	}
	var rep struct {
		Results []struct {
			Path string `json:"path"`
		} `json:"results"`
	}
	structured(t, res, &rep)
	if len(rep.Results) != 1 || rep.Results[0].Path != want {
		t.Errorf("MCP search: %+v", rep)
	}

	// A relative folder: 422 that says so, and an error to the assistant.
	for name, do := range map[string]func() (int, string){
		"GET": func() (int, string) { return call(t, "GET", base+"/api/search?q=kiln&folder=corpus", testToken, "") },
		"POST": func() (int, string) {
			return call(t, "POST", base+"/api/search", testToken, `{"q":"kiln","folder":["corpus"]}`)
		},
		"ask": func() (int, string) {
			return call(t, "POST", base+"/api/ask", testToken, `{"question":"kiln?","folder":["corpus"]}`)
		},
	} {
		if status, body := do(); status != 422 || !strings.Contains(body, "folder: corpus: a relative path") {
			t.Errorf("%s, relative folder: %d %s", name, status, body)
		}
	}
	res, err = s.CallTool(context.Background(), &mcp.CallToolParams{Name: "search", Arguments: map[string]any{"query": "kiln", "folder": []string{"corpus"}}})
	if err != nil || !res.IsError || !strings.Contains(res.Content[0].(*mcp.TextContent).Text, "a relative path") {
		t.Errorf("MCP, relative folder: %v %+v", err, res)
	}
}

package serve

import (
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The guide's rules on the service: a search shows the person's file
// before the guide's page that answers as well, each result saying whether
// it is the guide's; no_guide leaves the guide out of a search and of a
// question, on the API and MCP alike, as `cairn search --no-guide` does
// (issue 39, item 7).
func TestTheGuideYieldsAndCanBeLeftOutOnTheService(t *testing.T) {
	eng := testEngine(t)
	own := filepath.Join(t.TempDir(), "Documents")
	writeFile(t, filepath.Join(eng.GuideDir(), "02-indexing.md"), "# Indexing folders\n\n## Hidden files\n\n"+
		"Hidden files are skipped when Cairn indexes a folder: to list hidden files in the results, set index.include_hidden and index the folder again.\n")
	writeFile(t, filepath.Join(own, "ls.md"), "# ls\n\n## Options\n\n-a, --all: do not ignore entries starting with a dot, so as to list hidden files.\n")
	for _, dir := range []string{eng.GuideDir(), own} {
		if _, err := eng.IndexFolder(context.Background(), dir, nil); err != nil {
			t.Fatal(err)
		}
	}
	base, _ := startServer(t, eng, Options{})
	type result struct {
		Path  string `json:"path"`
		Guide bool   `json:"guide"`
	}
	files := func(rs []result) string {
		var out []string
		for _, r := range rs {
			name := filepath.Base(r.Path)
			if r.Guide {
				name += " (guide)"
			}
			out = append(out, name)
		}
		return strings.Join(out, ", ")
	}
	for query, want := range map[string]string{
		"q=how+do+I+list+hidden+files":               "ls.md, 02-indexing.md (guide), pieces-latin1.txt",
		"q=how+do+I+list+hidden+files&no_guide=true": "ls.md, pieces-latin1.txt",
	} {
		status, body := call(t, "GET", base+"/api/search?"+query, testToken, "")
		var rep struct{ Results []result }
		if status != 200 || json.Unmarshal([]byte(body), &rep) != nil || files(rep.Results) != want {
			t.Errorf("GET %s: %d %s, want %s", query, status, files(rep.Results), want)
		}
	}
	for body, want := range map[string]string{
		`{"question":"how do I list hidden files"}`:                 "ls.md, 02-indexing.md (guide), pieces-latin1.txt",
		`{"question":"how do I list hidden files","no_guide":true}`: "ls.md, pieces-latin1.txt",
	} {
		status, out := call(t, "POST", base+"/api/ask", testToken, body)
		var ans struct {
			Sources []result `json:"sources"`
		}
		if status != 200 || json.Unmarshal([]byte(out), &ans) != nil || files(ans.Sources) != want {
			t.Errorf("ask %s: %d %s, want sources %s", body, status, files(ans.Sources), want)
		}
	}
	s, err := connectHTTP(t, base, testToken)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	res, err := s.CallTool(context.Background(), &mcp.CallToolParams{Name: "search",
		Arguments: map[string]any{"query": "how do I list hidden files", "no_guide": true}})
	if err != nil {
		t.Fatal(err)
	}
	var rep struct{ Results []result }
	structured(t, res, &rep)
	if got := files(rep.Results); got != "ls.md, pieces-latin1.txt" {
		t.Errorf("MCP search no_guide: %s, want ls.md, pieces-latin1.txt", got)
	}
}

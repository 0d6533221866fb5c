package serve

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"cairn/core/answer"
)

// Search results page over GET and POST /api/search and MCP's search:
// page 2 goes on where page 1 stopped, in one ranking, and says whether
// another follows; without page, the reply is `cairn search --json`'s.
func TestSearchResultsPage(t *testing.T) {
	eng := testEngine(t)
	dir := t.TempDir()
	for i := range 7 {
		writeFile(t, filepath.Join(dir, fmt.Sprintf("glaze%d.md", i)), fmt.Sprintf("# Glaze %d\n\nThe feldspar glaze number %d.\n", i, i))
	}
	if _, err := eng.IndexFolder(context.Background(), dir, nil); err != nil {
		t.Fatal(err)
	}
	base, _ := startServer(t, eng, Options{})
	s, err := connectHTTP(t, base, testToken)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	pageOf := func(how string, page int) SearchPage {
		t.Helper()
		var sp SearchPage
		switch how {
		case "GET":
			q := "/api/search?q=feldspar+glaze&top_k=3"
			if page > 0 {
				q += fmt.Sprintf("&page=%d", page)
			}
			status, body := call(t, "GET", base+q, testToken, "")
			if err := json.Unmarshal([]byte(body), &sp); status != 200 || err != nil {
				t.Fatalf("%s page %d: %d %s", how, page, status, body)
			}
		case "POST":
			status, body := call(t, "POST", base+"/api/search", testToken, fmt.Sprintf(`{"q":"feldspar glaze","top_k":3,"page":%d}`, page))
			if err := json.Unmarshal([]byte(body), &sp); status != 200 || err != nil {
				t.Fatalf("%s page %d: %d %s", how, page, status, body)
			}
		case "MCP":
			res, err := s.CallTool(context.Background(), &mcp.CallToolParams{Name: "search", Arguments: map[string]any{"query": "feldspar glaze", "top_k": 3, "page": page}})
			if err != nil {
				t.Fatal(err)
			}
			structured(t, res, &sp)
		}
		return sp
	}
	all := pageOf("GET", 0)
	if len(all.Results) != 3 || all.Page != 0 || all.NextPage != 0 {
		t.Fatalf("no page asked: %+v", all)
	}
	// The whole ranking, for reference: top_k 9.
	_, body := call(t, "GET", base+"/api/search?q=feldspar+glaze&top_k=9", testToken, "")
	var ranking SearchPage
	json.Unmarshal([]byte(body), &ranking)
	if len(ranking.Results) != 7 {
		t.Fatalf("the ranking: %d results", len(ranking.Results))
	}
	for _, how := range []string{"GET", "POST", "MCP"} {
		var got []int
		for page, next := 1, []int{2, 3, 0}; page <= 3; page++ {
			sp := pageOf(how, page)
			if sp.Page != page || sp.NextPage != next[page-1] {
				t.Errorf("%s page %d: page %d, next %d", how, page, sp.Page, sp.NextPage)
			}
			for _, r := range sp.Results {
				got = append(got, r.Rank)
				if r.ChunkID != ranking.Results[r.Rank-1].ChunkID {
					t.Errorf("%s page %d: rank %d is chunk %d, the ranking's %d", how, page, r.Rank, r.ChunkID, ranking.Results[r.Rank-1].ChunkID)
				}
			}
		}
		if !slices.Equal(got, []int{1, 2, 3, 4, 5, 6, 7}) {
			t.Errorf("%s: ranks %v over three pages", how, got)
		}
	}
	if status, body := call(t, "GET", base+"/api/search?q=glaze&page=0", testToken, ""); status != 422 {
		t.Errorf("page 0: %d %s", status, body)
	}
}

// /api/ask asks in a saved conversation as `cairn ask` does: new starts
// one, continue goes on with the latest, thread with the one named; a
// follow-up there is read as one. MCP's ask and /api/ask take page for a
// list of files.
func TestAskInASavedConversation(t *testing.T) {
	eng := testEngine(t)
	dir := t.TempDir()
	for name, text := range manPages {
		writeFile(t, filepath.Join(dir, name+".txt"), text)
	}
	if _, err := eng.IndexFolder(context.Background(), dir, nil); err != nil {
		t.Fatal(err)
	}
	base, _ := startServer(t, eng, Options{})
	ask := func(body string) (int, answer.Answer) {
		t.Helper()
		status, reply := call(t, "POST", base+"/api/ask", testToken, body)
		var a answer.Answer
		json.Unmarshal([]byte(reply), &a)
		if status != 200 {
			t.Logf("%s: %d %s", body, status, reply)
		}
		return status, a
	}
	_, first := ask(`{"question":"How do I ignore case with grep?","new":true}`)
	if first.Thread == 0 || first.FollowUp != nil {
		t.Fatalf("new: thread %d, follow-up %+v", first.Thread, first.FollowUp)
	}
	_, second := ask(`{"question":"and for sort?","continue":true}`)
	if second.Thread != first.Thread || second.FollowUp == nil || second.FollowUp.Of != "How do I ignore case with grep?" {
		t.Errorf("continue: thread %d (want %d), follow-up %+v", second.Thread, first.Thread, second.FollowUp)
	}
	_, third := ask(fmt.Sprintf(`{"question":"and for uniq?","thread":%d}`, first.Thread))
	if third.Thread != first.Thread || third.FollowUp == nil || third.FollowUp.Of != "and for sort?" {
		t.Errorf("thread: thread %d, follow-up %+v", third.Thread, third.FollowUp)
	}
	// Without one, nothing is saved and nothing followed.
	if _, alone := ask(`{"question":"and for sort?"}`); alone.Thread != 0 || alone.FollowUp != nil {
		t.Errorf("alone: thread %d, follow-up %+v", alone.Thread, alone.FollowUp)
	}
	for body, want := range map[string]int{
		`{"question":"x","thread":999}`:               404,
		`{"question":"x","thread":-1}`:                422,
		`{"question":"x","new":true,"continue":true}`: 422,
		`{"question":"x","thread":"one"}`:             422,
		`{"question":"x","continue":"yes"}`:           422,
	} {
		if status, reply := call(t, "POST", base+"/api/ask", testToken, body); status != want {
			t.Errorf("%s: %d %s, want %d", body, status, reply, want)
		}
	}
}

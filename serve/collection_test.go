package serve

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestWordFormsOverAPIAndMCP: a question about the collection counts
// whole words unless word_forms is set, on the API and on MCP alike, as
// cairn ask --word-forms does: the router manual says "settings", not
// "setting".
func TestWordFormsOverAPIAndMCP(t *testing.T) {
	eng := testEngine(t)
	base, _ := startServer(t, eng, Options{})
	const q = "How many files mention setting?"
	const whole, forms = "0 files contain 'setting' (whole word, any case).", "1 file contains 'setting' (any form of the word)."
	for body, want := range map[string]string{
		`{"question":"` + q + `"}`:                   whole,
		`{"question":"` + q + `","word_forms":true}`: forms,
	} {
		status, out := call(t, "POST", base+"/api/ask", testToken, body)
		var ans struct {
			Collection struct{ Statement string }
		}
		if status != 200 || json.Unmarshal([]byte(out), &ans) != nil || ans.Collection.Statement != want {
			t.Errorf("API %s: %d %s; want %q", body, status, out, want)
		}
	}
	s, err := connectHTTP(t, base, testToken)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	for args, want := range map[bool]string{false: whole, true: forms} {
		res, err := s.CallTool(context.Background(), &mcp.CallToolParams{Name: "ask", Arguments: map[string]any{"question": q, "word_forms": args}})
		if err != nil {
			t.Fatal(err)
		}
		var out askResult
		structured(t, res, &out)
		if !strings.HasPrefix(out.Answer, want) {
			t.Errorf("MCP word_forms %v: %q; want %q", args, out.Answer, want)
		}
	}
}

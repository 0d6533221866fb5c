package serve

import (
	"bufio"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"math"
	"net/http"
	"path/filepath"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"cairn/core"
	"cairn/core/llm/testmodel"
)

// /v1/models lists cairn and, when one is loaded, the embedding model,
// each with the time the service started; /v1/models/{id} gives one.
// /v1/embeddings embeds with that model, as floats or as OpenAI's base64,
// the same vectors either way, with the tokens they took.
func TestOpenAIModelsAndEmbeddings(t *testing.T) {
	eng := testEngineWith(t, core.Options{}, nil, testmodel.Tiny())
	base, _ := startServer(t, eng, Options{})
	status, body := call(t, "GET", base+"/v1/models", testToken, "")
	var list ModelList
	if err := json.Unmarshal([]byte(body), &list); status != 200 || err != nil || len(list.Data) != 2 {
		t.Fatalf("models: %d %s", status, body)
	}
	if list.Data[0].ID != "cairn" || list.Data[1].ID != "tiny-minilm-test" || list.Data[0].Created == 0 || list.Data[0].Object != "model" {
		t.Errorf("models: %s", body)
	}
	for _, id := range []string{"cairn", "tiny-minilm-test"} {
		status, body := call(t, "GET", base+"/v1/models/"+id, testToken, "")
		var m ModelInfo
		if err := json.Unmarshal([]byte(body), &m); status != 200 || err != nil || m.ID != id || m.Created != list.Data[0].Created {
			t.Errorf("model %s: %d %s", id, status, body)
		}
	}
	// The embedding model cannot chat.
	status, body = call(t, "POST", base+"/v1/chat/completions", testToken, `{"model":"tiny-minilm-test","messages":[{"role":"user","content":"hi"}]}`)
	if status != 400 || !strings.Contains(body, "tiny-minilm-test is the embedding model") {
		t.Errorf("chat with the embedding model: %d %s", status, body)
	}

	embed := func(format string) EmbeddingList {
		t.Helper()
		status, body := call(t, "POST", base+"/v1/embeddings", testToken,
			fmt.Sprintf(`{"model":"tiny-minilm-test","input":["reset the router","the kiln fires at 1240 degrees"],"encoding_format":%q}`, format))
		var out EmbeddingList
		if err := json.Unmarshal([]byte(body), &out); status != 200 || err != nil || out.Object != "list" || len(out.Data) != 2 {
			t.Fatalf("%s: %d %s", format, status, body)
		}
		if out.Model != "tiny-minilm-test" || out.Usage.PromptTokens == 0 || out.Usage.TotalTokens != out.Usage.PromptTokens {
			t.Errorf("%s: model %q usage %+v", format, out.Model, out.Usage)
		}
		return out
	}
	floats := embed("float")
	b64 := embed("base64")
	for i := range 2 {
		v, _ := floats.Data[i].Embedding.([]any)
		s, _ := b64.Data[i].Embedding.(string)
		raw, err := base64.StdEncoding.DecodeString(s)
		if len(v) != 32 || err != nil || len(raw) != 4*len(v) || floats.Data[i].Index != i {
			t.Fatalf("vector %d: %d floats, %d bytes (%v)", i, len(v), len(raw), err)
		}
		for j, x := range v {
			if got := math.Float32frombits(binary.LittleEndian.Uint32(raw[4*j:])); got != float32(x.(float64)) {
				t.Fatalf("vector %d[%d]: base64 %v, float %v", i, j, got, x)
			}
		}
	}
	if status, body := call(t, "POST", base+"/v1/embeddings", testToken, `{"input":"x","dimensions":16}`); status != 400 || !strings.Contains(body, "vectors of 32 dimensions, not 16") {
		t.Errorf("dimensions: %d %s", status, body)
	}
	if status, body := call(t, "POST", base+"/v1/embeddings", testToken, `{"input":["a",""]}`); status != 400 || !strings.Contains(body, "input[1]: an empty text") {
		t.Errorf("empty text: %d %s", status, body)
	}
}

// The legacy completions answer the prompt as a question, whole or
// streamed, with its usage: a quoted answer's tokens are counted too (with
// no model loaded, estimated at four bytes a token), and created is now.
func TestOpenAICompletionsAndUsage(t *testing.T) {
	base, _ := startServer(t, testEngine(t), Options{})
	status, body := call(t, "POST", base+"/v1/completions", testToken, `{"model":"cairn","prompt":"how do I reset the device","max_tokens":50}`)
	var c Completion
	if err := json.Unmarshal([]byte(body), &c); status != 200 || err != nil || c.Object != "text_completion" || len(c.Choices) != 1 {
		t.Fatalf("completion: %d %s", status, body)
	}
	text := c.Choices[0].Text
	if !strings.Contains(text, "RESET button") || !strings.Contains(text, "\n\nSources:\n[1] ") || c.Created == 0 || !strings.HasPrefix(c.ID, "cmpl-") {
		t.Errorf("completion: %s", body)
	}
	want := Usage{PromptTokens: (len("how do I reset the device") + 3) / 4, CompletionTokens: (len(text) + 3) / 4}
	want.TotalTokens = want.PromptTokens + want.CompletionTokens
	if c.Usage == nil || *c.Usage != want {
		t.Errorf("usage %+v, want %+v", c.Usage, want)
	}

	// Streamed, with the usage asked for: text pieces, the last with the
	// finish reason, then the usage with no choices, then [DONE].
	for _, path := range []string{"/v1/completions", "/v1/chat/completions"} {
		reqBody := `{"prompt":"how do I reset the device","stream":true,"stream_options":{"include_usage":true}}`
		if path == "/v1/chat/completions" {
			reqBody = `{"messages":[{"role":"user","content":"how do I reset the device"}],"stream":true,"stream_options":{"include_usage":true}}`
		}
		req, _ := http.NewRequest("POST", base+path, strings.NewReader(reqBody))
		req.Header.Set("Authorization", "Bearer "+testToken)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		var events []map[string]any
		done := false
		sc := bufio.NewScanner(resp.Body)
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			data, ok := strings.CutPrefix(sc.Text(), "data: ")
			if !ok {
				continue
			}
			if data == "[DONE]" {
				done = true
				continue
			}
			var ev map[string]any
			json.Unmarshal([]byte(data), &ev)
			events = append(events, ev)
		}
		resp.Body.Close()
		n := len(events)
		if !done || n < 2 {
			t.Fatalf("%s: %d events, done %v", path, n, done)
		}
		last, usage := events[n-2], events[n-1]
		choices := last["choices"].([]any)
		if choices[0].(map[string]any)["finish_reason"] != "stop" || last["usage"] != nil {
			t.Errorf("%s: the last piece %v", path, last)
		}
		u, _ := usage["usage"].(map[string]any)
		if len(usage["choices"].([]any)) != 0 || u == nil || u["completion_tokens"] != float64(want.CompletionTokens) || u["prompt_tokens"] == float64(0) {
			t.Errorf("%s: the usage chunk %v, want completion_tokens %d", path, usage, want.CompletionTokens)
		}
	}
}

// A list of files longer than a page pages over /v1 as over the command
// line: the reply says how to get the next page, and "next page" (or
// "page 2", or the page field) gives it.
func TestOpenAIPagesAListOfFiles(t *testing.T) {
	eng := testEngine(t)
	dir := t.TempDir()
	for i := range 62 {
		writeFile(t, filepath.Join(dir, fmt.Sprintf("note%02d.md", i)), fmt.Sprintf("# Note %d\n\nThe glaze recipe number %d uses feldspar.\n", i, i))
	}
	if _, err := eng.IndexFolder(t.Context(), dir, nil); err != nil {
		t.Fatal(err)
	}
	base, _ := startServer(t, eng, Options{})
	ask := func(messages ...string) string {
		t.Helper()
		var ms []map[string]string
		for i, m := range messages {
			ms = append(ms, map[string]string{"role": [2]string{"user", "assistant"}[i%2], "content": m})
		}
		b, _ := json.Marshal(map[string]any{"messages": ms})
		status, body := call(t, "POST", base+"/v1/chat/completions", testToken, string(b))
		var c ChatCompletion
		if err := json.Unmarshal([]byte(body), &c); status != 200 || err != nil {
			t.Fatalf("%d %s", status, body)
		}
		return c.Choices[0].Message.Content.(string)
	}
	const q = "which files mention feldspar?"
	first := ask(q)
	if !strings.Contains(first, "Files 1–50 of 62 (page 1 of 2).") || !strings.Contains(first, `Say "next page" for files 51–62`) || strings.Contains(first, "note55.md") {
		t.Fatalf("page 1: %q", first)
	}
	for _, next := range []string{"next page", "Page 2", "more please"} {
		second := ask(q, first, next)
		if !strings.Contains(second, "Files 51–62 of 62 (page 2 of 2).") || !strings.Contains(second, "note55.md") || strings.Contains(second, "next page") {
			t.Errorf("%q: %q", next, second)
		}
	}
	b, _ := json.Marshal(map[string]any{"page": 2, "messages": []map[string]string{{"role": "user", "content": q}}})
	if _, body := call(t, "POST", base+"/v1/chat/completions", testToken, string(b)); !strings.Contains(body, "Files 51–62 of 62 (page 2 of 2).") {
		t.Errorf("page 2 by the field: %s", body)
	}
	// /api/ask and MCP's ask take page as `cairn ask --page` does.
	if _, body := call(t, "POST", base+"/api/ask", testToken, `{"question":"`+q+`","page":2}`); !strings.Contains(body, "Files 51–62 of 62 (page 2 of 2).") {
		t.Errorf("/api/ask page 2: %s", body)
	}
	s, err := connectHTTP(t, base, testToken)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	res, err := s.CallTool(t.Context(), &mcp.CallToolParams{Name: "ask", Arguments: map[string]any{"question": q, "page": 2}})
	if err != nil {
		t.Fatal(err)
	}
	var ans askResult
	structured(t, res, &ans)
	if !strings.Contains(ans.Answer, "Files 51–62 of 62 (page 2 of 2).") {
		t.Errorf("MCP ask page 2: %q", ans.Answer)
	}
}

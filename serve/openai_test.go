package serve

import (
	"bufio"
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"cairn/core/answer"
	"cairn/core/search"
)

// The OpenAI-compatible endpoint, as a chat client uses it: the model
// list, a whole answer and a streamed one to the conversation's last user
// message, with the sources in the text and in the citations field, all
// behind the token.
func TestOpenAICompatibleChat(t *testing.T) {
	base, _ := startServer(t, testEngine(t), Options{})
	if status, _ := call(t, "GET", base+"/v1/models", "", ""); status != 401 {
		t.Errorf("models without the token: %d", status)
	}
	status, body := call(t, "GET", base+"/v1/models", testToken, "")
	var models ModelList
	if err := json.Unmarshal([]byte(body), &models); status != 200 || err != nil || models.Object != "list" || len(models.Data) != 1 || models.Data[0].ID != "cairn" {
		t.Fatalf("models: %d %s", status, body)
	}

	// What a client sends: a system message, an earlier turn, fields Cairn
	// ignores, and the question as text parts.
	const conversation = `{"model":"cairn","temperature":0.2,"max_tokens":300,"messages":[
		{"role":"system","content":"You are helpful."},
		{"role":"user","content":"hello"},
		{"role":"assistant","content":"Hello! Ask me about your documents."},
		{"role":"user","content":[{"type":"text","text":"how do I reset the device"}]}]`
	status, body = call(t, "POST", base+"/v1/chat/completions", testToken, conversation+`}`)
	var c ChatCompletion
	if err := json.Unmarshal([]byte(body), &c); status != 200 || err != nil {
		t.Fatalf("completion: %d %s", status, body)
	}
	if c.Object != "chat.completion" || !strings.HasPrefix(c.ID, "chatcmpl-") || c.Model != "cairn" || len(c.Choices) != 1 ||
		c.Choices[0].Message == nil || c.Choices[0].Message.Role != "assistant" || c.Choices[0].FinishReason == nil || *c.Choices[0].FinishReason != "stop" {
		t.Fatalf("completion: %s", body)
	}
	text, _ := c.Choices[0].Message.Content.(string)
	if len(c.Citations) == 0 || !strings.HasSuffix(c.Citations[0].Path, "router-x200.md") {
		t.Fatalf("citations: %s", body)
	}
	if !strings.Contains(text, "RESET button") || !strings.Contains(text, "\n\nSources:\n[1] "+c.Citations[0].Path) {
		t.Errorf("text: %q", text)
	}

	// Streamed: chunks whose deltas make the same text, the last with the
	// citations, then [DONE].
	req, _ := http.NewRequest("POST", base+"/v1/chat/completions", strings.NewReader(conversation+`,"stream":true}`))
	req.Header.Set("Authorization", "Bearer "+testToken)
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "text/event-stream" {
		t.Fatalf("stream: %d %s", resp.StatusCode, resp.Header.Get("Content-Type"))
	}
	var streamed strings.Builder
	var last ChatCompletion
	done := false
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		data, ok := strings.CutPrefix(sc.Text(), "data: ")
		if !ok {
			continue
		}
		if data == "[DONE]" {
			done = true
			break
		}
		var ch ChatCompletion
		if err := json.Unmarshal([]byte(data), &ch); err != nil || ch.Object != "chat.completion.chunk" || len(ch.Choices) != 1 || ch.Choices[0].Delta == nil {
			t.Fatalf("chunk %s: %v", data, err)
		}
		streamed.WriteString(ch.Choices[0].Delta.Content)
		last = ch
	}
	if !done || last.Choices[0].FinishReason == nil || *last.Choices[0].FinishReason != "stop" || len(last.Citations) != len(c.Citations) {
		t.Errorf("stream ended without [DONE], a finish reason or citations: %+v", last)
	}
	if streamed.String() != text {
		t.Errorf("streamed text %q, whole %q", streamed.String(), text)
	}

	// No question: 400, as OpenAI's error.
	if status, body := call(t, "POST", base+"/v1/chat/completions", testToken, `{"model":"cairn","messages":[{"role":"system","content":"hi"}]}`); status != 400 ||
		body != `{"error":{"message":"messages: no user message: the last user message is the question Cairn answers","type":"invalid_request_error","param":"messages","code":"invalid_value"}}`+"\n" {
		t.Errorf("no user message: %d %s", status, body)
	}
}

// A chat model's tokens are streamed as they come, each its own chunk, and
// the sources follow in the last one.
func TestOpenAIStreamsTokens(t *testing.T) {
	eng := testEngine(t)
	stub := stubEngine{Engine: eng, ask: func(ctx context.Context, req search.Request, onToken func(string)) (*answer.Answer, error) {
		if req.Query != "how do I reset the device" {
			t.Errorf("question %q", req.Query)
		}
		for _, tok := range []string{"Hold ", "RESET ", "[1]."} {
			onToken(tok)
		}
		return &answer.Answer{Text: "Hold RESET [1].", Mode: answer.ModeGenerative,
			Citations: []answer.Citation{{N: 1, ChunkID: 7, Path: "/docs/router.pdf", Unit: "page", Page: 4, Line: 12}}}, nil
	}}
	base, _ := startServer(t, stub, Options{})
	req, _ := http.NewRequest("POST", base+"/v1/chat/completions", strings.NewReader(
		`{"model":"cairn","stream":true,"messages":[{"role":"user","content":"how do I reset the device"}]}`))
	req.Header.Set("Authorization", "Bearer "+testToken)
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var deltas []string
	var last ChatCompletion
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		data, ok := strings.CutPrefix(sc.Text(), "data: ")
		if !ok || data == "[DONE]" {
			continue
		}
		last = ChatCompletion{}
		json.Unmarshal([]byte(data), &last)
		deltas = append(deltas, last.Choices[0].Delta.Role+"|"+last.Choices[0].Delta.Content)
	}
	want := []string{"assistant|", "|Hold ", "|RESET ", "|[1].", "|\n\nSources:\n[1] /docs/router.pdf (page 4)"}
	if strings.Join(deltas, "#") != strings.Join(want, "#") {
		t.Errorf("deltas %q, want %q", deltas, want)
	}
	if len(last.Citations) != 1 || last.Citations[0].ChunkID != 7 {
		t.Errorf("last chunk's citations: %+v", last.Citations)
	}
}

// A refusal says the closest passages are listed below, and they are:
// where each is, how well it matched and what it says, under a heading
// that says they are not an answer, and not as sources.
func TestOpenAIRefusalListsTheClosestPassages(t *testing.T) {
	base, _ := startServer(t, testEngine(t), Options{})
	status, body := call(t, "POST", base+"/v1/chat/completions", testToken, `{"messages":[{"role":"user","content":"how much does the coffee machine cost"}]}`)
	var c ChatCompletion
	if err := json.Unmarshal([]byte(body), &c); status != 200 || err != nil {
		t.Fatalf("%d %s", status, body)
	}
	text := c.Choices[0].Message.Content.(string)
	_, closest, ok := strings.Cut(text, "\n\n"+closestHeading+"\n- ")
	if !strings.HasPrefix(text, answer.NotCovered) || !ok || !strings.Contains(closest, "coffee-machine.txt:") ||
		strings.Contains(text, sourcesHeading) || len(c.Citations) != 0 {
		t.Errorf("refusal: %q", text)
	}
	for _, entry := range strings.Split(closest, "\n- ") {
		if where, snippet, _ := strings.Cut(entry, "\n    "); !strings.Contains(where, ", ") || len(snippet) < 20 {
			t.Errorf("entry %q: want the place and the match, then the passage", entry)
		}
	}
}

package serve

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"cairn/core/answer"
	"cairn/core/search"
)

// manPages are three man pages saved as text, short but laid out as `man`
// prints them: a conversation about one option goes from one to the next.
var manPages = map[string]string{
	"grep": `GREP(1)                          User Commands                         GREP(1)

NAME
       grep - print lines that match patterns

OPTIONS
       -i, --ignore-case
              Ignore case distinctions in patterns and input data, so that
              characters that differ only in case match each other.

       -v, --invert-match
              Invert the sense of matching, to select non-matching lines.
`,
	"sort": `SORT(1)                          User Commands                         SORT(1)

NAME
       sort - sort lines of text files

OPTIONS
       -f, --ignore-case
              fold lower case to upper case characters

       -r, --reverse
              reverse the result of comparisons
`,
	"uniq": `UNIQ(1)                          User Commands                         UNIQ(1)

NAME
       uniq - report or omit repeated lines

OPTIONS
       -c, --count
              prefix lines by the number of occurrences

       -i, --ignore-case
              ignore differences in case when comparing
`,
}

// A chat client sends the whole conversation with every question, as the
// openai library does: the earlier questions and the replies it got
// (footer and all), then the new one. /v1 answers the new one after the
// others, exactly as `cairn ask --continue` does, and says so.
func TestOpenAIThreeTurnConversation(t *testing.T) {
	eng := testEngine(t)
	dir := t.TempDir()
	for name, text := range manPages {
		if err := os.WriteFile(filepath.Join(dir, name+".txt"), []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := eng.IndexFolder(context.Background(), dir, nil); err != nil {
		t.Fatal(err)
	}
	base, _ := startServer(t, eng, Options{})
	type msg struct {
		Role    string `json:"role"`
		Content string `json:"content"`
	}
	messages := []msg{{"system", "Answer from my documents."}}
	for i, turn := range []struct {
		question, source, quote, followUp string
	}{
		{"How do I ignore case with grep?", "grep.txt", "-i, --ignore-case", ""},
		{"and for sort?", "sort.txt", "-f, --ignore-case", `Read as a follow-up of "How do I ignore case with grep?"; searched for: `},
		{"and for uniq?", "uniq.txt", "ignore differences in case", `Read as a follow-up of "and for sort?"; searched for: `},
	} {
		messages = append(messages, msg{"user", turn.question})
		body, _ := json.Marshal(map[string]any{"model": "cairn", "messages": messages})
		status, reply := call(t, "POST", base+"/v1/chat/completions", testToken, string(body))
		var c ChatCompletion
		if err := json.Unmarshal([]byte(reply), &c); status != 200 || err != nil {
			t.Fatalf("turn %d: %d %s", i+1, status, reply)
		}
		text, _ := c.Choices[0].Message.Content.(string)
		if len(c.Citations) == 0 || filepath.Base(c.Citations[0].Path) != turn.source || !strings.Contains(text, turn.quote) {
			t.Errorf("turn %d, %q: want %s quoting %q; got %q", i+1, turn.question, turn.source, turn.quote, text)
		}
		if turn.followUp == "" && (c.FollowUp != nil || strings.Contains(text, followUpPrefix)) {
			t.Errorf("turn %d was read as a follow-up: %q", i+1, text)
		}
		if turn.followUp != "" && (c.FollowUp == nil || !strings.Contains(text, "\n\n"+turn.followUp) ||
			!strings.Contains(text, c.FollowUp.Statement())) {
			t.Errorf("turn %d: want the statement %q…, got %+v in %q", i+1, turn.followUp, c.FollowUp, text)
		}
		messages = append(messages, msg{"assistant", text})
	}
}

// The turns the engine is given are the client's messages: each user
// message before the last with the reply that followed it, the reply
// without what Cairn added after the answer, and with what was searched
// for it when the reply says so.
func TestOpenAIConversationTurns(t *testing.T) {
	var got []answer.Turn
	var question string
	stub := stubEngine{Engine: testEngine(t), askAfter: func(ctx context.Context, history []answer.Turn, req search.Request, onToken func(string)) (*answer.Answer, error) {
		got, question = history, req.Query
		return &answer.Answer{Text: "Use -u."}, nil
	}}
	base, _ := startServer(t, stub, Options{})
	first := "Use -i [1].\n\nSources:\n[1] /man/grep.txt:5"
	second := "Use -f [1].\n\nRead as a follow-up of \"How do I ignore case with grep?\"; searched for: sort ignore case\nNote: something\n\n" +
		"Sources:\n[1] /man/sort.txt:5"
	body, _ := json.Marshal(map[string]any{"messages": []map[string]any{
		{"role": "system", "content": "be brief"},
		{"role": "assistant", "content": "Hello! Ask me anything."}, // before any question: no turn
		{"role": "user", "content": "How do I ignore case with grep?"},
		{"role": "assistant", "content": first},
		{"role": "user", "content": []map[string]string{{"type": "text", "text": "and for sort?"}}},
		{"role": "assistant", "content": second},
		{"role": "tool", "content": "ignored"},
		{"role": "user", "content": "and uniq?"},
	}})
	if status, reply := call(t, "POST", base+"/v1/chat/completions", testToken, string(body)); status != 200 {
		t.Fatalf("%d %s", status, reply)
	}
	want := []answer.Turn{
		{Question: "How do I ignore case with grep?", Answer: "Use -i [1]."},
		{Question: "and for sort?", Query: "sort ignore case", Answer: "Use -f [1]."},
	}
	if question != "and uniq?" || !reflect.DeepEqual(got, want) {
		t.Errorf("asked %q after\n%+v\nwant %q after\n%+v", question, got, "and uniq?", want)
	}
}

package remote

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
)

// Request bodies of the two APIs.
type openAIRequest struct {
	Model         string         `json:"model"`
	Messages      []Message      `json:"messages"`
	Stream        bool           `json:"stream"`
	StreamOptions *streamOptions `json:"stream_options,omitempty"`
	MaxTokens     int            `json:"max_tokens,omitempty"`
	Temperature   float64        `json:"temperature"`
	TopP          float64        `json:"top_p,omitempty"`
	Seed          *int           `json:"seed,omitempty"`
	Stop          []string       `json:"stop,omitempty"`
}

// streamOptions asks for the token counts in the stream's last event.
type streamOptions struct {
	IncludeUsage bool `json:"include_usage"`
}

type ollamaRequest struct {
	Model    string        `json:"model"`
	Messages []Message     `json:"messages"`
	Stream   bool          `json:"stream"`
	Options  ollamaOptions `json:"options"`
}

type ollamaOptions struct {
	NumPredict  int      `json:"num_predict,omitempty"`
	Temperature float64  `json:"temperature"`
	TopP        float64  `json:"top_p,omitempty"`
	Seed        *int     `json:"seed,omitempty"`
	Stop        []string `json:"stop,omitempty"`
}

// Stream failures, explained by Client.streamError.
var errIncomplete = errors.New("stream ended early")

// badData is a line that is not what the API sends.
type badData struct {
	line int
	err  error
}

func (b badData) Error() string { return fmt.Sprintf("line %d: %v", b.line, b.err) }

// serverError is an error the endpoint reported inside the stream.
type serverError struct{ msg string }

func (s serverError) Error() string { return s.msg }

// lines reads a stream line by line; a line may be long (a whole JSON
// reply), up to 4 MB.
func lines(r io.Reader) *bufio.Scanner {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), 4<<20)
	return sc
}

// openAIChunk is one event of a chat-completions stream, or (with Message)
// a whole non-streamed reply.
type openAIChunk struct {
	Choices []struct {
		Delta        struct{ Content string } `json:"delta"`
		Message      struct{ Content string } `json:"message"`
		FinishReason *string                  `json:"finish_reason"`
	} `json:"choices"`
	Usage *struct {
		PromptTokens     int `json:"prompt_tokens"`
		CompletionTokens int `json:"completion_tokens"`
	} `json:"usage"`
	Error json.RawMessage `json:"error"`
}

// readOpenAIStream reads server-sent events: "data: {chunk}" lines, ended
// by "data: [DONE]".
func readOpenAIStream(r io.Reader, emit func(string)) (streamStats, error) {
	var st streamStats
	sc := lines(r)
	n := 0
	for sc.Scan() {
		n++
		line := sc.Text()
		data, ok := strings.CutPrefix(line, "data:")
		if !ok {
			continue // blank separators, comments (":"), event:, id:, retry:
		}
		data = strings.TrimSpace(data)
		if data == "[DONE]" {
			return st, nil
		}
		var ch openAIChunk
		if err := json.Unmarshal([]byte(data), &ch); err != nil {
			return st, badData{n, err}
		}
		if len(ch.Error) > 0 && string(ch.Error) != "null" {
			return st, serverError{serverMessage([]byte(`{"error":` + string(ch.Error) + `}`))}
		}
		for _, c := range ch.Choices {
			emit(c.Delta.Content)
			if c.FinishReason != nil && *c.FinishReason != "" {
				st.stopReason = *c.FinishReason
			}
		}
		if ch.Usage != nil {
			st.promptTokens, st.tokens = ch.Usage.PromptTokens, ch.Usage.CompletionTokens
		}
	}
	if err := sc.Err(); err != nil {
		return st, err
	}
	if st.stopReason != "" {
		return st, nil // finished, without the closing [DONE] some servers omit
	}
	return st, errIncomplete
}

// readOpenAIWhole reads a reply that was not streamed.
func readOpenAIWhole(r io.Reader, emit func(string)) (streamStats, error) {
	var st streamStats
	var ch openAIChunk
	if err := json.NewDecoder(r).Decode(&ch); err != nil {
		return st, badData{1, err}
	}
	if len(ch.Error) > 0 && string(ch.Error) != "null" {
		return st, serverError{serverMessage([]byte(`{"error":` + string(ch.Error) + `}`))}
	}
	if len(ch.Choices) == 0 {
		return st, badData{1, errors.New("no choices in the reply")}
	}
	emit(ch.Choices[0].Message.Content)
	if f := ch.Choices[0].FinishReason; f != nil {
		st.stopReason = *f
	}
	if ch.Usage != nil {
		st.promptTokens, st.tokens = ch.Usage.PromptTokens, ch.Usage.CompletionTokens
	}
	return st, nil
}

// ollamaChunk is one line of an /api/chat stream.
type ollamaChunk struct {
	Message *struct {
		Content string `json:"content"`
	} `json:"message"`
	Done            bool   `json:"done"`
	DoneReason      string `json:"done_reason"`
	PromptEvalCount int    `json:"prompt_eval_count"`
	EvalCount       int    `json:"eval_count"`
	Error           string `json:"error"`
}

// readOllamaStream reads JSON lines until one says done.
func readOllamaStream(r io.Reader, emit func(string)) (streamStats, error) {
	var st streamStats
	sc := lines(r)
	n := 0
	for sc.Scan() {
		n++
		line := strings.TrimSpace(sc.Text())
		if line == "" {
			continue
		}
		var ch ollamaChunk
		if err := json.Unmarshal([]byte(line), &ch); err != nil {
			return st, badData{n, err}
		}
		if ch.Error != "" {
			return st, serverError{ch.Error}
		}
		if ch.Message == nil && !ch.Done {
			return st, badData{n, errors.New("neither a message nor the end of the answer")}
		}
		if ch.Message != nil {
			emit(ch.Message.Content)
		}
		if ch.Done {
			st.promptTokens, st.tokens, st.stopReason = ch.PromptEvalCount, ch.EvalCount, ch.DoneReason
			if st.stopReason == "" {
				st.stopReason = "stop"
			}
			return st, nil
		}
	}
	if err := sc.Err(); err != nil {
		return st, err
	}
	return st, errIncomplete
}

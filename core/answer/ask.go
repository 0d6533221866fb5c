package answer

import (
	"context"
	"errors"
	"fmt"
	"time"

	"cairn/core/search"
)

// Retriever finds the passages for a question.
type Retriever func(ctx context.Context, question string) (*search.Response, error)

// Options tune answering.
type Options struct {
	TopK   int    // sources given to the writer; default 8
	Verify string // off, warn (flag unsupported claims) or block (replace the answer); default warn
}

// Answerer answers questions from one knowledge base.
type Answerer struct {
	retrieve Retriever
	opt      Options
}

// New returns an Answerer that retrieves with retrieve.
func New(retrieve Retriever, opt Options) *Answerer {
	if opt.TopK <= 0 {
		opt.TopK = 8
	}
	if opt.Verify == "" {
		opt.Verify = "warn"
	}
	return &Answerer{retrieve: retrieve, opt: opt}
}

// Ask answers question. onToken, when not nil, receives the answer text as
// it is written.
func (a *Answerer) Ask(ctx context.Context, question string, onToken func(string)) (*Answer, error) {
	t0 := time.Now()
	resp, err := a.retrieve(ctx, question)
	if err != nil {
		return nil, fmt.Errorf("retrieve: %w", err)
	}
	ans := &Answer{Question: question, Search: resp, Mode: ModeExtractive, Verdict: VerdictNone}
	ans.Timing.Retrieval = time.Since(t0)
	for i, r := range resp.Results {
		if i == a.opt.TopK {
			break
		}
		ans.Sources = append(ans.Sources, Source{N: i + 1, Result: r})
	}
	if len(ans.Sources) == 0 {
		ans.NoSources, ans.Text = true, NothingFound
		emit(onToken, ans.Text)
		ans.Timing.Total = time.Since(t0)
		return ans, nil
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	extract(ans, resp.Candidates.Terms)
	emit(onToken, ans.Text)
	ans.Timing.Total = time.Since(t0)
	return ans, nil
}

func emit(onToken func(string), s string) {
	if onToken != nil {
		onToken(s)
	}
}

// ErrNoQuestion is returned for an empty question.
var ErrNoQuestion = errors.New("empty question")

package core

import (
	"context"
	"errors"
	"strings"

	"cairn/core/answer"
	"cairn/core/search"
)

// Ask answers req.Query from the passages req retrieves. onToken, when not
// nil, receives the answer as it is written.
func (e *Engine) Ask(ctx context.Context, req search.Request, onToken func(string)) (*answer.Answer, error) {
	if strings.TrimSpace(req.Query) == "" {
		return nil, errors.New("empty question: type what you want to know")
	}
	// The writer sees Answer.TopK sources; retrieve at least that many.
	req.TopK = max(req.TopK, e.cfg.Answer.TopK)
	a := answer.New(func(ctx context.Context, q string) (*search.Response, error) {
		r := req
		r.Query = q
		return e.Search(ctx, r)
	}, answer.Options{TopK: e.cfg.Answer.TopK, Verify: e.cfg.Answer.Verify})
	return a.Ask(ctx, req.Query, onToken)
}

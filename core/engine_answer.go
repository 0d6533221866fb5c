package core

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"cairn/core/answer"
	"cairn/core/collection"
	"cairn/core/config"
	"cairn/core/domain"
	"cairn/core/fault"
	"cairn/core/invisible"
	"cairn/core/llm"
	"cairn/core/remote"
	"cairn/core/search"
)

// Ask answers req.Query from the passages req retrieves. onToken, when not
// nil, receives the answer as it is written. With a chat model the answer
// is generated and verified; without one (or when it cannot be loaded, which
// a note says) it is extractive.
//
// When the network gate is online and an endpoint is configured, the online
// model writes instead of the local one.
func (e *Engine) Ask(ctx context.Context, req search.Request, onToken func(string)) (*answer.Answer, error) {
	return e.ask(ctx, req, nil, onToken)
}

// AskInThread answers req.Query as the next question of the saved
// conversation thread (0: a new one), and saves it there with its answer.
// A follow-up ("and for tar?") is made standalone from the questions
// before it; ans.FollowUp says so and ans.Query shows what was searched. A
// question that is no follow-up and changes the subject (ans.NewSubject)
// starts a new conversation: ans.Thread is the conversation the question
// was saved in, which may not be thread. An answer that could not be saved
// says so in a note.
func (e *Engine) AskInThread(ctx context.Context, thread int64, req search.Request, onToken func(string)) (*answer.Answer, error) {
	history, err := e.threadHistory(ctx, thread)
	if err != nil {
		return nil, err
	}
	if req.Filter, err = e.threadFilter(ctx, thread, req.Filter); err != nil {
		return nil, err
	}
	ans, err := e.ask(ctx, req, history, onToken)
	if err != nil {
		return nil, err
	}
	saveIn := thread
	if ans.NewSubject {
		saveIn = 0
	}
	id, err := e.db.AddTurn(ctx, saveIn, turnOf(req.Query, ans))
	if err == nil && saveIn != thread {
		// The new conversation is answered from the folders this question
		// was; the question is saved in it either way.
		folders, ferr := e.db.ThreadFolders(ctx, thread)
		if ferr == nil && len(folders) > 0 {
			ferr = e.db.SetThreadFolders(ctx, id, folders)
		}
		if ferr != nil {
			e.log.Warn("keep a conversation's folders", "err", ferr)
			ans.Notes = append(ans.Notes, "The new conversation could not keep the folders of the one before: "+ferr.Error())
		}
	}
	return e.saved(ans, id, err), nil
}

// AskAfter answers req.Query as the next question of a conversation the
// caller keeps (an OpenAI-compatible client sends the whole of it with
// every request): the same follow-up rules as AskInThread, nothing saved.
func (e *Engine) AskAfter(ctx context.Context, history []answer.Turn, req search.Request, onToken func(string)) (*answer.Answer, error) {
	return e.ask(ctx, req, history, onToken)
}

// AnswerAgain answers thread's latest question again (the knobs changed)
// and puts the new answer in its place, so that the conversation does not
// hold the question twice. When the latest question is not req.Query, it
// is asked as the next question (AskInThread).
func (e *Engine) AnswerAgain(ctx context.Context, thread int64, req search.Request, onToken func(string)) (*answer.Answer, error) {
	history, err := e.threadHistory(ctx, thread)
	if err != nil {
		return nil, err
	}
	n := len(history)
	if n == 0 || history[n-1].Question != req.Query {
		return e.AskInThread(ctx, thread, req, onToken)
	}
	if req.Filter, err = e.threadFilter(ctx, thread, req.Filter); err != nil {
		return nil, err
	}
	ans, err := e.ask(ctx, req, history[:n-1], onToken)
	if err != nil {
		return nil, err
	}
	err = e.db.ReplaceLastTurn(ctx, thread, turnOf(req.Query, ans))
	return e.saved(ans, thread, err), nil
}

// turnOf is question's turn of a conversation as it is saved: the answer,
// what was searched for it, and the passages it cites.
func turnOf(question string, ans *answer.Answer) domain.Turn {
	t := domain.Turn{Question: question, Query: ans.Query, Answer: ans.Text}
	for _, c := range ans.Citations {
		t.Sources = append(t.Sources, domain.TurnSource{N: c.N, ChunkID: c.ChunkID, Path: c.Path})
	}
	return t
}

// threadFilter is f narrowed to the folders thread is answered from (all
// of them for a new thread, 0, or one whose folders were never chosen).
func (e *Engine) threadFilter(ctx context.Context, thread int64, f domain.Filter) (domain.Filter, error) {
	if thread == 0 {
		return f, nil
	}
	folders, err := e.db.ThreadFolders(ctx, thread)
	if err != nil {
		return f, err
	}
	if f, err = search.Within(f, folders); err != nil {
		return f, fmt.Errorf("%w (%s): choose other folders for it under Folders in the Ask tab, or change the filter",
			err, strings.Join(folders, ", "))
	}
	return f, nil
}

// SetThreadFolders records the folders the questions of conversation
// thread are answered from (none: every folder): the knowledge base's
// folders as Folders lists them, the user guide's among them.
func (e *Engine) SetThreadFolders(ctx context.Context, thread int64, folders []string) error {
	return e.db.SetThreadFolders(ctx, thread, folders)
}

// saved stamps ans with its conversation, or, when saving failed, says so
// in a note: the answer itself is still good.
func (e *Engine) saved(ans *answer.Answer, thread int64, err error) *answer.Answer {
	if err != nil {
		e.log.Warn("save conversation", "err", err)
		ans.Notes = append(ans.Notes, "This question was not saved in the conversation: "+err.Error())
		return ans
	}
	ans.Thread = thread
	return ans
}

// threadHistory is what a question asked in thread follows: its turns,
// oldest first (none for a new thread, 0).
func (e *Engine) threadHistory(ctx context.Context, thread int64) ([]answer.Turn, error) {
	if thread == 0 {
		return nil, nil
	}
	turns, err := e.db.Turns(ctx, thread)
	if err != nil {
		return nil, err
	}
	history := make([]answer.Turn, len(turns))
	for i, t := range turns {
		history[i] = answer.Turn{Question: t.Question, Query: t.Query, Answer: t.Answer}
	}
	return history, nil
}

// Threads lists the conversations saved in the knowledge base, the most
// recently continued first.
func (e *Engine) Threads(ctx context.Context) ([]domain.Thread, error) { return e.db.Threads(ctx) }

// ThreadTurns lists a saved conversation's questions and answers, oldest
// first.
func (e *Engine) ThreadTurns(ctx context.Context, thread int64) ([]domain.Turn, error) {
	return e.db.Turns(ctx, thread)
}

// DeleteThread removes a saved conversation.
func (e *Engine) DeleteThread(ctx context.Context, thread int64) error {
	return e.db.DeleteThread(ctx, thread)
}

// ask is Ask, with the earlier questions of the conversation the question
// follows (oldest first).
func (e *Engine) ask(ctx context.Context, req search.Request, history []answer.Turn, onToken func(string)) (*answer.Answer, error) {
	var notes []string
	var writer answer.Generator
	online, err := e.Remote()
	if err != nil {
		notes = append(notes, "The online endpoint is not usable ("+err.Error()+"); answering locally.")
	}
	if online != nil {
		writer = remoteWriter{online}
	} else {
		gen, err := e.generator(ctx)
		switch {
		case err != nil:
			notes = append(notes, "Extractive answer: the chat model could not be loaded: "+err.Error())
		case gen != nil:
			writer = localWriter{gen}
		}
	}
	// A writer that fails mid-answer has perhaps streamed part of it.
	streamed := false
	stream := onToken
	if onToken != nil {
		stream = func(s string) { streamed = true; onToken(s) }
	}
	ans, err := e.askWith(ctx, req, writer, history, stream)
	if failed := modelFailure(ctx, writer, err); failed != "" {
		// The chat model is down or broke off: the documents still answer,
		// quoted, and the answer says why it is quoted.
		e.log.Warn("chat model failed: answering with quotes", "code", string(fault.CodeOf(err)), "err", err)
		note := "Quoted answer: " + failed
		if streamed {
			onToken("\n\n(" + note + ")\n\n")
		}
		ans, err = e.askWith(ctx, req, nil, history, onToken)
		if err == nil {
			notes = append(notes, note)
		}
	}
	if err == nil {
		ans.Cost = estimateCost(ans, e.Config().Answer)
	}
	if err != nil {
		if ctx.Err() == nil {
			e.log.Warn("ask failed", "code", string(fault.CodeOf(err)), "err", err)
		}
		return nil, err
	}
	ans.Notes = append(notes, ans.Notes...)
	// Never the question or the answer: only what kind of answer it was.
	e.log.Info("ask", "mode", string(ans.Mode), "model", ans.Model, "sources", len(ans.Sources), "verdict", string(ans.Verdict),
		"refused", ans.Refused, "tokens", ans.Timing.Tokens, "ms", ans.Timing.Total.Milliseconds())
	return ans, nil
}

// modelFailure says why the chat model could not finish the answer when
// err is its failure (the local model or the online endpoint broke off, or
// took longer than answer.timeout_sec), "" when err is another or none: a
// failure of the model leaves the documents to answer from.
func modelFailure(ctx context.Context, writer answer.Generator, err error) string {
	if err == nil || writer == nil || ctx.Err() != nil {
		return ""
	}
	if f, ok := fault.As(err); ok && (f.Code == fault.ModelFailed || f.Code == fault.NetFailed) {
		return strings.TrimSuffix(fault.FirstLine(f.Error()), ".") + "."
	}
	if errors.Is(err, context.DeadlineExceeded) {
		return strings.TrimSuffix(fault.FirstLine(err.Error()), ".") + "."
	}
	return ""
}

// failedWriting is the chat model's failure to write an answer: the local
// model's (MODEL-005) or the online endpoint's (NET-003), which the
// service tells apart (503, 502). A cancel is no failure of the model.
func failedWriting(ctx context.Context, name string, online bool, err error) error {
	if ctx.Err() != nil {
		return err
	}
	if online {
		return fault.New(fault.NetFailed, "the online chat model "+name+" failed", "check the endpoint, or switch the network mode back to offline", err)
	}
	return fault.New(fault.ModelFailed, "the chat model "+name+" failed", "run `cairn doctor --load`, or choose another chat model", err)
}

// AskWith answers like Ask with the writer given (nil: extractive), for
// evaluations that compare writers on the same knowledge base.
func (e *Engine) AskWith(ctx context.Context, req search.Request, writer answer.Generator, onToken func(string)) (*answer.Answer, error) {
	return e.askWith(ctx, req, writer, nil, onToken)
}

func (e *Engine) askWith(ctx context.Context, req search.Request, writer answer.Generator, history []answer.Turn, onToken func(string)) (ans *answer.Answer, err error) {
	req.Query = invisible.Remove(req.Query) // as the indexed text is (extract.finish)
	if strings.TrimSpace(req.Query) == "" {
		return nil, answer.ErrNoQuestion
	}
	home, _ := os.UserHomeDir()
	if q, ok := collection.Parse(req.Query, time.Now(), time.Local, home); ok {
		q.Forms = q.Forms || req.WordForms
		return e.askCollection(ctx, q, req, onToken)
	}
	if collection.LooksLike(req.Query) {
		// Shaped like a count or a list of files, but not read as one:
		// say so before the passages, which are not a count.
		if onToken != nil {
			onToken(collection.NotCounted + "\n\n")
		}
		defer func() {
			if ans != nil {
				ans.Text = collection.NotCounted + "\n\n" + ans.Text
			}
		}()
	}
	c := e.Config() // read once: the window may change the settings meanwhile
	g, as := c.Generation, c.Answer
	if as.TimeoutSec > 0 {
		limit := time.Duration(as.TimeoutSec) * time.Second
		parent := ctx
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, limit)
		defer cancel()
		defer func() {
			if err != nil && parent.Err() == nil && errors.Is(ctx.Err(), context.DeadlineExceeded) {
				err = fmt.Errorf("the answer took longer than answer.timeout_sec (%s): raise it in the Engineering tab or in settings.json, or ask for less (answer.top_k, generation.max_tokens): %w", limit, err)
			}
		}()
	}
	// The writer sees answer.top_k sources; retrieve at least that many.
	req.TopK = max(req.TopK, as.TopK)
	opt := answer.Options{TopK: as.TopK, Verify: as.Verify, Rewrite: as.Rewrite, WholeChunks: as.WholeChunks,
		MaxTokens: g.MaxTokens, Temperature: g.Temperature, TopP: g.TopP, Seed: g.Seed, Generator: writer, History: history}
	if _, ok := writer.(remoteWriter); ok {
		opt.Mode = answer.ModeOnline
	}
	if emb, err := e.embedder(ctx); err == nil && emb != nil {
		if opt.Generator != nil {
			// Verification compares meaning too when an embedder is loaded.
			opt.Embedder = sentenceEmbedder{emb}
		} else {
			// So does the choice of the line an extractive answer quotes.
			opt.Meaning = blockMeaning{emb}
		}
	}
	opt.Within = func(ctx context.Context, q, path string, depth int) (*search.Response, error) {
		r := req
		r.Query, r.Filter.PathPrefixes = q, []string{path}
		r.BM25Pool = max(r.BM25Pool, depth)
		return e.Search(ctx, r)
	}
	opt.Neighbours = e.ChunkNeighbours
	var coverage *search.MeaningCoverage // of the question's search
	a := answer.New(func(ctx context.Context, q *answer.Question) (*search.Response, error) {
		r := req
		r.Query, r.Terms = q.Text, q.Terms
		resp, err := e.Search(ctx, r)
		if err == nil && coverage == nil {
			coverage = resp.Candidates.Coverage
		}
		return resp, err
	}, opt)
	ans, err = a.Ask(ctx, req.Query, onToken)
	if ans != nil && coverage != nil {
		ans.Notes = append(ans.Notes, coverage.Note())
	}
	return ans, err
}

// askCollection answers a question about the collection from the store's
// tables, or the team cluster's documents and chunks: the complete list,
// and how it was counted. The request's own filter (flags, the Ask tab's
// filter row) narrows it further.
func (e *Engine) askCollection(ctx context.Context, q collection.Question, req search.Request, onToken func(string)) (*answer.Answer, error) {
	start := time.Now()
	var notes []string
	// A word no passage holds is corrected as a search corrects it (the
	// search shows which word the passages hold): a count of a misspelt
	// word is not 0.
	var corrections []search.Correction
	if words := q.Words(); len(words) > 0 && !req.Exact {
		resp, err := e.Search(ctx, e.SearchRequest(strings.Join(words, " ")))
		if err != nil {
			return nil, err
		}
		corrections = resp.Candidates.Corrections
		for _, c := range corrections {
			q.Replace(c.From, c.To)
		}
	}
	q.Narrow(req.Filter)
	if g := e.guideFolders(); g != nil && e.leavesOutGuide(req.Filter) {
		q.Filter.Without = withoutFolders(q.Filter.Without, g) // a count reads no in-memory index
	}
	if len(q.Conflicts) > 0 {
		notes = append(notes, "Change the question or the search's filter: together they ask for what no file can be.")
	} else if q.Forms {
		notes = append(notes, "Any form of the words was counted, as the full-text index's stemmer joins them (\"locale\" counts \"locales\", and \"local\" too).")
	} else if len(q.Terms)+len(q.Not) > 0 {
		notes = append(notes, "Whole words only, in any case: other forms of the words were not counted. Ask with --word-forms (API and MCP: word_forms) to count every form.")
	}
	st := collection.OverFile(e.db)
	if e.team != nil {
		ts, err := e.cluster(ctx)
		if err != nil {
			return nil, err
		}
		st = ts
	}
	res, err := collection.Answer(ctx, st, q)
	if err != nil {
		return nil, err
	}
	if e.team != nil {
		res.Method = "Counted by " + e.storeName() + " (its documents and their passages' words), not by a model."
	}
	ans := &answer.Answer{Question: q.Text, Text: res.Page(1), Mode: answer.ModeCollection, Verdict: answer.VerdictNone,
		Sources: []answer.Source{}, Citations: []answer.Citation{}, Claims: []answer.Claim{}, Collection: res,
		Notes: append(notes, res.Method), Corrections: corrections}
	if len(corrections) > 0 {
		ans.Query = search.Corrected(q.Text, corrections)
	}
	ans.Timing.Retrieval = time.Since(start)
	ans.Timing.Total = ans.Timing.Retrieval
	if onToken != nil {
		onToken(ans.Text)
	}
	e.log.Info("ask", "mode", string(ans.Mode), "files", res.Total, "ms", ans.Timing.Total.Milliseconds())
	return ans, nil
}

// estimateCost is what an online answer cost at the prices the person set
// (answer.price_per_mtok_in and _out); 0 for a local or extractive answer,
// or without prices.
func estimateCost(ans *answer.Answer, a config.Answer) float64 {
	if ans.Mode != answer.ModeOnline {
		return 0
	}
	return (float64(ans.Timing.PromptTokens)*a.PricePerMTokIn + float64(ans.Timing.Tokens)*a.PricePerMTokOut) / 1e6
}

// SetAnswering changes the answer settings for the next questions (the
// caller saves them); an invalid verify mode is refused.
func (e *Engine) SetAnswering(a config.Answer) error {
	return e.update(func(c *config.Config) { c.Answer = a })
}

// LocalWriter returns the local chat model as an answer writer; nil
// without error when there is none.
func (e *Engine) LocalWriter(ctx context.Context) (answer.Generator, error) {
	gen, err := e.generator(ctx)
	if err != nil || gen == nil {
		return nil, err
	}
	return localWriter{gen}, nil
}

// localWriter is the local llama.cpp chat model as an answer.Generator.
type localWriter struct{ g *llm.Generator }

func (w localWriter) ContextSize() int           { return w.g.ContextSize() }
func (w localWriter) TokenCount(text string) int { return w.g.TokenCount(text) }

func (w localWriter) Name() string {
	if md := w.g.Metadata(); md != nil && md.Name != "" {
		return md.Name
	}
	return filepath.Base(w.g.Path())
}

// PromptTokens counts msgs as the model's chat template renders them.
func (w localWriter) PromptTokens(msgs []answer.Message) (int, error) {
	return w.g.PromptTokens(llmMessages(msgs))
}

func llmMessages(msgs []answer.Message) []llm.Message {
	out := make([]llm.Message, len(msgs))
	for i, m := range msgs {
		out[i] = llm.Message{Role: m.Role, Content: m.Content}
	}
	return out
}

func (w localWriter) Generate(ctx context.Context, req answer.GenerateRequest, onToken func(string)) (answer.Generation, error) {
	start := time.Now()
	ch, err := w.g.Generate(ctx, llm.GenerateRequest{Messages: llmMessages(req.Messages), MaxTokens: req.MaxTokens,
		Temperature: float32(req.Temperature), TopP: float32(req.TopP), Seed: uint32(req.Seed), Stop: req.Stop})
	if err != nil {
		return answer.Generation{}, failedWriting(ctx, w.Name(), false, err)
	}
	var b strings.Builder
	var out answer.Generation
	for tok := range ch {
		if tok.Done {
			if tok.Err != nil {
				return answer.Generation{}, failedWriting(ctx, w.Name(), false, tok.Err)
			}
			st := tok.Stats
			out.PromptTokens, out.CachedTokens, out.Tokens, out.StopReason = st.PromptTokens, st.CachedTokens, st.GeneratedTokens, string(st.StopReason)
			out.TimeToFirstToken = st.TimeToFirstToken
			continue
		}
		b.WriteString(tok.Text)
		if onToken != nil {
			onToken(tok.Text)
		}
	}
	if err := ctx.Err(); err != nil {
		return answer.Generation{}, err // the final token may be dropped on cancel
	}
	out.Text, out.Duration = b.String(), time.Since(start)
	return out, nil
}

// sentenceEmbedder embeds sentences as passages for verification, so that a
// claim and a source sentence get the same treatment.
type sentenceEmbedder struct{ e *llm.Embedder }

func (s sentenceEmbedder) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	ps := make([]llm.Passage, len(texts))
	for i, t := range texts {
		ps[i] = llm.Passage{Text: t}
	}
	vecs, _, err := s.e.EmbedPassages(ctx, ps)
	if err != nil {
		return nil, errors.Join(errors.New("embedding sentences for verification"), err)
	}
	return vecs, nil
}

// blockMeaning embeds a question and an extractive answer's candidate
// lines, each as the model expects (a query, passages).
type blockMeaning struct{ e *llm.Embedder }

func (m blockMeaning) Embed(ctx context.Context, question string, texts []string) ([]float32, [][]float32, error) {
	q, err := m.e.EmbedQuery(ctx, question)
	if err != nil {
		return nil, nil, fmt.Errorf("embedding the question: %w", err)
	}
	ps := make([]llm.Passage, len(texts))
	for i, t := range texts {
		ps[i] = llm.Passage{Text: t}
	}
	vecs, _, err := m.e.EmbedPassages(ctx, ps)
	if err != nil {
		return nil, nil, fmt.Errorf("embedding the answer's candidate lines: %w", err)
	}
	return q, vecs, nil
}

// remoteWriter is an online endpoint (through the network gate) as an
// answer.Generator.
type remoteWriter struct{ c *remote.Client }

// ContextSize is unknown for a remote model: sources are not trimmed, and
// answer.top_k bounds the prompt.
func (w remoteWriter) ContextSize() int { return 0 }

// TokenCount estimates: about four bytes a token for English text.
func (w remoteWriter) TokenCount(text string) int { return (len(text) + 3) / 4 }

func (w remoteWriter) Name() string { return w.c.Model() + " at " + w.c.Host() }

func (w remoteWriter) Generate(ctx context.Context, req answer.GenerateRequest, onToken func(string)) (answer.Generation, error) {
	msgs := make([]remote.Message, len(req.Messages))
	for i, m := range req.Messages {
		msgs[i] = remote.Message{Role: m.Role, Content: m.Content}
	}
	r, err := w.c.Chat(ctx, remote.Request{Messages: msgs, MaxTokens: req.MaxTokens, Temperature: req.Temperature,
		TopP: req.TopP, Seed: req.Seed, Stop: req.Stop}, onToken)
	if err != nil {
		return answer.Generation{}, failedWriting(ctx, w.Name(), true, err)
	}
	return answer.Generation{Text: r.Text, PromptTokens: r.PromptTokens, Tokens: r.Tokens,
		TimeToFirstToken: r.TimeToFirstToken, Duration: r.Duration, StopReason: r.StopReason}, nil
}

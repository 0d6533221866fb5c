package ui

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"os"
	"slices"
	"time"

	"cairn/core/answer"
	"cairn/core/config"
	"cairn/core/domain"
	"cairn/core/eval"
	"cairn/core/search"
	"cairn/panels"
)

// queryWorker owns everything behind the query panel: answering, the last
// question's candidates, re-ranking them as the sliders move, the personal
// test set and its metrics, and opening sources. Its loop never blocks:
// engine calls run in jobs whose results come back to the loop, which is
// the only sender of events.
type queryWorker struct {
	eng      Engine
	requests <-chan panels.QueryRequest
	events   chan<- panels.QueryEvent       // to the query panel
	metrics  chan<- panels.EngineeringEvent // to the engineering panel
	open     func(context.Context, panels.OpenSource) error
	folder   func(ctx context.Context, path string) error // shows a file in the file manager

	pages       *pageCache
	previewStop context.CancelFunc // the preview on its way, if any

	tuning   config.Retrieval
	question string             // the last answered question
	searched string             // what was searched for it: a follow-up made standalone, a word corrected
	exact    bool               // it was searched as typed, without corrections
	filter   domain.Filter      // the filter it was answered within
	cands    *search.Candidates // its candidates
	sources  []int64            // chunk ids of its answer's sources, to tell when the list disagrees
	// closest: the answer said the documents do not cover the question.
	// Relevance does not depend on the knobs, so no knob can make that
	// answer stale; its passages are the closest, not the listed ones.
	closest   bool
	judgments []domain.Judgment
	judged    map[string]*search.Candidates // judged question -> candidates

	askID    int
	askStop  context.CancelFunc // nil when no question is being answered
	findID   int
	findStop context.CancelFunc // the running re-search, if any

	// thread is the saved conversation the next question continues (0: a
	// new one); threads the knowledge base's conversations as last read.
	// convID counts the switches of conversation: a reopened thread whose
	// turns arrive after another switch is not made current.
	thread  int64
	threads []domain.Thread
	convID  int
	// collection are the folders the conversation answers from (nil:
	// every folder), kept with its thread in the knowledge base.
	collection []string

	// more counts the passages listed beyond top_k for the last question
	// (More results), and poolScale multiplies its search's pools once
	// its candidates are all listed.
	more      int
	poolScale int

	tokens  chan tokenMsg
	asked   chan askResult
	found   chan findResult
	convs   chan threadNews
	cited   chan *search.Passage   // a reopened answer's cited passage, to preview
	notices chan panels.QueryEvent // from jobs, passed on as they are
	jobs
}

// threadNews is a conversation job's result: the list of threads read
// again, and a thread reopened (opened) or deleted (deleted, not 0).
type threadNews struct {
	list    []domain.Thread
	opened  bool
	convID  int
	id      int64
	turns   []domain.Turn
	deleted int64
	err     error
}

type tokenMsg struct {
	id   int
	text string
}

type askResult struct {
	id       int
	question string
	filter   domain.Filter
	exact    bool  // searched as typed
	thread   int64 // the conversation it was asked in (0: a new one)
	ans      *answer.Answer
	err      error
}

// findResult is a re-search: candidates for the last question and the
// judged questions, after the pools changed or judgments were added.
type findResult struct {
	id        int
	loaded    bool              // judgments holds the test set as read now
	judgments []domain.Judgment // when loaded
	cands     map[string]*search.Candidates
	err       error
}

func newQueryWorker(eng Engine, requests <-chan panels.QueryRequest, events chan<- panels.QueryEvent,
	metrics chan<- panels.EngineeringEvent, open func(context.Context, panels.OpenSource) error) *queryWorker {
	return &queryWorker{
		eng: eng, requests: requests, events: events, metrics: metrics, open: open,
		tuning: eng.Config().Retrieval,
		judged: map[string]*search.Candidates{},
		pages:  newPageCache(8, 16<<20),
		folder: func(context.Context, string) error { return errors.New("no file manager") },
		tokens: make(chan tokenMsg), asked: make(chan askResult), found: make(chan findResult), convs: make(chan threadNews),
		cited: make(chan *search.Passage), notices: make(chan panels.QueryEvent), poolScale: 1,
	}
}

// run is the worker's loop; it returns when ctx ends, after its jobs.
func (w *queryWorker) run(ctx context.Context) {
	defer w.jobs.wait()
	w.emit(ctx, panels.QueryReady{})
	w.jobs.spawn(func() { // the status counts the whole knowledge base: not on the way to ready
		if st, err := w.eng.Status(ctx); err == nil {
			send(ctx, w.notices, panels.QueryEvent(panels.ModelsKnown{EmbeddingModel: st.EmbeddingModel, ChatModel: st.ChatModel}))
		}
	})
	w.find(ctx, true)
	w.listThreads(ctx, 0)
	for {
		select {
		case <-ctx.Done():
			return
		case r := <-w.requests:
			w.handle(ctx, r)
		case t := <-w.tokens:
			if t.id == w.askID && w.askStop != nil {
				w.emit(ctx, panels.Token{Text: t.text})
			}
		case res := <-w.asked:
			w.answered(ctx, res)
		case res := <-w.found:
			w.refound(ctx, res)
		case n := <-w.convs:
			w.conversation(ctx, n)
		case p := <-w.cited:
			w.showSource(ctx, p)
		case n := <-w.notices:
			w.emit(ctx, n)
		}
	}
}

func (w *queryWorker) handle(ctx context.Context, r panels.QueryRequest) {
	switch r := r.(type) {
	case panels.Ask:
		w.ask(ctx, r)
	case panels.CancelAsk:
		if w.askStop != nil {
			w.askStop()
		}
	case panels.NewConversation:
		w.newThread(ctx)
		w.emit(ctx, panels.ThreadsListed{Threads: w.threads})
	case panels.ChooseFolders:
		w.chooseFolders(ctx, r.Folders)
	case panels.OpenCited:
		w.openCited(ctx, r)
	case panels.MoreResults:
		w.moreResults(ctx)
	case panels.OpenThread:
		w.switchThread(ctx)
		id := w.convID
		w.jobs.spawn(func() {
			turns, err := w.eng.ThreadTurns(ctx, r.ID)
			send(ctx, w.convs, threadNews{opened: true, convID: id, id: r.ID, turns: turns, err: err})
		})
	case panels.DeleteThread:
		w.listThreads(ctx, r.ID)
	case panels.Tune:
		old := w.tuning
		w.tuning = r.Tuning
		if old.BM25Pool != r.Tuning.BM25Pool || old.VectorPool != r.Tuning.VectorPool || old.Mode != r.Tuning.Mode {
			w.find(ctx, false) // the pools changed: the candidates must be fetched again
			return
		}
		w.rerank(ctx)
	case panels.JudgeSource:
		w.judge(ctx, r)
	case panels.ShowSource:
		w.showSource(ctx, r.Passage)
	case panels.OpenSource:
		w.openExternal(ctx, r.Path, false, func(ctx context.Context) error { return w.open(ctx, r) })
	case panels.ShowInFolder:
		w.openExternal(ctx, r.Path, true, func(ctx context.Context) error { return w.folder(ctx, r.Path) })
	}
}

func (w *queryWorker) emit(ctx context.Context, ev panels.QueryEvent) { send(ctx, w.events, ev) }

// switchThread prepares a change of conversation: a question still being
// answered belongs to the conversation being left, so it is cancelled and
// its answer, should it arrive, ignored.
func (w *queryWorker) switchThread(ctx context.Context) {
	w.convID++
	if w.askStop != nil {
		w.askStop()
		w.askStop = nil
		w.askID++
		w.emit(ctx, panels.AskFailed{Cancelled: true})
	}
}

// newThread makes the next question start a new conversation, answered
// from the folders the last one used.
func (w *queryWorker) newThread(ctx context.Context) {
	w.switchThread(ctx)
	w.thread = 0
	w.emit(ctx, panels.ThreadOpened{})
	w.emit(ctx, panels.FoldersChosen{Folders: w.collection})
}

// chooseFolders sets the folders the conversation answers from, and keeps
// them with its thread (a new conversation's are kept once its first
// question has made the thread).
func (w *queryWorker) chooseFolders(ctx context.Context, folders []string) {
	w.collection = slices.Clone(folders)
	w.emit(ctx, panels.FoldersChosen{Folders: w.collection})
	if w.thread != 0 {
		w.saveFolders(ctx, w.thread)
	}
}

// saveFolders keeps the collection with thread, in a job.
func (w *queryWorker) saveFolders(ctx context.Context, thread int64) {
	folders := slices.Clone(w.collection)
	w.jobs.spawn(func() {
		if err := w.eng.SetThreadFolders(ctx, thread, folders); err != nil && ctx.Err() == nil {
			send(ctx, w.notices, panels.QueryEvent(panels.QueryNotice{Text: "Could not keep the folders with the conversation: " +
				panels.ErrorText(err), Err: true}))
			return
		}
		w.listThreads(ctx, 0)
	})
}

// openCited shows a passage a reopened conversation's answer cites, as
// saved with it: by its chunk id, when that is still the passage of the
// same file (re-indexing a changed file gives its passages new ids).
func (w *queryWorker) openCited(ctx context.Context, r panels.OpenCited) {
	w.jobs.spawn(func() {
		ci, err := w.eng.Passage(ctx, r.ChunkID)
		if err == nil && ci.Path != r.Path {
			err = errors.New("that passage is no longer in the knowledge base")
		}
		if err != nil {
			if ctx.Err() == nil {
				send(ctx, w.notices, panels.QueryEvent(panels.PreviewShown{Passage: &search.Passage{ChunkID: r.ChunkID, Path: r.Path},
					Err: fmt.Errorf("the passage this answer cited is gone: %s was re-indexed or removed since (ask again to find it anew): %w", r.Path, err)}))
			}
			return
		}
		p := &search.Passage{ChunkID: ci.ID, DocumentID: ci.DocumentID, Path: ci.Path, Title: ci.Title, Format: ci.Format,
			Heading: ci.Heading, Text: ci.Text, UnitKind: ci.UnitKind, Page: ci.Page, Label: ci.Label, LineStart: ci.LineStart, LineEnd: ci.LineEnd}
		send(ctx, w.cited, p)
	})
}

// moreResults lists a page more of the passages that matched the last
// question; when its candidates are all listed, the question is searched
// again with pools twice as large.
func (w *queryWorker) moreResults(ctx context.Context) {
	if w.cands == nil {
		return
	}
	page := max(w.params().TopK, 1)
	if len(w.ranked().Results) < w.matching() {
		w.more += page
		w.rerank(ctx)
		return
	}
	if !w.saturated() || w.poolScale >= maxPoolScale {
		return
	}
	w.more += page
	w.poolScale *= 2
	w.findJob(ctx, nil, findLast)
}

// maxPoolScale bounds More results' larger searches: pools of 60 grow to
// 1,920 candidates a retriever at most.
const maxPoolScale = 32

// pools are the candidates each retriever gives the last question.
func (w *queryWorker) pools() (bm25, vector int) {
	req := search.NewRequest("", w.tuning)
	bm25, vector = req.BM25Pool, req.VectorPool
	if bm25 <= 0 {
		bm25 = 60
	}
	if vector <= 0 {
		vector = 60
	}
	return bm25 * w.poolScale, vector * w.poolScale
}

// saturated says the keyword search gave the last question as many candidates as
// its pool allowed: more passages may match than the candidates hold.
func (w *queryWorker) saturated() bool {
	if w.cands == nil {
		return false
	}
	// Only the keyword list says so: the vector search gives a full pool
	// whenever the knowledge base holds that many passages, matching or not.
	bm25, _ := w.pools()
	return len(w.cands.BM25) >= bm25
}

// matching counts the candidates of the last question that pass the
// minimum relevance: every passage that would be listed without top_k and
// the per-document cap.
func (w *queryWorker) matching() int {
	if w.cands == nil {
		return 0
	}
	p := w.params()
	p.TopK, p.PerDocCap = 0, 0
	return len(search.Fuse(w.cands, p))
}

// listThreads reads the saved conversations in a job, after deleting
// thread del when it is not 0.
func (w *queryWorker) listThreads(ctx context.Context, del int64) {
	w.jobs.spawn(func() {
		n := threadNews{deleted: del}
		if del != 0 {
			n.err = w.eng.DeleteThread(ctx, del)
		}
		if n.err == nil {
			n.list, n.err = w.eng.Threads(ctx)
		}
		send(ctx, w.convs, n)
	})
}

// conversation takes in a conversation job's result.
func (w *queryWorker) conversation(ctx context.Context, n threadNews) {
	if n.err != nil {
		if !errors.Is(n.err, context.Canceled) {
			w.emit(ctx, panels.QueryNotice{Text: "Conversations: " + panels.ErrorText(n.err), Err: true})
		}
		return
	}
	switch {
	case n.opened:
		if n.convID != w.convID {
			return // another conversation was chosen meanwhile
		}
		w.thread = n.id
		w.collection = nil
		if i := slices.IndexFunc(w.threads, func(t domain.Thread) bool { return t.ID == n.id }); i >= 0 {
			w.collection = slices.Clone(w.threads[i].Folders)
		}
		w.emit(ctx, panels.ThreadOpened{ID: n.id, Turns: n.turns})
		w.emit(ctx, panels.FoldersChosen{Folders: w.collection})
	case n.deleted != 0 && n.deleted == w.thread:
		w.newThread(ctx)
	}
	if !n.opened {
		w.threads = n.list
	}
	w.emit(ctx, panels.ThreadsListed{Threads: w.threads, Current: w.thread})
}

// params are the knobs that re-rank the cached candidates.
func (w *queryWorker) params() search.Params { return search.NewRequest("", w.tuning).Params }

func (w *queryWorker) ask(ctx context.Context, r panels.Ask) {
	q, spec, again := r.Question, r.Filter, r.Again
	if r.Fresh { // Ask as a new question
		w.newThread(ctx)
		w.emit(ctx, panels.ThreadsListed{Threads: w.threads})
		again = false
	}
	// Folders typed in the window are read from the home folder: the
	// window's working directory means nothing to the person.
	spec.Base, _ = os.UserHomeDir()
	filter, err := spec.Filter(time.Local)
	if err == nil {
		// The conversation's folders: the engine narrows a saved
		// conversation's questions to them too; a new one's first
		// question has no thread to keep them yet.
		filter, err = search.Within(filter, w.collection)
		if err != nil {
			err = fmt.Errorf("%w: choose other folders with the folder button beside Conversation, or change the filter", err)
		}
	}
	if err != nil {
		w.emit(ctx, panels.AskFailed{Question: q, Err: err})
		return
	}
	if w.askStop != nil {
		w.askStop()
	}
	w.askID++
	id := w.askID
	actx, stop := context.WithCancel(ctx)
	w.askStop = stop
	req := search.NewRequest(q, w.tuning)
	req.Filter, req.Exact, req.WordForms = filter, r.Exact, r.WordForms
	thread := w.thread
	w.emit(ctx, panels.Asking{Question: q, Again: again})
	w.jobs.spawn(func() {
		ask := w.eng.AskInThread
		if again {
			ask = w.eng.AnswerAgain
		}
		ans, err := ask(actx, thread, req, func(s string) { send(ctx, w.tokens, tokenMsg{id, s}) })
		send(ctx, w.asked, askResult{id: id, question: q, filter: filter, exact: r.Exact, thread: thread, ans: ans, err: err})
	})
}

func (w *queryWorker) answered(ctx context.Context, res askResult) {
	if res.id != w.askID {
		return // a question that was replaced by a newer one
	}
	w.askStop()
	w.askStop = nil
	if res.err != nil {
		w.emit(ctx, panels.AskFailed{Question: res.question, Err: res.err, Cancelled: errors.Is(res.err, context.Canceled)})
		if errors.Is(res.err, domain.ErrNoThread) {
			// Deleted elsewhere (cairn threads --delete): the next
			// question starts a new conversation rather than fail again.
			w.thread = 0
			w.emit(ctx, panels.ThreadOpened{})
			w.emit(ctx, panels.QueryNotice{Text: "That conversation was deleted outside this window. Ask again: the question starts a new one.", Err: true})
			w.listThreads(ctx, 0)
		}
		return
	}
	w.question, w.searched, w.filter, w.exact = res.question, res.question, res.filter, res.exact
	if res.ans.Query != "" {
		w.searched = res.ans.Query
	}
	if res.ans.Thread != 0 && res.ans.Thread != w.thread {
		// The first question of a new conversation, or one the engine
		// began for a question on another subject: it answers from the
		// same folders.
		w.thread = res.ans.Thread
		if len(w.collection) > 0 && res.thread == 0 {
			// A conversation's first question: its folders are the
			// window's choice. (One the engine began keeps the folders
			// of the one before: Engine.AskInThread.)
			w.saveFolders(ctx, w.thread)
		}
	}
	if res.ans.Thread != 0 {
		w.listThreads(ctx, 0)
	}
	w.cands = nil
	w.more, w.poolScale = 0, 1
	w.sources = listedSources(res.ans)
	w.closest = res.ans.Closest
	if res.ans.Search != nil {
		w.cands = res.ans.Search.Candidates
		w.judged[w.question] = w.cands
	}
	w.emit(ctx, panels.Answered{Answer: res.ans, Filtered: !res.filter.Empty()})
	w.rerank(ctx)
}

// rerank fuses the cached candidates under the current knobs: the source
// list and the test set's metrics follow the sliders without a search.
func (w *queryWorker) rerank(ctx context.Context) {
	live := panels.LiveRanking{Inert: search.Inert(w.cands, search.Mode(w.tuning.Mode), w.params())}
	if w.cands != nil {
		r := w.ranked()
		w.emit(ctx, r)
		live.Question, live.Results = w.question, r.Results
	}
	send(ctx, w.metrics, panels.EngineeringEvent(live))
	send(ctx, w.metrics, panels.EngineeringEvent(w.evaluate()))
}

func (w *queryWorker) ranked() panels.Ranked {
	results := search.Fuse(w.cands, w.params())
	matched := w.matching()
	if w.more > 0 {
		results = listMore(results, w.cands, w.params(), len(results)+w.more)
	}
	right := rightPassages(w.judgments, w.question, results)
	return panels.Ranked{Question: w.question, Mode: w.cands.Mode, Results: results,
		Params: w.params(), Rerank: w.cands.Rerank, Right: right, Notes: w.cands.Notes, Stale: !w.closest && disagrees(w.sources, results),
		Matched: matched, More: w.saturated() && w.poolScale < maxPoolScale}
}

// listMore is results, the ranking under p, followed by the next best of
// the candidates that pass the minimum relevance, up to n in all: the
// rows listed stay where they were, More results adds rows under them.
func listMore(results []search.Result, c *search.Candidates, p search.Params, n int) []search.Result {
	all := p
	all.TopK, all.PerDocCap = 0, 0
	listed := make(map[int64]bool, len(results))
	for _, r := range results {
		listed[r.ChunkID] = true
	}
	out := slices.Clone(results)
	for _, r := range search.Fuse(c, all) {
		if len(out) >= n {
			break
		}
		if !listed[r.ChunkID] {
			r.Rank = len(out) + 1
			out = append(out, r)
		}
	}
	return out
}

// rightPassages are the listed passages marked as the right answer to q: a
// judgment belongs to the passage ticked, not to every passage of its file.
// The test set keeps one judgment per file and question (the metrics rank
// files), so a judgment whose passage is no longer listed, say after a
// re-index, is shown on its file's best-ranked passage.
func rightPassages(js []domain.Judgment, q string, results []search.Result) map[int64]bool {
	right := map[int64]bool{}
	for _, j := range js {
		if j.Query != q {
			continue
		}
		best := int64(0)
		for _, r := range results {
			if r.ChunkID == j.ChunkID {
				best = r.ChunkID
				break
			}
			if best == 0 && r.Path == j.Path {
				best = r.ChunkID
			}
		}
		if best != 0 {
			right[best] = true
		}
	}
	return right
}

// listedSources are the chunk ids of ans's sources that its search listed.
// An extractive answer may quote a passage read beyond the list (a fourth
// passage of a file the per-document cap keeps out of it): never listed, it
// cannot go missing from the list, and counting it marked a fresh answer
// "Retrieval settings changed" before any knob had moved.
func listedSources(ans *answer.Answer) []int64 {
	var listed map[int64]bool
	if ans.Search != nil {
		listed = make(map[int64]bool, len(ans.Search.Results))
		for _, r := range ans.Search.Results {
			listed[r.ChunkID] = true
		}
	}
	var ids []int64
	for _, s := range ans.Sources {
		if listed == nil || listed[s.ChunkID] {
			ids = append(ids, s.ChunkID)
		}
	}
	if len(ids) == 0 && len(ans.Sources) > 0 {
		// None listed at all: "nothing matched" would be wrong, so every
		// source counts, as before.
		for _, s := range ans.Sources {
			ids = append(ids, s.ChunkID)
		}
	}
	return ids
}

// disagrees says whether a list of results no longer agrees with the answer
// written from the sources (chunk ids): one of them is not listed, or the
// answer found nothing and the list shows passages. Order does not matter:
// each row is marked with the [n] the answer cites it as.
func disagrees(sources []int64, results []search.Result) bool {
	if len(sources) == 0 {
		return len(results) > 0
	}
	listed := make(map[int64]bool, len(results))
	for _, r := range results {
		listed[r.ChunkID] = true
	}
	for _, id := range sources {
		if !listed[id] {
			return true
		}
	}
	return false
}

// evaluate scores the personal test set under the current knobs.
func (w *queryWorker) evaluate() panels.MetricsComputed {
	m := eval.PersonalSet(w.judgments, w.judged, w.params())
	return panels.MetricsComputed{K: m.K, Queries: m.Queries, Recall: m.Recall, MRR: m.MRR, Judgments: slices.Clone(w.judgments)}
}

func (w *queryWorker) judge(ctx context.Context, r panels.JudgeSource) {
	w.findJob(ctx, func(fctx context.Context) ([]domain.Judgment, error) {
		var err error
		if r.Right {
			err = w.eng.Judge(fctx, r.Question, r.Path, r.ChunkID)
		} else {
			err = w.eng.Unjudge(fctx, r.Question, r.Path)
		}
		if err != nil {
			return nil, err
		}
		return w.eng.Judgments(fctx)
	}, findJudged)
}

// find re-fetches candidates: with loadJudgments the judgments are read
// first (at start); otherwise every cached question is searched again
// under the new pools.
func (w *queryWorker) find(ctx context.Context, loadJudgments bool) {
	if loadJudgments {
		w.findJob(ctx, w.eng.Judgments, findJudged)
		return
	}
	w.findJob(ctx, nil, findAll)
}

// What a findJob searches.
type findWhat int

const (
	findJudged findWhat = iota // the judged questions not cached yet
	findAll                    // every cached question: the pools changed
	findLast                   // the last question, with its pools scaled (More results)
)

// findJob runs before (if any) and then searches the questions that need
// candidates: every cached one with all (the pools changed), else the
// judged ones not cached yet. A newer findJob replaces a running one. The
// job gets copies of the loop's state, so it shares nothing with the loop.
func (w *queryWorker) findJob(ctx context.Context, before func(context.Context) ([]domain.Judgment, error), what findWhat) {
	if w.findStop != nil {
		w.findStop()
	}
	w.findID++
	id := w.findID
	fctx, stop := context.WithCancel(ctx)
	w.findStop = stop
	judgments := slices.Clone(w.judgments)
	cached := maps.Clone(w.judged)
	all := what == findAll
	if all {
		clear(cached)
	}
	last, lastQuery, lastFilter, lastExact, tuning := w.question, w.searched, w.filter, w.exact, w.tuning
	bm25Pool, vectorPool := w.pools()
	w.jobs.spawn(func() {
		res := findResult{id: id, cands: map[string]*search.Candidates{}}
		if before != nil {
			js, err := before(fctx)
			if err != nil {
				send(ctx, w.found, findResult{id: id, err: err})
				return
			}
			res.loaded, res.judgments, judgments = true, js, js
		}
		var qs []string
		if what != findJudged && last != "" {
			qs = append(qs, last)
		}
		for _, j := range judgments {
			if what != findLast && cached[j.Query] == nil && !slices.Contains(qs, j.Query) {
				qs = append(qs, j.Query)
			}
		}
		for _, q := range qs {
			req := search.NewRequest(q, tuning)
			if q == last { // a follow-up's candidates are those of what it searched, within its filter
				req.Query, req.Filter, req.Exact = lastQuery, lastFilter, lastExact
				req.BM25Pool, req.VectorPool = bm25Pool, vectorPool
			}
			resp, err := w.eng.Search(fctx, req)
			if err != nil {
				res.err = err
				break
			}
			res.cands[q] = resp.Candidates
		}
		send(ctx, w.found, res)
	})
}

func (w *queryWorker) refound(ctx context.Context, res findResult) {
	if res.id != w.findID {
		return
	}
	w.findStop()
	w.findStop = nil
	if res.loaded {
		w.judgments = res.judgments
	}
	for q, c := range res.cands {
		if q == w.question {
			w.cands = c
		}
		w.judged[q] = c
	}
	// Forget candidates of questions that are neither judged nor the last.
	for q := range w.judged {
		if q != w.question && !slices.ContainsFunc(w.judgments, func(j domain.Judgment) bool { return j.Query == q }) {
			delete(w.judged, q)
		}
	}
	if res.err != nil && !errors.Is(res.err, context.Canceled) {
		w.emit(ctx, panels.QueryNotice{Text: "Could not update the test set: " + panels.ErrorText(res.err), Err: true})
	}
	w.rerank(ctx)
}

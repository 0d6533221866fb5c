package bench

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"cairn/core"
	"cairn/core/answer"
	"cairn/core/config"
	"cairn/core/eval"
	"cairn/core/llm/models"
	"cairn/core/search"
	"cairn/core/stats"
	"cairn/core/teamstore/teamtest"
)

// QualityProfile is the settings profile of the quality suite's Cairn runs:
// the defaults a new user on a laptop gets (the profile Cairn picks under
// 16 GB of RAM or 8 cores), pinned so that runs on other machines compare.
const QualityProfile = "laptop"

// QualityEngine opens a knowledge base at db with a new user's settings:
// QualityProfile's defaults and no models (no embedding model, so keyword
// search; no chat model, so extractive answers). Its scratch folders live
// under work. With cluster, the knowledge base's documents live in that
// team cluster (store.backend weaviate, the gate in team mode), db keeps
// the rest.
func QualityEngine(ctx context.Context, db, work string, cluster *teamtest.Node) (*core.Engine, error) {
	cfg := config.Default(QualityProfile)
	cfg.Paths.DataDir, cfg.Paths.ModelsDir = filepath.Join(work, "data"), filepath.Join(work, "models")
	cfg.Embedding.Model, cfg.Generation.Model = models.None, models.None
	opt := core.Options{DB: db, Write: true}
	if cluster != nil {
		cfg.Store = config.Store{Backend: config.BackendWeaviate, URL: cluster.URL}
		cfg.Network.Mode = "team"
		opt.Keyring = nodeKey{}
	}
	dirs := config.Dirs{Config: filepath.Join(work, "config"), Data: cfg.Paths.DataDir, State: filepath.Join(work, "state")}
	// The store creates no folders for a --db path; this scratch one is ours.
	if err := os.MkdirAll(filepath.Dir(db), 0o700); err != nil {
		return nil, err
	}
	return core.Open(ctx, cfg, dirs, opt)
}

// QualityStore says which store the quality suite's knowledge bases use:
// the SQLite file (Bin ""), or a one-node Weaviate cluster on 127.0.0.1
// started from Bin for each corpus (`cairn bench quality --store weaviate`).
type QualityStore struct {
	Bin string
}

// Name is the store as the report names it.
func (st QualityStore) Name() string {
	if st.Bin == "" {
		return "sqlite"
	}
	return "weaviate"
}

// nodeKey is the keyring of a cluster teamtest starts: its test key.
type nodeKey struct{}

func (nodeKey) Get(service, user string) (string, error) { return teamtest.Key, nil }
func (nodeKey) Set(service, user, secret string) error   { return errors.New("read-only keyring") }
func (nodeKey) Delete(service, user string) error        { return errors.New("read-only keyring") }

// Indexed is a knowledge base IndexFresh built, open and ready to search.
type Indexed struct {
	*core.Engine
	Files, Chunks int
	Took          time.Duration
	node          *teamtest.Node // the cluster it lives in, if any
}

// Close closes the knowledge base and stops its cluster.
func (ix Indexed) Close() error {
	err := ix.Engine.Close()
	if ix.node != nil {
		ix.node.Stop()
		os.RemoveAll(ix.node.DataDir)
	}
	return err
}

// IndexFresh indexes folder into a new knowledge base at db (an old one is
// removed) with QualityEngine's settings, in a new one-node cluster when
// st says so.
func IndexFresh(ctx context.Context, st QualityStore, db, folder, work string) (Indexed, error) {
	removeDB(db)
	var node *teamtest.Node
	if st.Bin != "" {
		data := strings.TrimSuffix(db, ".db") + "-node"
		os.RemoveAll(data)
		cfg, err := teamtest.SingleNode(data)
		if err != nil {
			return Indexed{}, err
		}
		node = teamtest.New(st.Bin, cfg)
		if err := node.Start(); err != nil {
			return Indexed{}, err
		}
	}
	e, err := QualityEngine(ctx, db, work, node)
	if err != nil {
		if node != nil {
			node.Stop()
		}
		return Indexed{}, err
	}
	ix := Indexed{Engine: e, node: node}
	t := time.Now()
	run, err := e.IndexFolder(ctx, folder, nil) // into the cluster when it is the store (Engine.IndexFolder)
	if err == nil {
		err = e.SyncKeywordIndex(ctx) // as `cairn search --batch` does before its queries
	}
	if err != nil {
		ix.Close()
		return Indexed{}, fmt.Errorf("index %s: %w", folder, err)
	}
	ix.Files, ix.Chunks, ix.Took = run.FilesIndexed, run.Chunks, time.Since(t)
	return ix, nil
}

// QuestionResult is one question's outcome, for the detail file.
type QuestionResult struct {
	ID             string  `json:"id"`
	Question       string  `json:"question"`
	Expected       string  `json:"expected,omitempty"` // "" for an off-topic question
	CairnAnswer    string  `json:"cairn_answer"`
	CairnRefused   bool    `json:"cairn_refused"`
	CairnHit       bool    `json:"cairn_answer_hit"`
	CairnSourceHit bool    `json:"cairn_source_hit"`
	CairnTop       string  `json:"cairn_top_source,omitempty"` // file of the first source
	BaselineTop    string  `json:"baseline_top,omitempty"`
	BaselineHit    bool    `json:"baseline_hit"`
	Seconds        float64 `json:"cairn_seconds"`
	// TopRelevance is the relevance of Cairn's first source.
	TopRelevance float64 `json:"cairn_top_relevance"`
	// BlockRank is the place, among the blocks an extractive answer
	// weighed and did not pass over, of the best one that shows the answer
	// string (1: quoted first); 0 when none shows it, -1 when only a block
	// it passed over does.
	BlockRank int `json:"answer_block_rank,omitempty"`
	// Neighbour: the answer missed, and its first quoted block is the one
	// right before or after the answering block in the same passage (the
	// neighbour-line error: "-o" quoted for "-n").
	Neighbour bool `json:"neighbour_line,omitempty"`
	// Blocks are the blocks weighed, best first, when one shows the answer
	// string: what the scorer's weights are fitted on.
	Blocks []WeighedBlock `json:"blocks,omitempty"`
	// Terms are the question's terms and their weights, as the answer
	// weighed them.
	Terms map[string]float64 `json:"terms,omitempty"`
	// Kind is what the question asks for, when its set says
	// (Question.Kind).
	Kind string `json:"kind,omitempty"`
	// Doc is the document (relative to the corpus) whose text holds the
	// answer string; "" when none does, or several.
	Doc string `json:"doc,omitempty"`
	// DocFirst: Cairn's first source is Doc; BaselineDocFirst: the
	// baseline's best passage is.
	DocFirst         bool `json:"cairn_doc_first,omitempty"`
	BaselineDocFirst bool `json:"baseline_doc_first,omitempty"`
	// Absent are the question's terms no passage holds.
	Absent []string `json:"absent_terms,omitempty"`
	// Quoted are the features of the block quoted first (none for a
	// refusal): what refusal rules are measured against.
	Quoted      map[string]float64 `json:"quoted_features,omitempty"`
	QuotedHolds []string           `json:"quoted_holds,omitempty"`
	// SentenceRank is the place of the first passage holding the answer
	// string in retrieval's whole ranking (no cap per document, no top
	// k), from 1; 0 when retrieval did not find it.
	SentenceRank int `json:"sentence_rank,omitempty"`
}

// WeighedBlock is a block an extractive answer weighed, as the detail file
// records it.
type WeighedBlock struct {
	Answers  bool               `json:"answers"` // shows the answer string
	Passed   bool               `json:"passed,omitempty"`
	Kind     string             `json:"kind"`
	Score    float64            `json:"score"`
	Features map[string]float64 `json:"features"`
	Text     string             `json:"text"`
	Source   string             `json:"source"`
}

// weighedBlocks reports the blocks ans weighed, and the rank of the best
// one that shows answer (see QuestionResult.BlockRank).
func weighedBlocks(ans *answer.Answer, answer, docs string) (rank int, out []WeighedBlock) {
	kept := 0
	for _, w := range ans.Weighed {
		hit := Contains(w.Block.Text, answer)
		if !w.Passed {
			kept++
			if hit && rank <= 0 {
				rank = kept
			}
		} else if hit && rank == 0 {
			rank = -1
		}
		out = append(out, WeighedBlock{Answers: hit, Passed: w.Passed, Kind: string(w.Block.Kind), Score: w.Score,
			Features: w.Features.Map(), Text: w.Block.Text, Source: relTo(docs, w.Path, w.Page)})
	}
	if rank == 0 {
		out = nil
	}
	return rank, out
}

// neighbourLine reports whether an answer's first quoted block stands
// right before or after a block that shows the answer string, in the same
// passage: the quote missed the line by one.
func neighbourLine(ans *answer.Answer, want string) bool {
	var quoted *answer.Weighed
	for i, w := range ans.Weighed {
		if !w.Passed {
			quoted = &ans.Weighed[i]
			break
		}
	}
	if quoted == nil || Contains(quoted.Block.Text, want) {
		return false
	}
	// The blocks of the quoted one's passage, in the order they stand.
	var same []answer.Weighed
	for _, w := range ans.Weighed {
		if w.Source == quoted.Source {
			same = append(same, w)
		}
	}
	slices.SortFunc(same, func(a, b answer.Weighed) int { return a.Block.Start - b.Block.Start })
	for i, w := range same {
		if w.Block.Start != quoted.Block.Start {
			continue
		}
		for _, j := range []int{i - 1, i + 1} {
			if j >= 0 && j < len(same) && Contains(same[j].Block.Text, want) {
				return true
			}
		}
	}
	return false
}

// AnswerReport is the answers-and-refusals part of the quality suite.
type AnswerReport struct {
	Files, Chunks int
	IndexSeconds  float64
	AskMedianMS   float64
	Cairn         AnswerScore
	Baseline      AnswerScore // the top FTS5 passage as the answer
	Passages      int         // rows of the baseline table
	Neighbour     int         // answers that quoted the block next to the answering one (QuestionResult.Neighbour)
	Questions     []QuestionResult
	Reading       ReadingScore
	Scale         *ScaleScore // the same questions over a scale base, when asked
	// Fit are the answerable questions whose answering block was weighed,
	// for FitBlockWeights.
	Fit []FitQuestion
}

// AnswerBench indexes the question corpus with a new user's settings, asks
// every question (as `cairn ask` does), and asks the plain FTS5 baseline
// the same questions: its answer is its best passage, its refusal an empty
// result.
func AnswerBench(ctx context.Context, st QualityStore, qc QualityCorpus, questions, work string, scale *ScaleBase, log io.Writer) (AnswerReport, error) {
	var rep AnswerReport
	qs, err := ReadQuestions(questions)
	if err != nil {
		return rep, err
	}
	return askQuestions(ctx, st, qc.Docs, qs, filepath.Join(work, "quality"), scale, log)
}

// askQuestions indexes docs into a new knowledge base under work (in st)
// with a new user's settings and asks it every question (as `cairn ask`
// does), and asks the FTS5 baseline over the same documents. With scale,
// it asks them again over docs added to a copy of the scale base.
func askQuestions(ctx context.Context, st QualityStore, docs string, qs []Question, work string, scale *ScaleBase, log io.Writer) (AnswerReport, error) {
	var rep AnswerReport
	db := filepath.Join(work, "docs.db")
	e, err := IndexFresh(ctx, st, db, docs, filepath.Join(work, "home"))
	if err != nil {
		return rep, err
	}
	defer removeDB(db)
	defer e.Close()
	rep.Files, rep.Chunks, rep.IndexSeconds = e.Files, e.Chunks, e.Took.Seconds()
	fmt.Fprintf(log, "quality: %d files, %d chunks indexed in %.1f s; asking %d questions\n", e.Files, e.Chunks, e.Took.Seconds(), len(qs))

	passages, err := FilePassages(ctx, docs, BaselinePassageSize)
	if err != nil {
		return rep, err
	}
	base, err := NewFTS5Baseline(passages)
	if err != nil {
		return rep, err
	}
	defer base.Close()
	rep.Passages = len(passages)

	holder, err := answerDocs(ctx, docs, qs)
	if err != nil {
		return rep, err
	}
	cairn, baseline := map[string]Outcome{}, map[string]Outcome{}
	var ms []float64
	for i, q := range qs {
		t := time.Now()
		ans, err := e.Ask(ctx, e.SearchRequest(q.Text), nil)
		if err != nil {
			return rep, fmt.Errorf("question %s %q: %w", q.ID, q.Text, err)
		}
		d := time.Since(t)
		ms = append(ms, float64(d.Microseconds())/1000)
		o := Outcome{Answer: ans.Text, Refused: ans.Refused || ans.NoSources}
		for _, s := range ans.Sources {
			o.Sources = append(o.Sources, s.Text)
		}
		cairn[q.ID] = o

		top, err := base.Top(q.Text, 1)
		if err != nil {
			return rep, fmt.Errorf("baseline, question %s: %w", q.ID, err)
		}
		bo := Outcome{Refused: len(top) == 0}
		if len(top) > 0 {
			bo.Answer, bo.Sources = top[0].Text, []string{top[0].Text}
		}
		baseline[q.ID] = bo

		r := QuestionResult{ID: q.ID, Question: q.Text, Expected: q.Answer, CairnAnswer: ans.Text, CairnRefused: o.Refused, Seconds: d.Seconds(),
			Kind: q.Kind, Doc: holder[q.ID]}
		if r.Doc != "" {
			r.DocFirst = len(ans.Sources) > 0 && relTo(docs, ans.Sources[0].Path, 0) == r.Doc
			r.BaselineDocFirst = len(top) > 0 && relTo(docs, top[0].Path, 0) == r.Doc
			r.SentenceRank = sentenceRank(ans.Search, q.Answer)
		}
		r.CairnHit, r.CairnSourceHit = q.Hit(o)
		r.BaselineHit, _ = q.Hit(bo)
		if q.Answer != "" {
			r.BlockRank, r.Blocks = weighedBlocks(ans, q.Answer, docs)
			if !r.CairnHit && !o.Refused {
				r.Neighbour = neighbourLine(ans, q.Answer)
				rep.Neighbour += btoi(r.Neighbour)
			}
			if fq, ok := fitQuestion(filepath.Base(docs), ans, q.Answer); ok {
				rep.Fit = append(rep.Fit, fq)
			}
		}
		for _, w := range ans.Weighed {
			if !w.Passed {
				r.Quoted = w.Features.Map()
				r.QuotedHolds = w.Holds
				break
			}
		}
		if c := ans.Search.Candidates; c != nil && len(c.Weights) == len(c.Terms) {
			r.Terms = map[string]float64{}
			for i, t := range c.Terms {
				r.Terms[t.String()] = c.Weights[i]
				if i < len(c.Absent) && c.Absent[i] {
					r.Absent = append(r.Absent, t.String())
				}
			}
		}
		if len(ans.Sources) > 0 {
			r.TopRelevance = ans.Sources[0].Relevance
			r.CairnTop = relTo(docs, ans.Sources[0].Path, ans.Sources[0].Page)
		}
		if len(top) > 0 {
			r.BaselineTop = relTo(docs, top[0].Path, top[0].Page)
		}
		rep.Questions = append(rep.Questions, r)
		if (i+1)%20 == 0 {
			fmt.Fprintf(log, "  %d/%d questions\n", i+1, len(qs))
		}
	}
	rep.AskMedianMS = stats.Median(ms)
	rep.Cairn = ScoreAnswers(qs, cairn)
	rep.Baseline = ScoreAnswers(qs, baseline)
	rep.Reading = ScoreReading(rep.Questions)
	if scale != nil {
		fmt.Fprintf(log, "quality: asking again over %d more chunks\n", scale.Chunks)
		sc, err := askAtScale(ctx, *scale, docs, qs, work)
		if err != nil {
			return rep, err
		}
		rep.Scale = &sc
	}
	return rep, nil
}

// answerDocs maps each answerable question's id to the one document of
// docs (relative to it) whose text, as Cairn extracts it, holds its answer
// string; a question whose string no document holds, or several do, is
// left out.
func answerDocs(ctx context.Context, docs string, qs []Question) (map[string]string, error) {
	whole, err := FilePassages(ctx, docs, 0)
	if err != nil {
		return nil, err
	}
	folded := make([]string, len(whole))
	for i, p := range whole {
		folded[i] = foldSpace(p.Text)
	}
	out := map[string]string{}
	for _, q := range qs {
		if q.OffTopic() {
			continue
		}
		want, doc := foldSpace(q.Answer), ""
		for i, f := range folded {
			if !strings.Contains(f, want) {
				continue
			}
			d := relTo(docs, whole[i].Path, 0)
			if doc != "" && doc != d {
				doc = ""
				break
			}
			doc = d
		}
		if doc != "" {
			out[q.ID] = doc
		}
	}
	return out, nil
}

// sentenceRank is the place, in retrieval's whole ranking of resp (its
// own parameters, no top k and no cap per document), of the first passage
// holding want, from 1; 0 when none does.
func sentenceRank(resp *search.Response, want string) int {
	if resp == nil || resp.Candidates == nil {
		return 0
	}
	p := resp.Params
	if p == (search.Params{}) {
		p = search.DefaultParams()
	}
	p.TopK, p.PerDocCap, p.MinScore = 0, 0, 0
	for i, r := range search.Fuse(resp.Candidates, p) {
		if Contains(r.Text, want) {
			return i + 1
		}
	}
	return 0
}

// ReadingScore is what a set's answerable questions show beyond the
// answer line: whether the right document comes first, how far down
// retrieval the answering sentence is (recall@k of the sentence), and the
// answer line per kind of question.
type ReadingScore struct {
	WithDoc          int            `json:"with_doc"` // questions whose answer string one document holds
	DocFirst         int            `json:"doc_first"`
	BaselineDocFirst int            `json:"baseline_doc_first"`
	RecallAt         map[int]int    `json:"sentence_recall_at"`           // k -> questions whose sentence ranks within k
	RecallAtDocFirst map[int]int    `json:"sentence_recall_at_doc_first"` // the same, of those whose first source is the document
	Kinds            map[string]Hit `json:"kinds,omitempty"`
}

// Hit counts questions and those answered with the answer line.
type Hit struct {
	Questions int `json:"questions"`
	Hits      int `json:"hits"`
	Baseline  int `json:"baseline_hits"`
}

// RecallKs are the depths the sentence's recall is reported at: the first
// passage, the sources an answer shows (answer.top_k), the passages an
// extractive answer reads (answer.readDepth).
var RecallKs = []int{1, 3, 8, 20}

// ScoreReading scores the answerable questions of rs.
func ScoreReading(rs []QuestionResult) ReadingScore {
	s := ReadingScore{RecallAt: map[int]int{}, RecallAtDocFirst: map[int]int{}, Kinds: map[string]Hit{}}
	for _, r := range rs {
		if r.Expected == "" {
			continue
		}
		if r.Kind != "" {
			k := s.Kinds[r.Kind]
			k.Questions++
			k.Hits += btoi(r.CairnHit)
			k.Baseline += btoi(r.BaselineHit)
			s.Kinds[r.Kind] = k
		}
		if r.Doc == "" {
			continue
		}
		s.WithDoc++
		s.DocFirst += btoi(r.DocFirst)
		s.BaselineDocFirst += btoi(r.BaselineDocFirst)
		for _, k := range RecallKs {
			if r.SentenceRank > 0 && r.SentenceRank <= k {
				s.RecallAt[k]++
				if r.DocFirst {
					s.RecallAtDocFirst[k]++
				}
			}
		}
	}
	return s
}

func relTo(root, path string, page int) string {
	if r, err := filepath.Rel(root, path); err == nil {
		path = r
	}
	if page > 0 {
		return fmt.Sprintf("%s p.%d", path, page)
	}
	return path
}

// PageReport is the page-level part of the quality suite.
type PageReport struct {
	Files, Chunks, Pages int
	IndexSeconds         float64
	Bookmarks            int // outline items of the manuals, before the rule
	Cairn                eval.Metrics
	Baseline             eval.Metrics // FTS5, one row per pdftotext page
	Queries              []PageQuery
	Misses               []PageMiss // queries whose page Cairn did not rank first
}

// PageMiss is a page query Cairn did not rank first: the page it wanted and
// the one Cairn ranked first ("" when Cairn found nothing).
type PageMiss struct {
	ID    string `json:"id"`
	Title string `json:"title"`
	Want  string `json:"want"`
	Got   string `json:"got"`
}

// PageBench asks every section title of the manuals' outlines (see
// PageQueries) and scores the page Cairn ranks it on, its chunk ranking
// collapsed to pages, against FTS5 over whole pages.
//
// Cairn runs with a new user's settings except three that would hide
// candidates the figure needs: no minimum score, no cap on results per
// document, and as many results as the keyword pool holds.
func PageBench(ctx context.Context, st QualityStore, qc QualityCorpus, k int, work string, log io.Writer) (PageReport, error) {
	var rep PageReport
	outlines, npages := map[string][]OutlineEntry{}, map[string]int{}
	var pageRows []Passage
	for _, m := range QualityManuals {
		pdf := filepath.Join(qc.Manuals, m.Name)
		o, err := ReadOutline(ctx, pdf)
		if err != nil {
			return rep, err
		}
		texts, err := PDFPages(ctx, pdf)
		if err != nil {
			return rep, err
		}
		outlines[pdf], npages[pdf] = o, len(texts)
		rep.Bookmarks += len(o)
		rep.Pages += len(texts)
		for i, t := range texts {
			pageRows = append(pageRows, Passage{Path: pdf, Page: i + 1, Text: t})
		}
	}
	rep.Queries = PageQueries(outlines, npages)
	qrels := PageQrels(rep.Queries)

	db := filepath.Join(work, "quality-manuals.db")
	e, err := IndexFresh(ctx, st, db, qc.Manuals, filepath.Join(work, "quality-home"))
	if err != nil {
		return rep, err
	}
	defer removeDB(db)
	defer e.Close()
	rep.Files, rep.Chunks, rep.IndexSeconds = e.Files, e.Chunks, e.Took.Seconds()
	fmt.Fprintf(log, "quality: %d manuals, %d pages, %d chunks indexed in %.1f s; %d of %d bookmarks are queries\n",
		e.Files, rep.Pages, e.Chunks, e.Took.Seconds(), len(rep.Queries), rep.Bookmarks)

	base, err := NewFTS5Baseline(pageRows)
	if err != nil {
		return rep, err
	}
	defer base.Close()

	cairnRun, baseRun := eval.Run{}, eval.Run{}
	for _, q := range rep.Queries {
		req := e.SearchRequest(q.Title)
		req.MinScore, req.PerDocCap, req.TopK = 0, 0, max(req.BM25Pool, k)
		resp, err := e.Search(ctx, req)
		if err != nil {
			return rep, fmt.Errorf("page query %s %q: %w", q.ID, q.Title, err)
		}
		hits := make([]PageHit, len(resp.Results))
		for i, r := range resp.Results {
			hits[i] = PageHit{Path: r.Path, Page: r.Page}
		}
		cairnRun[q.ID] = CollapsePages(hits)
		if r, want := cairnRun[q.ID], PageKey(q.File, q.Page); len(r) == 0 || r[0] != want {
			m := PageMiss{ID: q.ID, Title: q.Title, Want: filepath.Base(want)}
			if len(r) > 0 {
				m.Got = filepath.Base(r[0])
			}
			rep.Misses = append(rep.Misses, m)
		}

		top, err := base.Top(q.Title, k)
		if err != nil {
			return rep, err
		}
		bh := make([]PageHit, len(top))
		for i, p := range top {
			bh[i] = PageHit{Path: p.Path, Page: p.Page}
		}
		baseRun[q.ID] = CollapsePages(bh)
	}
	rep.Cairn = eval.Evaluate(qrels, cairnRun, k)
	rep.Baseline = eval.Evaluate(qrels, baseRun, k)
	return rep, nil
}

// ManFileBench is the file-level known-item set of QualityBench (a man
// page's NAME description finds that page) on a knowledge base of the
// man-page corpus indexed here with a new user's settings. Cairn's ranking
// is what `cairn search --batch` computes (keyword search, best chunk per
// file, no minimum score, k results), run in-process so that the settings
// are QualityEngine's, not those of whoever runs the bench; the baseline is
// QualityBench's, FTS5 over whole pages.
func ManFileBench(ctx context.Context, st QualityStore, mc ManCorpus, k int, work string, log io.Writer) (QualityReport, int, error) {
	var rep QualityReport
	qf, err := os.Open(mc.Qrels)
	if err != nil {
		return rep, 0, err
	}
	qrels, err := eval.ReadQrels(qf)
	qf.Close()
	if err != nil {
		return rep, 0, err
	}
	queries, err := readQueryMap(mc.Queries)
	if err != nil {
		return rep, 0, err
	}
	db := filepath.Join(work, "quality-man.db")
	e, err := IndexFresh(ctx, st, db, mc.Dir, filepath.Join(work, "quality-home"))
	if err != nil {
		return rep, 0, err
	}
	defer removeDB(db)
	defer e.Close()
	fmt.Fprintf(log, "quality: %d man pages, %d chunks indexed in %.1f s; %d known-item queries\n", mc.Pages, e.Chunks, e.Took.Seconds(), len(qrels))
	run := eval.Run{}
	for qid := range qrels {
		req := e.SearchRequest(queries[qid])
		req.Mode, req.MinScore, req.TopK, req.PerDocCap = search.ModeBM25, 0, k, 1
		resp, err := e.Search(ctx, req)
		if err != nil {
			return rep, 0, fmt.Errorf("known-item query %s: %w", qid, err)
		}
		for _, r := range resp.Results {
			run[qid] = append(run[qid], r.Path)
		}
	}
	rep.Cairn = eval.Evaluate(qrels, run, k)
	base, err := wholePageRun(ctx, QualityOptions{Corpus: mc, Work: work, K: k}, qrels)
	if err != nil {
		return rep, 0, fmt.Errorf("whole-page baseline: %w", err)
	}
	rep.Baseline = eval.Evaluate(qrels, base, k)
	return rep, e.Chunks, nil
}

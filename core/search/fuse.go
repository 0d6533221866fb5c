package search

import (
	"cmp"
	"slices"
)

// Mode names which retrievers run.
type Mode string

const (
	ModeBM25   Mode = "bm25"
	ModeVector Mode = "vector"
	ModeHybrid Mode = "hybrid"
)

// Fusion names how two ranked lists become one.
type Fusion string

const (
	// FusionRRF is Reciprocal Rank Fusion: sum over lists of 1/(k + rank).
	FusionRRF Fusion = "rrf"
	// FusionWeighted mixes min-max normalized scores: w*vector + (1-w)*BM25.
	FusionWeighted Fusion = "weighted"
)

// Params are the knobs that re-rank cached candidates without searching
// again: what the tuning sliders move.
//
// A field tagged knob is set from the retrieval knob of that name
// (config.RetrievalKnobs) by NewRequest.
type Params struct {
	TopK         int     `knob:"top_k"`     // results kept; <= 0 keeps all
	MinScore     float64 `knob:"min_score"` // results below this Relevance (0..1) are dropped
	Fusion       Fusion  // rrf or weighted
	RRFK         float64 `knob:"rrf_k"`         // RRF smoothing constant; 60 in the RRF paper
	VectorWeight float64 `knob:"vector_weight"` // weighted fusion: share of the vector score, 0..1
	PerDocCap    int     `knob:"per_doc_cap"`   // most results from one document; <= 0 means no cap
}

// DefaultParams are the seeds' defaults (HybridRAG3: top_k 12, min_score
// 0.10, rrf_k 60; NuraSafe: 0.6 vector weight) plus a per-document cap of 3
// so that one long file cannot fill the list.
func DefaultParams() Params {
	return Params{TopK: 12, MinScore: 0.10, Fusion: FusionRRF, RRFK: 60, VectorWeight: 0.6, PerDocCap: 3}
}

// Hit is one entry of a retriever's ranked list.
type Hit struct {
	ChunkID int64
	Score   float64 // BM25: -bm25() (higher is better); vector: cosine similarity
}

// Candidates are the ranked lists one search produced, kept so that Fuse
// can re-rank them when a slider moves, without touching the database.
type Candidates struct {
	Query string // as searched: with Corrections made
	// Corrections are the words of the question no passage holds that
	// were searched as the nearest word passages hold (spell.go).
	Corrections []Correction
	Terms       []Term
	Weights     []float64 // idf of each of Terms in the knowledge base
	// Absent marks the terms no passage of the knowledge base holds in
	// any of their forms (Weights' order): what the question asks about
	// may not be in the documents at all.
	Absent []bool
	// Chunks is how many passages the knowledge base holds, which Weights
	// were computed over: in a small one, ordinary words are absent too.
	Chunks   int
	Mode     Mode  // retrievers whose lists take part
	BM25     []Hit // best first
	Vector   []Hit // best first
	Passages map[int64]*Passage
	Notes    []string // what the search decided, e.g. a fallback to BM25
	// Coverage is set when meaning search took part before every chunk
	// had its embedding (with a note saying so).
	Coverage *MeaningCoverage
	// Rerank is the rerank step's scores and what it did (nil: it did
	// not run); Fuse reorders the results it scored.
	Rerank *Reranking
	// Guide are the bundled guide's folders (Request.Guide), whose
	// passages Fuse ranks below the person's own that answer as well.
	Guide []string
}

// Passage is a chunk with what a result shows and cites.
type Passage struct {
	ChunkID    int64    `json:"chunk_id"`
	DocumentID int64    `json:"document_id"`
	Path       string   `json:"path"`
	Title      string   `json:"title"`
	Format     string   `json:"format"`
	Heading    string   `json:"heading,omitempty"`
	Text       string   `json:"text"`
	UnitKind   string   `json:"unit,omitempty"`
	Page       int      `json:"page"`
	Label      string   `json:"label,omitempty"`
	LineStart  int      `json:"line"`
	LineEnd    int      `json:"line_end"`
	Snippet    string   `json:"snippet"`
	Highlights []Span   `json:"highlights,omitempty"`
	Matched    []string `json:"matched_terms,omitempty"`
	// Coverage is the idf-weighted share of the question's terms found in
	// the passage, its heading or its document's title (0..1).
	Coverage float64 `json:"coverage"`
	// Near is the coverage of the passage's best window of nearWords
	// words (0..1); it weighs in the ranking, not in the relevance.
	Near float64 `json:"near"`
	// Phrase is the share of the question's side-by-side words that stand
	// side by side in the passage too (phrase.go); it weighs in the
	// ranking, not in the relevance.
	Phrase float64 `json:"phrase,omitempty"`
	// Navigation marks a table of contents, an index or a list of figures:
	// a page that points to the answer rather than holding it.
	Navigation bool `json:"navigation,omitempty"`
	// Guide marks a passage of the bundled user guide (Request.Guide): it
	// ranks below the person's own passages that answer as well (guide.go).
	Guide bool `json:"guide,omitempty"`

	// PathEscaped is set when Path is not valid UTF-8: see EscapePath.
	PathEscaped string `json:"path_escaped,omitempty"`
}

// Result is a passage in the fused ranking, with the evidence of why it
// ranked where it did.
type Result struct {
	*Passage
	Rank       int     `json:"rank"`
	Score      float64 `json:"score"`                 // fused, normalized to 0..1
	BM25Rank   int     `json:"bm25_rank,omitempty"`   // 1-based; 0 when BM25 did not find it
	BM25Score  float64 `json:"bm25_score,omitempty"`  // -bm25()
	VecRank    int     `json:"vector_rank,omitempty"` // 1-based; 0 when vector search did not find it
	VecSim     float64 `json:"vector_similarity,omitempty"`
	BM25Term   float64 `json:"bm25_term"`   // BM25's contribution to the fused score
	VectorTerm float64 `json:"vector_term"` // the vector search's contribution
	// Relevance is absolute, not derived from the rank: how much of the
	// question the passage covers (0..1), the same scale for every
	// question and every mode. MinScore filters on it. The reranker
	// never changes it.
	Relevance float64 `json:"relevance"`
	// PreRank is the result's rank in the fused order before the
	// reranker reordered it, and RerankScore the reranker's score; both
	// 0 for a result the reranker did not score.
	PreRank     int     `json:"rank_before_rerank,omitempty"`
	RerankScore float64 `json:"rerank_score,omitempty"`
}

// Fuse ranks the candidates under p. It is a pure function of its inputs,
// cheap enough to run on every slider movement.
//
// The fused score, scaled by how close together each passage holds the
// question's words (rankKey), orders the results; it is relative to the question (RRF
// gives rank 1 the same score whatever it holds). MinScore filters on the
// absolute Relevance instead, so that it means the same for every question
// and in every mode.
func Fuse(c *Candidates, p Params) []Result {
	useBM25 := c.Mode != ModeVector
	useVec := c.Mode != ModeBM25
	lists := 0
	if useBM25 {
		lists++
	}
	if useVec {
		lists++
	}
	if lists == 0 {
		return nil
	}
	byID := map[int64]*Result{}
	get := func(id int64) *Result {
		r, ok := byID[id]
		if !ok {
			r = &Result{Passage: c.Passages[id]}
			byID[id] = r
		}
		return r
	}
	if useBM25 {
		for i, h := range c.BM25 {
			if c.Passages[h.ChunkID] == nil {
				continue
			}
			r := get(h.ChunkID)
			r.BM25Rank, r.BM25Score = i+1, h.Score
		}
	}
	if useVec {
		for i, h := range c.Vector {
			if c.Passages[h.ChunkID] == nil {
				continue
			}
			r := get(h.ChunkID)
			r.VecRank, r.VecSim = i+1, h.Score
		}
	}
	switch p.Fusion {
	case FusionWeighted:
		w := min(max(p.VectorWeight, 0), 1)
		if !useVec {
			w = 0
		} else if !useBM25 {
			w = 1
		}
		bLo, bHi := scoreRange(c.BM25)
		vLo, vHi := scoreRange(c.Vector)
		for _, r := range byID {
			if r.BM25Rank > 0 {
				r.BM25Term = (1 - w) * minMax(r.BM25Score, bLo, bHi)
			}
			if r.VecRank > 0 {
				r.VectorTerm = w * minMax(r.VecSim, vLo, vHi)
			}
			r.Score = r.BM25Term + r.VectorTerm
		}
	default:
		k := p.RRFK
		if k < 0 {
			k = 0
		}
		best := float64(lists) / (k + 1)
		for _, r := range byID {
			if r.BM25Rank > 0 {
				r.BM25Term = 1 / (k + float64(r.BM25Rank)) / best
			}
			if r.VecRank > 0 {
				r.VectorTerm = 1 / (k + float64(r.VecRank)) / best
			}
			r.Score = r.BM25Term + r.VectorTerm
		}
	}
	tail := lowest(c.Vector)
	all := make([]*Result, 0, len(byID))
	for _, r := range byID {
		r.Relevance = r.Coverage
		if r.VecRank > 0 {
			r.Relevance = max(r.Relevance, (r.Relevance+semantic(r.VecSim, tail))/2)
		}
		if r.Navigation {
			// A table of contents names the section the answer is in;
			// the section's own page must rank above it.
			r.Score *= navigationPenalty
			r.Relevance *= navigationPenalty
		}
		all = append(all, r)
	}
	slices.SortFunc(all, func(a, b *Result) int {
		if c := cmp.Compare(rankKey(b), rankKey(a)); c != 0 {
			return c
		}
		if c := cmp.Compare(rankOrMax(a.BM25Rank), rankOrMax(b.BM25Rank)); c != 0 {
			return c
		}
		if c := cmp.Compare(rankOrMax(a.VecRank), rankOrMax(b.VecRank)); c != 0 {
			return c
		}
		return cmp.Compare(a.ChunkID, b.ChunkID)
	})
	// The reranker reorders the fused list before the cut to top_k, so
	// that a passage it raises from below the cut can be kept; so does
	// the guide's rule, which can lower a guide passage below the cut.
	reranked := c.Rerank != nil && len(c.Rerank.Scores) > 0
	var kept []*Result
	perDoc := map[int64]int{}
	for _, r := range all {
		if r.Relevance < p.MinScore {
			continue
		}
		if p.PerDocCap > 0 && perDoc[r.DocumentID] >= p.PerDocCap {
			continue
		}
		perDoc[r.DocumentID]++
		kept = append(kept, r)
		if !reranked && len(c.Guide) == 0 && p.TopK > 0 && len(kept) == p.TopK {
			break
		}
	}
	if reranked {
		applyRerank(kept, c.Rerank)
	}
	if len(c.Guide) > 0 {
		kept = yieldGuide(kept)
	}
	if p.TopK > 0 && len(kept) > p.TopK {
		kept = kept[:p.TopK]
	}
	if len(kept) == 0 {
		return nil
	}
	out := make([]Result, len(kept))
	for i, r := range kept {
		r.Rank = i + 1
		out[i] = *r
	}
	return out
}

// rankKey orders the fused results: the fused score, scaled by how close
// together the passage holds the question's words, so that between two
// passages the fusion ranks alike, the one whose words stand together
// comes first. Score itself stays the fusion's, as the Why view explains it.
func rankKey(r *Result) float64 {
	return r.Score * ((1 - nearShare) + nearShare*r.Near) * (1 + phraseBonus*r.Phrase)
}

func rankOrMax(r int) int {
	if r == 0 {
		return int(^uint(0) >> 1)
	}
	return r
}

func scoreRange(hs []Hit) (lo, hi float64) {
	for i, h := range hs {
		if i == 0 || h.Score < lo {
			lo = h.Score
		}
		if i == 0 || h.Score > hi {
			hi = h.Score
		}
	}
	return lo, hi
}

// minMax maps v from [lo, hi] to [0, 1]; a list whose scores are all equal
// maps to 1, since every entry is then as good as the best.
func minMax(v, lo, hi float64) float64 {
	if hi <= lo {
		return 1
	}
	return (v - lo) / (hi - lo)
}

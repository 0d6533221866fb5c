package search

import (
	"encoding/json"
	"io"
	"time"
)

// Report is the stable JSON shape of one search: what `cairn search --json`
// prints and what the local service's /api/search returns, built in one
// place so that the two cannot drift apart.
type Report struct {
	Query string `json:"query"`
	// Searched is what was searched when a word was corrected, with the
	// Corrections made; Request.Exact (the API's "exact") searches the
	// query as typed.
	Searched    string         `json:"searched,omitempty"`
	Corrections []Correction   `json:"corrections,omitempty"`
	Mode        Mode           `json:"mode"`
	Results     []ReportResult `json:"results"`
	Notes       []string       `json:"notes,omitempty"`
	TookMS      float64        `json:"took_ms"`
	// Rerank says what the rerank step did; absent when it is off.
	Rerank *RerankReport `json:"rerank,omitempty"`

	// MeaningCoverage is present when meaning search took part before
	// every chunk had its embedding.
	MeaningCoverage *MeaningCoverage `json:"meaning_coverage,omitempty"`
}

// RerankReport is the stable JSON shape of the rerank step: the budget,
// the measured cost of a pair and the N those gave.
type RerankReport struct {
	Model     string  `json:"model"`
	BudgetMS  float64 `json:"budget_ms"`
	PerPairMS float64 `json:"per_pair_ms"`
	N         int     `json:"n"`
	TookMS    float64 `json:"took_ms"`
	Skipped   string  `json:"skipped,omitempty"`
}

// NewRerankReport describes rr; nil for nil.
func NewRerankReport(rr *Reranking) *RerankReport {
	if rr == nil {
		return nil
	}
	return &RerankReport{Model: rr.Model, BudgetMS: ms(rr.Budget), PerPairMS: ms(rr.PerPair), N: rr.N, TookMS: ms(rr.Took), Skipped: rr.Skipped}
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

// ReportResult is the stable JSON shape of one result.
type ReportResult struct {
	Rank    int     `json:"rank"`
	Path    string  `json:"path"`
	Title   string  `json:"title"`
	Page    int     `json:"page"`
	Unit    string  `json:"unit,omitempty"`
	Line    int     `json:"line"`
	LineEnd int     `json:"line_end"`
	Heading string  `json:"heading,omitempty"`
	Score   float64 `json:"score"`
	// Relevance is absolute (0..1, the same scale for every query), where
	// Score only orders one query's results.
	Relevance  float64 `json:"relevance"`
	Navigation bool    `json:"navigation,omitempty"`
	// Guide marks a passage of Cairn's bundled user guide.
	Guide    bool   `json:"guide,omitempty"`
	Snippet  string `json:"snippet"`
	ChunkID  int64  `json:"chunk_id"`
	BM25Rank int    `json:"bm25_rank,omitempty"`
	VecRank  int    `json:"vector_rank,omitempty"`
	// RankBeforeRerank and RerankScore are set for the results the
	// reranker scored: their fused rank and its score.
	RankBeforeRerank int     `json:"rank_before_rerank,omitempty"`
	RerankScore      float64 `json:"rerank_score,omitempty"`

	// PathEscaped is set when Path is not valid UTF-8: see EscapePath.
	PathEscaped string `json:"path_escaped,omitempty"`
}

// NewReport describes resp, the search for query.
func NewReport(query string, resp *Response) Report {
	out := Report{Query: query, Mode: resp.Candidates.Mode, Results: []ReportResult{}, Notes: resp.Candidates.Notes, Corrections: resp.Candidates.Corrections,
		TookMS: ms(resp.Timing.Total), Rerank: NewRerankReport(resp.Candidates.Rerank), MeaningCoverage: resp.Candidates.Coverage}
	for _, r := range resp.Results {
		out.Results = append(out.Results, ReportResult{Rank: r.Rank, Path: r.Path, PathEscaped: r.PathEscaped, Title: r.Title, Page: r.Page,
			Unit: r.UnitKind, Line: r.LineStart, LineEnd: r.LineEnd, Heading: r.Heading, Score: round4(r.Score),
			Relevance: round4(r.Relevance), Navigation: r.Navigation, Guide: r.Guide, Snippet: r.Snippet, ChunkID: r.ChunkID, BM25Rank: r.BM25Rank, VecRank: r.VecRank,
			RankBeforeRerank: r.PreRank, RerankScore: round4(r.RerankScore)})
	}
	if len(out.Corrections) > 0 {
		out.Searched = resp.Candidates.Query
	}
	return out
}

// WriteJSON writes v as Cairn's JSON outputs are written: indented by two
// spaces, one value per call.
func WriteJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

func round4(x float64) float64 {
	return float64(int64(x*10000+0.5)) / 10000
}

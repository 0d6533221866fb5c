package teamstore

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"golang.org/x/sync/errgroup"
)

// Query narrows a search.
type Query struct {
	Folder string // "" searches every folder
	Limit  int    // hits wanted; default 10
	// Fields are BM25F's properties with their weights ("title^0.8");
	// default DefaultFields.
	Fields []string
}

// DefaultFields weigh the text, the heading trail and the title as the
// SQLite store's bm25(chunks_fts, 1.0, 0.5, 0.8) does. Weaviate combines
// them as BM25F (the weights scale each property's term frequencies before
// saturation), FTS5 as a weighted sum of per-column scores: the same
// preference, not the same numbers.
var DefaultFields = []string{"text", "heading^0.5", "title^0.8"}

// Hit is one chunk found.
type Hit struct {
	ID        string
	Folder    string
	Path      string
	Title     string
	Heading   string
	Text      string
	Page      int
	LineStart int
	LineEnd   int
	Ordinal   int
	DocHash   string
	// Score is BM25F's score for a keyword hit (higher is better), and
	// 1 - cosine distance for a vector hit.
	Score float64
	// Distance is the cosine distance of a vector hit.
	Distance float64
	// Explain is Weaviate's explainScore: for a keyword hit, each query
	// term's frequency and the property length it was found in.
	Explain string
}

const hitFields = `folder path title heading text page lineStart lineEnd ordinal docHash`

// hitJSON is a hit as GraphQL returns it.
type hitJSON struct {
	Folder     string `json:"folder"`
	Path       string `json:"path"`
	Title      string `json:"title"`
	Heading    string `json:"heading"`
	Text       string `json:"text"`
	Page       int    `json:"page"`
	LineStart  int    `json:"lineStart"`
	LineEnd    int    `json:"lineEnd"`
	Ordinal    int    `json:"ordinal"`
	DocHash    string `json:"docHash"`
	Additional struct {
		ID           string   `json:"id"`
		Score        string   `json:"score"` // a string in Weaviate's GraphQL
		ExplainScore string   `json:"explainScore"`
		Distance     *float64 `json:"distance"`
	} `json:"_additional"`
}

func (h hitJSON) hit() Hit {
	out := Hit{ID: h.Additional.ID, Folder: h.Folder, Path: h.Path, Title: h.Title, Heading: h.Heading, Text: h.Text,
		Page: h.Page, LineStart: h.LineStart, LineEnd: h.LineEnd, Ordinal: h.Ordinal, DocHash: h.DocHash,
		Explain: strings.TrimPrefix(h.Additional.ExplainScore, ", ")}
	if h.Additional.Score != "" {
		out.Score, _ = strconv.ParseFloat(h.Additional.Score, 64)
	}
	if h.Additional.Distance != nil {
		out.Distance = *h.Additional.Distance
		out.Score = 1 - out.Distance
	}
	return out
}

func (q Query) args() string {
	limit := q.Limit
	if limit <= 0 {
		limit = 10
	}
	a := fmt.Sprintf("limit: %d", limit)
	if q.Folder != "" {
		a += ", where: " + gqlWhere([]cond{eqText("folder", q.Folder)})
	}
	return a
}

// BM25 ranks chunks by Weaviate's BM25F over text, heading and title,
// best first, each with its score explained.
func (s *Store) BM25(ctx context.Context, text string, q Query) ([]Hit, error) {
	if strings.TrimSpace(text) == "" {
		return nil, errors.New("team store: an empty keyword query")
	}
	fields := q.Fields
	if len(fields) == 0 {
		fields = DefaultFields
	}
	query := fmt.Sprintf(`{ Get { %s(bm25: {query: %s, properties: %s}, %s%s) { %s _additional { id score explainScore } } } }`,
		s.chunkClass, gqlString(text), gqlStrings(fields), q.args(), s.consistencyArg(), hitFields)
	return s.hits(ctx, query, "keyword search")
}

// NearVector ranks chunks by cosine distance to vec, nearest first.
func (s *Store) NearVector(ctx context.Context, vec []float32, q Query) ([]Hit, error) {
	if len(vec) == 0 {
		return nil, errors.New("team store: an empty query vector")
	}
	v, err := gqlVector(vec)
	if err != nil {
		return nil, fmt.Errorf("team store: %w", err)
	}
	query := fmt.Sprintf(`{ Get { %s(nearVector: {vector: %s}, %s%s) { %s _additional { id distance } } } }`,
		s.chunkClass, v, q.args(), s.consistencyArg(), hitFields)
	return s.hits(ctx, query, "vector search")
}

// Lists runs the keyword and the vector search at once and returns both
// lists, for Cairn's own fusion (core/search) to combine exactly as it
// combines the SQLite store's: Weaviate's hybrid operator would fuse them
// by its own rule, out of reach of Cairn's knobs (docs/team.md). vec nil
// runs the keyword search alone.
func (s *Store) Lists(ctx context.Context, text string, vec []float32, keyword, vector Query) (kw, near []Hit, err error) {
	g, ctx := errgroup.WithContext(ctx)
	g.Go(func() error {
		var err error
		kw, err = s.BM25(ctx, text, keyword)
		return err
	})
	if vec != nil {
		g.Go(func() error {
			var err error
			near, err = s.NearVector(ctx, vec, vector)
			return err
		})
	}
	return kw, near, g.Wait()
}

// DocumentChunks returns the chunks stored for one file, by ordinal.
func (s *Store) DocumentChunks(ctx context.Context, folder, path string) ([]Hit, error) {
	query := fmt.Sprintf(`{ Get { %s(limit: %d, where: %s%s, sort: [{path: ["ordinal"], order: asc}]) { %s _additional { id } } } }`,
		s.chunkClass, maxDocumentChunks, gqlWhere([]cond{eqText("folder", folder), eqText("path", path)}), s.consistencyArg(), hitFields)
	return s.hits(ctx, query, "chunks of "+path)
}

// maxDocumentChunks is Weaviate's default QUERY_MAXIMUM_RESULTS: one
// query returns at most that many objects.
const maxDocumentChunks = 10000

func (s *Store) hits(ctx context.Context, query, what string) ([]Hit, error) {
	var raw []hitJSON
	if err := s.graphql(ctx, "Get", s.chunkClass, query, &raw); err != nil {
		return nil, fmt.Errorf("%s in the team cluster at %s: %w", what, s.where(), err)
	}
	out := make([]Hit, len(raw))
	for i, h := range raw {
		out[i] = h.hit()
	}
	return out, nil
}

package teamstore

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"strconv"
	"strings"

	"golang.org/x/sync/errgroup"
)

// Query narrows a search.
type Query struct {
	Folder string // "" searches every folder
	Limit  int    // hits wanted; default 10
	// Fields are BM25F's properties, with whole-number weights if any
	// ("title^2"; see DefaultFields); default DefaultFields.
	Fields []string
	Files  Files
	// Lean asks a keyword search for what scoring a hit needs only: its
	// id, text, heading, title, file and ordinal, without Weaviate's
	// explanation. A wide list costs about half as much (Hits fetches
	// the rest of the few kept).
	Lean bool
}

// Files narrows a search to some files, as the SQLite store's filter
// (domain.Filter) does: every condition given must hold.
type Files struct {
	Prefixes []string // the file (FilePath) starts with one of these
	// Types are formats ("pdf") or extensions without the dot ("md"), in
	// lower case: the file's format is one, or its name ends with one.
	Types []string
	// SinceMs and UntilMs bound the file's modification time, in
	// milliseconds since 1970: at or after SinceMs, before UntilMs; 0
	// leaves that side open.
	SinceMs, UntilMs int64
	// Contains are texts each of which the file or its title holds,
	// ignoring ASCII case.
	Contains []string
}

func (f Files) conds() []cond {
	var cs []cond
	if len(f.Prefixes) > 0 {
		var or []cond
		for _, p := range f.Prefixes {
			or = append(or, like("file", literal(p)+"*"))
		}
		cs = append(cs, anyOf(or...))
	}
	if len(f.Types) > 0 {
		var or []cond
		for _, t := range f.Types {
			or = append(or, eqText("format", t), like("fold", "*."+literal(ASCIILower(t))+foldSep+"*"))
		}
		cs = append(cs, anyOf(or...))
	}
	if f.SinceMs != 0 {
		cs = append(cs, gteInt("mtimeMs", int(f.SinceMs)))
	}
	if f.UntilMs != 0 {
		cs = append(cs, ltInt("mtimeMs", int(f.UntilMs)))
	}
	for _, c := range f.Contains {
		cs = append(cs, like("fold", "*"+literal(ASCIILower(c))+"*"))
	}
	return cs
}

// StemFields are DefaultFields' stemmed twins (see stemmed): a keyword
// search on them matches what FTS5 matches; the query is FTS5's tokens.
var StemFields = []string{"stems", "headingStems", "titleStems"}

// DefaultFields are the text, the heading trail and the title, unweighted.
// FTS5's weights (bm25(chunks_fts, 1.0, 0.5, 0.8)) cannot be given:
// Weaviate reads a property's boost as a whole number (strconv.Atoi in
// v1.35.2), so "heading^0.5" is boost 0 and the heading is not searched at
// all, and boosts above 1 make its WAND drop true top hits in that
// version (weaviate/weaviate#12018, fixed later). core/teamsearch applies
// the weights when it scores the hits again.
var DefaultFields = []string{"text", "heading", "title"}

// Hit is one chunk found.
type Hit struct {
	ID        string
	Folder    string
	Path      string
	File      string // FilePath(Folder, Path)
	Title     string
	Format    string
	Heading   string
	Text      string
	Unit      string
	Page      int
	Label     string
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

const hitFields = `folder path file title format heading text unit page label lineStart lineEnd ordinal docHash`

// hitJSON is a hit as GraphQL returns it.
type hitJSON struct {
	Folder     string `json:"folder"`
	Path       string `json:"path"`
	File       string `json:"file"`
	Title      string `json:"title"`
	Format     string `json:"format"`
	Heading    string `json:"heading"`
	Text       string `json:"text"`
	Unit       string `json:"unit"`
	Page       int    `json:"page"`
	Label      string `json:"label"`
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
	out := Hit{ID: h.Additional.ID, Folder: h.Folder, Path: h.Path, File: h.File, Title: h.Title, Format: h.Format, Heading: h.Heading, Text: h.Text,
		Unit: h.Unit, Page: h.Page, Label: h.Label, LineStart: h.LineStart, LineEnd: h.LineEnd, Ordinal: h.Ordinal, DocHash: h.DocHash,
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
	where := q.Files.conds()
	if q.Folder != "" {
		where = append(where, eqText("folder", q.Folder))
	}
	if len(where) > 0 {
		a += ", where: " + gqlWhere(where)
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
	want := hitFields + " _additional { id score explainScore }"
	if q.Lean {
		want = "text heading title file ordinal _additional { id score }"
	}
	query := fmt.Sprintf(`{ Get { %s(bm25: {query: %s, properties: %s}, %s%s) { %s } } }`,
		s.chunkClass, gqlString(text), gqlStrings(fields), q.args(), s.consistencyArg(), want)
	return s.hits(ctx, query, "keyword search")
}

// Hits reads the chunks of ids, in that order; ids not found are left
// out.
func (s *Store) Hits(ctx context.Context, ids []string) ([]Hit, error) {
	if len(ids) == 0 {
		return nil, nil
	}
	query := fmt.Sprintf(`{ Get { %s(where: {path: ["id"], operator: ContainsAny, valueText: %s}, limit: %d%s) { %s _additional { id } } } }`,
		s.chunkClass, gqlStrings(ids), len(ids), s.consistencyArg(), hitFields)
	hits, err := s.hits(ctx, query, "chunks")
	if err != nil {
		return nil, err
	}
	at := make(map[string]Hit, len(hits))
	for _, h := range hits {
		at[h.ID] = h
	}
	out := make([]Hit, 0, len(ids))
	for _, id := range ids {
		if h, ok := at[id]; ok {
			out = append(out, h)
		}
	}
	return out, nil
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

// StemDocFreqs counts the chunks that hold each of stems (a token as
// FTS5 makes it, see StemFields) in their text, heading or title: FTS5's
// document frequency, which Weaviate's BM25F computes inside and does not
// return. One request for all of them, an aggregation per stem.
func (s *Store) StemDocFreqs(ctx context.Context, stems []string) ([]int, error) {
	out := make([]int, len(stems))
	if len(stems) == 0 {
		return out, nil
	}
	var b strings.Builder
	b.WriteString("{ Aggregate { ")
	for i, st := range stems {
		fmt.Fprintf(&b, "d%d: %s(where: %s) { meta { count } } ", i, s.chunkClass,
			gqlWhere([]cond{anyOf(eqText("stems", st), eqText("headingStems", st), eqText("titleStems", st))}))
	}
	b.WriteString("} }")
	data, err := s.graphqlSection(ctx, "Aggregate", b.String())
	if err != nil {
		return nil, fmt.Errorf("count the chunks holding the query's words in the team cluster at %s: %w", s.where(), err)
	}
	for i := range stems {
		var res []struct {
			Meta struct {
				Count int `json:"count"`
			} `json:"meta"`
		}
		if raw := data[fmt.Sprintf("d%d", i)]; len(raw) > 0 {
			if err := json.Unmarshal(raw, &res); err != nil {
				return nil, fmt.Errorf("the team cluster's chunk counts are not what Cairn expects: %w", err)
			}
		}
		if len(res) > 0 {
			out[i] = res[0].Meta.Count
		}
	}
	return out, nil
}

// Totals are the chunks in the cluster and the FTS5 tokens of all of them
// (text, heading and title): FTS5's row count and, divided, its average
// row length.
func (s *Store) Totals(ctx context.Context) (chunks int, tokens int64, err error) {
	var res []struct {
		Meta struct {
			Count int `json:"count"`
		} `json:"meta"`
		Tokens struct {
			Sum float64 `json:"sum"`
		} `json:"tokens"`
	}
	q := fmt.Sprintf(`{ Aggregate { %s { meta { count } tokens { sum } } } }`, s.chunkClass)
	if err := s.graphql(ctx, "Aggregate", s.chunkClass, q, &res); err != nil {
		return 0, 0, fmt.Errorf("count the chunks in the team cluster at %s: %w", s.where(), err)
	}
	if len(res) == 0 {
		return 0, 0, nil
	}
	return res[0].Meta.Count, int64(res[0].Tokens.Sum), nil
}

// Chunk reads one chunk by its id; ErrNotFound when there is none.
func (s *Store) Chunk(ctx context.Context, id string) (Hit, error) {
	var obj struct {
		ID         string  `json:"id"`
		Properties hitJSON `json:"properties"`
	}
	if err := s.do(ctx, "GET", s.query("/v1/objects/"+s.chunkClass+"/"+url.PathEscape(id)), nil, &obj); err != nil {
		if errors.Is(err, ErrNotFound) {
			return Hit{}, err
		}
		return Hit{}, fmt.Errorf("read chunk %s from the team cluster at %s: %w", id, s.where(), err)
	}
	h := obj.Properties
	h.Additional.ID = obj.ID
	return h.hit(), nil
}

// FileChunks returns the chunks stored for one file, named as FilePath
// names it, by ordinal.
func (s *Store) FileChunks(ctx context.Context, file string) ([]Hit, error) {
	query := fmt.Sprintf(`{ Get { %s(limit: %d, where: %s%s, sort: [{path: ["ordinal"], order: asc}]) { %s _additional { id } } } }`,
		s.chunkClass, maxDocumentChunks, gqlWhere([]cond{eqText("file", file)}), s.consistencyArg(), hitFields)
	return s.hits(ctx, query, "chunks of "+file)
}

// Counts are the files the cluster holds a fingerprint for, and its
// chunks.
func (s *Store) Counts(ctx context.Context) (documents, chunks int, err error) {
	q := fmt.Sprintf(`{ Aggregate { d: %s { meta { count } } c: %s { meta { count } } } }`, s.docClass, s.chunkClass)
	data, err := s.graphqlSection(ctx, "Aggregate", q)
	if err != nil {
		return 0, 0, fmt.Errorf("count the documents in the team cluster at %s: %w", s.where(), err)
	}
	count := func(raw json.RawMessage) int {
		var res []struct {
			Meta struct {
				Count int `json:"count"`
			} `json:"meta"`
		}
		if json.Unmarshal(raw, &res) != nil || len(res) == 0 {
			return 0
		}
		return res[0].Meta.Count
	}
	return count(data["d"]), count(data["c"]), nil
}

// URL is the cluster's address, for a person to read.
func (s *Store) URL() string { return s.where() }

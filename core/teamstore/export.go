package teamstore

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strconv"
	"time"

	"cairn/core/chunk"
	"cairn/core/extract"
)

// Documents lists every file the cluster holds a fingerprint for, in every
// folder, sorted by folder and path; Chunks is the count recorded with it.
func (s *Store) Documents(ctx context.Context) ([]Document, error) {
	var out []Document
	err := s.EachDocument(ctx, func(d Document) error {
		out = append(out, d)
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("list the documents in the team cluster at %s: %w", s.where(), err)
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Folder != out[j].Folder {
			return out[i].Folder < out[j].Folder
		}
		return out[i].Path < out[j].Path
	})
	return out, nil
}

// readPage is the chunks read per query: far below the cluster's
// per-query limit (QUERY_MAXIMUM_RESULTS, 10,000 by default).
var readPage = 200

// ReadDocument reads back a file's chunks in ordinal order, with their
// vectors when they have them (vectors is nil when no chunk has one). The
// cluster keeps a chunk's text, heading, page, lines, unit kind and label,
// not its byte offsets: those are zero.
func (s *Store) ReadDocument(ctx context.Context, folder, path string) ([]chunk.Chunk, [][]float32, error) {
	var chunks []chunk.Chunk
	var vectors [][]float32
	withVectors := false
	for from := 0; ; {
		var page []struct {
			Text       string `json:"text"`
			Heading    string `json:"heading"`
			Page       int    `json:"page"`
			LineStart  int    `json:"lineStart"`
			LineEnd    int    `json:"lineEnd"`
			Ordinal    int    `json:"ordinal"`
			Unit       string `json:"unit"`
			Label      string `json:"label"`
			Additional struct {
				Vector []float32 `json:"vector"`
			} `json:"_additional"`
		}
		q := fmt.Sprintf(`{ Get { %s(where: %s, sort: [{path: ["ordinal"], order: asc}], limit: %d%s) { text heading page lineStart lineEnd ordinal unit label _additional { vector } } } }`,
			s.chunkClass, gqlWhere([]cond{eqText("folder", folder), eqText("path", path), gteInt("ordinal", from)}), readPage, s.consistencyArg())
		if err := s.graphql(ctx, "Get", s.chunkClass, q, &page); err != nil {
			return nil, nil, fmt.Errorf("read the chunks of %s from the team cluster at %s: %w", path, s.where(), err)
		}
		for _, c := range page {
			chunks = append(chunks, chunk.Chunk{Ordinal: c.Ordinal, Text: c.Text, Heading: c.Heading, Page: c.Page, LineStart: c.LineStart, LineEnd: c.LineEnd,
				Unit: extract.UnitKind(c.Unit), Label: c.Label})
			vectors = append(vectors, c.Additional.Vector)
			withVectors = withVectors || len(c.Additional.Vector) > 0
		}
		if len(page) < readPage {
			break
		}
		from = page[len(page)-1].Ordinal + 1
	}
	for i, c := range chunks {
		if c.Ordinal != i {
			return nil, nil, fmt.Errorf("the team cluster at %s holds chunk %d of %s where chunk %d should be: the file's write did not finish; index its folder again",
				s.where(), c.Ordinal, path, i)
		}
		if withVectors && len(vectors[i]) == 0 {
			return nil, nil, fmt.Errorf("chunk %d of %s in the team cluster at %s has no vector while others have: index its folder again", i, path, s.where())
		}
	}
	if !withVectors {
		vectors = nil
	}
	return chunks, vectors, nil
}

// TouchDocument records a new size and modification time for a file
// whose content did not change, so the next run skips it without reading
// it. Its chunks carry the time too (searches filter dates on them), so
// when the millisecond changes each chunk is updated first, one request
// each since Weaviate has no batch update; the fingerprint last, so that a
// touch cut short is done again by the next run.
func (s *Store) TouchDocument(ctx context.Context, folder, path string, size, mtimeNS int64) error {
	var obj struct {
		Properties struct {
			MTimeNS string `json:"mtimeNs"`
			Chunks  int    `json:"chunks"`
		} `json:"properties"`
	}
	docPath := s.query("/v1/objects/" + s.docClass + "/" + DocumentID(folder, path))
	err := s.do(ctx, "GET", docPath, nil, &obj)
	if errors.Is(err, ErrNotFound) {
		return fmt.Errorf("record the new time of %s in the team cluster at %s: it holds no such file", path, s.where())
	}
	if err != nil {
		return fmt.Errorf("record the new time of %s in the team cluster at %s: %w", path, s.where(), err)
	}
	if was, _ := strconv.ParseInt(obj.Properties.MTimeNS, 10, 64); was/1e6 != mtimeNS/1e6 {
		for i := range obj.Properties.Chunks {
			c := map[string]any{"class": s.chunkClass, "properties": map[string]any{"mtimeMs": mtimeNS / 1e6}}
			err := s.do(ctx, "PATCH", s.query("/v1/objects/"+s.chunkClass+"/"+ChunkID(folder, path, i)), c, nil)
			if err != nil && !errors.Is(err, ErrNotFound) { // a chunk not there is not searched either
				return fmt.Errorf("record the new time of %s's chunk %d in the team cluster at %s: %w", path, i, s.where(), err)
			}
		}
	}
	d := map[string]any{"class": s.docClass, "properties": map[string]any{"size": size, "mtimeNs": strconv.FormatInt(mtimeNS, 10),
		"indexedAt": time.Now().UTC().Format(time.RFC3339Nano)}}
	if err := s.do(ctx, "PATCH", docPath, d, nil); err != nil {
		return fmt.Errorf("record the new time of %s in the team cluster at %s: %w", path, s.where(), err)
	}
	return nil
}

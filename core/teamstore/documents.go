package teamstore

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"sort"
	"strconv"
	"time"

	"cairn/core/bm25"
	"cairn/core/chunk"
)

// Document is one indexed file. Folder is the folder's name as the team
// knows it, the same on every machine (the share's path on its server, say),
// and Path the file's path inside it with "/" separators, so that two people
// who mount the share in different places write the same ids.
type Document struct {
	Folder    string
	Path      string
	Size      int64
	MTimeNS   int64
	Hash      string // of the content; the fingerprint that decides "unchanged"
	Title     string
	Format    string
	Chunks    int // set by PutDocument
	IndexedAt time.Time
	IndexedBy string // who wrote it (host and user), for the person who wonders
}

// FileState is a file's fingerprint as the cluster holds it.
type FileState struct {
	Size    int64
	MTimeNS int64
	Hash    string
	Chunks  int
	Format  string
}

// Unchanged reports whether a file of this size, time and content hash is
// the version the cluster holds; hash "" compares size and time only (the
// cheap first look, as the SQLite indexer does before hashing).
func (f FileState) Unchanged(size, mtimeNS int64, hash string) bool {
	if hash != "" {
		return f.Hash == hash
	}
	return f.Size == size && f.MTimeNS == mtimeNS
}

// batchObject is one object of a batch write.
type batchObject struct {
	Class      string         `json:"class"`
	ID         string         `json:"id"`
	Properties map[string]any `json:"properties"`
	Vector     []float32      `json:"vector,omitempty"`
}

// PutDocument writes a file's chunks (with their vectors, when there are
// any) and then its fingerprint, replacing what the cluster held for that
// path. Chunk ids are fixed by folder, path and ordinal, so a write that
// stopped half-way (a crash, a lost connection, a killed node) is completed
// by writing the file again: nothing is duplicated. The fingerprint is
// written last: until it is, the file counts as not indexed, so the next
// run writes it again. Chunks past the new last ordinal, left by a longer
// earlier version, are removed before the fingerprint is written.
func (s *Store) PutDocument(ctx context.Context, doc Document, chunks []chunk.Chunk, vectors [][]float32) error {
	if doc.Folder == "" || doc.Path == "" {
		return errors.New("team store: a document needs a folder and a path")
	}
	if vectors != nil && len(vectors) != len(chunks) {
		return fmt.Errorf("team store: %s: %d vectors for %d chunks", doc.Path, len(vectors), len(chunks))
	}
	objs := make([]batchObject, len(chunks))
	tk := bm25.NewTokenizer() // one per call: a Tokenizer is not safe for concurrent use
	titleStems, titleTokens := stems(tk, doc.Title)
	file := FilePath(doc.Folder, doc.Path)
	for i, c := range chunks {
		textStems, textTokens := stems(tk, c.Text)
		headingStems, headingTokens := stems(tk, c.Heading)
		objs[i] = batchObject{Class: s.chunkClass, ID: ChunkID(doc.Folder, doc.Path, c.Ordinal), Properties: map[string]any{
			"text": c.Text, "heading": c.Heading, "title": doc.Title, "folder": doc.Folder, "path": doc.Path,
			"page": c.Page, "lineStart": c.LineStart, "lineEnd": c.LineEnd, "ordinal": c.Ordinal, "docHash": doc.Hash,
			"stems": textStems, "headingStems": headingStems, "titleStems": titleStems, "tokens": textTokens + headingTokens + titleTokens,
			"file": file, "fold": fold(file, doc.Title), "format": doc.Format, "mtimeMs": doc.MTimeNS / 1e6,
			"unit": string(c.Unit), "label": c.Label,
		}}
		if vectors != nil {
			objs[i].Vector = vectors[i]
		}
	}
	if err := s.writeBatches(ctx, objs); err != nil {
		return fmt.Errorf("write the chunks of %s to the team cluster at %s: %w", doc.Path, s.where(), err)
	}
	if _, err := s.deleteWhere(ctx, s.chunkClass, []cond{eqText("folder", doc.Folder), eqText("path", doc.Path), gteInt("ordinal", len(chunks))}); err != nil {
		return fmt.Errorf("remove the old chunks of %s from the team cluster at %s: %w", doc.Path, s.where(), err)
	}
	if doc.IndexedAt.IsZero() {
		doc.IndexedAt = time.Now()
	}
	d := batchObject{Class: s.docClass, ID: DocumentID(doc.Folder, doc.Path), Properties: map[string]any{
		"folder": doc.Folder, "path": doc.Path, "size": doc.Size, "mtimeNs": strconv.FormatInt(doc.MTimeNS, 10),
		"hash": doc.Hash, "title": doc.Title, "format": doc.Format, "chunks": len(chunks),
		"indexedAt": doc.IndexedAt.UTC().Format(time.RFC3339Nano), "indexedBy": doc.IndexedBy,
	}}
	if err := s.writeBatches(ctx, []batchObject{d}); err != nil {
		return fmt.Errorf("record %s as indexed in the team cluster at %s: %w", doc.Path, s.where(), err)
	}
	return nil
}

// writeBatches writes objs in batches of Options.BatchSize. Weaviate
// answers a batch with one result per object; any object's error fails the
// write (the objects before it may be stored: see PutDocument).
func (s *Store) writeBatches(ctx context.Context, objs []batchObject) error {
	for i := 0; i < len(objs); i += s.batch {
		part := objs[i:min(i+s.batch, len(objs))]
		var res []struct {
			ID     string `json:"id"`
			Result struct {
				Errors *struct {
					Error []struct {
						Message string `json:"message"`
					} `json:"error"`
				} `json:"errors"`
			} `json:"result"`
		}
		if err := s.do(ctx, "POST", s.query("/v1/batch/objects"), map[string]any{"objects": part}, &res); err != nil {
			return err
		}
		if len(res) != len(part) {
			return fmt.Errorf("the cluster answered %d results for a batch of %d objects", len(res), len(part))
		}
		for _, r := range res {
			if r.Result.Errors != nil && len(r.Result.Errors.Error) > 0 {
				return fmt.Errorf("object %s: %s", r.ID, r.Result.Errors.Error[0].Message)
			}
		}
	}
	return nil
}

// deleteWhere removes every object of class that matches where, in as many
// rounds as the cluster's per-request limit needs, and returns how many.
func (s *Store) deleteWhere(ctx context.Context, class string, where []cond) (int, error) {
	return s.deleteRounds(ctx, class, where, nil)
}

// deleteRounds is deleteWhere calling round, when not nil, with the
// objects removed so far after each round (QUERY_MAXIMUM_RESULTS of them
// at most, 10,000 by default).
func (s *Store) deleteRounds(ctx context.Context, class string, where []cond, round func(removed int)) (int, error) {
	total := 0
	for {
		var res struct {
			Results struct {
				Matches    int `json:"matches"`
				Limit      int `json:"limit"`
				Successful int `json:"successful"`
				Failed     int `json:"failed"`
			} `json:"results"`
		}
		body := map[string]any{"match": map[string]any{"class": class, "where": restWhere(where)}, "output": "minimal"}
		if err := s.do(ctx, "DELETE", s.query("/v1/batch/objects"), body, &res); err != nil {
			return total, err
		}
		total += res.Results.Successful
		if round != nil && res.Results.Successful > 0 {
			round(total)
		}
		if res.Results.Failed > 0 {
			return total, fmt.Errorf("%d of %d objects could not be removed", res.Results.Failed, res.Results.Matches)
		}
		// A round that removed nothing would repeat forever.
		if res.Results.Matches == 0 || res.Results.Matches < res.Results.Limit || res.Results.Successful == 0 {
			return total, nil
		}
	}
}

// FileStates returns the fingerprint of every file the cluster holds under
// folder, keyed by path: a file whose fingerprint matches need not be read,
// whoever indexed it.
func (s *Store) FileStates(ctx context.Context, folder string) (map[string]FileState, error) {
	out := map[string]FileState{}
	err := s.EachDocument(ctx, func(d Document) error {
		if d.Folder == folder {
			out[d.Path] = FileState{Size: d.Size, MTimeNS: d.MTimeNS, Hash: d.Hash, Chunks: d.Chunks, Format: d.Format}
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("read the file fingerprints of %s from the team cluster at %s: %w", folder, s.where(), err)
	}
	return out, nil
}

// EachDocument calls fn with every file the cluster holds a fingerprint
// of, whatever its folder, in the order of their ids: the cluster's
// cursor, which pages past the per-query limit but takes no filter.
func (s *Store) EachDocument(ctx context.Context, fn func(Document) error) error {
	return s.eachObject(ctx, s.docClass, func(_ string, props json.RawMessage) error {
		var p struct {
			Folder    string `json:"folder"`
			Path      string `json:"path"`
			Size      int64  `json:"size"`
			MTimeNS   string `json:"mtimeNs"`
			Hash      string `json:"hash"`
			Title     string `json:"title"`
			Format    string `json:"format"`
			Chunks    int    `json:"chunks"`
			IndexedAt string `json:"indexedAt"`
			IndexedBy string `json:"indexedBy"`
		}
		if err := json.Unmarshal(props, &p); err != nil {
			return err
		}
		mt, _ := strconv.ParseInt(p.MTimeNS, 10, 64)
		at, _ := time.Parse(time.RFC3339Nano, p.IndexedAt)
		return fn(Document{Folder: p.Folder, Path: p.Path, Size: p.Size, MTimeNS: mt, Hash: p.Hash, Title: p.Title, Format: p.Format,
			Chunks: p.Chunks, IndexedAt: at, IndexedBy: p.IndexedBy})
	})
}

// eachObject calls fn with every object of class, in id order, through
// the cluster's cursor (which pages past the per-query limit but takes no
// filter).
func (s *Store) eachObject(ctx context.Context, class string, fn func(id string, props json.RawMessage) error) error {
	after := ""
	for {
		var page struct {
			Objects []struct {
				ID         string          `json:"id"`
				Properties json.RawMessage `json:"properties"`
			} `json:"objects"`
		}
		q := url.Values{"class": {class}, "limit": {"500"}, "after": {after}}
		if err := s.do(ctx, "GET", s.query("/v1/objects?"+q.Encode()), nil, &page); err != nil {
			return err
		}
		for _, o := range page.Objects {
			if err := fn(o.ID, o.Properties); err != nil {
				return err
			}
		}
		if len(page.Objects) < 500 {
			return nil
		}
		after = page.Objects[len(page.Objects)-1].ID
	}
}

// DeletePaths removes the chunks and fingerprints of paths under folder.
func (s *Store) DeletePaths(ctx context.Context, folder string, paths []string) error {
	for _, p := range paths {
		if _, err := s.deleteWhere(ctx, s.chunkClass, []cond{eqText("folder", folder), eqText("path", p)}); err != nil {
			return fmt.Errorf("remove the chunks of %s from the team cluster at %s: %w", p, s.where(), err)
		}
		err := s.do(ctx, "DELETE", s.query("/v1/objects/"+s.docClass+"/"+DocumentID(folder, p)), nil, nil)
		if err != nil && !errors.Is(err, ErrNotFound) {
			return fmt.Errorf("remove %s from the team cluster at %s: %w", p, s.where(), err)
		}
	}
	return nil
}

// RemoveOrphans removes, under folder, every file that keep says is gone:
// those with a fingerprint and those with chunks only (left by a write that
// stopped before its fingerprint). It returns the paths removed, sorted.
func (s *Store) RemoveOrphans(ctx context.Context, folder string, keep func(path string) bool) ([]string, error) {
	states, err := s.FileStates(ctx, folder)
	if err != nil {
		return nil, err
	}
	paths := map[string]bool{}
	for p := range states {
		paths[p] = true
	}
	chunked, err := s.chunkPaths(ctx, folder)
	if err != nil {
		return nil, err
	}
	for p := range chunked {
		paths[p] = true
	}
	var gone []string
	for p := range paths {
		if !keep(p) {
			gone = append(gone, p)
		}
	}
	sort.Strings(gone)
	return gone, s.DeletePaths(ctx, folder, gone)
}

// maxGroups bounds the groups (paths, folders) one aggregation lists.
const maxGroups = 1_000_000

// chunkPaths counts the chunks of each path under folder.
func (s *Store) chunkPaths(ctx context.Context, folder string) (map[string]int, error) {
	out, err := s.countBy(ctx, s.chunkClass, "path", []cond{eqText("folder", folder)})
	if err != nil {
		return nil, fmt.Errorf("list the chunked files of %s in the team cluster at %s: %w", folder, s.where(), err)
	}
	return out, nil
}

// CountChunks counts the chunks under folder, of one path when path is not
// "".
func (s *Store) CountChunks(ctx context.Context, folder, path string) (int, error) {
	where := []cond{eqText("folder", folder)}
	if path != "" {
		where = append(where, eqText("path", path))
	}
	n, err := s.countBy(ctx, s.chunkClass, "", where)
	if err != nil {
		return 0, fmt.Errorf("count the chunks of %s in the team cluster at %s: %w", folder, s.where(), err)
	}
	return n[""], nil
}

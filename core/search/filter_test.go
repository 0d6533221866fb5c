package search

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"cairn/core/chunk"
	"cairn/core/domain"
	"cairn/core/store"
	"cairn/core/vecindex"
)

// fixedEmbedder embeds every question as the same vector.
type fixedEmbedder []float32

func (f fixedEmbedder) EmbedQuery(context.Context, string) ([]float32, error) { return f, nil }

// TestFilterAppliesInsideRetrieval: 30 files of 100 chunks, where the one
// file a filter keeps is the farthest from the question and its passages
// rank below every other file's. Filtering after a top-k cut would return
// nothing; inside retrieval, its best passages come back, in every mode,
// through the exact vector search and the in-memory index alike.
func TestFilterAppliesInsideRetrieval(t *testing.T) {
	ctx := context.Background()
	db, err := store.Open(filepath.Join(t.TempDir(), "f.db"), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.SetVectorModel(ctx, "m", 2); err != nil {
		t.Fatal(err)
	}
	f, _ := db.AddFolder(ctx, "/d")
	old := time.Date(2020, 1, 1, 0, 0, 0, 0, time.UTC)
	const target = 17
	err = db.Update(ctx, func(tx *store.Tx) error {
		for d := range 30 {
			var cs []chunk.Chunk
			var vs [][]float32
			for i := range 100 {
				text := fmt.Sprintf("pump valve note %d", i)
				v := []float32{1, float32(i) / 1000} // near the question
				if d == target {
					// Farther, and a weaker keyword match (longer).
					text = fmt.Sprintf("pump seen in passing among many other words of the archive, entry %d", i)
					v = []float32{float32(100-i) / 1000, 1} // chunk 0 the nearest of its file
				}
				cs = append(cs, chunk.Chunk{Ordinal: i, Text: text})
				vs = append(vs, v)
			}
			mtime := old
			if d == target {
				mtime = old.AddDate(4, 0, 0)
			}
			doc := store.Document{FolderID: f.ID, Path: fmt.Sprintf("/d/%02d.txt", d), Hash: "h", Format: "text", MTimeNS: mtime.UnixNano()}
			if _, _, err := tx.PutDocument(doc, cs, vs); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	path := fmt.Sprintf("/d/%02d.txt", target)
	filters := map[string]domain.Filter{
		"folder": {PathPrefixes: []string{path}},
		"date":   {Since: old.AddDate(1, 0, 0)},
		"text":   {Contains: []string{fmt.Sprintf("%02d.TXT", target)}},
	}
	for _, vec := range []struct {
		name string
		ix   VectorIndex
	}{{"exact", nil}, {"vecindex", vecindex.New(db)}} {
		s := New(db, fixedEmbedder{1, 0}, vec.ix)
		for _, mode := range []Mode{ModeVector, ModeBM25, ModeHybrid} {
			for fname, filter := range filters {
				t.Run(vec.name+"/"+string(mode)+"/"+fname, func(t *testing.T) {
					r, err := s.Search(ctx, Request{Query: "pump", Mode: mode, Filter: filter, Params: Params{TopK: 5}})
					if err != nil {
						t.Fatal(err)
					}
					if len(r.Results) != 5 {
						t.Fatalf("%d results, want 5", len(r.Results))
					}
					for _, res := range r.Results {
						if res.Path != path {
							t.Errorf("result from %s", res.Path)
						}
					}
					if mode == ModeVector && r.Results[0].Passage.Text != "pump seen in passing among many other words of the archive, entry 0" {
						t.Errorf("best passage %q, want the file's nearest (entry 0)", r.Results[0].Passage.Text)
					}
				})
			}
		}
	}
}

package teamstore

import (
	"context"
	"errors"
	"fmt"
	"strings"
)

// property is one property of a class as Weaviate's schema API takes it.
type property struct {
	Name            string   `json:"name"`
	DataType        []string `json:"dataType"`
	Tokenization    string   `json:"tokenization,omitempty"`
	IndexSearchable *bool    `json:"indexSearchable,omitempty"`
}

// class is a class definition for POST /v1/schema.
type class struct {
	Class             string         `json:"class"`
	Description       string         `json:"description,omitempty"`
	Vectorizer        string         `json:"vectorizer"`
	VectorIndexConfig map[string]any `json:"vectorIndexConfig,omitempty"`
	InvertedIndex     map[string]any `json:"invertedIndexConfig,omitempty"`
	Replication       map[string]any `json:"replicationConfig,omitempty"`
	Properties        []property     `json:"properties"`
}

var no = false

// words are searched with BM25: split into words, lower-cased.
func words(name string) property {
	return property{Name: name, DataType: []string{"text"}, Tokenization: "word"}
}

// exact are filtered on as a whole (paths, fingerprints), never searched.
func exact(name string) property {
	return property{Name: name, DataType: []string{"text"}, Tokenization: "field", IndexSearchable: &no}
}

func integer(name string) property { return property{Name: name, DataType: []string{"int"}} }

// BlockMaxWAND reports whether the cluster keeps the chunks' keyword index
// as BlockMax WAND's, Weaviate's default since v1.29 (USE_INVERTED_SEARCHABLE
// on the nodes, fixed when the class is created). Its top hits can be wrong
// in the pinned v1.35.2: on the quality suite's 2,169 chunks, a three-word
// query's best 100 left out every chunk of the man pages, among them the
// best-scored one (5.2 against the first hit's 2.7), which the same query
// found first when filtered to that page. Classic WAND (nodes started
// with USE_INVERTED_SEARCHABLE=false before the classes exist) returned it
// first. Searches over such a cluster say so in a note.
func (s *Store) BlockMaxWAND() bool { return s.blockMax }

// stemmed holds a text's tokens as the SQLite store's FTS5 index makes
// them (porter unicode61 remove_diacritics 2, through core/bm25's
// Tokenizer), separated by spaces: Weaviate takes them as they are, so a
// keyword search matches the chunks FTS5 would, "descaling" finding
// "descale" (Weaviate's own tokenizers do not stem).
func stemmed(name string) property {
	return property{Name: name, DataType: []string{"text"}, Tokenization: "whitespace"}
}

// classes are the knowledge base's classes. Vectors are Cairn's own
// (vectorizer none), compared by cosine distance as in the SQLite store.
// BM25's k1 and b are FTS5's. A number that may pass 2^53 (a time in
// nanoseconds) is text: JSON numbers are doubles on the way.
func (s *Store) classes() []class {
	repl := func() map[string]any {
		if s.replicas > 0 {
			// Asynchronous replication lets a replica that was down
			// catch up with the writes it missed.
			return map[string]any{"factor": s.replicas, "asyncEnabled": s.replicas > 1}
		}
		return nil
	}
	bm25 := map[string]any{"bm25": map[string]any{"k1": 1.2, "b": 0.75}}
	// Stopwords are Cairn's to drop (core/search), as FTS5 indexes
	// every word: Weaviate's English preset would ignore "will" or "not".
	chunkIndex := map[string]any{"bm25": bm25["bm25"], "stopwords": map[string]any{"preset": "none"}}
	return []class{
		{Class: s.chunkClass, Description: "Cairn: one chunk of a document", Vectorizer: "none",
			VectorIndexConfig: map[string]any{"distance": "cosine"}, InvertedIndex: chunkIndex, Replication: repl(),
			Properties: []property{words("text"), words("heading"), words("title"), exact("folder"), exact("path"),
				integer("page"), integer("lineStart"), integer("lineEnd"), integer("ordinal"), exact("docHash"),
				// What a search over the cluster ranks, filters and cites
				// with as it does in SQLite (core/teamsearch): FTS5's tokens
				// and their count; the file as one path, and folded for
				// "contains"; its format and time; the unit and its label.
				stemmed("stems"), stemmed("headingStems"), stemmed("titleStems"), integer("tokens"),
				exact("file"), exact("fold"), exact("format"), integer("mtimeMs"), exact("unit"), exact("label")}},
		{Class: s.docClass, Description: "Cairn: one indexed file and its fingerprint", Vectorizer: "none", Replication: repl(),
			Properties: []property{exact("folder"), exact("path"), integer("size"), exact("mtimeNs"), exact("hash"),
				words("title"), exact("format"), integer("chunks"), exact("indexedAt"), exact("indexedBy")}},
		{Class: s.leaseClass, Description: "Cairn: the indexer that holds a folder", Vectorizer: "none", Replication: repl(),
			Properties: []property{exact("folder"), exact("holder"), exact("token"), exact("acquired"), exact("expires")}},
	}
}

// ensureSchema creates the classes that are missing, and refuses a class
// of that name that lacks a property Cairn writes (another program's, or an
// older layout). It notes whether the chunks' keyword index is BlockMax
// WAND's (see BlockMaxWAND).
func (s *Store) ensureSchema(ctx context.Context) error {
	for _, c := range s.classes() {
		var have struct {
			Properties []struct {
				Name string `json:"name"`
			} `json:"properties"`
			InvertedIndexConfig struct {
				UsingBlockMaxWAND bool `json:"usingBlockMaxWAND"`
			} `json:"invertedIndexConfig"`
		}
		err := s.do(ctx, "GET", "/v1/schema/"+c.Class, nil, &have)
		if errors.Is(err, ErrNotFound) {
			err = s.do(ctx, "POST", "/v1/schema", c, nil)
			if err != nil && strings.Contains(err.Error(), "already exists") {
				err = nil // another Cairn created it at the same moment
			}
			if err != nil {
				return fmt.Errorf("create class %s in the team cluster at %s: %w", c.Class, s.where(), err)
			}
			// The server decides the keyword index's kind: read it back.
			err = s.do(ctx, "GET", "/v1/schema/"+c.Class, nil, &have)
			if err != nil {
				return fmt.Errorf("read class %s from the team cluster at %s: %w", c.Class, s.where(), err)
			}
			if c.Class == s.chunkClass {
				s.blockMax = have.InvertedIndexConfig.UsingBlockMaxWAND
			}
			continue
		}
		if err != nil {
			return fmt.Errorf("read class %s from the team cluster at %s: %w", c.Class, s.where(), err)
		}
		if c.Class == s.chunkClass {
			s.blockMax = have.InvertedIndexConfig.UsingBlockMaxWAND
		}
		got := map[string]bool{}
		for _, p := range have.Properties {
			got[p.Name] = true
		}
		var missing []string
		for _, p := range c.Properties {
			if !got[p.Name] {
				missing = append(missing, p.Name)
			}
		}
		if len(missing) > 0 {
			return fmt.Errorf("class %s in the team cluster at %s lacks %s: it is not a Cairn knowledge base of this version; "+
				"choose another collection name or remove the class", c.Class, s.where(), strings.Join(missing, ", "))
		}
	}
	return nil
}

package teamstore

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// The <C>Meta class holds a knowledge base's settings that every indexer
// must agree on, one object per key: which embedding model made the
// chunks' vectors (a cluster's vectors are never mixed, as in the SQLite
// store), and which model each folder was last written with. It is created
// on first use, so clusters made before it need no migration.

const (
	metaVectorModel = "vector_model"
	metaVectorDim   = "vector_dim"
	// metaFolderVectors + folder: the model whose vectors every file of
	// the folder has ("" or absent: written keyword-only, or never).
	metaFolderVectors = "folder_vectors:"
	// metaFolderExtractors + folder: the extractor versions the folder's
	// files were read with (ingest.ExtractorsMeta's value).
	metaFolderExtractors = "folder_extractors:"
)

func (s *Store) metaClass() string { return strings.TrimSuffix(s.chunkClass, "Chunk") + "Meta" }

func metaID(key string) string { return uuidString(uuid5(namespace, "meta\x00"+key)) }

// ensureMeta creates the meta class when it is missing; once it is known
// to exist, without asking (the status bar reads the meta records every
// few seconds).
func (s *Store) ensureMeta(ctx context.Context) error {
	if s.metaReady.Load() {
		return nil
	}
	err := s.do(ctx, "GET", "/v1/schema/"+s.metaClass(), nil, nil)
	if !errors.Is(err, ErrNotFound) {
		if err != nil {
			return fmt.Errorf("read class %s from the team cluster at %s: %w", s.metaClass(), s.where(), err)
		}
		s.metaReady.Store(true)
		return nil
	}
	c := class{Class: s.metaClass(), Description: "Cairn: settings every indexer of the knowledge base agrees on", Vectorizer: "none",
		Properties: []property{exact("key"), exact("value")}}
	if s.replicas > 0 {
		c.Replication = map[string]any{"factor": s.replicas, "asyncEnabled": s.replicas > 1}
	}
	err = s.do(ctx, "POST", "/v1/schema", c, nil)
	if err != nil && strings.Contains(err.Error(), "already exists") {
		err = nil // another Cairn created it at the same moment
	}
	if err != nil {
		return fmt.Errorf("create class %s in the team cluster at %s: %w", s.metaClass(), s.where(), err)
	}
	s.metaReady.Store(true)
	return nil
}

// meta reads key; "" when it is not set.
func (s *Store) meta(ctx context.Context, key string) (string, error) {
	if err := s.ensureMeta(ctx); err != nil {
		return "", err
	}
	var obj struct {
		Properties struct {
			Value string `json:"value"`
		} `json:"properties"`
	}
	err := s.do(ctx, "GET", s.query("/v1/objects/"+s.metaClass()+"/"+metaID(key)), nil, &obj)
	if errors.Is(err, ErrNotFound) {
		return "", nil
	}
	if err != nil {
		return "", fmt.Errorf("read %s from the team cluster at %s: %w", key, s.where(), err)
	}
	return obj.Properties.Value, nil
}

// setMeta writes the values of keys (key, value, key, value...) in one
// batch.
func (s *Store) setMeta(ctx context.Context, kv ...string) error {
	if err := s.ensureMeta(ctx); err != nil {
		return err
	}
	var objs []batchObject
	for i := 0; i+1 < len(kv); i += 2 {
		objs = append(objs, batchObject{Class: s.metaClass(), ID: metaID(kv[i]), Properties: map[string]any{"key": kv[i], "value": kv[i+1]}})
	}
	if err := s.writeBatches(ctx, objs); err != nil {
		return fmt.Errorf("record the knowledge base's settings in the team cluster at %s: %w", s.where(), err)
	}
	return nil
}

// VectorModel is the embedding model whose vectors the cluster's chunks
// hold, and its dimension; "" and 0 before any vector was written.
func (s *Store) VectorModel(ctx context.Context) (string, int, error) {
	id, err := s.meta(ctx, metaVectorModel)
	if err != nil || id == "" {
		return "", 0, err
	}
	d, err := s.meta(ctx, metaVectorDim)
	if err != nil {
		return "", 0, err
	}
	dim, _ := strconv.Atoi(d)
	return id, dim, nil
}

// SetVectorModel records the model of the cluster's vectors. Deciding
// whether a change is allowed is the caller's: the cluster's vector index
// takes one dimension only.
func (s *Store) SetVectorModel(ctx context.Context, id string, dim int) error {
	return s.setMeta(ctx, metaVectorModel, id, metaVectorDim, strconv.Itoa(dim))
}

// FolderVectorModel is the model whose vectors every file of folder was
// written with; "" when the folder was written without vectors, or not yet.
func (s *Store) FolderVectorModel(ctx context.Context, folder string) (string, error) {
	return s.meta(ctx, metaFolderVectors+folder)
}

// SetFolderVectorModel records that every file of folder now has vectors
// of model id.
func (s *Store) SetFolderVectorModel(ctx context.Context, folder, id string) error {
	return s.setMeta(ctx, metaFolderVectors+folder, id)
}

// FolderExtractors is the record of the extractor versions folder's files
// were read with, as the indexer writes it; "" when none was kept.
func (s *Store) FolderExtractors(ctx context.Context, folder string) (string, error) {
	return s.meta(ctx, metaFolderExtractors+folder)
}

// SetFolderExtractors records the extractor versions folder's files were
// read with.
func (s *Store) SetFolderExtractors(ctx context.Context, folder, versions string) error {
	return s.setMeta(ctx, metaFolderExtractors+folder, versions)
}

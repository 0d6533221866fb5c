// Package models knows Cairn's model files: which GGUF files the models
// folder and the settings offer, what each one is (embedding, reranker or chat, by
// its metadata), which file a setting names, and what to tell a person when
// one cannot be used. It reads metadata only; loading a model is the
// Engine's (core), which keeps the loaded ones.
package models

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"cairn/core/config"
	"cairn/core/fault"
	"cairn/core/llm"
)

// None in the settings means "no model of this kind" (config.NoModel).
const None = config.NoModel

// Info describes a GGUF file Cairn can use.
type Info struct {
	Path   string
	Name   string // general.name, else the file name
	Kind   llm.Kind
	Family llm.Family // embedding models
	Dim    int        // embedding width
	Size   int64
	InUse  bool
	Err    string // why the file cannot be used
}

// KindOf is the kind of a GGUF from its metadata: rank pooling makes a
// reranker (a cross-encoder with a classification head), another pooling
// type an embedding model; otherwise a causal model is a chat model
// (without a chat template, the ChatML fallback applies).
func KindOf(md *llm.Metadata) (llm.Kind, error) {
	switch {
	case md.Pooling == llm.PoolingRank:
		return llm.KindRerank, nil
	case md.Pooling != llm.PoolingNone:
		return llm.KindEmbedding, nil
	case md.Causal:
		return llm.KindGeneration, nil
	}
	return "", fmt.Errorf("%s: neither an embedding model (no pooling type) nor a chat model", filepath.Base(md.Path))
}

// List lists the GGUF files of the models folder of c and the files its
// settings name, marking those in inUse.
func List(c config.Config, inUse []string) ([]Info, error) {
	dir := c.Paths.ModelsDir
	var paths []string
	ents, err := os.ReadDir(dir)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("models folder %s: %w", dir, err)
	}
	for _, d := range ents {
		if !d.IsDir() && strings.EqualFold(filepath.Ext(d.Name()), ".gguf") {
			paths = append(paths, filepath.Join(dir, d.Name()))
		}
	}
	for _, p := range []string{c.Embedding.Model, c.Generation.Model, c.Rerank.Model} {
		if p != "" && strings.ContainsRune(p, filepath.Separator) && !slices.Contains(paths, p) {
			paths = append(paths, p)
		}
	}
	var out []Info
	for _, p := range paths {
		mi := Info{Path: p, Name: filepath.Base(p), InUse: slices.Contains(inUse, p)}
		md, err := llm.ReadMetadata(p)
		if err != nil {
			mi.Err = err.Error()
			out = append(out, mi)
			continue
		}
		if md.Name != "" {
			mi.Name = md.Name
		}
		mi.Size = md.Size
		if mi.Kind, err = KindOf(md); err != nil {
			mi.Err = err.Error()
		}
		if mi.Kind == llm.KindEmbedding {
			mi.Family, mi.Dim = llm.DetectFamily(md), md.EmbeddingLength
		}
		out = append(out, mi)
	}
	return out, nil
}

// Resolve finds the file a model setting names: a path, a file name in the
// models folder of c, or "" for the first usable model of that kind there
// (and "" for None).
func Resolve(c config.Config, setting string, kind llm.Kind) (string, error) {
	if setting == None {
		return "", nil
	}
	if setting != "" {
		p := setting
		if !strings.ContainsRune(p, filepath.Separator) {
			p = filepath.Join(c.Paths.ModelsDir, p)
		}
		if _, err := os.Stat(p); err != nil {
			return "", fault.New(fault.ModelMissing, "model "+setting,
				"put the file in "+c.Paths.ModelsDir+" or choose another with `cairn models use PATH` (or the Engineering tab)", err)
		}
		return p, nil
	}
	all, err := List(c, nil)
	if err != nil {
		return "", err
	}
	for _, m := range all {
		if m.Kind == kind && m.Err == "" {
			return m.Path, nil
		}
	}
	return "", nil
}

// Setting is the settings' model of kind.
func Setting(c config.Config, kind llm.Kind) string {
	switch kind {
	case llm.KindEmbedding:
		return c.Embedding.Model
	case llm.KindRerank:
		return c.Rerank.Model
	}
	return c.Generation.Model
}

// Inspect reads what the GGUF at path is, for a switch to it.
func Inspect(path string) (Info, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return Info{}, err
	}
	md, err := llm.ReadMetadata(abs)
	if err != nil {
		return Info{}, Fault(abs, "", err)
	}
	kind, err := KindOf(md)
	if err != nil {
		return Info{}, fault.New(fault.ModelWrongUse, "", "choose an embedding model (with a pooling type), a reranker (rank pooling) or a chat model; `cairn models list` says which kind each file is", err)
	}
	mi := Info{Path: abs, Name: md.Name, Kind: kind, Size: md.Size, InUse: true}
	if kind == llm.KindEmbedding {
		mi.Family, mi.Dim = llm.DetectFamily(md), md.EmbeddingLength
	}
	return mi, nil
}

// Fault gives a model's load error a code and a fix, telling a missing
// file, a file that is not a GGUF model, a model of the other kind and a
// model llama.cpp refused apart. want "" skips the kind check.
func Fault(path string, want llm.Kind, err error) error {
	if err == nil {
		return nil
	}
	if _, ok := fault.As(err); ok {
		return err
	}
	list := "`cairn models list` says which kind each file is"
	if errors.Is(err, fs.ErrNotExist) {
		return fault.New(fault.ModelMissing, "", "put the file back, or choose another model with `cairn models use PATH`", err)
	}
	md, merr := llm.ReadMetadata(path)
	if merr != nil {
		return fault.New(fault.ModelNotGGUF, "", "the file is not a complete GGUF model: download it again (`cairn models pull NAME` checks its SHA-256) or choose another", err)
	}
	if want != "" {
		if kind, kerr := KindOf(md); kerr != nil || kind != want {
			return fault.New(fault.ModelWrongUse, "", "choose a "+string(want)+" model; "+list, err)
		}
	}
	return fault.New(fault.ModelLoad, "", "the file may be incomplete (download it again), need more memory than is free, or have an architecture llama.cpp does not run; `cairn doctor --load` tries it, or choose another model", err)
}

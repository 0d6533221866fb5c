// Package kb knows knowledge bases as files: what one may be called, where
// its file is, which there are, and the report of what one holds. It
// loads nothing (no models, no cgo), so the window can use it for types.
package kb

import (
	"errors"
	"fmt"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"cairn/core/config"
	"cairn/core/domain"
	"cairn/core/search"
)

// kbName is what a knowledge base may be called: a file name in the data
// folder that every file system takes, never a path.
var kbName = regexp.MustCompile(`^[\p{L}\p{N}][\p{L}\p{N} ._-]{0,63}$`)

// CheckName says why name cannot name a knowledge base; nil when it can.
// The window's New dialog and --kb both follow it.
func CheckName(name string) error {
	switch {
	case strings.ContainsAny(name, `/\`) || name == "." || name == "..":
		return fmt.Errorf("knowledge base name %q must not contain a path; use --db for a file path", name)
	case !kbName.MatchString(name):
		return fmt.Errorf("knowledge base name %q: use up to 64 letters, digits, spaces, '.', '_' or '-', starting with a letter or digit", name)
	}
	return nil
}

// File is the database file a command's --db and --kb name: db as given,
// or the knowledge base named name (the settings' default when empty) in
// the data folder. A name is a file name, never a path: this is the one
// rule for names (core.Options.Path and core/doctor both ask it).
func File(cfg config.Config, name, db string) (string, error) {
	if db != "" {
		return db, nil
	}
	if name == "" {
		name = cfg.Paths.KB
	}
	if err := CheckName(name); err != nil {
		return "", err
	}
	return Path(cfg, name), nil
}

// Path returns the database path of knowledge base name.
func Path(cfg config.Config, name string) string {
	return filepath.Join(cfg.Paths.DataDir, "kb", name+".db")
}

// List lists the names of the knowledge bases in the data folder.
func List(cfg config.Config) []string {
	matches, _ := filepath.Glob(filepath.Join(cfg.Paths.DataDir, "kb", "*.db"))
	var names []string
	for _, m := range matches {
		names = append(names, strings.TrimSuffix(filepath.Base(m), ".db"))
	}
	slices.Sort(names)
	return names
}

// ErrNotFound says that the knowledge base holds no such passage or document.
var ErrNotFound = errors.New("not found")

// Status is what a knowledge base holds and which models are loaded.
type Status struct {
	domain.Stats
	EmbeddingModel string // "" when BM25 only
	ChatModel      string // the loaded chat model, "NAME at HOST (online)" when an online endpoint answers; "" otherwise
	// Device is where the loaded models run: "CPU" or "GPU: NVIDIA
	// GeForce RTX 3060 (Vulkan0)", both joined with " + " when they
	// differ; "" while no model is loaded.
	Device      string
	NetworkMode string
	// Store is the store searches read: "SQLite" (the knowledge base
	// file), or "Weaviate at URL" (a team cluster, store.backend
	// weaviate, and Team is true), whose documents, chunks and vector
	// model the counts then are, its vectors counted as it records them
	// (teamstore.Store.EmbeddedChunks).
	Store string
	Team  bool
}

// MeaningCoverage is how much of the knowledge base meaning search covers
// while embeddings are still being computed; nil when there is no
// embedding model, every chunk has its vector, or the store is a team
// cluster (whose count is per folder, not per chunk).
func (s Status) MeaningCoverage() *search.MeaningCoverage {
	c := search.MeaningCoverage{Embedded: s.Vectors, Chunks: s.Chunks}
	if s.VectorModel == "" || s.Team || c.Complete() {
		return nil
	}
	return &c
}

package core

import (
	"fmt"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"cairn/core/config"
)

// kbName is what a knowledge base may be called: a file name in the data
// folder that every file system takes, never a path.
var kbName = regexp.MustCompile(`^[\p{L}\p{N}][\p{L}\p{N} ._-]{0,63}$`)

// CheckKBName says why name cannot name a knowledge base; nil when it can.
// The window's New dialog and --kb both follow it.
func CheckKBName(name string) error {
	switch {
	case strings.ContainsAny(name, `/\`) || name == "." || name == "..":
		return fmt.Errorf("knowledge base name %q must not contain a path; use --db for a file path", name)
	case !kbName.MatchString(name):
		return fmt.Errorf("knowledge base name %q: use up to 64 letters, digits, spaces, '.', '_' or '-', starting with a letter or digit", name)
	}
	return nil
}

// KBPath returns the database path of knowledge base name.
func KBPath(cfg config.Config, name string) string {
	return filepath.Join(cfg.Paths.DataDir, "kb", name+".db")
}

// KnowledgeBases lists the names of the knowledge bases in the data folder.
func KnowledgeBases(cfg config.Config) []string {
	matches, _ := filepath.Glob(filepath.Join(cfg.Paths.DataDir, "kb", "*.db"))
	var names []string
	for _, m := range matches {
		names = append(names, strings.TrimSuffix(filepath.Base(m), ".db"))
	}
	slices.Sort(names)
	return names
}

package search

import (
	"errors"
	"path/filepath"
	"slices"
	"strings"

	"cairn/core/domain"
)

// ErrOutsideFolders says that a filter's folders lie outside the folders a
// conversation is answered from: nothing could match.
var ErrOutsideFolders = errors.New("the filter's folders are outside the folders this conversation uses")

// Within narrows f to folders, the knowledge base's folders a conversation
// is answered from (its collection): a file must be under one of them as
// well as pass f. No folders: f as it is. A folder filter of f is kept
// where it lies inside one of them, and one of them where it lies inside
// the filter's folder; when none remains, ErrOutsideFolders.
func Within(f domain.Filter, folders []string) (domain.Filter, error) {
	if len(folders) == 0 {
		return f, nil
	}
	sep := string(filepath.Separator)
	col := make([]string, len(folders))
	for i, c := range folders {
		// A folder as FilterSpec.Folder writes one: ending with a
		// separator, so that Contracts matches neither Contracts2 nor
		// Contracts-old.
		col[i] = strings.TrimSuffix(filepath.Clean(c), sep) + sep
	}
	if len(f.PathPrefixes) == 0 {
		f.PathPrefixes = col
		return f, nil
	}
	var keep []string
	for _, p := range f.PathPrefixes {
		for _, c := range col {
			switch {
			case strings.HasPrefix(p, c):
				keep = append(keep, p)
			case strings.HasSuffix(p, sep) && strings.HasPrefix(c, p):
				keep = append(keep, c)
			}
		}
	}
	slices.Sort(keep)
	keep = slices.Compact(keep)
	if len(keep) == 0 {
		return f, ErrOutsideFolders
	}
	f.PathPrefixes = keep
	return f, nil
}

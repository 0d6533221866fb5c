package search

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"cairn/core/collection"
	"cairn/core/domain"
)

// FilterSpec is a document filter as a person writes it, in `cairn search`
// and `cairn ask`'s flags or the Ask tab's filter row: comma-separated
// folders, types and texts, and dates written 2024, 2024-03 or 2024-03-15.
// Empty fields filter nothing.
type FilterSpec struct {
	Folders  string // only files in these folders or their subfolders (or these files); "~/" is the home folder
	Types    string // only these types: pdf, md, markdown, docx…
	Since    string // only files modified on or after this date
	Until    string // only files modified up to the end of this date
	Contains string // only files whose title or path holds each of these texts
	NoGuide  bool   // leave out the bundled user guide (domain.Filter.NoGuide)
	// Base is the folder a relative folder is read from; "" for the
	// working directory.
	Base string
	// AbsoluteOnly refuses a relative folder: the service's clients share
	// no working directory with it.
	AbsoluteOnly bool
}

// FilterField is one field of FilterSpec as every surface names it: the
// flag of `cairn search` and `cairn ask`, and the local service's
// parameter (the flag with _ for -). Adding a filter is a field of
// FilterSpec, its reading in Filter, and an entry here.
type FilterField struct {
	Flag string // "path-contains"
	// Help says what it keeps; a `WORD` in backquotes names its value, as
	// the flag package reads it.
	Help string
	List bool // several values: comma-separated in a flag or a query string, an array in JSON
	// Of is a field with a value; Switch, set instead, one that is on or
	// off: a boolean flag, true or false as a parameter.
	Of     func(*FilterSpec) *string
	Switch func(*FilterSpec) *bool
}

// FilterFields are FilterSpec's fields in the order the flags are listed.
var FilterFields = []FilterField{
	{"folder", "only files in these folders and their subfolders (or these files)", true, func(s *FilterSpec) *string { return &s.Folders }, nil},
	{"type", "only these types (pdf, md, markdown, docx...)", true, func(s *FilterSpec) *string { return &s.Types }, nil},
	{"since", "only files modified on or after `DATE` (2024, 2024-03 or 2024-03-15)", false, func(s *FilterSpec) *string { return &s.Since }, nil},
	{"until", "only files modified up to the end of `DATE` (2024, 2024-03 or 2024-03-15)", false, func(s *FilterSpec) *string { return &s.Until }, nil},
	{"path-contains", "only files whose title or path holds each of these `TEXTS`", true, func(s *FilterSpec) *string { return &s.Contains }, nil},
	{"no-guide", "leave out Cairn's bundled user guide (the setting retrieval.include_guide false leaves it out of every question)", false, nil,
		func(s *FilterSpec) *bool { return &s.NoGuide }},
}

// FilterError says which field of a FilterSpec cannot be read. Field is
// its name as a flag: folder, type, since, until or path-contains.
type FilterError struct {
	Field string
	Err   error
}

func (e *FilterError) Error() string { return e.Field + ": " + e.Err.Error() }
func (e *FilterError) Unwrap() error { return e.Err }

// Filter reads the spec into the store's filter, dates in loc; a field
// that cannot be read gives a *FilterError naming it.
func (s FilterSpec) Filter(loc *time.Location) (domain.Filter, error) {
	var f domain.Filter
	for _, p := range SplitList(s.Folders) {
		abs, err := s.Folder(p)
		if err != nil {
			return f, &FilterError{"folder", fmt.Errorf("%s: %w", p, err)}
		}
		f.PathPrefixes = append(f.PathPrefixes, abs)
	}
	f.Types = SplitList(s.Types)
	f.Contains = SplitList(s.Contains)
	f.NoGuide = s.NoGuide
	if strings.TrimSpace(s.Since) != "" {
		p, err := collection.ParseDate(s.Since, loc)
		if err != nil {
			return f, &FilterError{"since", err}
		}
		f.Since = p.Start
	}
	if strings.TrimSpace(s.Until) != "" {
		p, err := collection.ParseDate(s.Until, loc)
		if err != nil {
			return f, &FilterError{"until", err}
		}
		f.Until = p.End
	}
	if !f.Since.IsZero() && !f.Until.IsZero() && !f.Since.Before(f.Until) {
		return f, &FilterError{"since", fmt.Errorf("%s is after %s, the end date: no file can match",
			strings.TrimSpace(s.Since), strings.TrimSpace(s.Until))}
	}
	return f, nil
}

// Folder makes p absolute and a folder: it ends with a separator, so that
// Contracts matches neither Contracts2 nor Contracts-old, whether or not
// the folder is on this computer (a team's, a removed one). Only an
// existing file is kept as it is, to filter on that one file.
func (s FilterSpec) Folder(p string) (string, error) {
	if p == "~" || strings.HasPrefix(p, "~/") {
		home, err := os.UserHomeDir()
		if err != nil {
			return "", err
		}
		p = filepath.Join(home, p[1:])
	}
	if !filepath.IsAbs(p) {
		switch {
		case s.AbsoluteOnly:
			return "", errors.New("a relative path: give the folder's absolute path")
		case s.Base != "":
			p = filepath.Join(s.Base, p)
		default:
			abs, err := filepath.Abs(p)
			if err != nil {
				return "", err
			}
			p = abs
		}
	}
	p = filepath.Clean(p)
	if fi, err := os.Stat(p); err == nil && !fi.IsDir() {
		return p, nil
	}
	if !strings.HasSuffix(p, string(filepath.Separator)) {
		p += string(filepath.Separator)
	}
	return p, nil
}

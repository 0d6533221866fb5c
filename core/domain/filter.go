package domain

import "time"

// Filter narrows a search to some documents. Zero value: everything. Its
// conditions are applied inside retrieval (in SQL, or as the set of chunks
// a vector search may return), never to a cut-off list of results.
type Filter struct {
	PathPrefixes []string // absolute path prefixes, any of which matches
	Types        []string // format names ("pdf", "markdown") or extensions without dot ("md"), any of which matches
	// Since and Until bound the file's modification time: at or after
	// Since, before Until. A zero time leaves that side open.
	Since, Until time.Time
	// Contains are texts each of which the title or the path must hold,
	// ignoring ASCII case (SQLite's lower() folds only ASCII).
	Contains []string
}

// Empty reports whether f lets everything through.
func (f Filter) Empty() bool {
	return len(f.PathPrefixes) == 0 && len(f.Types) == 0 && f.Since.IsZero() && f.Until.IsZero() && len(f.Contains) == 0
}

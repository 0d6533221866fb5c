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
	// Without are absolute path prefixes none of which may match: the
	// bundled guide's folder, when a question leaves it out (core.Engine
	// sets it from NoGuide and the setting retrieval.include_guide, over
	// the knowledge base file only: a team's cluster holds no guide).
	Without []string
	// NoGuide leaves the bundled user guide out of the question: the
	// `--no-guide` flag, the API's no_guide, the window's filter.
	// core.Engine turns it into Without; the stores read Without only.
	NoGuide bool
}

// Empty reports whether f lets everything through.
func (f Filter) Empty() bool {
	return len(f.PathPrefixes) == 0 && len(f.Types) == 0 && f.Since.IsZero() && f.Until.IsZero() && len(f.Contains) == 0 &&
		len(f.Without) == 0 && !f.NoGuide
}

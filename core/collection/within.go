package collection

import (
	"cairn/core/domain"
	"fmt"
	"slices"
	"strings"
)

// Narrow narrows q to the files the search's own filter f passes too (the
// flags of cairn ask, the API's and MCP's fields, the window's filter
// row): both must hold, and the statement names f. Where the two ask for
// what no file can be (--type html on "How many PDFs…", --since 2025 on
// "…modified in 2023"), the conflict is recorded and nothing is counted:
// a count of 0 would read as an answer.
func (q *Question) Narrow(f domain.Filter) {
	if f.Empty() {
		return
	}
	q.Within = Describe(f)
	qf := &q.Filter
	if len(f.PathPrefixes) > 0 {
		if len(qf.PathPrefixes) == 0 {
			qf.PathPrefixes = f.PathPrefixes
		} else {
			// The deeper of two nested folders; none of two apart.
			var both []string
			for _, a := range qf.PathPrefixes {
				for _, b := range f.PathPrefixes {
					switch {
					case strings.HasPrefix(a, b):
						both = append(both, a)
					case strings.HasPrefix(b, a):
						both = append(both, b)
					}
				}
			}
			if len(both) == 0 {
				q.Conflicts = append(q.Conflicts, fmt.Sprintf("the question asks for files under %s and the search's filter for files under %s",
					q.Folder, strings.Join(f.PathPrefixes, " or ")))
			}
			qf.PathPrefixes = both
		}
	}
	if len(f.Types) > 0 {
		if len(qf.Types) == 0 {
			qf.Types = f.Types
		} else {
			var both []string
			for _, t := range f.Types {
				if slices.Contains(qf.Types, typeName(t)) {
					both = append(both, typeName(t))
				}
			}
			if len(both) == 0 {
				q.Conflicts = append(q.Conflicts, fmt.Sprintf("the question asks for %s files and the search's filter for %s files",
					q.TypeName, strings.Join(f.Types, " or ")))
			}
			qf.Types = both
		}
	}
	if !f.Since.IsZero() && f.Since.After(qf.Since) {
		qf.Since = f.Since
	}
	if !f.Until.IsZero() && (qf.Until.IsZero() || f.Until.Before(qf.Until)) {
		qf.Until = f.Until
	}
	if !qf.Since.IsZero() && !qf.Until.IsZero() && !qf.Since.Before(qf.Until) {
		q.Conflicts = append(q.Conflicts, fmt.Sprintf("the question asks for files modified %s and the search's filter for files modified %s",
			q.Period, Period{f.Since, f.Until}))
	}
	qf.Contains = append(slices.Clip(qf.Contains), f.Contains...)
	qf.Without = append(slices.Clip(qf.Without), f.Without...)
}

// typeName is a type as the store's filter compares it.
func typeName(t string) string { return strings.ToLower(strings.TrimPrefix(strings.TrimSpace(t), ".")) }

// Describe names a filter as a person set it: "type html; modified since
// 2025-01-01; under /kb/Notes/".
func Describe(f domain.Filter) string {
	var parts []string
	if len(f.PathPrefixes) > 0 {
		parts = append(parts, "under "+strings.Join(f.PathPrefixes, " or "))
	}
	if len(f.Types) > 0 {
		parts = append(parts, "type "+strings.Join(f.Types, " or "))
	}
	if !f.Since.IsZero() || !f.Until.IsZero() {
		parts = append(parts, "modified "+Period{f.Since, f.Until}.String())
	}
	for _, c := range f.Contains {
		parts = append(parts, fmt.Sprintf("path or title holding '%s'", c))
	}
	if f.NoGuide {
		parts = append(parts, "leaving out Cairn's guide")
	} else if len(f.Without) > 0 {
		parts = append(parts, "not under "+strings.Join(f.Without, " or "))
	}
	return strings.Join(parts, "; ")
}

// Words are the words the question's terms and exclusions hold, each once.
func (q *Question) Words() []string {
	var out []string
	add := func(ws []string) {
		for _, w := range ws {
			if !slices.Contains(out, w) {
				out = append(out, w)
			}
		}
	}
	for _, g := range q.Terms {
		for _, t := range g {
			add(strings.Fields(t))
		}
	}
	for _, t := range q.Not {
		add(strings.Fields(t))
	}
	return out
}

// Replace puts word to wherever from stands as a word of the question's
// terms and exclusions (a spelling correction).
func (q *Question) Replace(from, to string) {
	fix := func(t string) string {
		ws := strings.Fields(t)
		for i, w := range ws {
			if strings.EqualFold(w, from) {
				ws[i] = to
			}
		}
		return strings.Join(ws, " ")
	}
	for _, g := range q.Terms {
		for i := range g {
			g[i] = fix(g[i])
		}
	}
	for i := range q.Not {
		q.Not[i] = fix(q.Not[i])
	}
}

package collection

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"cairn/core/domain"
)

// Store is what answering reads: a knowledge base file (OverFile), or a
// team cluster (core/teamsearch).
type Store interface {
	// MatchDocuments returns every document that passes f and, when
	// terms are given, has a passage whose text or heading holds each of
	// them (MatchExpr), in path order, with the number of such passages
	// and the best-ranked one. With whole, a passage holds a term only as
	// whole words (HoldsEvery), not in another form the index's stemmer
	// joins to it.
	MatchDocuments(ctx context.Context, terms []string, whole bool, f domain.Filter) ([]domain.DocumentMatch, error)
	Chunks(ctx context.Context, ids []int64) (map[int64]domain.ChunkInfo, error)
}

// OverFile is a knowledge base file as a Store: the terms are its FTS5
// index's expression (MatchExpr), whole words checked in the passages'
// text.
func OverFile(db FileDB) Store { return fileStore{db} }

// FileDB is what OverFile reads of a knowledge base file; *store.DB is
// one.
type FileDB interface {
	// MatchDocuments is MatchDocuments with an FTS5 match expression and a
	// test each matching passage must pass (nil: none).
	MatchDocuments(ctx context.Context, match string, f domain.Filter, keep func(text, heading string) bool) ([]domain.DocumentMatch, error)
	Chunks(ctx context.Context, ids []int64) (map[int64]domain.ChunkInfo, error)
}

type fileStore struct{ FileDB }

func (s fileStore) MatchDocuments(ctx context.Context, terms []string, whole bool, f domain.Filter) ([]domain.DocumentMatch, error) {
	var keep func(text, heading string) bool
	if whole && len(terms) > 0 {
		keep = func(text, heading string) bool { return HoldsEvery(text, heading, terms) }
	}
	return s.FileDB.MatchDocuments(ctx, MatchExpr(terms), f, keep)
}

// HoldsEvery reports whether a passage's text or heading holds each term
// as whole words (HoldsWhole).
func HoldsEvery(text, heading string, terms []string) bool {
	for _, t := range terms {
		if !HoldsWhole(text, t) && !HoldsWhole(heading, t) {
			return false
		}
	}
	return true
}

// File is one file of the answer, with the line that matched.
type File struct {
	Path     string    `json:"file"`
	Title    string    `json:"title"`
	Format   string    `json:"format"`
	Modified time.Time `json:"modified"`
	Passages int       `json:"matching_passages,omitempty"` // passages holding the terms
	Line     string    `json:"line,omitempty"`              // the first line of its best passage holding a term
	LineNo   int       `json:"line_number,omitempty"`
	Page     int       `json:"page,omitempty"`
}

// Result is the complete answer: every file, and how it was computed.
type Result struct {
	Question  Question `json:"parsed"`
	Total     int      `json:"total"`
	Statement string   `json:"statement"` // e.g. "3 PDF files contain 'audit' (any form of the word), modified in 2023."
	Method    string   `json:"method"`    // what counted: the store's tables, never a model
	Files     []File   `json:"files"`
}

// Answer runs q against st: the store lists and counts, nothing else.
// Each term is matched on its own, over the whole file: "X and Y" is a
// file holding X in one passage and Y in another.
func Answer(ctx context.Context, st Store, q Question) (*Result, error) {
	res := &Result{Question: q, Files: []File{}}
	if len(q.Conflicts) > 0 {
		res.Statement = "Nothing counted: " + strings.Join(q.Conflicts, "; ") + ", and no file can be both."
		res.Method = "Nothing was counted."
		return res, nil
	}
	type found struct {
		m    domain.DocumentMatch
		term string // the term its line shows; "" without terms
	}
	memo := map[string][]domain.DocumentMatch{}
	match := func(terms []string) ([]domain.DocumentMatch, error) {
		key := strings.Join(terms, "\x00")
		if ms, ok := memo[key]; ok {
			return ms, nil
		}
		ms, err := st.MatchDocuments(ctx, terms, !q.Forms, q.Filter)
		if err != nil {
			return nil, err
		}
		memo[key] = ms
		return ms, nil
	}
	keep := map[string]found{}
	if len(q.Terms) == 0 {
		docs, err := match(nil)
		if err != nil {
			return nil, err
		}
		for _, d := range docs {
			keep[d.Path] = found{m: d}
		}
	}
	for gi, g := range q.Terms {
		in := map[string]found{}
		for _, t := range g {
			docs, err := match([]string{t})
			if err != nil {
				return nil, err
			}
			for _, d := range docs {
				if _, ok := in[d.Path]; !ok {
					in[d.Path] = found{d, t} // an "or" shows the first term the file holds
				}
			}
		}
		if gi == 0 {
			keep = in
			continue
		}
		for p := range keep {
			if _, ok := in[p]; !ok {
				delete(keep, p)
			}
		}
	}
	for _, t := range q.Not {
		docs, err := match([]string{t})
		if err != nil {
			return nil, err
		}
		for _, d := range docs {
			delete(keep, d.Path)
		}
	}
	list := make([]found, 0, len(keep))
	for _, f := range keep {
		list = append(list, f)
	}
	slices.SortFunc(list, func(a, b found) int {
		switch {
		case q.Order == Newest && a.m.MTimeNS != b.m.MTimeNS:
			return cmp.Compare(b.m.MTimeNS, a.m.MTimeNS)
		case q.Order == Oldest && a.m.MTimeNS != b.m.MTimeNS:
			return cmp.Compare(a.m.MTimeNS, b.m.MTimeNS)
		}
		return strings.Compare(a.m.Path, b.m.Path)
	})
	var lines map[int64]domain.ChunkInfo
	if len(q.Terms) > 0 {
		ids := make([]int64, len(list))
		for i, f := range list {
			ids[i] = f.m.ChunkID
		}
		var err error
		if lines, err = st.Chunks(ctx, ids); err != nil {
			return nil, fmt.Errorf("load the matching passages: %w", err)
		}
	}
	for _, x := range list {
		d := x.m
		f := File{Path: d.Path, Title: d.Title, Format: d.Format, Modified: time.Unix(0, d.MTimeNS), Passages: d.Passages}
		if ci, ok := lines[d.ChunkID]; ok && x.term != "" {
			var n int
			f.Line, n = matchingLine(ci.Text, x.term, !q.Forms)
			f.LineNo, f.Page = ci.LineStart+n, ci.Page
		}
		res.Files = append(res.Files, f)
	}
	res.Total = len(res.Files)
	res.Statement = statement(q, res.Total)
	how := ""
	switch {
	case len(q.Terms)+len(q.Not) > 0 && q.Forms:
		how = " and full-text index"
	case len(q.Terms)+len(q.Not) > 0:
		how = ", full-text index, and its passages' text for whole words"
	}
	res.Method = "Counted by the knowledge base (its documents table" + how + "), not by a model."
	return res, nil
}

// MatchExpr is the FTS5 expression for terms over the passages' text and
// headings (not the title, which "contains" does not mean): each term a
// phrase (one word, or the quoted words of a question in a row), every
// one in one passage, in any form the stemmer joins.
func MatchExpr(terms []string) string {
	if len(terms) == 0 {
		return ""
	}
	quoted := make([]string, len(terms))
	for i, t := range terms {
		quoted[i] = `"` + strings.ReplaceAll(t, `"`, `""`) + `"`
	}
	return "{text heading} : (" + strings.Join(quoted, " AND ") + ")"
}

// matchingLine returns the first line of text holding term, trimmed, and
// its offset in lines: as whole words when whole, else by its first five
// letters, so that "audits" finds "audit". The first line when none does
// (the term stands across lines).
func matchingLine(text, term string, whole bool) (string, int) {
	lines := strings.Split(text, "\n")
	t := strings.ToLower(term)
	if len(t) > 5 {
		t = t[:5]
	}
	for i, l := range lines {
		if whole && HoldsWhole(l, term) || !whole && strings.Contains(strings.ToLower(l), t) {
			return clip(l), i
		}
	}
	return clip(lines[0]), 0
}

func clip(s string) string {
	s = strings.TrimSpace(s)
	if r := []rune(s); len(r) > 160 {
		return string(r[:157]) + "…"
	}
	return s
}

// statement says exactly what was counted: "3 PDF files under
// /kb/Contracts contain 'audit' (whole word, any case), modified in 2023."
func statement(q Question, n int) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%d ", n)
	if q.TypeName != "" {
		b.WriteString(q.TypeName + " ")
	}
	if n == 1 {
		b.WriteString("file")
	} else {
		b.WriteString("files")
	}
	if q.Folder != "" {
		if len(q.Filter.PathPrefixes) > 0 {
			fmt.Fprintf(&b, " under %s", q.Folder)
		} else {
			fmt.Fprintf(&b, " in a folder named %s", q.Folder)
		}
	}
	if q.Named != "" {
		fmt.Fprintf(&b, " whose title or path holds '%s'", q.Named)
	}
	verb := func(plural, single string) string {
		if n == 1 {
			return single
		}
		return plural
	}
	switch {
	case len(q.Terms) > 0:
		b.WriteString(verb(" contain ", " contains ") + termsText(q.Terms))
		if len(q.Not) > 0 {
			b.WriteString(" but not " + orText(q.Not))
		}
	case len(q.Not) > 0:
		b.WriteString(verb(" do not contain ", " does not contain ") + orText(q.Not))
	}
	if words := len(q.Not) + len(q.Terms) + extra(q.Terms); words > 0 {
		phrase := slices.ContainsFunc(append(slices.Concat(q.Terms...), q.Not...), func(t string) bool { return len(termWords(t)) > 1 })
		switch {
		case q.Forms && words == 1:
			b.WriteString(" (any form of the word)")
		case q.Forms:
			b.WriteString(" (any form of the words)")
		case words == 1 && !phrase:
			b.WriteString(" (whole word, any case)")
		case phrase:
			b.WriteString(" (whole words, in a row, any case)")
		default:
			b.WriteString(" (whole words, any case)")
		}
		if len(q.Terms) > 1 {
			b.WriteString(", anywhere in the file")
		}
	}
	if !q.Period.Start.IsZero() || !q.Period.End.IsZero() {
		b.WriteString(", modified " + q.Period.String())
	}
	if len(q.Terms) == 0 && len(q.Not) == 0 && q.Folder == "" && q.Named == "" && q.Period.Start.IsZero() && q.Period.End.IsZero() {
		b.WriteString(" in the knowledge base")
	}
	switch q.Order {
	case Newest:
		b.WriteString(", newest first")
	case Oldest:
		b.WriteString(", oldest first")
	}
	b.WriteString(".")
	if q.Within != "" {
		b.WriteString(" Within the search's filter: " + q.Within + ".")
	}
	return b.String()
}

// extra is how many terms the groups hold beyond one each.
func extra(groups [][]string) int {
	n := 0
	for _, g := range groups {
		n += len(g) - 1
	}
	return n
}

// termsText names the terms a file must hold: 'a', 'a' or 'b', both 'a'
// and 'b', 'a', 'b' and 'c'.
func termsText(groups [][]string) string {
	if len(groups) == 1 {
		return orText(groups[0])
	}
	parts := make([]string, len(groups))
	for i, g := range groups {
		parts[i] = orText(g)
		if len(g) > 1 {
			parts[i] = "(" + parts[i] + ")"
		}
	}
	if len(parts) == 2 {
		return "both " + parts[0] + " and " + parts[1]
	}
	return strings.Join(parts[:len(parts)-1], ", ") + " and " + parts[len(parts)-1]
}

func orText(terms []string) string {
	q := make([]string, len(terms))
	for i, t := range terms {
		q[i] = "'" + t + "'"
	}
	if len(q) == 1 {
		return q[0]
	}
	return strings.Join(q[:len(q)-1], ", ") + " or " + q[len(q)-1]
}

// PageSize is how many files one page of a list shows.
const PageSize = 50

// Page renders page n (from 1) of the result for a person: the statement,
// then one line per file (path, date, the matching line), then how many
// more there are.
func (r *Result) Page(n int) string {
	var b strings.Builder
	b.WriteString(r.Statement)
	b.WriteString("\n")
	pages := max(1, (len(r.Files)+PageSize-1)/PageSize)
	n = min(max(n, 1), pages)
	lo, hi := (n-1)*PageSize, min(len(r.Files), n*PageSize)
	if lo < hi {
		b.WriteString("\n")
	}
	for _, f := range r.Files[lo:hi] {
		fmt.Fprintf(&b, "- %s (%s)", f.Path, f.Modified.Format("2006-01-02"))
		if f.Line != "" {
			fmt.Fprintf(&b, ": %s", f.Line)
		}
		b.WriteString("\n")
	}
	if pages > 1 {
		fmt.Fprintf(&b, "\nFiles %d–%d of %d (page %d of %d).\n", lo+1, hi, len(r.Files), n, pages)
	}
	return b.String()
}

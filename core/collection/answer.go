package collection

import (
	"context"
	"fmt"
	"strings"
	"time"

	"cairn/core/store"
)

// Store is what answering reads: a knowledge base file (OverFile), or a
// team cluster (core/teamsearch).
type Store interface {
	// MatchDocuments returns every document that passes f and, when
	// terms are given, has a passage whose text or heading holds each of
	// them (MatchExpr), in path order, with the number of such passages
	// and the best-ranked one.
	MatchDocuments(ctx context.Context, terms []string, f store.Filter) ([]store.DocumentMatch, error)
	Chunks(ctx context.Context, ids []int64) (map[int64]store.ChunkInfo, error)
}

// OverFile is a knowledge base file as a Store: the terms are its FTS5
// index's expression (MatchExpr).
func OverFile(db *store.DB) Store { return fileStore{db} }

type fileStore struct{ *store.DB }

func (s fileStore) MatchDocuments(ctx context.Context, terms []string, f store.Filter) ([]store.DocumentMatch, error) {
	return s.DB.MatchDocuments(ctx, MatchExpr(terms), f)
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
func Answer(ctx context.Context, st Store, q Question) (*Result, error) {
	docs, err := st.MatchDocuments(ctx, q.Terms, q.Filter)
	if err != nil {
		return nil, err
	}
	res := &Result{Question: q, Total: len(docs), Files: make([]File, 0, len(docs))}
	var lines map[int64]store.ChunkInfo
	if len(q.Terms) > 0 {
		ids := make([]int64, len(docs))
		for i, d := range docs {
			ids[i] = d.ChunkID
		}
		if lines, err = st.Chunks(ctx, ids); err != nil {
			return nil, fmt.Errorf("load the matching passages: %w", err)
		}
	}
	for _, d := range docs {
		f := File{Path: d.Path, Title: d.Title, Format: d.Format, Modified: time.Unix(0, d.MTimeNS), Passages: d.Passages}
		if ci, ok := lines[d.ChunkID]; ok {
			var n int
			f.Line, n = matchingLine(ci.Text, q.Terms)
			f.LineNo, f.Page = ci.LineStart+n, ci.Page
		}
		res.Files = append(res.Files, f)
	}
	res.Statement = statement(q, len(docs))
	res.Method = "Counted by the knowledge base (its documents table" + map[bool]string{true: " and full-text index", false: ""}[len(q.Terms) > 0] + "), not by a model."
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

// matchingLine returns the first line of text holding a term (by its
// first five letters, so that "audits" finds "audit"), trimmed, and its
// offset in lines; the first line when none does.
func matchingLine(text string, terms []string) (string, int) {
	lines := strings.Split(text, "\n")
	for i, l := range lines {
		ll := strings.ToLower(l)
		for _, t := range terms {
			t = strings.ToLower(t)
			if len(t) > 5 {
				t = t[:5]
			}
			if strings.Contains(ll, t) {
				return clip(l), i
			}
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
// /kb/Contracts contain 'audit' (any form of the word), modified in 2023."
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
	if len(q.Terms) > 0 {
		verb := " contain "
		if n == 1 {
			verb = " contains "
		}
		switch {
		case q.Phrase:
			fmt.Fprintf(&b, "%sthe phrase '%s'", verb, q.Terms[0])
		case len(q.Terms) == 1:
			fmt.Fprintf(&b, "%s'%s' (any form of the word)", verb, q.Terms[0])
		default:
			fmt.Fprintf(&b, "%s'%s' in one passage (any form of the words)", verb, strings.Join(q.Terms, "', '"))
		}
	}
	if !q.Period.Start.IsZero() || !q.Period.End.IsZero() {
		b.WriteString(", modified " + q.Period.String())
	}
	if len(q.Terms) == 0 && q.Folder == "" && q.Named == "" && q.Period.Start.IsZero() && q.Period.End.IsZero() {
		b.WriteString(" in the knowledge base")
	}
	b.WriteString(".")
	return b.String()
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

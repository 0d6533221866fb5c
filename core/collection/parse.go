// Package collection answers questions about the collection as a whole
// ("how many PDFs mention audit", "list the files from March 2024") from
// the documents table and full-text counts, not from the top passages. A
// small rule-based parser recognises them; the store counts.
package collection

import (
	"path/filepath"
	"strings"
	"time"
	"unicode"

	"cairn/core/store"
)

// Kind is what a question asks for.
type Kind string

const (
	Count Kind = "count" // how many
	List  Kind = "list"  // which, list, show
)

// Question is a parsed question about the collection.
type Question struct {
	Text   string       `json:"question"`
	Kind   Kind         `json:"kind"`
	Terms  []string     `json:"terms,omitempty"`  // words a passage of the file must hold (any form)
	Phrase bool         `json:"phrase,omitempty"` // Terms is one quoted phrase
	Filter store.Filter `json:"-"`
	// What the filter means, for the statement of how it was computed.
	TypeName string `json:"type,omitempty"`   // "PDF", "Word"
	Folder   string `json:"folder,omitempty"` // a path or a folder name
	Named    string `json:"named,omitempty"`
	Period   Period `json:"-"`
}

// token is a word of the question, lowered, with its original spelling.
type token struct {
	w, orig string
	quoted  bool
}

func tokenize(s string) []token {
	var out []token
	s = strings.TrimSpace(s)
	s = strings.TrimRight(s, "?.! ")
	for len(s) > 0 {
		s = strings.TrimLeft(s, " \t\n,;:")
		if s == "" {
			break
		}
		if q := s[0]; q == '"' || q == '\'' || strings.HasPrefix(s, "“") || strings.HasPrefix(s, "‘") {
			open, closeQ := string(q), string(q)
			switch {
			case strings.HasPrefix(s, "“"):
				open, closeQ = "“", "”"
			case strings.HasPrefix(s, "‘"):
				open, closeQ = "‘", "’"
			}
			rest := s[len(open):]
			if i := strings.Index(rest, closeQ); i > 0 {
				out = append(out, token{w: strings.ToLower(rest[:i]), orig: rest[:i], quoted: true})
				s = rest[i+len(closeQ):]
				continue
			}
		}
		i := strings.IndexAny(s, " \t\n,;")
		if i < 0 {
			i = len(s)
		}
		w := s[:i]
		out = append(out, token{w: strings.ToLower(w), orig: w})
		s = s[i:]
	}
	return out
}

// typeWords map a word of a question to the formats and extensions it names.
var typeWords = map[string]struct {
	name  string
	types []string
}{
	"pdf": {"PDF", []string{"pdf"}}, "pdfs": {"PDF", []string{"pdf"}},
	"markdown": {"Markdown", []string{"markdown", "md"}}, "md": {"Markdown", []string{"markdown", "md"}},
	"word": {"Word", []string{"docx", "doc", "odt"}}, "docx": {"Word", []string{"docx"}},
	"text": {"text", []string{"text", "txt"}}, "txt": {"text", []string{"text", "txt"}},
	"spreadsheet": {"spreadsheet", []string{"xlsx", "xls", "ods", "csv"}}, "spreadsheets": {"spreadsheet", []string{"xlsx", "xls", "ods", "csv"}},
	"excel":        {"spreadsheet", []string{"xlsx", "xls"}},
	"presentation": {"presentation", []string{"pptx", "ppt", "odp"}}, "presentations": {"presentation", []string{"pptx", "ppt", "odp"}},
	"powerpoint": {"presentation", []string{"pptx", "ppt"}},
	"email":      {"email", []string{"eml", "mbox", "msg"}}, "emails": {"email", []string{"eml", "mbox", "msg"}},
	"mails": {"email", []string{"eml", "mbox", "msg"}},
	"html":  {"HTML", []string{"html", "htm"}}, "image": {"image", []string{"image"}}, "images": {"image", []string{"image"}},
	"epub": {"EPUB", []string{"epub"}}, "epubs": {"EPUB", []string{"epub"}},
}

// A type word alone names files ("PDFs"); these need a file noun after
// them ("text files"), being ordinary words too.
var typeNeedsNoun = map[string]bool{"word": true, "text": true, "md": true, "txt": true, "html": true, "image": true, "email": true, "docx": true, "markdown": true}

var fileNouns = map[string]bool{"files": true, "file": true, "documents": true, "document": true, "docs": true}

var contentVerbs = map[string]bool{"contain": true, "contains": true, "containing": true, "mention": true, "mentions": true,
	"mentioning": true, "include": true, "includes": true, "including": true, "reference": true, "references": true,
	"referencing": true, "about": true, "discuss": true, "discusses": true, "with": true}

var nameVerbs = map[string]bool{"named": true, "called": true, "titled": true}

var fillers = map[string]bool{"are": true, "is": true, "were": true, "was": true, "there": true, "that": true, "which": true,
	"do": true, "i": true, "have": true, "exist": true, "total": true, "been": true, "got": true, "all": true}

var dateVerbs = map[string]bool{"modified": true, "changed": true, "updated": true, "edited": true, "dated": true, "created": true, "saved": true}

// stops end a run of term words: they start another clause.
var stops = map[string]bool{"in": true, "from": true, "under": true, "inside": true, "since": true, "before": true, "after": true,
	"until": true, "between": true, "during": true, "on": true, "named": true, "called": true, "titled": true,
	"modified": true, "changed": true, "updated": true, "edited": true, "dated": true, "created": true, "saved": true}

var articles = map[string]bool{"the": true, "a": true, "an": true, "my": true, "our": true, "of": true, "any": true, "every": true, "all": true}

// Parse recognises a question about the collection; ok is false for any
// other question, which is then answered from passages as usual. now and
// loc place relative dates ("March" is the last March up to now); home
// expands "~/".
func Parse(text string, now time.Time, loc *time.Location, home string) (q Question, ok bool) {
	toks := tokenize(text)
	q.Text = text
	p := &parser{toks: toks, now: now.In(loc), loc: loc, home: home}
	lead, ok := p.lead()
	if !ok {
		return q, false
	}
	q.Kind = lead
	if !p.subject(&q, p.pos > 0 && toks[0].w != "which" && toks[0].w != "what") {
		return q, false
	}
	for p.pos < len(p.toks) {
		if !p.clause(&q) {
			return q, false
		}
	}
	// "Which files?" alone asks nothing; "how many files" counts them all.
	if q.Kind == List && lead == List && len(q.Terms) == 0 && q.Filter.Empty() && (toks[0].w == "which" || toks[0].w == "what") {
		return q, false
	}
	return q, true
}

type parser struct {
	toks []token
	pos  int
	now  time.Time
	loc  *time.Location
	home string
}

func (p *parser) peek(i int) string {
	if p.pos+i < len(p.toks) && !p.toks[p.pos+i].quoted {
		return p.toks[p.pos+i].w
	}
	return ""
}

// accept consumes the words given, in order, when they come next.
func (p *parser) accept(words ...string) bool {
	for i, w := range words {
		if p.peek(i) != w {
			return false
		}
	}
	p.pos += len(words)
	return true
}

func (p *parser) lead() (Kind, bool) {
	switch {
	case p.accept("how", "many"):
		return Count, true
	case p.accept("count"), p.accept("number", "of"):
		return Count, true
	case p.accept("list"), p.accept("show", "me"), p.accept("show"), p.accept("give", "me", "a", "list", "of"):
		return List, true
	case p.accept("which"), p.accept("what"):
		return List, true
	}
	return "", false
}

func (p *parser) skipArticles() {
	for articles[p.peek(0)] {
		p.pos++
	}
}

// subject reads what is counted or listed: "PDFs", "the Word documents",
// "files"; after list/show/count also a plural content noun ("the
// invoices"), which becomes a term.
func (p *parser) subject(q *Question, contentNoun bool) bool {
	p.skipArticles()
	found := false
	if t, ok := typeWords[p.peek(0)]; ok {
		needs := typeNeedsNoun[p.peek(0)]
		if needs && !fileNouns[p.peek(1)] && !(p.peek(0) == "word" && p.peek(1) == "documents") {
			return false
		}
		q.TypeName, q.Filter.Types = t.name, t.types
		p.pos++
		found = true
	}
	if fileNouns[p.peek(0)] {
		p.pos++
		found = true
	}
	if found {
		return true
	}
	w := p.peek(0)
	if contentNoun && len(w) > 3 && strings.HasSuffix(w, "s") && !stops[w] && isWord(w) {
		q.Terms = append(q.Terms, w)
		p.pos++
		return true
	}
	return false
}

func isWord(w string) bool {
	for _, r := range w {
		if !unicode.IsLetter(r) && !unicode.IsDigit(r) && r != '-' {
			return false
		}
	}
	return w != ""
}

// clause reads one condition after the subject; false when the words
// are not one, which makes the whole question an ordinary one.
func (p *parser) clause(q *Question) bool {
	w := p.peek(0)
	switch {
	case p.accept("in", "total"), p.accept("do", "i", "have"), p.accept("are", "there"):
		return true
	case fillers[w]:
		p.pos++
		return true
	case contentVerbs[w]:
		p.pos++
		return p.terms(q)
	case nameVerbs[w]:
		p.pos++
		p.accept("like")
		if p.pos >= len(p.toks) {
			return false
		}
		q.Named = p.toks[p.pos].orig
		q.Filter.Contains = append(q.Filter.Contains, q.Named)
		p.pos++
		return true
	case dateVerbs[w]:
		p.pos++
		return p.dateClause(q, true)
	case w == "in" || w == "from" || w == "under" || w == "inside" || w == "during" || w == "on" || w == "since" ||
		w == "after" || w == "before" || w == "until" || w == "between":
		save := p.pos
		if p.dateClause(q, false) {
			return true
		}
		p.pos = save
		return p.folderClause(q)
	}
	return false
}

// terms reads the words a file must contain: a quoted phrase, or words up
// to the next clause.
func (p *parser) terms(q *Question) bool {
	p.accept("the", "word")
	p.accept("the", "words")
	p.accept("the", "term")
	p.accept("the", "phrase")
	if p.pos < len(p.toks) && p.toks[p.pos].quoted {
		q.Terms = append(q.Terms, p.toks[p.pos].orig)
		q.Phrase = len(q.Terms) == 1
		p.pos++
		return true
	}
	n := 0
	for p.pos < len(p.toks) && !p.toks[p.pos].quoted && !stops[p.peek(0)] {
		w := p.toks[p.pos].w
		p.pos++
		if articles[w] || w == "and" {
			continue
		}
		if !isWord(w) {
			return false
		}
		q.Terms = append(q.Terms, w)
		n++
	}
	return n > 0
}

// dateClause reads "in 2023", "from March 2024", "since 2024-03-15",
// "before 2022", "between A and B"; after a date verb the preposition may
// be missing ("modified 2023").
func (p *parser) dateClause(q *Question, afterVerb bool) bool {
	prep := p.peek(0)
	switch prep {
	case "in", "from", "during", "on", "since", "after", "before", "until", "between":
		p.pos++
	default:
		if !afterVerb {
			return false
		}
		prep = "in"
	}
	a, ok := p.date()
	if !ok {
		return false
	}
	var per Period
	switch prep {
	case "since":
		per = Period{Start: a.Start}
	case "after":
		per = Period{Start: a.End}
	case "before":
		per = Period{End: a.Start}
	case "until":
		per = Period{End: a.End}
	case "between":
		if !p.accept("and") {
			return false
		}
		b, ok := p.date()
		if !ok || !a.Start.Before(b.End) {
			return false
		}
		per = Period{Start: a.Start, End: b.End}
	default:
		per = a
	}
	q.Period = per
	if !per.Start.IsZero() {
		q.Filter.Since = per.Start
	}
	if !per.End.IsZero() {
		q.Filter.Until = per.End
	}
	return true
}

var months = map[string]time.Month{}

func init() {
	for m := time.January; m <= time.December; m++ {
		name := strings.ToLower(m.String())
		months[name] = m
		months[name[:3]] = m
	}
}

// date reads "2024", "2024-03", "2024-03-15", "March 2024", "March of
// 2024", "March" (the last one up to now), "last year", "this year",
// "last month", "this month".
func (p *parser) date() (Period, bool) {
	p.accept("the")
	y, m := p.now.Year(), p.now.Month()
	switch {
	case p.accept("this", "year"):
		t := time.Date(y, 1, 1, 0, 0, 0, 0, p.loc)
		return Period{t, t.AddDate(1, 0, 0)}, true
	case p.accept("last", "year"):
		t := time.Date(y-1, 1, 1, 0, 0, 0, 0, p.loc)
		return Period{t, t.AddDate(1, 0, 0)}, true
	case p.accept("this", "month"):
		t := time.Date(y, m, 1, 0, 0, 0, 0, p.loc)
		return Period{t, t.AddDate(0, 1, 0)}, true
	case p.accept("last", "month"):
		t := time.Date(y, m, 1, 0, 0, 0, 0, p.loc).AddDate(0, -1, 0)
		return Period{t, t.AddDate(0, 1, 0)}, true
	}
	if mon, ok := months[p.peek(0)]; ok {
		p.pos++
		p.accept("of")
		if per, err := ParseDate(p.peek(0), p.loc); err == nil && len(p.peek(0)) == 4 {
			p.pos++
			t := time.Date(per.Start.Year(), mon, 1, 0, 0, 0, 0, p.loc)
			return Period{t, t.AddDate(0, 1, 0)}, true
		}
		year := y
		if mon > m {
			year-- // "March" asked in June 2024 is March 2024; in February, March 2023
		}
		t := time.Date(year, mon, 1, 0, 0, 0, 0, p.loc)
		return Period{t, t.AddDate(0, 1, 0)}, true
	}
	if per, err := ParseDate(p.peek(0), p.loc); err == nil && per.Start.Year() >= 1900 {
		p.pos++
		return per, true
	}
	return Period{}, false
}

// folderClause reads "in the Contracts folder", "in folder Contracts",
// "under Invoices", "under /path" or "in ~/path".
func (p *parser) folderClause(q *Question) bool {
	prep := p.peek(0)
	p.pos++
	p.accept("the")
	p.accept("my")
	named := p.accept("folder") || p.accept("directory")
	if p.pos >= len(p.toks) {
		return false
	}
	name := p.toks[p.pos].orig
	p.pos++
	named = named || p.accept("folder") || p.accept("directory")
	// "in X" alone is not a folder (it may be anything); "under X" is.
	if !named && !strings.ContainsAny(name, "/~") && prep != "under" && prep != "inside" {
		return false
	}
	q.Folder = name
	switch {
	case strings.HasPrefix(name, "~/") && p.home != "":
		q.Filter.PathPrefixes = append(q.Filter.PathPrefixes, strings.TrimSuffix(filepath.Join(p.home, name[2:]), "/")+"/")
	case strings.HasPrefix(name, "/"):
		q.Filter.PathPrefixes = append(q.Filter.PathPrefixes, strings.TrimSuffix(name, "/")+"/")
	default:
		// A folder's name, wherever it is: a whole component of the path.
		q.Filter.Contains = append(q.Filter.Contains, "/"+strings.Trim(name, "/")+"/")
	}
	return true
}

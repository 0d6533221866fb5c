// Package collection answers questions about the collection as a whole
// ("how many PDFs mention audit", "list the files from March 2024") from
// the documents table and full-text counts, not from the top passages. A
// small rule-based parser recognises them; the store counts.
package collection

import (
	"cairn/core/domain"
	"fmt"
	"path/filepath"
	"strings"
	"time"
	"unicode"
)

// Kind is what a question asks for.
type Kind string

const (
	Count Kind = "count" // how many
	List  Kind = "list"  // which, list, show
)

// Question is a parsed question about the collection.
type Question struct {
	Text string `json:"question"`
	Kind Kind   `json:"kind"`
	// Terms are what a file must hold, anywhere in it: one term of each
	// group (or), every group (and). A term is a word, or words in a row.
	Terms [][]string `json:"terms,omitempty"`
	Not   []string   `json:"not,omitempty"` // terms no passage of the file holds
	// Forms counts any form of the words (the index's stemmer: "locales",
	// and "local" for "locale"); without it only whole words, in any case,
	// as grep -wi finds them.
	Forms  bool          `json:"word_forms,omitempty"`
	Order  Order         `json:"order,omitempty"`
	Filter domain.Filter `json:"-"`
	// What the filter means, for the statement of how it was computed.
	TypeName string `json:"type,omitempty"`   // "PDF", "Word"
	Folder   string `json:"folder,omitempty"` // a path or a folder name
	Named    string `json:"named,omitempty"`
	Period   Period `json:"-"`
	// Within describes the search's own filter (flags, the filter row)
	// the question was counted within; Conflicts say where the two ask for
	// what no file can be, so that nothing was counted.
	Within    string   `json:"within,omitempty"`
	Conflicts []string `json:"conflicts,omitempty"`
}

// Order is the order of the files of an answer.
type Order string

const (
	ByPath Order = ""       // path order
	Newest Order = "newest" // most recently modified first
	Oldest Order = "oldest"
)

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
		s = strings.TrimLeft(s, " \t\n:")
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
		if s[0] == ',' || s[0] == ';' {
			// A comma ends a run of words: "kerberos, sorted by date".
			out = append(out, token{w: ",", orig: ","})
			s = s[1:]
			continue
		}
		i := strings.IndexAny(s, " \t\n,;")
		if i < 0 {
			i = len(s)
		}
		w := strings.Trim(s[:i], "()")
		if w != "" {
			// "don’t" is "don't".
			out = append(out, token{w: strings.ReplaceAll(strings.ToLower(w), "’", "'"), orig: w})
		}
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
	"do": true, "i": true, "have": true, "exist": true, "total": true, "been": true, "got": true, "all": true, ",": true,
	"appear": true, "appears": true, "occur": true, "occurs": true}

var dateVerbs = map[string]bool{"modified": true, "changed": true, "updated": true, "edited": true, "dated": true, "created": true, "saved": true}

// stops end a run of term words: they start another clause.
var stops = map[string]bool{"in": true, "from": true, "under": true, "inside": true, "since": true, "before": true, "after": true,
	"until": true, "between": true, "during": true, "on": true, "named": true, "called": true, "titled": true,
	"modified": true, "changed": true, "updated": true, "edited": true, "dated": true, "created": true, "saved": true,
	"sorted": true, "ordered": true, "newest": true, "oldest": true, "latest": true, "earliest": true,
	"appear": true, "appears": true, "occur": true, "occurs": true}

var articles = map[string]bool{"the": true, "a": true, "an": true, "my": true, "our": true, "of": true, "any": true, "every": true, "all": true}

// negations turn the terms after them into ones the file must not hold:
// "X but not Y", "X not Y", "X without Y".
var negations = map[string]bool{"not": true, "without": true, "except": true, "excluding": true, "don't": true, "doesn't": true}

// Parse recognises a question about the collection; ok is false for any
// other question, which is then answered from passages as usual (see
// LooksLike for those that only look like one). now and loc place
// relative dates ("March" is the last March up to now); home expands
// "~/".
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
	if q.Kind == List && lead == List && len(q.Terms) == 0 && len(q.Not) == 0 && q.Filter.Empty() && q.Order == ByPath &&
		(toks[0].w == "which" || toks[0].w == "what") {
		return q, false
	}
	return q, true
}

// NotCounted heads the answer to a question LooksLike but Parse does not
// read: passages follow, and they are not a count.
const NotCounted = "I could not count this; here are the passages that match."

// strictVerbs, after a lead and a plural subject, make a question one
// about the collection for LooksLike: "How many man pages mention
// signal?". Not "include" or "about", which questions about what the
// documents say use too ("Which files does the backup include?").
var strictVerbs = map[string]bool{"mention": true, "mentions": true, "mentioning": true, "contain": true, "contains": true,
	"containing": true, "reference": true, "references": true, "referencing": true, "talk": true, "talks": true}

// LooksLike reports whether a question Parse did not read has the shape
// of a count or a list of files all the same ("How many man pages mention
// signal?", "Which files mention gzip and bzip2 or xz?"), so that the
// answer says nothing was counted instead of passing a passage off as
// the count.
func LooksLike(text string) bool {
	p := &parser{toks: tokenize(text)}
	if _, ok := p.lead(); !ok {
		return false
	}
	p.skipArticles()
	plural := false
	for i := 0; i < 3 && !plural; i++ {
		w := p.peek(i)
		_, typed := typeWords[w]
		plural = fileNouns[w] || typed || len(w) > 3 && strings.HasSuffix(w, "s") && isWord(w)
	}
	if !plural {
		return false
	}
	for _, t := range p.toks[p.pos:] {
		if strictVerbs[t.w] || dateVerbs[t.w] {
			return true
		}
	}
	return false
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
	case p.accept("how", "many"), p.accept("in", "how", "many"):
		return Count, true
	case p.accept("count"), p.accept("number", "of"):
		return Count, true
	case p.accept("list"), p.accept("show", "me"), p.accept("show"), p.accept("give", "me", "a", "list", "of"):
		return List, true
	case p.accept("what", "are"), p.accept("which", "are"), p.accept("which"), p.accept("what"), p.accept("find"), p.accept("search", "for"):
		return List, true
	case fileNouns[p.peek(0)] && (contentVerbs[p.peek(1)] || strictVerbs[p.peek(1)]):
		// "files mentioning proxy": the subject is the lead.
		return List, true
	}
	return "", false
}

func (p *parser) skipArticles() {
	for articles[p.peek(0)] {
		p.pos++
	}
}

// typeWord reads a type of file ("PDFs", "Word documents", "text files")
// into q's filter.
func (p *parser) typeWord(q *Question) bool {
	t, ok := typeWords[p.peek(0)]
	if !ok {
		return false
	}
	if typeNeedsNoun[p.peek(0)] && !fileNouns[p.peek(1)] && !(p.peek(0) == "word" && p.peek(1) == "documents") {
		return false
	}
	p.pos++
	if q.TypeName != "" && q.TypeName != t.name {
		// "PDFs … in Word documents": both must hold, and no file can.
		q.Conflicts = append(q.Conflicts, fmt.Sprintf("the question names both %s and %s files", q.TypeName, t.name))
	}
	q.TypeName, q.Filter.Types = t.name, t.types
	return true
}

// subject reads what is counted or listed: "PDFs", "the Word documents",
// "files"; after list/show/count also a plural content noun ("the
// invoices"), which becomes a term of any form (an invoice is one).
func (p *parser) subject(q *Question, contentNoun bool) bool {
	p.skipArticles()
	found := p.typeWord(q)
	if fileNouns[p.peek(0)] {
		p.pos++
		found = true
	}
	if found {
		return true
	}
	w := p.peek(0)
	if contentNoun && len(w) > 3 && strings.HasSuffix(w, "s") && !stops[w] && isWord(w) {
		q.Terms = append(q.Terms, []string{w})
		q.Forms = true
		p.pos++
		return true
	}
	return false
}

func isWord(w string) bool {
	for _, r := range w {
		if !unicode.IsLetter(r) && !unicode.IsDigit(r) && r != '-' && r != '_' {
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
	case w == "and" && p.pos > 0:
		// Between two clauses: "modified in 2024 and mention gzip".
		p.pos++
		return p.pos < len(p.toks)
	case p.order(q):
		return true
	case (w == "do" || w == "does") && p.peek(1) == "not" && strictVerbs[p.peek(2)], (w == "don't" || w == "doesn't" || w == "not") && strictVerbs[p.peek(1)]:
		// "Which files do not mention X?"
		for !strictVerbs[p.peek(0)] {
			p.pos++
		}
		p.pos++
		p.accept("about")
		return p.terms(q, true)
	case (w == "have" || w == "has" || w == "hold" || w == "holds") && articles[p.peek(1)] &&
		(p.peek(2) == "word" || p.peek(2) == "words" || p.peek(2) == "term" || p.peek(2) == "phrase"):
		// "Which files have the word kerberos?"
		p.pos++
		return p.terms(q, false)
	case (w == "does" || w == "do") && p.termsThenAppear():
		// "In how many files does the word password appear?"
		p.pos++
		return p.terms(q, false)
	case fillers[w]:
		p.pos++
		return true
	case contentVerbs[w]:
		p.pos++
		return p.terms(q, false)
	case p.accept("talk", "about"), p.accept("talks", "about"), p.accept("refer", "to"), p.accept("refers", "to"), p.accept("deal", "with"), p.accept("deals", "with"):
		return p.terms(q, false)
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
	case w == "in" || w == "from" || w == "among":
		// "in PDFs", "from the Word documents"
		save := p.pos
		p.pos++
		p.skipArticles()
		if p.typeWord(q) {
			if fileNouns[p.peek(0)] {
				p.pos++
			}
			return true
		}
		p.pos = save
	}
	switch w {
	case "in", "from", "under", "inside", "during", "on", "since", "after", "before", "until", "between":
		save := p.pos
		if p.dateClause(q, false) {
			return true
		}
		p.pos = save
		return p.folderClause(q)
	}
	return false
}

// order reads how the files are sorted: "sorted by date" (newest first,
// unless it says otherwise), "newest first", "oldest first", "sorted by
// name".
func (p *parser) order(q *Question) bool {
	first := func() bool {
		switch {
		case p.accept("newest", "first"), p.accept("latest", "first"), p.accept("most", "recent", "first"),
			p.accept("newest", "to", "oldest"), p.accept("from", "newest", "to", "oldest"):
			q.Order = Newest
		case p.accept("oldest", "first"), p.accept("earliest", "first"), p.accept("oldest", "to", "newest"),
			p.accept("from", "oldest", "to", "newest"):
			q.Order = Oldest
		default:
			return false
		}
		return true
	}
	if first() {
		return true
	}
	save := p.pos
	if !p.accept("sorted") && !p.accept("ordered") {
		if p.peek(0) != "by" {
			return false
		}
	}
	if !p.accept("by") {
		p.pos = save
		return false
	}
	p.accept("the")
	switch {
	case p.accept("date"), p.accept("modification", "date"), p.accept("last", "modified"), p.accept("time"), p.accept("age"):
		q.Order = Newest
		p.accept(",")
		first()
	case p.accept("name"), p.accept("path"), p.accept("file", "name"):
		q.Order = ByPath
	default:
		p.pos = save
		return false
	}
	return true
}

// terms reads the words a file must (or, after a negation, must not)
// contain: "gzip or bzip2", "both kerberos and password", "ipv6 and tls
// but not ssh", a quoted phrase. Words next to each other without a
// connective are one term, a phrase. "X and Y or Z" is not read: it could
// mean either.
func (p *parser) terms(q *Question, negated bool) bool {
	p.accept("both")
	p.accept("either")
	if p.accept("neither") {
		negated = true // "neither X nor Y"
	}
	var pos []string
	conn := ""
	var run []string
	flush := func() {
		if len(run) == 0 {
			return
		}
		t := strings.Join(run, " ")
		if negated {
			q.Not = append(q.Not, t)
		} else {
			pos = append(pos, t)
		}
		run = nil
	}
	for p.pos < len(p.toks) {
		t := p.toks[p.pos]
		if t.quoted {
			flush()
			run = []string{strings.ToLower(t.orig)}
			flush()
			p.pos++
			continue
		}
		w := t.w
		if stops[w] || p.orderAhead() {
			break
		}
		if p.dateVerbAhead() {
			// "gzip and were modified after 2023": the date clause
			// starts; its verb reads it.
			for !dateVerbs[p.peek(0)] {
				p.pos++
			}
			break
		}
		if p.accept("as", "well", "as") {
			p.pos-- // "X as well as Y" is "X and Y"
			w = "and"
		}
		switch {
		case w == ",":
			flush()
		case w == "and" || w == "or" || w == "nor":
			flush()
			if w == "nor" {
				w = "or"
			}
			if p.peek(1) == "not" || p.peek(1) == "without" {
				break // "and not Y": a negation follows
			}
			if negated {
				break // "not Y or Z": neither
			}
			if conn != "" && conn != w {
				return false
			}
			conn = w
		case w == "but":
			flush()
		case negations[w] || (w == "do" || w == "does") && p.peek(1) == "not":
			flush()
			negated = true
			if w == "do" || w == "does" {
				p.pos++
			}
			if strictVerbs[p.peek(1)] || contentVerbs[p.peek(1)] {
				p.pos++ // "but do not mention Y"
			}
		case len(run) == 0 && articles[w],
			len(run) == 0 && (w == "word" || w == "words" || w == "term" || w == "terms" || w == "phrase") && p.pos+1 < len(p.toks) && !stops[p.peek(1)]:
			// "the word agreement", "the words X and Y"; not "mention word"
		case len(run) == 0 && (strictVerbs[w] || w == "also" || w == "about"):
			// "mention X and mention Y", "X and also Y", "but don't talk about Y"
		default:
			if !isWord(w) {
				return false
			}
			run = append(run, w)
		}
		p.pos++
	}
	flush()
	if len(pos) == 0 && len(q.Not) == 0 {
		return false
	}
	if conn == "or" {
		q.Terms = append(q.Terms, pos)
	} else {
		for _, t := range pos {
			q.Terms = append(q.Terms, []string{t})
		}
	}
	return true
}

// dateVerbAhead reports whether a date clause's verb follows after the
// auxiliaries, and "and", "that" or "which" before them: "were changed",
// "and were modified", "that was changed", "which have been updated".
func (p *parser) dateVerbAhead() bool {
	i := 0
	switch p.peek(0) {
	case "and", "that", "which", "but":
		i++
	}
	for ; i < 5; i++ {
		switch w := p.peek(i); {
		case dateVerbs[w]:
			return true
		case w == "were" || w == "was" || w == "are" || w == "is" || w == "been" || w == "have" || w == "has" || w == "last":
		default:
			return false
		}
	}
	return false
}

// termsThenAppear reports whether the question ends in "appear" or
// "occur" after the words it asks about: "does the word password appear".
func (p *parser) termsThenAppear() bool {
	for i := 1; p.pos+i < len(p.toks); i++ {
		switch p.peek(i) {
		case "appear", "appears", "occur", "occurs":
			return p.pos+i == len(p.toks)-1
		}
	}
	return false
}

// orderAhead reports whether an order clause starts here.
func (p *parser) orderAhead() bool {
	save := p.pos
	var q Question
	ok := p.order(&q)
	p.pos = save
	return ok
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

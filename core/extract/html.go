package extract

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

func extractHTML(ctx context.Context, f File, lim Limits) (*Document, error) {
	if f.Size > htmlTreeMax {
		d, _, err := htmlStream(ctx, io.NewSectionReader(f.R, 0, f.Size), f.Size, int(lim.MaxTextBytes))
		return d, err
	}
	b, err := readAll(f, lim)
	if err != nil {
		return nil, err
	}
	return htmlDocument(ctx, b)
}

// htmlDocument renders HTML as text: block elements on their own lines,
// headings recorded, table rows written with their header cells, scripts
// and styles dropped.
func htmlDocument(ctx context.Context, b []byte) (*Document, error) {
	d, _, err := htmlDocumentAnchors(ctx, b)
	return d, err
}

// htmlDocumentAnchors is htmlDocument that also returns where each element
// id (and <a name>) starts in the text, for links into the page such as an
// EPUB's table of contents.
func htmlDocumentAnchors(ctx context.Context, b []byte) (*Document, map[string]int, error) {
	if len(b) > htmlTreeMax {
		return htmlStream(ctx, bytes.NewReader(b), int64(len(b)), 0)
	}
	text, _ := decodeText(b)
	root, err := html.Parse(strings.NewReader(text))
	if err != nil {
		// The parser refuses pathological pages (over 512 open elements);
		// their text is still worth indexing without the structure.
		flat, terr := htmlTokensText(ctx, text)
		if terr != nil {
			return nil, nil, fmt.Errorf("parse HTML: %w", err)
		}
		return &Document{Format: "html", Text: flat, Warnings: []string{"HTML structure ignored: " + err.Error()}}, nil, nil
	}
	w := &htmlWriter{ctx: ctx, anchors: map[string]int{}}
	w.walk(root, 0)
	if w.err != nil {
		return nil, nil, w.err
	}
	// text() trims the buffer: offsets move back by what it trims.
	lead := w.buf.Len() - len(strings.TrimLeftFunc(w.buf.String(), unicode.IsSpace))
	for i := range w.headings {
		w.headings[i].Offset = max(0, w.headings[i].Offset-lead)
	}
	for id, off := range w.anchors {
		w.anchors[id] = max(0, off-lead)
	}
	return &Document{Format: "html", Title: w.title, Text: w.text(), Headings: w.headings}, w.anchors, nil
}

// htmlTokensText returns the text of every text token outside scripts and
// styles, one block per line.
func htmlTokensText(ctx context.Context, s string) (string, error) {
	z := html.NewTokenizer(strings.NewReader(s))
	var b strings.Builder
	skip := 0
	for n := 0; ; n++ {
		if n%4096 == 0 && ctx.Err() != nil {
			return "", ctx.Err()
		}
		switch z.Next() {
		case html.ErrorToken:
			return strings.TrimSpace(b.String()), nil
		case html.StartTagToken:
			if name, _ := z.TagName(); string(name) == "script" || string(name) == "style" {
				skip++
			}
		case html.EndTagToken:
			if name, _ := z.TagName(); (string(name) == "script" || string(name) == "style") && skip > 0 {
				skip--
			}
		case html.TextToken:
			if skip == 0 {
				if t := strings.Join(strings.Fields(string(z.Text())), " "); t != "" {
					b.WriteString(t)
					b.WriteByte('\n')
				}
			}
		}
	}
}

// HTMLText renders an HTML fragment (an e-mail body) as plain text.
func HTMLText(ctx context.Context, b []byte) (string, error) {
	d, err := htmlDocument(ctx, b)
	if err != nil {
		return "", err
	}
	return d.Text, nil
}

type htmlWriter struct {
	ctx      context.Context
	buf      strings.Builder // String() is the text without a copy
	title    string
	headings []Heading
	anchors  map[string]int // element id -> offset of the text that follows
	pre      int            // depth inside <pre>
	space    bool
	nodes    int
	err      error
}

const maxHTMLDepth = 512

// maxAnchors bounds the ids recorded for one page.
const maxAnchors = 100000

func (w *htmlWriter) walk(n *html.Node, depth int) {
	if w.err != nil {
		return
	}
	if w.nodes++; w.nodes%4096 == 0 && w.ctx.Err() != nil {
		w.err = w.ctx.Err()
		return
	}
	if depth > maxHTMLDepth {
		return // pathological nesting: ignore what is below, keep what we have
	}
	switch n.Type {
	case html.TextNode:
		w.writeText(n.Data)
		return
	case html.ElementNode:
		if len(w.anchors) < maxAnchors {
			for _, a := range n.Attr {
				if a.Key == "id" || a.Key == "name" && n.DataAtom == atom.A {
					if _, ok := w.anchors[a.Val]; !ok {
						w.anchors[a.Val] = w.buf.Len()
					}
				}
			}
		}
		if isPermalink(n) {
			return
		}
		switch n.DataAtom {
		case atom.Script, atom.Style, atom.Noscript, atom.Template, atom.Svg, atom.Iframe, atom.Object:
			return
		case atom.Title:
			if w.title == "" {
				w.title = strings.Join(strings.Fields(nodeText(n)), " ")
			}
			return
		case atom.H1, atom.H2, atom.H3, atom.H4, atom.H5, atom.H6:
			w.newline(2)
			w.markIDs(n, 0) // <h2><a id="x"/>Title</h2>: a link to x is a link to the heading
			title := strings.Join(strings.Fields(nodeText(n)), " ")
			if title != "" {
				w.headings = append(w.headings, Heading{Offset: w.buf.Len(), Level: int(n.Data[1] - '0'), Text: title})
				w.buf.WriteString(title)
			}
			w.newline(2)
			return
		case atom.Table:
			w.newline(2)
			w.markIDs(n, 0)
			w.table(n)
			w.newline(2)
			return
		case atom.Br:
			w.newline(1)
			return
		case atom.Pre:
			w.newline(2)
			w.pre++
			defer func() { w.pre--; w.newline(2) }()
		case atom.Li:
			w.newline(1)
			w.buf.WriteString("- ")
			w.space = false
		}
		if isBlock(n.DataAtom) {
			w.newline(2)
			defer w.newline(2)
		}
	}
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		w.walk(c, depth+1)
	}
}

// markIDs records the ids inside n, whose text is written as a whole
// rather than walked, at the current offset.
func (w *htmlWriter) markIDs(n *html.Node, depth int) {
	if depth > maxHTMLDepth || len(w.anchors) >= maxAnchors {
		return
	}
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		if c.Type != html.ElementNode {
			continue
		}
		for _, a := range c.Attr {
			if a.Key == "id" || a.Key == "name" && c.DataAtom == atom.A {
				if _, ok := w.anchors[a.Val]; !ok {
					w.anchors[a.Val] = w.buf.Len()
				}
			}
		}
		w.markIDs(c, depth+1)
	}
}

// writeText appends a text node, collapsing whitespace as a browser does.
func (w *htmlWriter) writeText(s string) {
	if w.pre > 0 {
		w.buf.WriteString(s)
		w.space = false
		return
	}
	for len(s) > 0 {
		i := strings.IndexFunc(s, func(r rune) bool { return !isHTMLSpace(r) })
		if i != 0 {
			w.space = true
			if i < 0 {
				return
			}
			s = s[i:]
		}
		j := strings.IndexFunc(s, isHTMLSpace)
		if j < 0 {
			j = len(s)
		}
		if w.space && w.buf.Len() > 0 && !endsWithSpace(w.buf.String()) {
			w.buf.WriteByte(' ')
		}
		w.buf.WriteString(s[:j])
		w.space = false
		s = s[j:]
	}
}

// newline ends the current line and makes sure at most n newlines separate
// blocks.
func (w *htmlWriter) newline(n int) {
	b := w.buf.String()
	have := 0
	for i := len(b) - 1; i >= 0 && b[i] == '\n'; i-- {
		have++
	}
	if len(b) == 0 {
		return
	}
	for ; have < n; have++ {
		w.buf.WriteByte('\n')
	}
	w.space = false
}

// table writes each row as "Header: value | Header: value" so that a chunk
// holding some of the rows still says what every value is.
func (w *htmlWriter) table(t *html.Node) {
	var rows [][]string
	var header []string
	var collect func(n *html.Node, depth int)
	collect = func(n *html.Node, depth int) {
		if depth > maxHTMLDepth {
			return
		}
		if n.Type == html.ElementNode && n.DataAtom == atom.Tr {
			var cells []string
			allTH := true
			for c := n.FirstChild; c != nil; c = c.NextSibling {
				if c.Type == html.ElementNode && (c.DataAtom == atom.Td || c.DataAtom == atom.Th) {
					cells = append(cells, strings.Join(strings.Fields(nodeText(c)), " "))
					allTH = allTH && c.DataAtom == atom.Th
				}
			}
			if len(cells) == 0 {
				return
			}
			if allTH && header == nil {
				header = cells
			} else {
				rows = append(rows, cells)
			}
			return
		}
		if n.Type == html.ElementNode && n.DataAtom == atom.Table && n != t {
			return // nested tables are rare; their text already sits in a cell
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			collect(c, depth+1)
		}
	}
	collect(t, 0)
	w.buf.WriteString(TableText(header, rows))
}

// TableText renders rows under a header as lines of "Header: value" pairs
// joined by " | ". Without a header, cells are joined by " | ". Header
// cells with no value below them (a total in the header row, a header
// wider than the data) are written on a line of their own first, so no
// cell is lost. The text stops at maxTableText.
func TableText(header []string, rows [][]string) string {
	return tableText(header, rows, maxTableText)
}

// Bounds of a table's text. A header cell is repeated before each value
// of its column, which multiplies its length by the rows: a label is cut
// at maxLabel bytes (a label of a paragraph's length labels nothing), and
// the whole text stops at maxTableText, twice the text a document keeps.
const (
	maxLabel     = 128
	maxTableText = 64 << 20
)

// tableText is TableText that stops after max bytes.
func tableText(header []string, rows [][]string, max int) string {
	var sb strings.Builder
	var orphans []string
	for j, h := range header {
		used := false
		for _, r := range rows {
			if j < len(r) && r[j] != "" {
				used = true
				break
			}
		}
		if h != "" && !used {
			orphans = append(orphans, h)
		}
	}
	if len(orphans) > 0 {
		writeCapped(&sb, strings.Join(orphans, " | "), max)
	}
	for i, row := range rows {
		if sb.Len() >= max {
			break
		}
		if i > 0 || sb.Len() > 0 {
			sb.WriteByte('\n')
		}
		writeRow(&sb, header, row, max)
	}
	return sb.String()
}

// rowText is one row as TableText writes it, at most max bytes.
func rowText(header, row []string, max int) string {
	var sb strings.Builder
	writeRow(&sb, header, row, max)
	return sb.String()
}

func writeRow(sb *strings.Builder, header, row []string, max int) {
	first := true
	for j, cell := range row {
		if cell == "" {
			continue
		}
		if sb.Len() >= max {
			return
		}
		if !first {
			sb.WriteString(" | ")
		}
		first = false
		if j < len(header) && header[j] != "" {
			writeCapped(sb, cutAt(header[j], maxLabel), max)
			sb.WriteString(": ")
		}
		writeCapped(sb, cell, max)
	}
}

// writeCapped writes s, or as much of it as keeps sb within max bytes
// (cut at a character's start).
func writeCapped(sb *strings.Builder, s string, max int) {
	sb.WriteString(cutAt(s, max-sb.Len()))
}

// cutAt is s cut to at most n bytes at a character's start.
func cutAt(s string, n int) string {
	if n <= 0 {
		return ""
	}
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

func (w *htmlWriter) text() string {
	return strings.TrimSpace(w.buf.String())
}

// isPermalink reports whether n is a link to its own heading that shows
// only a mark (Sphinx's and MkDocs' "¶", "§", "#" beside every heading and
// caption): it is not text of the page, and left in a heading it makes a
// FAQ's question ("…what can I do?¶") read as a statement.
func isPermalink(n *html.Node) bool {
	if n.DataAtom != atom.A {
		return false
	}
	for _, a := range n.Attr {
		if a.Key == "class" && (strings.Contains(a.Val, "headerlink") || strings.Contains(a.Val, "permalink")) {
			return true
		}
	}
	// A link whose one child is the mark.
	if c := n.FirstChild; c != nil && c.NextSibling == nil && c.Type == html.TextNode {
		switch strings.TrimSpace(c.Data) {
		case "¶", "§", "#", "🔗":
			return true
		}
	}
	return false
}

func nodeText(n *html.Node) string {
	var sb strings.Builder
	var rec func(*html.Node, int)
	rec = func(n *html.Node, depth int) {
		if depth > maxHTMLDepth {
			return
		}
		if n.Type == html.TextNode {
			sb.WriteString(n.Data)
			return
		}
		if n.Type == html.ElementNode {
			if isPermalink(n) {
				return
			}
			switch n.DataAtom {
			case atom.Script, atom.Style:
				return
			case atom.Br, atom.P, atom.Div, atom.Li:
				sb.WriteByte(' ')
			}
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			rec(c, depth+1)
		}
	}
	rec(n, 0)
	return sb.String()
}

func isBlock(a atom.Atom) bool {
	switch a {
	case atom.P, atom.Div, atom.Section, atom.Article, atom.Header, atom.Footer, atom.Nav,
		atom.Aside, atom.Main, atom.Blockquote, atom.Ul, atom.Ol, atom.Dl, atom.Dt, atom.Dd,
		atom.Figure, atom.Figcaption, atom.Form, atom.Fieldset, atom.Address, atom.Hr,
		atom.Details, atom.Summary, atom.Body, atom.Caption:
		return true
	}
	return false
}

func isHTMLSpace(r rune) bool {
	return r == ' ' || r == '\t' || r == '\n' || r == '\r' || r == '\f' || r == '\u00a0'
}

func endsWithSpace(b string) bool {
	return len(b) > 0 && (b[len(b)-1] == ' ' || b[len(b)-1] == '\n')
}

package extract

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"unicode"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
	xunicode "golang.org/x/text/encoding/unicode"
	"golang.org/x/text/transform"

	"cairn/core/humanize"
)

// htmlTreeMax is the largest HTML read as a tree (html.Parse), which
// repairs broken markup as a browser does but costs ten to twenty times
// the page: a 200 MB page of one line took 1.5 GB. A larger page is read
// as a stream of tokens (htmlStream), with its text, headings, lists and
// tables, and no more of it than the text limit keeps.
const htmlTreeMax = 4 << 20

// maxHTMLToken bounds one token of a streamed page (a run of text, a tag):
// the tokenizer holds a token whole.
const maxHTMLToken = 1 << 20

// htmlStream reads HTML from r token by token into text: block elements on
// their own lines, headings recorded, table rows written with their header
// cells, scripts and styles dropped, element ids' offsets kept in anchors.
// It stops once the text passes limit (0: maxTableText) or at a token
// longer than maxHTMLToken, with a warning. size, when known, is the
// page's.
func htmlStream(ctx context.Context, r io.Reader, size int64, limit int) (*Document, map[string]int, error) {
	if limit <= 0 {
		limit = maxTableText
	}
	z := html.NewTokenizer(utf16Aware(r))
	z.SetMaxBuf(maxHTMLToken)
	w := &htmlWriter{ctx: ctx, anchors: map[string]int{}}
	if size > 0 {
		// The text is at most the page, and no more than the limit is
		// kept: room for it at once, rather than doubling up to twice it.
		w.buf.Grow(int(min(size, int64(limit)+64<<10)))
	}
	var warnings []string
	skip := 0 // depth inside scripts, styles and the like
	var title, heading, cell strings.Builder
	inTitle, inCell := false, false
	level := 0 // of the open heading; 0: none
	tables := 0
	var header, row []string
	rowBytes := 0 // what row holds, each cell counted with its string's header
	allTH := true
	keep := func(sb *strings.Builder, b []byte, max int) {
		if sb.Len() < max {
			sb.Write(b[:min(len(b), max-sb.Len())])
		}
	}
	for n := 0; ; n++ {
		if n%4096 == 0 {
			if err := ctx.Err(); err != nil {
				return nil, nil, err
			}
		}
		if w.buf.Len() > limit {
			warnings = append(warnings, fmt.Sprintf("text cut at %s (limit)", humanize.Bytes(int64(limit))))
			break
		}
		tt := z.Next()
		if tt == html.ErrorToken {
			err := z.Err()
			if err == io.EOF {
				break
			}
			if errors.Is(err, html.ErrBufferExceeded) {
				warnings = append(warnings, fmt.Sprintf("html: a tag or run of text longer than %s; the rest of the page was not read", humanize.Bytes(maxHTMLToken)))
				break
			}
			return nil, nil, fmt.Errorf("html: %w", err)
		}
		switch tt {
		case html.TextToken:
			text := z.Text()
			switch {
			case skip > 0:
			case inTitle:
				keep(&title, text, 1024)
			case level > 0:
				keep(&heading, text, 4096)
			case inCell:
				keep(&cell, text, maxCellBytes)
			case tables > 0:
				// white space between a table's tags
			default:
				w.writeText(string(text))
			}
		case html.StartTagToken, html.SelfClosingTagToken:
			name, hasAttr := z.TagName()
			a := atom.Lookup(name)
			for hasAttr && len(w.anchors) < maxAnchors {
				var k, v []byte
				k, v, hasAttr = z.TagAttr()
				if string(k) == "id" || string(k) == "name" && a == atom.A {
					if _, ok := w.anchors[string(v)]; !ok {
						w.anchors[string(v)] = w.buf.Len()
					}
				}
			}
			self := tt == html.SelfClosingTagToken
			switch a {
			case atom.Script, atom.Style, atom.Noscript, atom.Template, atom.Svg, atom.Iframe, atom.Object:
				if !self {
					skip++
				}
			case atom.Title:
				inTitle = !self
			case atom.H1, atom.H2, atom.H3, atom.H4, atom.H5, atom.H6:
				w.newline(2)
				heading.Reset()
				level = int(name[1] - '0')
			case atom.Table:
				if tables++; tables == 1 {
					w.newline(2)
					header = nil
				}
			case atom.Tr:
				if tables == 1 {
					row, allTH = nil, true
				}
			case atom.Td, atom.Th:
				if tables == 1 {
					inCell = true
					cell.Reset()
					allTH = allTH && a == atom.Th
				}
			case atom.Br:
				switch {
				case inCell:
					cell.WriteByte(' ')
				case level > 0:
					heading.WriteByte(' ')
				default:
					w.newline(1)
				}
			case atom.Pre:
				w.newline(2)
				w.pre++
			case atom.Li:
				w.newline(1)
				w.buf.WriteString("- ")
				w.space = false
			default:
				if isBlock(a) && tables == 0 {
					w.newline(2)
				}
			}
		case html.EndTagToken:
			name, _ := z.TagName()
			switch a := atom.Lookup(name); a {
			case atom.Script, atom.Style, atom.Noscript, atom.Template, atom.Svg, atom.Iframe, atom.Object:
				skip = max(0, skip-1)
			case atom.Title:
				inTitle = false
			case atom.H1, atom.H2, atom.H3, atom.H4, atom.H5, atom.H6:
				if level > 0 {
					if t := collapseSpace(heading.String()); t != "" {
						w.headings = append(w.headings, Heading{Offset: w.buf.Len(), Level: level, Text: t})
						w.buf.WriteString(t)
					}
					level = 0
					w.newline(2)
				}
			case atom.Td, atom.Th:
				if tables == 1 && inCell {
					// A row of millions of cells is kept only up to the text
					// the page may still give, empty cells counted too.
					if c := collapseSpace(cell.String()); rowBytes <= limit-w.buf.Len() {
						row = append(row, c)
						rowBytes += len(c) + 16
					}
					inCell = false
				}
			case atom.Tr:
				if tables == 1 && len(row) > 0 {
					if allTH && header == nil {
						header = row
					} else {
						w.buf.WriteString(rowText(header, row, limit-w.buf.Len()+1))
						w.buf.WriteByte('\n')
					}
					row, rowBytes = nil, 0
				}
			case atom.Table:
				if tables > 0 {
					if tables--; tables == 0 {
						inCell = false
						w.newline(2)
					}
				}
			case atom.Pre:
				w.pre = max(0, w.pre-1)
				w.newline(2)
			default:
				if isBlock(a) && tables == 0 {
					w.newline(2)
				}
			}
		}
	}
	// text() trims the buffer: offsets move back by what it trims.
	lead := w.buf.Len() - len(strings.TrimLeftFunc(w.buf.String(), unicode.IsSpace))
	for i := range w.headings {
		w.headings[i].Offset = max(0, w.headings[i].Offset-lead)
	}
	for id, off := range w.anchors {
		w.anchors[id] = max(0, off-lead)
	}
	doc := &Document{Format: "html", Title: collapseSpace(title.String()), Text: w.text(), Headings: w.headings, Warnings: warnings}
	return doc, w.anchors, nil
}

// utf16Aware reads r as UTF-8, or, when it starts with a UTF-16 byte
// order mark, decodes it to UTF-8 as it goes.
func utf16Aware(r io.Reader) io.Reader {
	br := newPeekReader(r)
	head := br.peek(2)
	if len(head) == 2 && (head[0] == 0xFF && head[1] == 0xFE || head[0] == 0xFE && head[1] == 0xFF) {
		return transform.NewReader(br, xunicode.UTF16(xunicode.LittleEndian, xunicode.UseBOM).NewDecoder())
	}
	return br
}

// peekReader lets the first bytes of a reader be looked at before it is
// read.
type peekReader struct {
	r    io.Reader
	head []byte
}

func newPeekReader(r io.Reader) *peekReader { return &peekReader{r: r} }

func (p *peekReader) peek(n int) []byte {
	for len(p.head) < n {
		b := make([]byte, n-len(p.head))
		k, err := p.r.Read(b)
		p.head = append(p.head, b[:k]...)
		if err != nil {
			break
		}
	}
	return p.head
}

func (p *peekReader) Read(b []byte) (int, error) {
	if len(p.head) > 0 {
		n := copy(b, p.head)
		p.head = p.head[n:]
		return n, nil
	}
	return p.r.Read(b)
}

package extract

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"golang.org/x/text/encoding/charmap"
)

// maxRTFDepth bounds group nesting: real files stay under 30.
const maxRTFDepth = 512

// rtfSkipDests are destinations whose content is not document text.
// \listtext is not among them: it holds a list item's number as the writer
// rendered it ("2.", "b)"), which the text needs ("step 2").
var rtfSkipDests = map[string]bool{
	"fonttbl": true, "colortbl": true, "stylesheet": true, "pict": true, "object": true,
	"themedata": true, "colorschememapping": true, "latentstyles": true, "datastore": true,
	"xmlnstbl": true, "rsidtbl": true, "generator": true, "listtable": true,
	"listoverridetable": true, "revtbl": true, "fldinst": true, "bkmkstart": true,
	"bkmkend": true, "pgdsctbl": true, "mmathPr": true, "wgrffmtfilter": true, "filetbl": true,
	"info": true, "userprops": true, "ftnsep": true, "ftnsepc": true, "aftnsep": true,
	"aftnsepc": true, "shppict": true, "nonshppict": true, "blipuid": true, "panose": true,
	"falt": true, "listpicture": true, "pnseclvl": true, "xe": true, "tc": true, "docvar": true,
}

// extractRTF reads Rich Text Format: paragraphs, headings from outline
// levels, table rows as "cell | cell" lines, footnotes at the end, headers
// and footers once, the title from the info group, text in the declared
// ANSI code page and \u escapes.
func (r *Registry) extractRTF(ctx context.Context, f File, lim Limits) (*Document, error) {
	data, err := readAll(f, lim)
	if err != nil {
		return nil, err
	}
	if !strings.HasPrefix(string(data[:min(len(data), 5)]), "{\\rtf") {
		return nil, fmt.Errorf("rtf: not an RTF file (no {\\rtf header: wrong extension?)")
	}
	p := &rtfParser{ctx: ctx, data: data, b: newBuilder(lim)}
	p.cp = charmap.Windows1252
	if err := p.parse(); err != nil {
		return nil, err
	}
	b := p.b
	if len(p.notes) > 0 {
		b.heading(1, "Footnotes")
		for i, n := range p.notes {
			b.block(fmt.Sprintf("[%d] %s", i+1, n))
		}
	}
	if len(p.chrome) > 0 {
		b.heading(1, "Headers and footers")
		for _, c := range p.chrome {
			b.block(c)
		}
	}
	return b.document("rtf", p.title), nil
}

// rtfState is what a group carries and restores at its end; paragraph
// properties are among it, since a \pard inside a nested group (list
// numbering does that) must not reset the paragraph outside.
type rtfState struct {
	skip   bool
	uc     int
	target int  // 0 body, 1 footnote, 2 header/footer, 3 title
	level  int  // outline level of the paragraph; -1 none
	intbl  bool // the paragraph is inside a table cell
}

type rtfParser struct {
	ctx    context.Context
	data   []byte
	b      *builder
	cp     *charmap.Charmap
	para   strings.Builder // the paragraph being read
	rows   [][]string      // table rows read, written when the table ends
	header bool            // the first row is a header row (\trhdr)
	cells  []string        // cells of the row being read
	notes  []string
	chrome []string
	title  string
	aux    strings.Builder // text of the footnote/header/title group being read
}

func (p *rtfParser) parse() error {
	stack := []rtfState{{uc: 1, level: -1}}
	st := &stack[0]
	auxDepth := -1 // stack depth at which the open footnote/header group started
	skipChars := 0 // characters still to skip after a \u escape
	data := p.data
	for i := 0; i < len(data); {
		if i&0xFFFF == 0 && p.ctx.Err() != nil {
			return p.ctx.Err()
		}
		c := data[i]
		switch c {
		case '{':
			if len(stack) >= maxRTFDepth {
				return fmt.Errorf("%w: rtf: groups nested deeper than %d", ErrTooDeep, maxRTFDepth)
			}
			stack = append(stack, *st)
			st = &stack[len(stack)-1]
			i++
			continue
		case '}':
			if auxDepth == len(stack)-1 {
				p.closeAux(st.target)
				auxDepth = -1
			}
			if len(stack) > 1 {
				stack = stack[:len(stack)-1]
				st = &stack[len(stack)-1]
			}
			i++
			continue
		case '\r', '\n':
			i++
			continue
		case '\\':
		default:
			if skipChars > 0 {
				skipChars--
			} else if !st.skip {
				p.emit(st.target, string(rune(c)), c)
			}
			i++
			continue
		}
		// A control word or symbol.
		if i+1 >= len(data) {
			break
		}
		n := data[i+1]
		if !isASCIILetter(n) {
			i += 2
			switch n {
			case '\'':
				if i+2 <= len(data) {
					if v, ok := unhex2(data[i], data[i+1]); ok {
						i += 2
						if skipChars > 0 {
							skipChars--
						} else if !st.skip {
							p.emit(st.target, string(p.cp.DecodeByte(v)), 0)
						}
					}
				}
			case '*':
				st.skip = st.skip || p.destination(data[i:]) == ""
			case '~':
				p.emitIf(st, " ")
			case '_':
				p.emitIf(st, "-")
			case '\\', '{', '}':
				if skipChars > 0 {
					skipChars--
				} else {
					p.emitIf(st, string(n))
				}
			case '\n', '\r':
				p.controlWord(st, "par", 0, false)
			}
			continue
		}
		j := i + 1
		for j < len(data) && isASCIILetter(data[j]) && j-i < 32 {
			j++
		}
		word := string(data[i+1 : j])
		k := j
		if k < len(data) && (data[k] == '-' || data[k] >= '0' && data[k] <= '9') {
			k++
			for k < len(data) && data[k] >= '0' && data[k] <= '9' && k-j < 11 {
				k++
			}
		}
		param, hasParam := 0, k > j
		if hasParam {
			param, _ = strconv.Atoi(string(data[j:k]))
		}
		if k < len(data) && data[k] == ' ' {
			k++ // the delimiting space belongs to the control word
		}
		i = k
		switch word {
		case "bin":
			i += max(0, min(param, len(data)-i)) // binary data follows
			continue
		case "u":
			if !st.skip {
				if param < 0 {
					param += 65536
				}
				p.emit(st.target, string(rune(param)), 0)
			}
			skipChars = st.uc
			continue
		case "uc":
			st.uc = max(0, param)
			continue
		case "ansicpg":
			if cm := windowsCodepage(param); cm != nil {
				p.cp = cm
			}
			continue
		case "footnote":
			st.skip, st.target = false, 1
			p.aux.Reset()
			auxDepth = len(stack) - 1
			continue
		case "header", "footer", "headerl", "headerr", "headerf", "footerl", "footerr", "footerf":
			st.target = 2
			p.aux.Reset()
			auxDepth = len(stack) - 1
			continue
		case "title":
			st.skip, st.target = false, 3
			p.aux.Reset()
			auxDepth = len(stack) - 1
			continue
		}
		if rtfSkipDests[word] {
			st.skip = true
			continue
		}
		if !st.skip {
			p.controlWord(st, word, param, hasParam)
		}
	}
	p.flush(st)
	p.flushTable()
	return nil
}

// destination returns the control word after "\*" when it is one we read.
func (p *rtfParser) destination(rest []byte) string {
	if len(rest) > 1 && rest[0] == '\\' {
		j := 1
		for j < len(rest) && isASCIILetter(rest[j]) {
			j++
		}
		if w := string(rest[1:j]); w == "footnote" {
			return w
		}
	}
	return ""
}

func (p *rtfParser) controlWord(st *rtfState, word string, param int, hasParam bool) {
	switch word {
	case "par", "sect", "page":
		switch {
		case st.target != 0:
			p.aux.WriteByte('\n')
		case st.intbl:
			p.para.WriteByte(' ') // a paragraph inside a cell
		default:
			p.flush(st)
		}
	case "pard":
		st.level, st.intbl = -1, false
	case "intbl":
		st.intbl = true
	case "trowd":
		if len(p.rows) == 0 {
			p.header = false
		}
	case "trhdr":
		if len(p.rows) == 0 {
			p.header = true
		}
	case "line":
		p.emit(st.target, "\n", 0)
	case "tab":
		p.emit(st.target, "\t", 0)
	case "cell":
		if st.target == 0 {
			p.cells = append(p.cells, collapseSpace(p.para.String()))
			p.para.Reset()
		} else {
			p.aux.WriteString(" | ")
		}
	case "row":
		if st.target == 0 {
			p.rows = append(p.rows, p.cells)
			p.cells = nil
		}
	case "outlinelevel":
		if hasParam && param >= 0 && param < 9 {
			st.level = param
		}
	case "chftn":
		if st.target == 0 { // the automatic footnote mark in the text
			p.para.WriteString("[" + strconv.Itoa(len(p.notes)+1) + "]")
		}
	case "emdash":
		p.emit(st.target, "—", 0)
	case "endash":
		p.emit(st.target, "–", 0)
	case "lquote":
		p.emit(st.target, "‘", 0)
	case "rquote":
		p.emit(st.target, "’", 0)
	case "ldblquote":
		p.emit(st.target, "“", 0)
	case "rdblquote":
		p.emit(st.target, "”", 0)
	case "bullet":
		p.emit(st.target, "•", 0)
	}
}

func (p *rtfParser) emitIf(st *rtfState, s string) {
	if !st.skip {
		p.emit(st.target, s, 0)
	}
}

func (p *rtfParser) emit(target int, s string, raw byte) {
	if raw >= 0x80 {
		s = string(p.cp.DecodeByte(raw)) // 8-bit bytes outside \' escapes
	}
	if target == 0 {
		p.para.WriteString(s)
	} else {
		p.aux.WriteString(s)
	}
}

func (p *rtfParser) closeAux(target int) {
	t := tidyLines(p.aux.String())
	p.aux.Reset()
	switch {
	case t == "":
	case target == 1:
		p.notes = append(p.notes, collapseSpace(t))
	case target == 2:
		if !containsString(p.chrome, t) {
			p.chrome = append(p.chrome, t)
		}
	case target == 3:
		p.title = collapseSpace(t)
	}
}

// flush writes the paragraph read so far, after the table it follows.
func (p *rtfParser) flush(st *rtfState) {
	p.flushTable()
	t := p.para.String()
	p.para.Reset()
	if st.level >= 0 {
		p.b.heading(st.level+1, t)
		return
	}
	p.b.block(tidyLines(t))
}

// flushTable writes the rows read so far as "Header: value" lines when the
// table marks a header row, else as "cell | cell" lines.
func (p *rtfParser) flushTable() {
	if len(p.rows) == 0 {
		return
	}
	rows := p.rows
	p.rows = nil
	var header []string
	if p.header && len(rows) > 1 {
		header, rows = rows[0], rows[1:]
	}
	p.b.block(TableText(header, rows))
}

func isASCIILetter(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }

// windowsCodepage returns the charmap of an RTF \ansicpg value.
func windowsCodepage(cp int) *charmap.Charmap {
	switch cp {
	case 1250:
		return charmap.Windows1250
	case 1251:
		return charmap.Windows1251
	case 1252:
		return charmap.Windows1252
	case 1253:
		return charmap.Windows1253
	case 1254:
		return charmap.Windows1254
	case 1255:
		return charmap.Windows1255
	case 1256:
		return charmap.Windows1256
	case 1257:
		return charmap.Windows1257
	case 1258:
		return charmap.Windows1258
	case 437:
		return charmap.CodePage437
	case 850:
		return charmap.CodePage850
	case 10000:
		return charmap.Macintosh
	}
	return nil
}

// unhex2 decodes two hexadecimal digits.
func unhex2(a, b byte) (byte, bool) {
	h := func(c byte) (byte, bool) {
		switch {
		case c >= '0' && c <= '9':
			return c - '0', true
		case c >= 'a' && c <= 'f':
			return c - 'a' + 10, true
		case c >= 'A' && c <= 'F':
			return c - 'A' + 10, true
		}
		return 0, false
	}
	x, ok1 := h(a)
	y, ok2 := h(b)
	return x<<4 | y, ok1 && ok2
}

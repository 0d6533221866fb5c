package extract

import (
	"bufio"
	"fmt"
	"io"
	"strconv"
)

// Bounds of a PDF's structure, checked on its bytes before either reader
// sees it. Real documents nest arrays and dictionaries a handful of levels
// deep (Acrobat's own limit is 28) and hold up to a few hundred thousand
// objects; a hostile file of a few megabytes can nest a million levels,
// which made poppler print a syntax error per level (300 MB of messages
// for 2 MB of brackets, all held by Cairn) or claim a billion objects,
// which the pure-Go reader allocates a cross-reference table for.
const (
	maxPDFDepth   = 256
	maxPDFObjects = 4 << 20
)

// checkPDFStructure reads the PDF in r once and refuses, with ErrTooDeep or
// ErrTooLarge and the reason, a file whose arrays and dictionaries nest
// deeper than maxPDFDepth or whose objects (defined, listed in a
// cross-reference table, or claimed by /Size) number more than
// maxPDFObjects. Strings, comments and stream data are skipped: only the
// file's own syntax counts. Compressed object streams are not opened: the
// readers' own limits hold there (the pure-Go reader stops at 1000 levels,
// poppler at 500, and its messages are capped, see popplerPDF.run).
func checkPDFStructure(r io.Reader) error {
	s := pdfScanner{r: bufio.NewReaderSize(r, 64<<10)}
	return s.scan()
}

// Bounds of one page's content stream for the pure-Go reader, which holds
// every operand until the next operator (a stream of brackets is a million
// operands) and every glyph of the page. A stream is scanned decoded, so a
// small compressed one that inflates without end is stopped too.
const (
	maxContentBytes = 64 << 20
	maxOperandRun   = 1 << 16
	maxPageGlyphs   = 1 << 20
)

// checkContent reads a page's decoded content stream once, before the
// pure-Go reader interprets it, and refuses one larger than
// maxContentBytes, nested deeper than maxPDFDepth, or with more than
// maxOperandRun operands in a row (real content has an operator every few
// operands; a TJ array of a long line holds hundreds).
func checkContent(r io.Reader) error {
	n := &countingReader{r: io.LimitReader(r, maxContentBytes+1)}
	s := pdfScanner{r: bufio.NewReaderSize(n, 64<<10), content: true}
	err := s.scan()
	if n.n > maxContentBytes {
		return fmt.Errorf("%w: pdf: page content larger than %d MB decoded (a decompression bomb?)", ErrTooLarge, maxContentBytes>>20)
	}
	return err
}

type pdfScanner struct {
	r       *bufio.Reader
	content bool // a content stream: operands and operators, no objects
	run     int  // operands since the last operator (content)
	depth   int
	objects int
	// The last two tokens, when they were whole numbers ("12 0 obj",
	// "/Size 99", a cross-reference subsection "0 120").
	prev, prev2     int64
	prevOK, prev2OK bool
	sizeKey         bool // the last token was the name /Size
}

func (s *pdfScanner) scan() error {
	for {
		c, err := s.r.ReadByte()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
		switch {
		case c == '%':
			s.skipLine()
			continue
		case c == '(':
			s.skipString()
			s.number(false, 0)
		case c == '[' || c == '<' && s.peek('<'):
			if c == '<' {
				s.r.ReadByte()
			}
			if s.depth++; s.depth > maxPDFDepth {
				return fmt.Errorf("%w: pdf: arrays and dictionaries nested deeper than %d levels", ErrTooDeep, maxPDFDepth)
			}
			s.number(false, 0)
		case c == ']' || c == '>' && s.peek('>'):
			if c == '>' {
				s.r.ReadByte()
			}
			s.depth = max(s.depth-1, 0)
			s.number(false, 0)
		case c == '<':
			s.skipUntil('>') // a hex string
			s.number(false, 0)
		case isPDFSpace(c) || c == ')' || c == '>' || c == '{' || c == '}':
			continue // after ">>" above: a lone '>' ends nothing
		case c == '/':
			name := s.word(nil)
			s.number(false, 0)
			s.sizeKey = string(name) == "Size"
		default:
			w := s.word([]byte{c})
			if s.content {
				if err := s.contentWord(w); err != nil {
					return err
				}
				continue
			}
			if err := s.token(w); err != nil {
				return err
			}
			continue
		}
		if err := s.operand(); err != nil {
			return err
		}
	}
}

// operand counts an operand of a content stream.
func (s *pdfScanner) operand() error {
	if !s.content {
		return nil
	}
	if s.run++; s.run > maxOperandRun {
		return fmt.Errorf("%w: pdf: page content with more than %d operands in a row", ErrTooLarge, maxOperandRun)
	}
	return nil
}

// contentWord looks at a number or operator of a content stream.
func (s *pdfScanner) contentWord(w []byte) error {
	switch string(w) {
	case "true", "false", "null":
		return s.operand()
	case "ID": // an inline image's data follows, up to EI
		s.skipInlineImage()
	}
	if _, err := strconv.ParseFloat(string(w), 64); err == nil {
		return s.operand()
	}
	s.run = 0
	return nil
}

// skipInlineImage skips an inline image's data after ID: bytes up to "EI"
// between white space.
func (s *pdfScanner) skipInlineImage() {
	var a, b byte = ' ', ' ' // the two bytes before c
	for {
		c, err := s.r.ReadByte()
		if err != nil {
			return
		}
		if isPDFSpace(a) && b == 'E' && c == 'I' {
			if next, err := s.r.Peek(1); err != nil || isPDFSpace(next[0]) {
				return
			}
		}
		a, b = b, c
	}
}

// token looks at a number or keyword.
func (s *pdfScanner) token(t []byte) error {
	n, err := strconv.ParseInt(string(t), 10, 64)
	if err == nil {
		if s.sizeKey && n > maxPDFObjects {
			return s.tooMany(fmt.Sprintf("its trailer claims %d objects", n))
		}
		s.sizeKey = false
		s.number(true, n)
		return nil
	}
	s.sizeKey = false
	switch string(t) {
	case "obj":
		if s.objects++; s.objects > maxPDFObjects || s.prev2OK && s.prev2 > maxPDFObjects {
			return s.tooMany("it defines more")
		}
	case "stream":
		if err := s.skipStream(); err != nil {
			return err
		}
	case "xref":
		if err := s.xref(); err != nil {
			return err
		}
	}
	s.number(false, 0)
	return nil
}

func (s *pdfScanner) tooMany(why string) error {
	return fmt.Errorf("%w: pdf: more than %d objects (%s)", ErrTooLarge, maxPDFObjects, why)
}

// number records the last token: n when it was a whole number.
func (s *pdfScanner) number(ok bool, n int64) {
	s.prev2, s.prev2OK = s.prev, s.prevOK
	s.prev, s.prevOK = n, ok
}

// xref checks a cross-reference table's subsections ("first count" then
// count entries of 20 bytes) up to its trailer.
func (s *pdfScanner) xref() error {
	for {
		first, ok := s.int()
		if !ok {
			return nil // "trailer", or a table too damaged to matter here
		}
		count, ok := s.int()
		if !ok {
			return nil
		}
		if first < 0 || count < 0 || first+count > maxPDFObjects {
			return s.tooMany(fmt.Sprintf("a cross-reference table lists objects %d to %d", first, first+count))
		}
		for range count {
			if _, ok := s.int(); !ok {
				return nil
			}
			if _, ok := s.int(); !ok {
				return nil
			}
			s.skipSpace()
			s.word(nil) // n or f
		}
	}
}

// int reads the next token as a whole number; false, with the token
// consumed, when it is not one.
func (s *pdfScanner) int() (int64, bool) {
	s.skipSpace()
	t := s.word(nil)
	n, err := strconv.ParseInt(string(t), 10, 64)
	return n, err == nil
}

func (s *pdfScanner) skipSpace() {
	for {
		c, err := s.r.ReadByte()
		if err != nil {
			return
		}
		if !isPDFSpace(c) {
			s.r.UnreadByte()
			return
		}
	}
}

// word reads regular characters up to a delimiter or white space, after
// those in start.
func (s *pdfScanner) word(start []byte) []byte {
	w := start
	for {
		c, err := s.r.ReadByte()
		if err != nil {
			return w
		}
		if isPDFSpace(c) || isPDFDelim(c) {
			s.r.UnreadByte()
			return w
		}
		if len(w) < 32 { // longer words are neither numbers nor keywords
			w = append(w, c)
		}
	}
}

func (s *pdfScanner) peek(c byte) bool {
	b, err := s.r.Peek(1)
	return err == nil && b[0] == c
}

func (s *pdfScanner) skipLine() {
	for {
		c, err := s.r.ReadByte()
		if err != nil || c == '\n' || c == '\r' {
			return
		}
	}
}

func (s *pdfScanner) skipUntil(end byte) {
	for {
		c, err := s.r.ReadByte()
		if err != nil || c == end {
			return
		}
	}
}

// skipString skips a literal string after its "(": balanced parentheses,
// backslash escapes.
func (s *pdfScanner) skipString() {
	depth := 1
	for {
		c, err := s.r.ReadByte()
		if err != nil {
			return
		}
		switch c {
		case '\\':
			s.r.ReadByte()
		case '(':
			depth++
		case ')':
			if depth--; depth == 0 {
				return
			}
		}
	}
}

// skipStream skips a stream's data, up to the keyword endstream.
func (s *pdfScanner) skipStream() error {
	const end = "endstream"
	matched := 0
	for {
		c, err := s.r.ReadByte()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
		// Knuth-Morris-Pratt: of "endstream"'s prefixes only "endstre"
		// ends with a shorter one, "e", so "endstrendstream" still ends.
		for matched > 0 && c != end[matched] {
			matched = endstreamBorder[matched]
		}
		if c == end[matched] {
			matched++
		}
		if matched == len(end) {
			return nil
		}
	}
}

// endstreamBorder[k] is the length of the longest proper prefix of
// "endstream"[:k] that is also its suffix.
var endstreamBorder = [9]int{0, 0, 0, 0, 0, 0, 0, 1, 0}

func isPDFSpace(c byte) bool {
	switch c {
	case 0, '\t', '\n', '\f', '\r', ' ':
		return true
	}
	return false
}

func isPDFDelim(c byte) bool {
	switch c {
	case '(', ')', '<', '>', '[', ']', '{', '}', '/', '%':
		return true
	}
	return false
}

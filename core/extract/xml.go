package extract

import (
	"bytes"
	"context"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"strings"

	"cairn/core/humanize"
)

// maxXMLDepth bounds element nesting in the XML parts of office formats.
// Real documents stay below 50; a hostile file nests millions deep to make a
// recursive reader overflow its stack or a stack of open elements grow.
const maxXMLDepth = 256

// xmlStream is a bounded encoding/xml token stream. encoding/xml never
// expands entities declared in a DTD (the billion-laughs attack needs that),
// but a DTD in an office part is still refused outright, since none of the
// formats allows one; nesting depth is capped; ctx is checked as tokens go.
type xmlStream struct {
	d     *xml.Decoder
	ctx   context.Context
	where string // "docx: word/document.xml"; prefixes errors
	depth int
	n     int
	// textLeft, when set, is shared by the parts of one archive: character
	// data still allowed before the stream ends early (io.EOF). -1: no cap.
	textLeft *int64
	// declared, when set, checks the part's declared sizes: a part that
	// breaks the XML and also claims a bomb's ratio is reported as a bomb.
	declared func() error
}

// maxXMLRun bounds the bytes between two markup characters ('<' or '>'):
// encoding/xml holds a whole text run or tag in memory, so a part that is
// one gigabyte-long run would cost gigabytes. Real runs are short.
const maxXMLRun = 1 << 20

// markupGuard fails a part with a run longer than maxXMLRun.
type markupGuard struct {
	r     io.Reader
	run   int64
	where string
}

func (g *markupGuard) Read(p []byte) (int, error) {
	n, err := g.r.Read(p)
	if i := bytes.LastIndexAny(p[:n], "<>"); i >= 0 {
		g.run = int64(n - 1 - i)
	} else {
		g.run += int64(n)
	}
	if g.run > maxXMLRun {
		return n, fmt.Errorf("%w: %s: more than %s of text or one tag without markup (zip bomb?)", ErrTooLarge, g.where, humanize.Bytes(maxXMLRun))
	}
	return n, err
}

func newXMLStream(ctx context.Context, r io.Reader, where string) *xmlStream {
	d := xml.NewDecoder(&markupGuard{r: r, where: where})
	d.Strict = false // real files carry undeclared prefixes and stray '&'; be lenient
	d.Entity = xml.HTMLEntity
	d.CharsetReader = charsetReader
	return &xmlStream{d: d, ctx: ctx, where: where}
}

// next returns the next token, or io.EOF at the end. Tokens are copies, so
// callers may keep them.
func (s *xmlStream) next() (xml.Token, error) {
	if s.n++; s.n%2048 == 0 {
		if err := s.ctx.Err(); err != nil {
			return nil, err
		}
	}
	tok, err := s.d.Token()
	if err != nil {
		if err == io.EOF {
			return nil, io.EOF
		}
		var se *xml.SyntaxError
		if errors.As(err, &se) {
			if s.declared != nil {
				if err := s.declared(); err != nil {
					return nil, err
				}
			}
			return nil, fmt.Errorf("%s: broken XML at line %d: %s", s.where, se.Line, se.Msg)
		}
		if IsSkip(err) {
			return nil, err
		}
		return nil, fmt.Errorf("%s: %w", s.where, err)
	}
	switch t := tok.(type) {
	case xml.StartElement:
		if s.depth++; s.depth > maxXMLDepth {
			return nil, fmt.Errorf("%w: %s: XML nested deeper than %d elements", ErrTooDeep, s.where, maxXMLDepth)
		}
		return t.Copy(), nil
	case xml.EndElement:
		s.depth--
	case xml.CharData:
		if s.textLeft != nil && *s.textLeft >= 0 {
			if *s.textLeft -= int64(len(bytes.TrimSpace(t))); *s.textLeft < 0 {
				*s.textLeft = 0
				return nil, io.EOF // the text limit: the rest of every part is left unread
			}
		}
		return t.Copy(), nil
	case xml.Directive:
		if strings.Contains(string(t), "ENTITY") {
			return nil, fmt.Errorf("%w: %s: XML declares entities (a DTD), which no office format allows; refused as a possible entity-expansion attack", ErrUnsafe, s.where)
		}
	}
	return tok, nil
}

// find reads on to the next start tag with one of the given local names;
// it returns io.EOF at the end of the part.
func (s *xmlStream) find(locals ...string) (xml.StartElement, error) {
	for {
		tok, err := s.next()
		if err != nil {
			return xml.StartElement{}, err
		}
		if e, ok := tok.(xml.StartElement); ok {
			for _, l := range locals {
				if e.Name.Local == l {
					return e, nil
				}
			}
		}
	}
}

// skip consumes the rest of the element whose start tag was just read.
func (s *xmlStream) skip() error {
	for d := 1; d > 0; {
		tok, err := s.next()
		if err != nil {
			return err
		}
		switch tok.(type) {
		case xml.StartElement:
			d++
		case xml.EndElement:
			d--
		}
	}
	return nil
}

// text returns the character data inside the element whose start tag was
// just read, consuming it up to its end tag.
func (s *xmlStream) text() (string, error) {
	var sb strings.Builder
	for d := 1; d > 0; {
		tok, err := s.next()
		if err != nil {
			return sb.String(), err
		}
		switch t := tok.(type) {
		case xml.StartElement:
			d++
		case xml.EndElement:
			d--
		case xml.CharData:
			if sb.Len() < 1<<20 {
				sb.Write(t)
			}
		}
	}
	return sb.String(), nil
}

// attr returns the value of the attribute with the given local name.
func attr(e xml.StartElement, local string) string {
	for _, a := range e.Attr {
		if a.Name.Local == local {
			return a.Value
		}
	}
	return ""
}

// attrNS returns the value of the attribute with the given namespace prefix
// or URL suffix and local name; ODF uses the same local names in several
// namespaces ("text:name" and "table:name").
func attrNS(e xml.StartElement, space, local string) string {
	for _, a := range e.Attr {
		if a.Name.Local == local && (a.Name.Space == space || strings.HasSuffix(a.Name.Space, ":"+space+":1.0") || strings.Contains(a.Name.Space, ":"+space+":")) {
			return a.Value
		}
	}
	return ""
}

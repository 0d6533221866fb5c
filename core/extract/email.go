package extract

import (
	"bytes"
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"mime"
	"mime/multipart"
	"mime/quotedprintable"
	"net/mail"
	"path/filepath"
	"strings"

	"golang.org/x/text/encoding/htmlindex"

	"cairn/core/humanize"
)

// maxMIMEParts bounds the parts walked in one message (a hostile message can
// nest thousands of empty parts).
const maxMIMEParts = 1000

// extractEmail reads an RFC 5322 message: the main headers, the text body
// (text/plain preferred, else HTML rendered as text) and, through the
// registry, every attachment it can read, each as a unit labelled with the
// attachment's name.
func extractEmail(r *Registry) func(ctx context.Context, f File, lim Limits) (*Document, error) {
	return func(ctx context.Context, f File, lim Limits) (*Document, error) {
		if lim.MaxFileBytes > 0 && f.Size > lim.MaxFileBytes {
			return nil, fmt.Errorf("%w: %s", ErrTooLarge, humanize.Bytes(f.Size))
		}
		return r.emailDocument(ctx, io.NewSectionReader(f.R, 0, f.Size), lim)
	}
}

// emailDocument reads a message from raw as a stream: no part is held
// longer than its bound (a body, the text limit; an attachment,
// maxAttachment), so a message of any size costs about the text it keeps.
func (r *Registry) emailDocument(ctx context.Context, raw io.Reader, lim Limits) (*Document, error) {
	m, err := r.parseEmail(ctx, raw, lim)
	if err != nil {
		return nil, err
	}
	b := newBuilder(lim)
	b.message(m, 1)
	doc := b.document("email", m.subject)
	doc.Warnings = m.warnings
	return doc, nil
}

// message is an e-mail (from .eml, .mbox or .msg) ready to be written out.
type message struct {
	headers     [][2]string // From, To, Cc, Date, Subject, in that order
	subject     string
	body        string
	attachments []attachment
	warnings    []string
}

type attachment struct {
	name string
	doc  *Document
}

// parseEmail reads an RFC 5322 message: the main headers, the text body
// (text/plain preferred, else HTML rendered as text) and, through the
// registry, every attachment it can read.
func (r *Registry) parseEmail(ctx context.Context, raw io.Reader, lim Limits) (*message, error) {
	// The headers are read whole: they are bounded by maxHeaders.
	guard := &headerGuard{r: raw, left: maxHeaders}
	msg, err := mail.ReadMessage(guard)
	if err != nil {
		if errors.Is(err, errLongHeaders) {
			return nil, fmt.Errorf("%w: email: %v", ErrTooLarge, err)
		}
		return nil, fmt.Errorf("email: not a readable message: %w", err)
	}
	guard.left = -1 // the body is read part by part, each within its bound
	dec := &mime.WordDecoder{CharsetReader: charsetReader}
	header := func(k string) string {
		v := msg.Header.Get(k)
		if d, err := dec.DecodeHeader(v); err == nil {
			return d
		}
		return v
	}
	m := &message{subject: header("Subject")}
	for _, k := range []string{"From", "To", "Cc", "Date", "Subject"} {
		if v := header(k); v != "" {
			m.headers = append(m.headers, [2]string{k, v})
		}
	}
	w := &mimeWalker{ctx: ctx, reg: r, lim: lim}
	w.part(msg.Header.Get("Content-Type"), msg.Header.Get("Content-Transfer-Encoding"), "", msg.Body, 0)
	if w.err != nil {
		return nil, w.err
	}
	m.body = w.plain
	if strings.TrimSpace(m.body) == "" {
		m.body = w.html
	}
	m.attachments = w.attachments
	m.warnings = w.warnings
	return m, nil
}

// message writes m as a message unit numbered number, then each attachment
// after it: as one attachment unit, or as its own units (the pages of an
// attached PDF) labelled with the attachment's name, so a citation of an
// attachment's page names both.
func (b *builder) message(m *message, number int) {
	b.startUnit(UnitMessage, number, m.subject)
	for _, h := range m.headers {
		b.line(h[0] + ": " + h[1])
	}
	b.block(tidyLines(m.body))
	b.endUnit()
	for _, a := range m.attachments {
		text := strings.TrimRight(a.doc.Text, " \t\r\n")
		if strings.TrimSpace(text) == "" {
			continue
		}
		b.sep(2)
		start := b.len()
		b.write("Attachment: " + a.name + "\n")
		base := b.len()
		b.write(text)
		end := b.len()
		if len(a.doc.Units) == 0 {
			b.units = append(b.units, Unit{Kind: UnitAttachment, Number: len(b.units) + 1, Label: a.name, Start: start, End: end})
		}
		for i, u := range a.doc.Units {
			u.Start, u.End = min(u.Start+base, end), min(u.End+base, end)
			if i == 0 {
				u.Start = start // the "Attachment:" line belongs to its first unit
			}
			u.Label = strings.TrimSpace(a.name + " " + u.Label)
			b.units = append(b.units, u)
		}
		for _, h := range a.doc.Headings {
			if h.Offset+base <= end {
				h.Offset += base
				b.headings = append(b.headings, h)
			}
		}
	}
}

type mimeWalker struct {
	ctx         context.Context
	reg         *Registry
	lim         Limits
	plain, html string
	attachments []attachment
	warnings    []string
	parts       int
	err         error
}

func (w *mimeWalker) part(contentType, cte, disposition string, body io.Reader, depth int) {
	if w.err != nil {
		return
	}
	if w.parts++; w.parts > maxMIMEParts {
		if w.parts == maxMIMEParts+1 {
			w.warnings = append(w.warnings, fmt.Sprintf("more than %d MIME parts; the rest were skipped", maxMIMEParts))
		}
		return
	}
	if err := w.ctx.Err(); err != nil {
		w.err = err
		return
	}
	mediaType, params := parseMediaType(contentType)
	if mediaType == "" {
		mediaType = "text/plain"
	}
	dispType, dispParams := parseMediaType(disposition)
	name := dispParams["filename"]
	if name == "" {
		name = params["name"]
	}
	if strings.HasPrefix(mediaType, "multipart/") {
		if depth > 20 {
			w.warnings = append(w.warnings, "MIME nesting too deep; inner parts skipped")
			return
		}
		mr := multipart.NewReader(body, params["boundary"])
		for {
			p, err := mr.NextPart()
			if err == io.EOF {
				return
			}
			if err != nil {
				w.warnings = append(w.warnings, "broken MIME structure: "+err.Error())
				return
			}
			w.part(p.Header.Get("Content-Type"), p.Header.Get("Content-Transfer-Encoding"),
				p.Header.Get("Content-Disposition"), p, depth+1)
		}
	}
	isAttachment := dispType == "attachment" || (name != "" && !strings.HasPrefix(mediaType, "text/"))
	bound := int64(maxAttachment)
	if !isAttachment && strings.HasPrefix(mediaType, "text/") && w.lim.MaxTextBytes > 0 {
		bound = w.lim.MaxTextBytes // a body: only what the text keeps
	}
	if w.lim.MaxFileBytes > 0 {
		bound = min(bound, w.lim.MaxFileBytes)
	}
	data, err := io.ReadAll(io.LimitReader(decodeTransfer(body, cte), bound+1))
	if err != nil {
		w.warnings = append(w.warnings, fmt.Sprintf("part %q unreadable: %v", name, err))
		return
	}
	if int64(len(data)) > bound {
		// The rest of the part is left to the reader of the parts, which
		// skips it as it goes to the next one.
		if isAttachment || !strings.HasPrefix(mediaType, "text/") {
			w.warnings = append(w.warnings, fmt.Sprintf("attachment %s skipped: larger than %s", firstNonEmpty(filepath.Base(name), mediaType), humanize.Bytes(bound)))
			return
		}
		data = data[:bound]
		w.warnings = append(w.warnings, fmt.Sprintf("text cut at %s (limit)", humanize.Bytes(bound)))
	}
	if !isAttachment && mediaType == "text/plain" && w.plain == "" {
		w.plain = normalizeNewlines(decodeCharset(data, params["charset"]))
		return
	}
	if !isAttachment && mediaType == "text/html" && w.html == "" {
		text, err := HTMLText(w.ctx, []byte(decodeCharset(data, params["charset"])))
		if err == nil {
			w.html = text
		}
		return
	}
	if mediaType == "message/rfc822" {
		if name == "" {
			name = "forwarded message.eml"
		}
	}
	if name == "" {
		return // inline parts without a name (signatures, calendar blobs) carry no document
	}
	name = filepath.Base(name)
	if mediaType == "message/rfc822" && filepath.Ext(name) == "" {
		name += ".eml"
	}
	doc, err := w.reg.ExtractNested(w.ctx, File{Name: name, Size: int64(len(data)), R: bytes.NewReader(data)}, w.lim)
	if err != nil {
		w.warnings = append(w.warnings, fmt.Sprintf("attachment %s skipped: %v", name, err))
		return
	}
	w.attachments = append(w.attachments, attachment{name: name, doc: doc})
	w.warnings = append(w.warnings, prefixAll("attachment "+name+": ", doc.Warnings)...)
}

// maxAttachment bounds an attachment read from a message: its bytes are
// held while it is extracted (a 200 MB attachment in a mailbox took 0.9 GB);
// a larger one is skipped with a warning. maxHeaders bounds a message's
// headers, which are read whole.
const (
	maxAttachment = 32 << 20
	maxHeaders    = 1 << 20
)

var errLongHeaders = errors.New("headers longer than 1 MB")

// headerGuard fails once more than left bytes are read (while left >= 0):
// mail.ReadMessage holds the headers whole.
type headerGuard struct {
	r    io.Reader
	left int64
}

func (g *headerGuard) Read(p []byte) (int, error) {
	if g.left < 0 {
		return g.r.Read(p)
	}
	if g.left == 0 {
		return 0, errLongHeaders
	}
	n, err := g.r.Read(p[:min(int64(len(p)), g.left)])
	g.left -= int64(n)
	return n, err
}

// parseMediaType reads a Content-Type or Content-Disposition value. Where
// mime.ParseMediaType refuses a value that breaks RFC 2045 in the ways real
// mailers do (an unquoted boundary holding '=' or spaces, ";;"), it reads
// it as mail clients do: parameters split at ';' outside quotes, each value
// running to the next ';'. The type is lower-cased; "" when there is none.
func parseMediaType(v string) (string, map[string]string) {
	if typ, params, err := mime.ParseMediaType(v); err == nil {
		return typ, params
	}
	var segs []string
	start, quoted := 0, false
	for i := 0; i < len(v); i++ {
		switch c := v[i]; {
		case c == '\\' && quoted:
			i++
		case c == '"':
			quoted = !quoted
		case c == ';' && !quoted:
			segs = append(segs, v[start:i])
			start = i + 1
		}
	}
	segs = append(segs, v[start:])
	typ := strings.ToLower(strings.TrimSpace(segs[0]))
	if strings.ContainsAny(typ, " =\"") {
		typ = "" // not a media type at all
	}
	params := map[string]string{}
	for _, seg := range segs[1:] {
		k, val, ok := strings.Cut(seg, "=")
		k = strings.ToLower(strings.TrimSpace(k))
		if !ok || k == "" {
			continue
		}
		val = strings.TrimSpace(val)
		if len(val) >= 2 && val[0] == '"' && val[len(val)-1] == '"' {
			val = strings.NewReplacer(`\\`, `\`, `\"`, `"`).Replace(val[1 : len(val)-1])
		}
		if _, seen := params[k]; !seen {
			params[k] = val
		}
	}
	return typ, params
}

func decodeTransfer(r io.Reader, cte string) io.Reader {
	switch strings.ToLower(strings.TrimSpace(cte)) {
	case "base64":
		return base64.NewDecoder(base64.StdEncoding, &stripSpace{r: r})
	case "quoted-printable":
		return quotedprintable.NewReader(r)
	}
	return r
}

// stripSpace drops CR, LF, spaces and tabs, which base64 bodies wrap with.
type stripSpace struct{ r io.Reader }

func (s *stripSpace) Read(p []byte) (int, error) {
	for {
		n, err := s.r.Read(p)
		j := 0
		for _, c := range p[:n] {
			if c != '\r' && c != '\n' && c != ' ' && c != '\t' {
				p[j] = c
				j++
			}
		}
		if j > 0 || err != nil {
			return j, err
		}
	}
}

// decodeCharset converts data in the named charset to UTF-8, falling back to
// decodeText's guess when the charset is missing or unknown.
func decodeCharset(data []byte, charset string) string {
	cs := strings.ToLower(strings.TrimSpace(charset))
	if cs == "" || cs == "utf-8" || cs == "us-ascii" || cs == "utf8" {
		s, _ := decodeText(data)
		return s
	}
	enc, err := htmlindex.Get(cs)
	if err != nil {
		s, _ := decodeText(data)
		return s
	}
	out, err := enc.NewDecoder().Bytes(data)
	if err != nil {
		s, _ := decodeText(data)
		return s
	}
	return strings.ToValidUTF8(string(out), "\uFFFD")
}

func charsetReader(charset string, input io.Reader) (io.Reader, error) {
	enc, err := htmlindex.Get(strings.ToLower(charset))
	if err != nil {
		return nil, fmt.Errorf("unknown charset %q", charset)
	}
	return enc.NewDecoder().Reader(input), nil
}

func prefixAll(prefix string, ss []string) []string {
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = prefix + s
	}
	return out
}

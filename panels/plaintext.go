package panels

import (
	"regexp"
	"strconv"
	"strings"

	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"cairn/core/search"
)

// Document text is shown as it is written: never parsed as Markdown, whose
// rules read a man page's "-U, --binary" as a list and its "**" or "#" as
// markup. plainText lays text out one row per line; the only marks are the
// highlighted query terms and the [n] citation links.

// plainText lays text out as rows, one per line of text, keeping every
// character (leading spaces included). marks turns the line text[start:end]
// into segments; they must be inline, and plainText ends each row.
func plainText(text string, marks func(start, end int) []widget.RichTextSegment) []widget.RichTextSegment {
	var segs []widget.RichTextSegment
	start := 0
	for {
		end := strings.IndexByte(text[start:], '\n')
		last := end < 0
		if last {
			end = len(text)
		} else {
			end += start
		}
		stop := end
		if stop > start && text[stop-1] == '\r' {
			stop-- // a CRLF file's line ends with a \r, which has no glyph
		}
		line := marks(start, stop)
		// A row ends after a block segment: the line's last text piece
		// becomes one, or an empty one follows a link.
		if ts, ok := lastText(line); ok {
			ts.Style.Inline = false
		} else {
			line = append(line, &widget.TextSegment{Style: widget.RichTextStyleParagraph})
		}
		segs = append(segs, line...)
		if last {
			return segs
		}
		start = end + 1
	}
}

func lastText(line []widget.RichTextSegment) (*widget.TextSegment, bool) {
	if len(line) == 0 {
		return nil, false
	}
	ts, ok := line[len(line)-1].(*widget.TextSegment)
	return ts, ok
}

// highlightStyle marks the query's terms inside a snippet.
var highlightStyle = widget.RichTextStyle{
	Inline:    true,
	ColorName: theme.ColorNamePrimary,
	TextStyle: widget.RichTextStyleStrong.TextStyle,
}

// highlighted lays text out as plain text with the spans (byte offsets
// into text, in order, not overlapping) highlighted.
func highlighted(text string, spans []search.Span) []widget.RichTextSegment {
	return plainText(text, func(start, end int) []widget.RichTextSegment {
		var segs []widget.RichTextSegment
		plain := func(s string) {
			if s != "" {
				segs = append(segs, &widget.TextSegment{Style: widget.RichTextStyleInline, Text: s})
			}
		}
		at := start
		for _, sp := range spans {
			if sp.Start >= sp.End || sp.End > len(text) {
				continue // malformed: show the text unmarked
			}
			// A span across a line break is marked on both lines.
			from, to := max(sp.Start, start), min(sp.End, end)
			if from >= to || from < at {
				continue // on another line, or overlapping the previous span
			}
			plain(text[at:from])
			segs = append(segs, &widget.TextSegment{Style: highlightStyle, Text: text[from:to]})
			at = to
		}
		plain(text[at:end])
		return segs
	})
}

// citationRE finds the [n] citations of an answer.
var citationRE = regexp.MustCompile(`\[(\d+)\]`)

// citedText lays an answer's text out as plain text with every [n] of cited
// turned into a link calling onCite(n); any other [n] stays text.
func citedText(text string, cited map[int]bool, onCite func(int)) []widget.RichTextSegment {
	return plainText(text, func(start, end int) []widget.RichTextSegment {
		line := text[start:end]
		var segs []widget.RichTextSegment
		var plain strings.Builder
		flush := func() {
			if plain.Len() > 0 {
				segs = append(segs, &widget.TextSegment{Style: widget.RichTextStyleInline, Text: plain.String()})
				plain.Reset()
			}
		}
		at := 0
		for _, l := range citationRE.FindAllStringSubmatchIndex(line, -1) {
			plain.WriteString(line[at:l[0]])
			at = l[1]
			n, err := strconv.Atoi(line[l[2]:l[3]])
			if err != nil || !cited[n] {
				plain.WriteString(line[l[0]:l[1]])
				continue
			}
			flush()
			segs = append(segs, &widget.HyperlinkSegment{Text: line[l[0]:l[1]], OnTapped: func() { onCite(n) }})
		}
		plain.WriteString(line[at:])
		flush()
		return segs
	})
}

// A chat model writes Markdown out of habit. Its answer is shown without
// the markers, as plain lines: the answer quotes document text, which the
// Markdown rules would mangle, so the text is never parsed, only these
// few markers are taken away.
var (
	headingRE  = regexp.MustCompile(`(?m)^[ \t]*#{1,6}[ \t]+`)
	bulletRE   = regexp.MustCompile(`(?m)^([ \t]*)[-*+][ \t]+`)
	fenceRE    = regexp.MustCompile("(?m)^[ \\t]*```[^\\n]*(\\n|$)")
	strongRE   = regexp.MustCompile(`\*\*`)
	emRE       = regexp.MustCompile(`\*[^\s*](?:[^*\n]*[^\s*])?\*`)
	backtickRE = regexp.MustCompile("`([^`\\n]+)`")
)

// withoutMarkdown takes a generated answer's Markdown markers away:
// headings' #, bold's **, emphasis's *, code's backticks and fences; list
// items start with a bullet. Bold's __ stays: it is also Python's
// __init__.
func withoutMarkdown(s string) string {
	s = fenceRE.ReplaceAllString(s, "")
	s = headingRE.ReplaceAllString(s, "")
	s = bulletRE.ReplaceAllString(s, "$1• ")
	s = strongRE.ReplaceAllString(s, "")
	s = withoutEmphasis(s)
	return backtickRE.ReplaceAllString(s, "$1")
}

// withoutEmphasis takes away the stars of *emphasis*: a pair around text
// that starts and ends with a letter, not inside a word, so that "2*3*4"
// and a lone "*" stay.
func withoutEmphasis(s string) string {
	var b strings.Builder
	at := 0
	for _, m := range emRE.FindAllStringIndex(s, -1) {
		if m[0] > 0 && isWordByte(s[m[0]-1]) || m[1] < len(s) && isWordByte(s[m[1]]) {
			continue
		}
		b.WriteString(s[at:m[0]])
		b.WriteString(s[m[0]+1 : m[1]-1])
		at = m[1]
	}
	b.WriteString(s[at:])
	return b.String()
}

func isWordByte(c byte) bool {
	return c == '_' || '0' <= c && c <= '9' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || c >= 0x80
}

// withoutOpenMarkers takes away, on the last line of a streamed answer,
// the star of an *emphasis or the backtick of a `code span that is not
// closed yet.
func withoutOpenMarkers(s string) string {
	line := strings.LastIndexByte(s, '\n') + 1
	if i := strings.LastIndexByte(s[line:], '`'); i >= 0 {
		s = s[:line+i] + s[line+i+1:]
	}
	i := strings.LastIndexByte(s[line:], '*')
	if i < 0 {
		return s
	}
	i += line
	if i+1 < len(s) && s[i+1] != ' ' && (i == line || !isWordByte(s[i-1])) {
		return s[:i] + s[i+1:]
	}
	return s
}

// partialMarkers are the characters a Markdown marker begins with ("#"
// of "## ", "*" of "**"): at the end of a streamed answer they are held
// back until the next piece shows whether they are a marker.
const partialMarkers = "#*`"

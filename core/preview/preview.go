// Package preview shows a cited passage where it sits in its file: the
// page (or the lines around it) with the passage located in that text, and
// for a PDF the page drawn as an image by poppler's pdftoppm. It decides
// which text a citation shows; the window only presents it.
package preview

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os/exec"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Preview is the text around a passage, with the passage's place in it.
type Preview struct {
	Path string
	// Page is the physical page (1-based) the passage is on; 0 for a
	// format without pages.
	Page int
	// Text is the page's text, or for a format without pages the lines
	// around the passage, starting at line FirstLine of the document text.
	Text      string
	FirstLine int
	// Start and End are the passage's byte offsets in Text; Found is false
	// when the file changed since it was indexed and the passage is no
	// longer in it (Text is then the indexed passage alone).
	Start, End int
	Found      bool
	Note       string // what the person should know, e.g. the file changed
}

// contextLines is how many lines around a passage a text preview shows.
const contextLines = 12

// Lines returns the preview of a passage of a document without pages:
// text is the document text the passage was cut from, passage its text,
// lineStart and lineEnd the 1-based lines the index recorded.
func Lines(text, passage string, lineStart, lineEnd int) Preview {
	start, end, ok := Locate(text, passage)
	if !ok {
		return notFound(passage)
	}
	// The text found may be an earlier copy of the same words: prefer the
	// one on the recorded line.
	if lineStart > 0 {
		if s, e, ok := locateFrom(text, passage, lineOffset(text, lineStart)); ok {
			start, end = s, e
		}
	}
	first := max(1, strings.Count(text[:start], "\n")+1-contextLines)
	last := strings.Count(text[:end], "\n") + 1 + contextLines
	from := lineOffset(text, first)
	shown := strings.TrimSuffix(text[:lineOffset(text, last+1)], "\n")[from:]
	return Preview{Text: shown, FirstLine: first, Start: start - from, End: min(end-from, len(shown)), Found: true}
}

// Page returns the preview of a passage on a page whose text is page.
func Page(page, passage string, n int) Preview {
	start, end, ok := Locate(page, passage)
	if !ok {
		p := notFound(passage)
		p.Page = n
		return p
	}
	return Preview{Text: page, Page: n, Start: start, End: end, Found: true}
}

func notFound(passage string) Preview {
	return Preview{Text: passage, Start: 0, End: len(passage),
		Note: "The passage is no longer where it was indexed: the file changed since. Re-index its folder; shown is the passage as indexed."}
}

// lineOffset is the byte offset of 1-based line n of text (len(text) past
// the end).
func lineOffset(text string, n int) int {
	off := 0
	for i := 1; i < n; i++ {
		j := strings.IndexByte(text[off:], '\n')
		if j < 0 {
			return len(text)
		}
		off += j + 1
	}
	return off
}

// Locate finds passage in text. The passage is matched word by word,
// ignoring case, punctuation and spacing: a PDF page read again by
// pdftotext keeps its hyphenation and running headers, which the indexed
// passage has lost. The span runs from the first word of the passage to its
// last; ok is false when the passage's opening and closing words are not
// both found in order.
func Locate(text, passage string) (start, end int, ok bool) {
	return locateFrom(text, passage, 0)
}

// anchorWords is how many words must match in a row to place the passage's
// start or end: enough that a common phrase does not place it wrongly.
const anchorWords = 4

func locateFrom(text, passage string, from int) (start, end int, ok bool) {
	if i := strings.Index(text[from:], passage); i >= 0 && passage != "" {
		return from + i, from + i + len(passage), true
	}
	tw, pw := words(text[from:]), words(passage)
	if len(pw) == 0 || len(tw) == 0 {
		return 0, 0, false
	}
	n := min(anchorWords, len(pw))
	// The passage's first words may be a heading or a hyphenated word that
	// the page writes differently: try anchors further in.
	for skip := 0; skip+n <= len(pw) && skip < 8; skip++ {
		si := find(tw, pw[skip:skip+n], 0)
		if si < 0 {
			continue
		}
		for back := 0; back+n <= len(pw)-skip && back < 8; back++ {
			tail := pw[len(pw)-back-n : len(pw)-back]
			ei := findLast(tw, tail, si)
			if ei < 0 {
				continue
			}
			last := tw[ei+n-1]
			return from + tw[si].start, from + last.end, true
		}
	}
	return 0, 0, false
}

type word struct {
	text       string
	start, end int
}

// words splits s into lower-case runs of letters and digits.
func words(s string) []word {
	var out []word
	i := 0
	for i < len(s) {
		r, size := utf8.DecodeRuneInString(s[i:])
		if !unicode.IsLetter(r) && !unicode.IsDigit(r) {
			i += size
			continue
		}
		j := i
		for j < len(s) {
			r, size := utf8.DecodeRuneInString(s[j:])
			if !unicode.IsLetter(r) && !unicode.IsDigit(r) {
				break
			}
			j += size
		}
		out = append(out, word{strings.ToLower(s[i:j]), i, j})
		i = j
	}
	return out
}

func find(tw, pw []word, from int) int {
	for i := from; i+len(pw) <= len(tw); i++ {
		if match(tw[i:i+len(pw)], pw) {
			return i
		}
	}
	return -1
}

func findLast(tw, pw []word, from int) int {
	for i := len(tw) - len(pw); i >= from; i-- {
		if match(tw[i:i+len(pw)], pw) {
			return i
		}
	}
	return -1
}

func match(a, b []word) bool {
	for i := range b {
		if a[i].text != b[i].text {
			return false
		}
	}
	return true
}

// ErrNoPoppler says the PDF tools are missing.
var ErrNoPoppler = errors.New("poppler-utils is not installed (Debian: sudo apt-get install poppler-utils)")

// PDFPageText reads page n (1-based) of the PDF at path with pdftotext, in
// the same reading order the indexer uses.
func PDFPageText(ctx context.Context, path string, n int) (string, error) {
	s := strconv.Itoa(n)
	out, err := poppler(ctx, "pdftotext", "-enc", "UTF-8", "-eol", "unix", "-f", s, "-l", s, path, "-")
	if err != nil {
		return "", fmt.Errorf("read page %d of %s: %w", n, path, err)
	}
	return strings.TrimRight(string(out), "\f\n"), nil
}

// RenderPDFPage draws page n (1-based) of the PDF at path as a PNG scaled
// to fit width pixels wide, with pdftoppm.
func RenderPDFPage(ctx context.Context, path string, n, width int) ([]byte, error) {
	s := strconv.Itoa(n)
	out, err := poppler(ctx, "pdftoppm", "-f", s, "-l", s, "-scale-to-x", strconv.Itoa(width), "-scale-to-y", "-1", "-png", "-singlefile", path)
	if err != nil {
		return nil, fmt.Errorf("draw page %d of %s: %w", n, path, err)
	}
	return out, nil
}

// poppler runs a poppler tool and returns its standard output; without an
// output file, pdftoppm and pdftotext ("-") write there.
func poppler(ctx context.Context, tool string, args ...string) ([]byte, error) {
	bin, err := exec.LookPath(tool)
	if err != nil {
		return nil, ErrNoPoppler
	}
	cmd := exec.CommandContext(ctx, bin, args...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		msg := strings.TrimSpace(stderr.String())
		if msg == "" {
			msg = err.Error()
		}
		return nil, fmt.Errorf("%s: %s", tool, msg)
	}
	return stdout.Bytes(), nil
}

package extract

import (
	"context"
	"fmt"
	"io"
	"strings"
	"unicode/utf16"
	"unicode/utf8"

	"cairn/core/humanize"
)

// Extensions read as plain text. Markdown, HTML and e-mail have their own
// extractors; everything here is indexed as it is written.
var (
	plainExts = []string{
		".txt", ".text", ".log", ".rst", ".adoc", ".org", ".tex", ".srt", ".vtt",
		".json", ".jsonl", ".ndjson", ".xml", ".yaml", ".yml",
		".ini", ".cfg", ".conf", ".toml", ".properties", ".env", ".diff", ".patch",
	}
	codeExts = []string{
		".go", ".py", ".pyi", ".js", ".mjs", ".cjs", ".ts", ".tsx", ".jsx", ".java",
		".kt", ".kts", ".scala", ".c", ".h", ".cc", ".cpp", ".cxx", ".hpp", ".hh",
		".cs", ".fs", ".rb", ".rs", ".php", ".swift", ".m", ".mm", ".sh", ".bash",
		".zsh", ".fish", ".ps1", ".bat", ".cmd", ".sql", ".lua", ".pl", ".pm", ".r",
		".jl", ".dart", ".ex", ".exs", ".erl", ".hs", ".ml", ".clj", ".el", ".vim",
		".css", ".scss", ".sass", ".less", ".vue", ".svelte", ".proto", ".graphql",
		".tf", ".hcl", ".gradle", ".cmake", ".mk", ".dockerfile", ".nix", ".zig", ".v",
	}
	markdownExts = []string{".md", ".markdown", ".mdown", ".mkd"}
)

func registerText(r *Registry) {
	r.Register(ExtractorFunc(extractPlain("text")), plainExts...)
	r.Register(ExtractorFunc(extractPlain("code")), codeExts...)
	r.Register(ExtractorFunc(extractPlain("markdown")), markdownExts...)
	r.Register(ExtractorFunc(extractHTML), ".html", ".htm", ".xhtml")
	r.Register(ExtractorFunc(extractCSV), ".csv", ".tsv")
	r.Register(ExtractorFunc(extractEmail(r)), ".eml")
}

// extractPlain reads the file as text in whatever encoding decodeText finds:
// no more of it than the text limit keeps (readText).
func extractPlain(format string) func(ctx context.Context, f File, lim Limits) (*Document, error) {
	return func(ctx context.Context, f File, lim Limits) (*Document, error) {
		raw, cut, err := readText(f, lim)
		if err != nil {
			return nil, err
		}
		return plainDocument(format, f, raw, cut, lim)
	}
}

// plainDocument is the document of the text file whose bytes raw holds
// (the start of f when cut).
func plainDocument(format string, f File, raw string, cut bool, lim Limits) (*Document, error) {
	if !looksText([]byte(raw[:min(len(raw), 8192)])) {
		return nil, fmt.Errorf("%w: %s has a text extension but binary content", ErrBinary, ext(f.Name))
	}
	text, enc := decodeTextString(raw)
	doc := &Document{Format: format, Text: normalizeNewlines(text)}
	if format == "markdown" {
		doc.Headings = markdownHeadings(doc.Text)
		doc.Text = plainMarkdown(doc.Text)
	}
	if enc != "utf-8" {
		doc.Warnings = append(doc.Warnings, "decoded as "+enc)
	}
	if cut {
		doc.Text = cutAt(doc.Text, int(lim.MaxTextBytes))
		doc.Warnings = append(doc.Warnings, fmt.Sprintf("text cut at %s (limit)", humanize.Bytes(lim.MaxTextBytes)))
	}
	return doc, nil
}

// readText reads the start of a text file as its bytes: as much as the
// text limit keeps, not the whole file (1 GB of one word took 2.2 GB),
// into a string read once (not bytes copied into one). cut reports that
// the file goes on.
func readText(f File, lim Limits) (raw string, cut bool, err error) {
	if lim.MaxFileBytes > 0 && f.Size > lim.MaxFileBytes {
		return "", false, fmt.Errorf("%w: %s", ErrTooLarge, humanize.Bytes(f.Size))
	}
	n := f.Size
	if lim.MaxTextBytes > 0 && n > lim.MaxTextBytes {
		n, cut = lim.MaxTextBytes, true
	}
	var sb strings.Builder
	sb.Grow(int(n))
	if _, err := io.Copy(&sb, io.NewSectionReader(f.R, 0, n)); err != nil {
		return "", false, fmt.Errorf("read %s: %w", f.Name, err)
	}
	out := sb.String()
	if cut {
		// The cut may fall inside a character: drop its first bytes, or
		// the whole text would read as invalid UTF-8 (decodeTextString).
		for i := 0; i < utf8.UTFMax && len(out) > 0; i++ {
			if r, size := utf8.DecodeLastRuneInString(out); r != utf8.RuneError || size != 1 {
				break
			}
			out = out[:len(out)-1]
		}
	}
	return out, cut, nil
}

// decodeTextString is decodeText for text read as a string, which it
// returns as it is when it is valid UTF-8 without a byte order mark.
func decodeTextString(s string) (string, string) {
	if strings.HasPrefix(s, "\xEF\xBB\xBF") || strings.HasPrefix(s, "\xFF\xFE") || strings.HasPrefix(s, "\xFE\xFF") || !utf8.ValidString(s) {
		return decodeText([]byte(s))
	}
	return s, "utf-8"
}

// readAll reads the whole file, refusing files above MaxFileBytes.
func readAll(f File, lim Limits) ([]byte, error) {
	if lim.MaxFileBytes > 0 && f.Size > lim.MaxFileBytes {
		return nil, fmt.Errorf("%w: %s", ErrTooLarge, humanize.Bytes(f.Size))
	}
	b := make([]byte, f.Size)
	n, err := f.R.ReadAt(b, 0)
	if err != nil && err != io.EOF {
		return nil, fmt.Errorf("read %s: %w", f.Name, err)
	}
	return b[:n], nil
}

// decodeText converts b to UTF-8 and names the encoding it assumed: a BOM
// decides UTF-8/UTF-16; valid UTF-8 stays as it is. Otherwise the file is
// read sequence by sequence, because real files mix encodings (a UTF-8 file
// with lines pasted from a Latin-1 one): valid UTF-8 sequences stay UTF-8,
// a cut-off UTF-8 sequence (a lead byte and too few continuation bytes)
// becomes U+FFFD, and every other stray byte is read as Windows-1252 (a
// superset of Latin-1 that most legacy Western text uses). A file without
// any valid multi-byte sequence is thus plain Windows-1252.
func decodeText(b []byte) (string, string) {
	switch {
	case len(b) >= 3 && b[0] == 0xEF && b[1] == 0xBB && b[2] == 0xBF:
		return strings.ToValidUTF8(string(b[3:]), "\uFFFD"), "utf-8"
	case len(b) >= 2 && b[0] == 0xFF && b[1] == 0xFE:
		return decodeUTF16(b[2:], false), "utf-16le"
	case len(b) >= 2 && b[0] == 0xFE && b[1] == 0xFF:
		return decodeUTF16(b[2:], true), "utf-16be"
	}
	if utf8.Valid(b) {
		return string(b), "utf-8"
	}
	var sb strings.Builder
	sb.Grow(len(b) + len(b)/8)
	multi, legacy, cut := 0, 0, 0
	for i := 0; i < len(b); {
		r, size := utf8.DecodeRune(b[i:])
		if r != utf8.RuneError || size > 1 {
			if size > 1 {
				multi++
			}
			sb.Write(b[i : i+size])
			i += size
			continue
		}
		if n := cutSequence(b[i:]); n > 0 {
			cut++
			sb.WriteRune(utf8.RuneError)
			i += n
			continue
		}
		legacy++
		writeWindows1252(&sb, b[i])
		i++
	}
	switch {
	case multi == 0 && cut == 0:
		return sb.String(), "windows-1252"
	case legacy == 0:
		return sb.String(), "utf-8 with invalid bytes replaced"
	}
	return sb.String(), fmt.Sprintf("utf-8, with %d stray bytes read as windows-1252", legacy)
}

// cutSequence returns the length of the broken UTF-8 sequence at the start
// of b (a lead byte and continuation bytes that do not make a character, or
// a lead byte that ends the file), or 0 when b does not start with one.
func cutSequence(b []byte) int {
	want := 0
	switch c := b[0]; {
	case c >= 0xC2 && c <= 0xDF:
		want = 2
	case c >= 0xE0 && c <= 0xEF:
		want = 3
	case c >= 0xF0 && c <= 0xF4:
		want = 4
	default:
		return 0
	}
	n := 1
	for n < len(b) && n < want && b[n] >= 0x80 && b[n] <= 0xBF {
		n++
	}
	if n == 1 && len(b) > 1 {
		return 0 // a lone lead byte before other text is a Latin-1 letter ("\xe9t\xe9")
	}
	return n
}

func decodeUTF16(b []byte, bigEndian bool) string {
	u := make([]uint16, len(b)/2)
	for i := range u {
		if bigEndian {
			u[i] = uint16(b[2*i])<<8 | uint16(b[2*i+1])
		} else {
			u[i] = uint16(b[2*i+1])<<8 | uint16(b[2*i])
		}
	}
	return string(utf16.Decode(u))
}

// cp1252 maps bytes 0x80-0x9F, where Windows-1252 differs from Latin-1.
var cp1252 = [32]rune{
	'€', '\uFFFD', '‚', 'ƒ', '„', '…', '†', '‡', 'ˆ', '‰', 'Š', '‹', 'Œ', '\uFFFD', 'Ž', '\uFFFD',
	'\uFFFD', '‘', '’', '“', '”', '•', '–', '—', '˜', '™', 'š', '›', 'œ', '\uFFFD', 'ž', 'Ÿ',
}

func writeWindows1252(sb *strings.Builder, c byte) {
	switch {
	case c < 0x80:
		sb.WriteByte(c)
	case c < 0xA0:
		sb.WriteRune(cp1252[c-0x80])
	default:
		sb.WriteRune(rune(c))
	}
}

// normalizeNewlines turns CRLF and lone CR into LF so line numbers and
// offsets agree with what editors show.
func normalizeNewlines(s string) string {
	if strings.IndexByte(s, '\r') < 0 {
		return s
	}
	s = strings.ReplaceAll(s, "\r\n", "\n")
	return strings.ReplaceAll(s, "\r", "\n")
}

package extract

import (
	"context"
	"fmt"
	"io"
	"strings"
	"unicode/utf16"
	"unicode/utf8"
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

// extractPlain reads the file as text in whatever encoding decodeText finds.
func extractPlain(format string) func(ctx context.Context, f File, lim Limits) (*Document, error) {
	return func(ctx context.Context, f File, lim Limits) (*Document, error) {
		b, err := readAll(f, lim)
		if err != nil {
			return nil, err
		}
		if !looksText(b[:min(len(b), 8192)]) {
			return nil, fmt.Errorf("%w: %s has a text extension but binary content", ErrBinary, ext(f.Name))
		}
		text, enc := decodeText(b)
		doc := &Document{Format: format, Text: normalizeNewlines(text)}
		if format == "markdown" {
			doc.Headings = markdownHeadings(doc.Text)
		}
		if enc != "utf-8" {
			doc.Warnings = append(doc.Warnings, "decoded as "+enc)
		}
		return doc, nil
	}
}

// readAll reads the whole file, refusing files above MaxFileBytes.
func readAll(f File, lim Limits) ([]byte, error) {
	if lim.MaxFileBytes > 0 && f.Size > lim.MaxFileBytes {
		return nil, fmt.Errorf("%w: %s", ErrTooLarge, formatBytes(f.Size))
	}
	b := make([]byte, f.Size)
	n, err := f.R.ReadAt(b, 0)
	if err != nil && err != io.EOF {
		return nil, fmt.Errorf("read %s: %w", f.Name, err)
	}
	return b[:n], nil
}

// decodeText converts b to UTF-8 and names the encoding it assumed: a BOM
// decides UTF-8/UTF-16; valid UTF-8 stays as it is; text that is mostly
// UTF-8 with a few broken bytes keeps its UTF-8 and replaces the broken
// bytes; anything else is read as Windows-1252 (a superset of Latin-1 that
// most legacy Western text uses).
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
	valid, invalid := 0, 0
	for i := 0; i < len(b); {
		r, size := utf8.DecodeRune(b[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			invalid++
		case size > 1:
			valid++
		}
		i += size
	}
	if valid > 0 && invalid*10 < valid {
		return strings.ToValidUTF8(string(b), "\uFFFD"), "utf-8 with invalid bytes replaced"
	}
	return decodeWindows1252(b), "windows-1252"
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

func decodeWindows1252(b []byte) string {
	var sb strings.Builder
	sb.Grow(len(b) + len(b)/8)
	for _, c := range b {
		switch {
		case c < 0x80:
			sb.WriteByte(c)
		case c < 0xA0:
			sb.WriteRune(cp1252[c-0x80])
		default:
			sb.WriteRune(rune(c))
		}
	}
	return sb.String()
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

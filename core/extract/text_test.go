package extract

import (
	"bytes"
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
)

func extractBytes(t *testing.T, r *Registry, name string, b []byte) (*Document, error) {
	t.Helper()
	return r.Extract(context.Background(), File{Name: name, Size: int64(len(b)), R: bytes.NewReader(b)})
}

func TestDecodeText(t *testing.T) {
	utf16le := []byte{0xFF, 0xFE, 'h', 0, 'i', 0, 0xE9, 0}
	utf16be := []byte{0xFE, 0xFF, 0, 'h', 0, 'i', 0, 0xE9}
	tests := []struct {
		name, want, enc string
		in              []byte
	}{
		{"utf8", "café", "utf-8", []byte("café")},
		{"utf8 bom", "café", "utf-8", append([]byte{0xEF, 0xBB, 0xBF}, "café"...)},
		{"utf16le bom", "hié", "utf-16le", utf16le},
		{"utf16be bom", "hié", "utf-16be", utf16be},
		{"latin1", "café crème", "windows-1252", []byte("caf\xe9 cr\xe8me")},
		{"cp1252 quotes", "“quoted” – dash", "windows-1252", []byte("\x93quoted\x94 \x96 dash")},
		{"cut utf8 sequence", "ééé\uFFFDx and end\uFFFD", "utf-8 with invalid bytes replaced", []byte("ééé\xe2\x80x and end\xc3")},
		// A UTF-8 file with lines pasted from a Latin-1 one: the valid
		// "café" stays, only the stray bytes are read as Windows-1252.
		{"mixed utf8 and latin1", "café\nété – “ok”\nnaïve", "utf-8, with 5 stray bytes read as windows-1252", []byte("café\n\xe9t\xe9 \x96 \x93ok\x94\nnaïve")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, enc := decodeText(tt.in)
			if got != tt.want || enc != tt.enc {
				t.Errorf("decodeText = %q (%s), want %q (%s)", got, enc, tt.want, tt.enc)
			}
		})
	}
}

func TestPlainTextExtraction(t *testing.T) {
	r := NewRegistry(DefaultLimits())
	doc, err := extractBytes(t, r, "notes.txt", []byte("line one\r\nline two\rline three"))
	if err != nil {
		t.Fatal(err)
	}
	if doc.Text != "line one\nline two\nline three" || doc.Format != "text" {
		t.Errorf("got %q format %q", doc.Text, doc.Format)
	}
	doc, err = extractBytes(t, r, "main.go", []byte("package main\n"))
	if err != nil || doc.Format != "code" {
		t.Errorf("go source: %v, format %q", err, doc.Format)
	}
	// No extension: sniffed as text.
	doc, err = extractBytes(t, r, "README", []byte("Read me first.\n"))
	if err != nil || doc.Text != "Read me first.\n" {
		t.Errorf("README: %v %q", err, doc.Text)
	}
}

func TestSkipReasons(t *testing.T) {
	r := NewRegistry(Limits{MaxFileBytes: 100})
	elf := append([]byte("\x7fELF\x02\x01\x01"), make([]byte, 64)...)
	tests := []struct {
		name string
		in   []byte
		want error
		msg  string
	}{
		{"empty.txt", nil, ErrEmpty, "empty file"},
		{"blank.txt", []byte("   \n\n"), ErrEmpty, "no extractable text"},
		{"program", elf, ErrBinary, "binary file"},
		{"data.txt", elf, ErrBinary, "binary content"},
		{"big.txt", bytes.Repeat([]byte("a"), 101), ErrTooLarge, "larger than the 100 B limit"},
		{"song.mp3", []byte("ID3\x03\x00\x00\x00\x00\x00\x00\xff\xfb\x90\x00\x00"), ErrBinary, "binary file"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := extractBytes(t, r, tt.name, tt.in)
			if !errors.Is(err, tt.want) || !IsSkip(err) || !strings.Contains(err.Error(), tt.msg) {
				t.Errorf("err = %v, want %v containing %q", err, tt.want, tt.msg)
			}
		})
	}
}

func TestInvalidUTF8IsDecoded(t *testing.T) {
	r := NewRegistry(DefaultLimits())
	doc, err := extractBytes(t, r, "bad.log", []byte("good \xff\xfe\xfd bytes \xc3\x28 end"))
	if err != nil {
		t.Fatal(err)
	}
	if doc.Text != "good ÿþý bytes Ã( end" {
		t.Errorf("text = %q", doc.Text)
	}
	if len(doc.Warnings) != 1 || doc.Warnings[0] != "decoded as windows-1252" {
		t.Errorf("warnings = %v", doc.Warnings)
	}
}

func TestPanickingExtractorIsContained(t *testing.T) {
	r := NewRegistry(DefaultLimits())
	r.Register(ExtractorFunc(func(context.Context, File, Limits) (*Document, error) {
		panic("boom")
	}), ".boom")
	_, err := extractBytes(t, r, "x.boom", []byte("data"))
	if err == nil || !strings.Contains(err.Error(), "extractor crashed on x.boom: boom") {
		t.Fatalf("err = %v", err)
	}
	if IsSkip(err) {
		t.Error("a crash is a failure, not a skip")
	}
}

func TestTextCutAtLimit(t *testing.T) {
	r := NewRegistry(Limits{MaxTextBytes: 10})
	doc, err := extractBytes(t, r, "a.txt", []byte("ééééééééééééééé"))
	if err != nil {
		t.Fatal(err)
	}
	if doc.Text != "ééééé" || len(doc.Warnings) != 1 {
		t.Errorf("text %q warnings %v", doc.Text, doc.Warnings)
	}
}

func TestSniff(t *testing.T) {
	tests := map[string]string{
		"%PDF-1.7\n":              "pdf",
		"PK\x03\x04rest":          "zip",
		"\x89PNG\r\n\x1a\nxxxx":   "png",
		"\xff\xd8\xff\xe0":        "jpeg",
		"{\\rtf1\\ansi":           "rtf",
		"plain words\n":           "text",
		"\x00\x01\x02\x03\x04bin": "binary",
	}
	for in, want := range tests {
		if got := Sniff([]byte(in)); got != want {
			t.Errorf("Sniff(%q) = %s, want %s", in, got, want)
		}
	}
}

// Markdown marks its headings; a "# comment" in a code block, YAML front
// matter and a line in capitals are none.
func TestMarkdownHeadings(t *testing.T) {
	src := "---\ntitle: Notes\n---\nSetup Guide\n===========\n\nIntro.\n\n## Install ##\n\n```sh\n# not a heading\n```\n\nWARNING\n\nLinux and macOS\n---------------\n\nText.\n- item\n---\n\n### Deep\n"
	doc, err := extractBytes(t, NewRegistry(DefaultLimits()), "notes.md", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	checkDocument(t, doc)
	equalStrings(t, "headings", headingSummary(doc), []string{"1 Setup Guide", "2 Install", "2 Linux and macOS", "3 Deep"})
	if h := doc.Headings[0]; h.Offset != strings.Index(src, "Setup Guide") {
		t.Errorf("setext heading at %d, want its title line", h.Offset)
	}
}

// A Markdown file's text is its text, not its syntax: no "##" or "**"
// reaches a snippet or a quote, while code keeps every character and the
// headings stay at their lines.
func TestMarkdownTextHasNoHeadingOrStrongMarks(t *testing.T) {
	src := "# Router manual\n\n## Factory reset ##\n\n**Note**: hold **RESET** for ten seconds; *.txt and __init__ stay.\n\n" +
		"```sh\n# keep this **code**\n```\n\n    ## indented code\n\nSetup\n=====\n"
	doc, err := extractBytes(t, NewRegistry(DefaultLimits()), "manual.md", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	checkDocument(t, doc)
	want := "Router manual  \n\nFactory reset      \n\nNote: hold RESET for ten seconds; *.txt and __init__ stay.        \n\n" +
		"```sh\n# keep this **code**\n```\n\n    ## indented code\n\nSetup\n     \n"
	if doc.Text != want {
		t.Errorf("text\n%q\nwant\n%q", doc.Text, want)
	}
	equalStrings(t, "headings", headingSummary(doc), []string{"1 Router manual", "2 Factory reset", "1 Setup"})
	for _, h := range doc.Headings {
		if !strings.HasPrefix(doc.Text[h.Offset:], h.Text) {
			t.Errorf("heading %q at %d, where the text reads %q", h.Text, h.Offset, doc.Text[h.Offset:min(len(doc.Text), h.Offset+20)])
		}
	}
}

// A text file mixing UTF-8 and Latin-1 is indexed, not skipped, with its
// UTF-8 intact and a warning that names what was guessed.
func TestMixedEncodingFileIsIndexed(t *testing.T) {
	doc, err := extractBytes(t, NewRegistry(DefaultLimits()), "notes.txt",
		[]byte(strings.Repeat("Le café est fermé.\n", 3)+"R\xe9sum\xe9 de la r\xe9union\n"))
	if err != nil {
		t.Fatal(err)
	}
	contains(t, "text", doc.Text, "Le café est fermé.", "Résumé de la réunion")
	lacks(t, "text", doc.Text, "Ã")
	equalStrings(t, "warnings", doc.Warnings, []string{"decoded as utf-8, with 3 stray bytes read as windows-1252"})
}

// A text file cut at the text limit inside a character keeps its encoding:
// the cut character's first byte is dropped, not the whole text read as
// invalid UTF-8 (and copied to be decoded again).
func TestATextCutInsideACharacterStaysUTF8(t *testing.T) {
	b := []byte(strings.Repeat("é", 1000)) // two bytes each
	lim := DefaultLimits()
	lim.MaxTextBytes = 1001
	d, err := NewRegistry(lim).Extract(context.Background(), File{Name: "notes.txt", Size: int64(len(b)), R: bytes.NewReader(b)})
	if err != nil {
		t.Fatal(err)
	}
	if d.Text != strings.Repeat("é", 500) || slices.ContainsFunc(d.Warnings, func(w string) bool { return strings.Contains(w, "invalid") }) {
		t.Errorf("text of %d bytes, warnings %q", len(d.Text), d.Warnings)
	}
}

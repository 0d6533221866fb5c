package bench

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"

	"golang.org/x/net/html"

	"cairn/core/extract"
	"cairn/core/search"
	"cairn/core/store"
)

// Passage is a row of a plain FTS5 baseline: a piece of a file's text and
// the page it is on (0 outside paged formats).
type Passage struct {
	Path string
	Page int
	Text string
}

// FTS5Baseline is the plain retrieval Cairn is compared with: one FTS5
// table (tokenizer porter unicode61, as Cairn's) of passages ranked by
// bm25(), with no chunking rules, headings, fusion or answer composition.
type FTS5Baseline struct {
	fts  *store.PlainFTS
	rows []Passage // by key, 0-based
}

// NewFTS5Baseline indexes passages in an in-memory FTS5 table.
func NewFTS5Baseline(passages []Passage) (*FTS5Baseline, error) {
	fts, err := store.OpenPlainFTS(":memory:", true)
	if err != nil {
		return nil, err
	}
	b := &FTS5Baseline{fts: fts, rows: passages}
	if err := fts.Begin(); err != nil {
		b.Close()
		return nil, err
	}
	for i, p := range passages {
		if err := fts.Add(strconv.Itoa(i), p.Text); err != nil {
			b.Close()
			return nil, err
		}
	}
	if err := fts.Commit(); err != nil {
		b.Close()
		return nil, err
	}
	return b, nil
}

// Top returns the k best passages for query, which is turned into the OR of
// its words the way the man-page baseline (QualityBench) does; none when no
// word matches.
func (b *FTS5Baseline) Top(query string, k int) ([]Passage, error) {
	m := search.MatchQuery(search.ParseTerms(query))
	if m == "" {
		return nil, nil
	}
	keys, err := b.fts.Search(m, k)
	var out []Passage
	for _, key := range keys {
		i, _ := strconv.Atoi(key)
		out = append(out, b.rows[i])
	}
	return out, err
}

// Close releases the table; safe on nil.
func (b *FTS5Baseline) Close() error {
	if b == nil {
		return nil
	}
	return b.fts.Close()
}

// BaselinePassageSize is the answers baseline's passage length in
// characters: Cairn's default chunk size, so both rank pieces of the same
// length.
const BaselinePassageSize = 1200

// SplitPassages cuts text into passages of at most size characters at line
// ends (a longer line is a passage of its own), dropping blank ones.
func SplitPassages(path string, page int, text string, size int) []Passage {
	var out []Passage
	var cur strings.Builder
	flush := func() {
		if strings.TrimSpace(cur.String()) != "" {
			out = append(out, Passage{Path: path, Page: page, Text: cur.String()})
		}
		cur.Reset()
	}
	for _, line := range strings.SplitAfter(text, "\n") {
		if cur.Len() > 0 && cur.Len()+len(line) > size {
			flush()
		}
		cur.WriteString(line)
	}
	flush()
	return out
}

// PDFPages returns the text of each page of a PDF as poppler reads it
// (pdftotext, reading order), index 0 being page 1.
func PDFPages(ctx context.Context, pdf string) ([]string, error) {
	out, err := exec.CommandContext(ctx, "pdftotext", "-q", "-enc", "UTF-8", pdf, "-").Output()
	if err != nil {
		return nil, fmt.Errorf("pdftotext %s (Debian package poppler-utils): %w", pdf, err)
	}
	pages := strings.Split(string(out), "\f")
	if n := len(pages); n > 0 && strings.TrimSpace(pages[n-1]) == "" {
		pages = pages[:n-1] // pdftotext ends every page, the last one too, with a form feed
	}
	return pages, nil
}

// HTMLText returns the text of an HTML document with a line break at each
// block element, without scripts and styles: the baselines' own reading,
// independent of Cairn's HTML extractor.
func HTMLText(b []byte) string {
	z := html.NewTokenizer(bytes.NewReader(b))
	var sb strings.Builder
	skip := 0
	for {
		tt := z.Next()
		switch tt {
		case html.ErrorToken:
			return sb.String()
		case html.StartTagToken, html.EndTagToken, html.SelfClosingTagToken:
			name, _ := z.TagName()
			switch string(name) {
			case "script", "style":
				if tt == html.StartTagToken {
					skip++
				} else if tt == html.EndTagToken && skip > 0 {
					skip--
				}
			case "p", "div", "br", "li", "tr", "dt", "dd", "pre", "h1", "h2", "h3", "h4", "h5", "h6", "table", "title":
				sb.WriteByte('\n')
			}
		case html.TextToken:
			if skip == 0 {
				sb.Write(z.Text())
			}
		}
	}
}

// FilePassages reads every file under dir the way the baselines do (text
// files as they are, PDFs through pdftotext page by page, HTML through
// HTMLText) and cuts each page into passages of size characters; size <= 0
// keeps one passage per page (per file for unpaged formats).
func FilePassages(ctx context.Context, dir string, size int) ([]Passage, error) {
	var out []Passage
	add := func(path string, page int, text string) {
		if size <= 0 {
			if strings.TrimSpace(text) != "" {
				out = append(out, Passage{Path: path, Page: page, Text: text})
			}
			return
		}
		out = append(out, SplitPassages(path, page, text, size)...)
	}
	err := filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		switch strings.ToLower(filepath.Ext(path)) {
		case ".pdf":
			pages, err := PDFPages(ctx, path)
			if err != nil {
				return err
			}
			for i, t := range pages {
				add(path, i+1, t)
			}
		case ".html", ".htm":
			b, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			add(path, 0, HTMLText(b))
		case ".epub", ".docx", ".odt", ".eml", ".mbox", ".rtf", ".pptx", ".odp", ".xlsx", ".ods":
			// Packaged formats: their text as Cairn extracts it (the
			// baseline compares retrieval and answers, not extraction).
			text, err := extractedText(ctx, path)
			if err != nil {
				return err
			}
			add(path, 0, text)
		default:
			b, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			add(path, 0, string(b))
		}
		return nil
	})
	return out, err
}

// extractedText is a packaged document's text as Cairn's extractor gives it.
func extractedText(ctx context.Context, path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return "", err
	}
	doc, err := extract.NewRegistry(extract.DefaultLimits()).Extract(ctx, extract.File{Name: path, Size: st.Size(), R: f})
	if err != nil {
		return "", fmt.Errorf("baseline: extract %s: %w", path, err)
	}
	return doc.Text, nil
}

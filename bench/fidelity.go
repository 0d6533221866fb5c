package bench

import (
	"bytes"
	"context"
	"encoding/xml"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"text/tabwriter"

	"cairn/core/extract"
)

// FormatF1 is the word-level F1 of Cairn's text of one fixture against the
// source the fixture was made from.
type FormatF1 struct {
	File      string  `json:"file"`
	Reference string  `json:"reference"`
	F1        float64 `json:"f1"`
}

// fidelitySources pairs the fixtures of testdata/formats with the sources
// generate.sh made them from (LibreOffice from the flat ODF files, pandoc
// from the Markdown): what the writer put in is the reference for what
// Cairn reads out. No LibreOffice, pandoc or other converter needs to be
// installed to measure.
var fidelitySources = []struct{ file, source string }{
	{"report.docx", "src/report.fodt"},
	{"report.odt", "src/report.fodt"},
	{"report.rtf", "src/report.fodt"},
	{"report.pdf", "src/report.fodt"},
	{"budget.xlsx", "src/budget.fods"},
	{"budget.ods", "src/budget.fods"},
	{"deck.pptx", "src/deck.md"},
	{"deck.odp", "src/deck.md"},
	{"book.epub", "src/book.md"},
}

// formatFidelity scores each fixture against its source.
func formatFidelity(ctx context.Context, w io.Writer, dir string) ([]FormatF1, error) {
	reg := extract.NewRegistry(extract.DefaultLimits())
	tw := tabwriter.NewWriter(w, 2, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "file\treference\tF1")
	var out []FormatF1
	for _, fs := range fidelitySources {
		b, err := os.ReadFile(filepath.Join(dir, fs.file))
		if err != nil {
			fmt.Fprintf(w, "left out %s: %v\n", fs.file, err)
			continue
		}
		ref, err := sourceText(filepath.Join(dir, fs.source))
		if err != nil {
			fmt.Fprintf(w, "left out %s: %v\n", fs.file, err)
			continue
		}
		doc, err := reg.Extract(ctx, extract.File{Name: fs.file, Size: int64(len(b)), R: bytes.NewReader(b)})
		if err != nil {
			return out, fmt.Errorf("%s: %w", fs.file, err)
		}
		s := FormatF1{File: fs.file, Reference: fs.source, F1: F1(Words(doc.Text), Words(ref))}
		out = append(out, s)
		fmt.Fprintf(tw, "%s\t%s\t%.3f\n", s.File, s.Reference, s.F1)
	}
	tw.Flush()
	fmt.Fprintln(w)
	return out, nil
}

// sourceText is the text of a fixture's source: the character data of a
// flat ODF file's body (paragraphs and cells, spaces and tabs as spaces),
// or a Markdown file without its YAML header's keys.
func sourceText(path string) (string, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return "", err
	}
	if strings.HasSuffix(path, ".md") {
		var sb strings.Builder
		inHeader := false
		for i, l := range strings.Split(string(b), "\n") {
			if strings.TrimSpace(l) == "---" && (i == 0 || inHeader) {
				inHeader = i == 0
				continue
			}
			if inHeader {
				_, l, _ = strings.Cut(l, ":")
			}
			sb.WriteString(l + "\n")
		}
		return sb.String(), nil
	}
	t, err := odfBodyText(b)
	if err != nil {
		return "", fmt.Errorf("%s: %w", path, err)
	}
	return t, nil
}

// odfBodyText is the character data of an ODF document's body (a flat
// file or a content.xml): paragraphs and cells, spaces and tabs as spaces.
func odfBodyText(b []byte) (string, error) {
	d := xml.NewDecoder(bytes.NewReader(b))
	var sb strings.Builder
	inBody := false
	for {
		tok, err := d.Token()
		if err == io.EOF {
			return sb.String(), nil
		}
		if err != nil {
			return "", err
		}
		switch e := tok.(type) {
		case xml.StartElement:
			switch e.Name.Local {
			case "body":
				inBody = true
			case "s", "tab", "line-break":
				sb.WriteByte(' ')
			}
		case xml.EndElement:
			switch e.Name.Local {
			case "body":
				inBody = false
			case "p", "h":
				sb.WriteByte('\n')
			}
		case xml.CharData:
			if inBody {
				sb.Write(e)
			}
		}
	}
}

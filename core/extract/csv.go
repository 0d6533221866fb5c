package extract

import (
	"context"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"cairn/core/humanize"
)

// extractCSV reads comma- or tab-separated values as a table: the first
// row names the columns and every other row is written as
// "Header: value | ..." like a spreadsheet, so a chunk of rows still says
// what each value is. The file is one sheet unit labelled with its name. A
// file that does not parse as a table is indexed as the text it is.
func extractCSV(ctx context.Context, f File, lim Limits) (*Document, error) {
	raw, cut, err := readText(f, lim)
	if err != nil {
		return nil, err
	}
	plain := func() (*Document, error) { return plainDocument("text", f, raw, cut, lim) }
	if !looksText([]byte(raw[:min(len(raw), 8192)])) {
		return nil, fmt.Errorf("%w: %s has a text extension but binary content", ErrBinary, ext(f.Name))
	}
	text, _ := decodeTextString(raw)
	src := &recordGuard{r: strings.NewReader(text)}
	r := csv.NewReader(src)
	src.csv = r
	r.FieldsPerRecord = -1 // ragged rows are common in exported data
	r.LazyQuotes = true
	r.ReuseRecord = false
	if ext(f.Name) == ".tsv" || (strings.Count(firstLine(text), "\t") > strings.Count(firstLine(text), ",")) {
		r.Comma = '\t'
	}
	var header []string
	var rows [][]string
	cells, size := int64(0), 0
	cutRows := false
	for {
		rec, err := r.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			var pe *csv.ParseError
			if errors.As(err, &pe) || errors.Is(err, errLongRecord) {
				return plain() // not a table after all: an unclosed quote, say
			}
			return nil, err
		}
		if len(rows)%1024 == 0 && ctx.Err() != nil {
			return nil, ctx.Err()
		}
		rec = trimRow(rec)
		if len(rec) == 0 {
			continue
		}
		if cells += int64(len(rec)); lim.MaxCells > 0 && cells > lim.MaxCells {
			cutRows = true
			break
		}
		if header == nil {
			header = rec
			continue
		}
		for _, c := range rec {
			size += len(c)
		}
		rows = append(rows, rec)
		if lim.MaxTextBytes > 0 && int64(size) > lim.MaxTextBytes {
			break // the text limit: the rows past it would be cut anyway
		}
	}
	if len(header) < 2 {
		return plain() // one column is a list, not a table
	}
	name := strings.TrimSuffix(filepath.Base(f.Name), filepath.Ext(f.Name))
	bd := newBuilder(lim)
	bd.startUnit(UnitSheet, 1, name)
	bd.block(tableText(header, rows, bd.room()))
	bd.endUnit()
	doc := bd.document("csv", "")
	if cutRows {
		doc.Warnings = append(doc.Warnings, fmt.Sprintf("csv: cut after %d cells", lim.MaxCells))
	}
	if cut {
		doc.Warnings = append(doc.Warnings, fmt.Sprintf("text cut at %s (limit)", humanize.Bytes(lim.MaxTextBytes)))
	}
	return doc, nil
}

// maxRecord bounds one CSV record: a quote that is never closed makes the
// rest of the file one field (a 50 MB file with one took 823 MB), which is
// text, not a table.
const maxRecord = 1 << 20

var errLongRecord = errors.New("csv: a record longer than 1 MB (a quote never closed?)")

// recordGuard feeds a csv.Reader and fails once it has been read more than
// maxRecord past the end of the last record the reader returned.
type recordGuard struct {
	r    io.Reader
	csv  *csv.Reader
	read int64
}

func (g *recordGuard) Read(p []byte) (int, error) {
	if g.read-g.csv.InputOffset() > maxRecord {
		return 0, errLongRecord
	}
	n, err := g.r.Read(p)
	g.read += int64(n)
	return n, err
}

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}

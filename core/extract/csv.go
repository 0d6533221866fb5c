package extract

import (
	"context"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strings"
)

// extractCSV reads comma- or tab-separated values as a table: the first
// row names the columns and every other row is written as
// "Header: value | ..." like a spreadsheet, so a chunk of rows still says
// what each value is. The file is one sheet unit labelled with its name. A
// file that does not parse as a table is indexed as the text it is.
func extractCSV(ctx context.Context, f File, lim Limits) (*Document, error) {
	plain := extractPlain("text")
	b, err := readAll(f, lim)
	if err != nil {
		return nil, err
	}
	if !looksText(b[:min(len(b), 8192)]) {
		return nil, fmt.Errorf("%w: %s has a text extension but binary content", ErrBinary, ext(f.Name))
	}
	text, _ := decodeText(b)
	r := csv.NewReader(strings.NewReader(text))
	r.FieldsPerRecord = -1 // ragged rows are common in exported data
	r.LazyQuotes = true
	r.ReuseRecord = false
	if ext(f.Name) == ".tsv" || (strings.Count(firstLine(text), "\t") > strings.Count(firstLine(text), ",")) {
		r.Comma = '\t'
	}
	var header []string
	var rows [][]string
	cells := int64(0)
	cut := false
	for {
		rec, err := r.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			var pe *csv.ParseError
			if errors.As(err, &pe) {
				return plain(ctx, f, lim) // not a table after all
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
			cut = true
			break
		}
		if header == nil {
			header = rec
			continue
		}
		rows = append(rows, rec)
	}
	if len(header) < 2 {
		return plain(ctx, f, lim) // one column is a list, not a table
	}
	name := strings.TrimSuffix(filepath.Base(f.Name), filepath.Ext(f.Name))
	bd := newBuilder(lim)
	bd.startUnit(UnitSheet, 1, name)
	bd.block(TableText(header, rows))
	bd.endUnit()
	doc := bd.document("csv", "")
	if cut {
		doc.Warnings = append(doc.Warnings, fmt.Sprintf("csv: cut after %d cells", lim.MaxCells))
	}
	return doc, nil
}

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}

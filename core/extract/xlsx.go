package extract

import (
	"archive/zip"
	"context"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/xuri/excelize/v2"

	"cairn/core/humanize"
)

// extractXLSX reads an Excel workbook (also .xlsm, .xltx) with excelize:
// one sheet unit per worksheet, labelled with the sheet's name; title rows
// above the table (one filled cell) as text, then the rows, as "Header:
// value | ..." lines when the first row plainly labels the columns (text
// over numbers, see splitSheet), so every chunk of rows still says what
// each value is, and as "value | value" lines otherwise. Values are the
// formatted ones a person sees ("1,234.50 €", "2024-03-15"), not the raw
// serial numbers.
func (r *Registry) extractXLSX(ctx context.Context, f File, lim Limits) (*Document, error) {
	a, err := openZip(f, lim, "xlsx")
	if err != nil {
		return nil, err
	}
	// excelize inflates the parts itself; check the declared sizes first.
	// archive/zip refuses entries that inflate beyond their declared size,
	// so the declared sizes are binding.
	if err := a.checkDeclared(); err != nil {
		return nil, err
	}
	if err := requirePart(a, "xl/workbook.xml"); err != nil {
		return nil, err
	}
	lengths, err := checkSharedStrings(ctx, a)
	if err != nil {
		return nil, err
	}
	if err := checkRowText(ctx, a, lengths); err != nil {
		return nil, err
	}
	opts := excelize.Options{UnzipSizeLimit: lim.MaxUncompressed, UnzipXMLSizeLimit: min(lim.MaxUncompressed, 64<<20)}
	if opts.UnzipSizeLimit <= 0 {
		opts = excelize.Options{}
	}
	x, err := excelize.OpenReader(io.NewSectionReader(f.R, 0, f.Size), opts)
	if err != nil {
		if errors.Is(err, excelize.ErrWorkbookPassword) {
			return nil, fmt.Errorf("%w: xlsx: password-protected workbook", ErrEncrypted)
		}
		return nil, fmt.Errorf("xlsx: %w", err)
	}
	defer x.Close()
	title := ""
	if p, err := x.GetDocProps(); err == nil && p != nil {
		title = p.Title
	}
	pivots := xlsxPivots(ctx, a)
	b := newBuilder(lim)
	var warnings []string
	cells := int64(0)
	for i, sheet := range x.GetSheetList() {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		rows, err := x.Rows(sheet)
		if err != nil {
			warnings = append(warnings, fmt.Sprintf("xlsx: sheet %q: %v", sheet, err))
			continue
		}
		b.startUnit(UnitSheet, i+1, sheet)
		b.heading(1, sheet)
		// Rows are written as they are read, so a sheet of millions of
		// cells is never held whole (5 million cells peaked at 315 MB of
		// heap when it was); only the first headerSample rows are kept,
		// to tell title rows and a header from data.
		var sample [][]string
		sampled := 0 // bytes of the cells in sample
		var header, pivotHeader []string
		streaming := false
		cut := ""
		row := 0 // 1-based; rows.Next yields the empty rows between filled ones too
		for rows.Next() {
			if row++; row%1024 == 0 {
				// excelize reads a large sheet from its own temporary copy,
				// not through f.R: rows are the extraction's progress.
				if ctx.Err() != nil {
					rows.Close()
					return nil, ctx.Err()
				}
				progress(ctx)
			}
			cols, err := rows.Columns()
			if err != nil {
				warnings = append(warnings, fmt.Sprintf("xlsx: sheet %q: %v", sheet, err))
				break
			}
			cols = trimRow(cols)
			if len(cols) == 0 {
				continue
			}
			for j, c := range cols {
				// Excel holds at most 32,767 characters in a cell; a longer
				// one (a shared string repeated in a hundred cells) is cut.
				cols[j] = cutAt(c, maxCellBytes)
			}
			cells += int64(len(cols))
			if lim.MaxCells > 0 && cells > lim.MaxCells {
				cut = fmt.Sprintf("more than %d cells, the most read from one file", lim.MaxCells)
				break
			}
			if b.full() {
				cut = fmt.Sprintf("the text limit (%s) reached", humanize.Bytes(lim.MaxTextBytes))
				break
			}
			if p, ok := pivotAt(pivots[sheet], row); ok {
				// A pivot table's header is the row its definition names:
				// guessed, it was the caption row above it ("Sum of Age:
				// James Bond | Column Labels: 35").
				if !streaming {
					header, streaming, sample = writeSheetStart(b, sample), true, nil
				}
				switch {
				case row < p.header:
					b.line(rowText(nil, cols, b.room()))
				case row == p.header && row < p.data:
					pivotHeader = cols
				default:
					b.line(rowText(pivotHeader, cols, b.room()))
				}
				continue
			}
			pivotHeader = nil
			if !streaming {
				for _, c := range cols {
					sampled += len(c)
				}
				if sample = append(sample, cols); len(sample) == headerSample || sampled > maxSampleBytes {
					header, streaming, sample = writeSheetStart(b, sample), true, nil
				}
				continue
			}
			b.line(rowText(header, cols, b.room()))
		}
		rows.Close()
		if !streaming {
			writeSheetStart(b, sample)
		}
		b.endUnit()
		if cut != "" {
			warnings = append(warnings, fmt.Sprintf("xlsx: sheet %q and the rest cut: %s", sheet, cut))
			break
		}
	}
	doc := b.document("xlsx", title)
	doc.Warnings = warnings
	return doc, nil
}

// pivotAt returns the pivot table that holds row, if any.
func pivotAt(ps []pivotArea, row int) (pivotArea, bool) {
	for _, p := range ps {
		if p.in(row) {
			return p, true
		}
	}
	return pivotArea{}, false
}

// headerSample is how many rows of a sheet decide its title rows and
// header (splitSheet), and maxSampleBytes how much of their text at most;
// the rows after them are written as they are read.
const (
	headerSample   = 256
	maxSampleBytes = 1 << 20
)

// maxCellBytes is the most a cell's text is read: Excel's limit of 32,767
// characters, at up to four bytes each.
const maxCellBytes = 4 * 32767

// maxSharedStrings bounds the text of a workbook's shared strings, which
// excelize holds in memory whole (and parses at about twice their size):
// checked by reading the part before excelize does.
const maxSharedStrings = 32 << 20

// checkSharedStrings reads the workbook's shared strings as a bounded XML
// stream before excelize loads them: a string that is one run of text
// longer than maxXMLRun (an 8 MB string repeated in a hundred cells took
// excelize and the rows built from it 5 GB) is refused as every office
// part's is, and so are shared strings that hold more than
// maxSharedStrings of text. It returns each string's length, for
// checkRowText.
func checkSharedStrings(ctx context.Context, a *zipArchive) ([]int, error) {
	const part = "xl/sharedStrings.xml"
	if !a.has(part) {
		return nil, nil
	}
	rc, err := a.open(part)
	if err != nil {
		return nil, err
	}
	defer rc.Close()
	s := newXMLStream(ctx, rc, a.format+": "+part)
	s.declared = func() error { return a.checkRatio(a.byName[part]) }
	var text int64
	var lengths []int
	for {
		tok, err := s.next()
		if err == io.EOF {
			return lengths, nil
		}
		if err != nil {
			return nil, err
		}
		switch t := tok.(type) {
		case xml.StartElement:
			if t.Name.Local == "si" {
				lengths = append(lengths, 0)
			}
		case xml.CharData:
			if text += int64(len(t)); text > maxSharedStrings {
				return nil, fmt.Errorf("%w: xlsx: %s holds more than %s of text", ErrTooLarge, part, humanize.Bytes(maxSharedStrings))
			}
			if n := len(lengths); n > 0 {
				lengths[n-1] += len(t)
			}
		}
	}
}

// maxRowText bounds the text one row of a sheet refers to through shared
// strings: excelize builds a row's cells whole, a copy of its shared string
// each, before a cell can be cut (one 1 MB string in 16,384 cells of a row
// is 16 GB from a file under 1 MB).
const maxRowText = 16 << 20

// checkRowText streams each sheet before excelize reads it and refuses the
// workbook when a row refers to more than maxRowText of shared strings
// (lengths: each string's, from checkSharedStrings).
func checkRowText(ctx context.Context, a *zipArchive, lengths []int) error {
	if len(lengths) == 0 {
		return nil
	}
	for name, zf := range a.byName {
		if !strings.HasPrefix(name, "xl/worksheets/") || !strings.HasSuffix(name, ".xml") {
			continue
		}
		if err := checkSheetRows(ctx, a, name, zf, lengths); err != nil {
			return err
		}
	}
	return nil
}

func checkSheetRows(ctx context.Context, a *zipArchive, name string, zf *zip.File, lengths []int) error {
	rc, err := a.open(name)
	if err != nil {
		return err
	}
	defer rc.Close()
	s := newXMLStream(ctx, rc, a.format+": "+name)
	s.declared = func() error { return a.checkRatio(zf) }
	row, shared, inV := 0, false, false
	for {
		tok, err := s.next()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
		switch t := tok.(type) {
		case xml.StartElement:
			switch t.Name.Local {
			case "row":
				row = 0
			case "c":
				shared = false
				for _, at := range t.Attr {
					if at.Name.Local == "t" && at.Value == "s" {
						shared = true
					}
				}
			case "v":
				inV = shared
			}
		case xml.EndElement:
			if t.Name.Local == "v" {
				inV = false
			}
		case xml.CharData:
			if !inV {
				continue
			}
			if i, err := strconv.Atoi(strings.TrimSpace(string(t))); err == nil && i >= 0 && i < len(lengths) {
				if row += lengths[i]; row > maxRowText {
					return fmt.Errorf("%w: xlsx: %s: a row refers to more than %s of text (one shared string repeated in many cells?)", ErrTooLarge, name, humanize.Bytes(maxRowText))
				}
			}
		}
	}
}

// writeSheetStart writes the first rows of a sheet, its title rows as text
// and the rest as a table, and returns the header it found (nil for none)
// for the rows that follow.
func writeSheetStart(b *builder, rows [][]string) []string {
	titles, header, body := splitSheet(rows)
	for _, t := range titles {
		b.block(t)
	}
	b.block(tableText(header, body, b.room()))
	return header
}

// trimRow drops trailing empty cells and trims every cell.
func trimRow(cols []string) []string {
	for i := range cols {
		cols[i] = strings.TrimSpace(cols[i])
	}
	for len(cols) > 0 && cols[len(cols)-1] == "" {
		cols = cols[:len(cols)-1]
	}
	return cols
}

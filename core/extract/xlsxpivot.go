package extract

import (
	"context"
	"encoding/xml"
	"regexp"
	"strconv"
)

// pivotArea is where a pivot table sits on its sheet, in 1-based rows:
// its rows from top to bottom, the row that labels its columns ("Row
// Labels | Moscow | Grand Total") and the first row of values. The rows
// above the header hold the data field's caption and the column field's
// ("Sum of Age | Column Labels"), which label the whole table, not each
// column.
type pivotArea struct{ top, bottom, header, data int }

// in reports whether row lies in the pivot table.
func (p pivotArea) in(row int) bool { return row >= p.top && row <= p.bottom }

var cellRow = regexp.MustCompile(`^\$?[A-Za-z]{1,3}\$?(\d{1,7})$`)

// xlsxPivots returns the pivot tables of each sheet, by sheet name, from
// their definitions' <location ref="A3:C6" firstHeaderRow="1"
// firstDataRow="2">: the cells of a pivot table are values Excel wrote into
// the sheet, and nothing in them says which row is the header. A workbook
// whose parts cannot be read has none.
func xlsxPivots(ctx context.Context, a *zipArchive) map[string][]pivotArea {
	const book = "xl/workbook.xml"
	rels, err := ooxmlRels(ctx, a, book)
	if err != nil {
		return nil
	}
	partOf := map[string]string{}
	for _, r := range rels {
		partOf[r.id] = r.target
	}
	out := map[string][]pivotArea{}
	a.anyElement(ctx, book, "sheet", func(e xml.StartElement) bool {
		sheet := partOf[attr(e, "id")] // r:id; the sheet number is sheetId
		if sheet == "" {
			return false
		}
		srels, err := ooxmlRels(ctx, a, sheet)
		if err != nil {
			return false
		}
		for _, r := range srels {
			if r.typ != "pivotTable" || !a.has(r.target) {
				continue
			}
			a.anyElement(ctx, r.target, "location", func(l xml.StartElement) bool {
				if p, ok := pivotLocation(attr(l, "ref"), attr(l, "firstHeaderRow"), attr(l, "firstDataRow")); ok {
					out[attr(e, "name")] = append(out[attr(e, "name")], p)
				}
				return true
			})
		}
		return false // every sheet
	})
	return out
}

// pivotLocation reads a pivot table's location: "A3:C6", with the header
// and data rows counted from its top.
func pivotLocation(ref, header, data string) (pivotArea, bool) {
	from, to, ok := cutRef(ref)
	if !ok {
		return pivotArea{}, false
	}
	top, err1 := rowOf(from)
	bottom, err2 := rowOf(to)
	h, err3 := strconv.Atoi(header)
	d, err4 := strconv.Atoi(data)
	if err1 != nil || err2 != nil || err3 != nil || err4 != nil || bottom < top || h < 0 || d < h {
		return pivotArea{}, false
	}
	return pivotArea{top: top, bottom: bottom, header: top + h, data: top + d}, true
}

func cutRef(ref string) (string, string, bool) {
	for i := range len(ref) {
		if ref[i] == ':' {
			return ref[:i], ref[i+1:], true
		}
	}
	return "", "", false
}

func rowOf(cell string) (int, error) {
	m := cellRow.FindStringSubmatch(cell)
	if m == nil {
		return 0, strconv.ErrSyntax
	}
	return strconv.Atoi(m[1])
}

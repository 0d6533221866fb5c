package extract

import (
	"regexp"
	"strings"
)

// Tables whose format does not say which rows are headers (no th, no
// tblHeader, no table-header-rows) get one only when the first row plainly
// labels the columns. A wrong header is worse than none: it repeats a data
// row as the label of every cell below it and changes what the table says.

// numberRE matches cells that hold a quantity rather than a label: numbers
// with grouping, signs, currency and percent, and dates.
var numberRE = regexp.MustCompile(`^[-+(]?\s*[$€£¥]?\s*[-+]?\d[\d\s.,'\x{00A0}\x{202F}]*\s*(%|€|\$|£|¥|[kKmM]|[a-zA-Z]{3})?\)?$|^\d{1,4}[-/.]\d{1,2}[-/.]\d{1,4}$`)

func isNumeric(s string) bool { return numberRE.MatchString(strings.TrimSpace(s)) }

// looksLikeHeader reports whether rows[0] labels the columns below it: its
// cells are all short text, and at least one of its columns holds mostly
// numbers below a text label ("text over numbers").
func looksLikeHeader(rows [][]string) bool {
	if len(rows) < 2 {
		return false
	}
	head := rows[0]
	labels := 0
	for _, c := range head {
		if c == "" {
			continue
		}
		if isNumeric(c) || len(c) > 80 {
			return false
		}
		labels++
	}
	if labels == 0 {
		return false
	}
	for j, label := range head {
		if label == "" {
			continue
		}
		filled, numbers := 0, 0
		for _, r := range rows[1:] {
			if j < len(r) && r[j] != "" {
				filled++
				if isNumeric(r[j]) {
					numbers++
				}
			}
		}
		if filled > 0 && numbers*2 >= filled {
			return true
		}
	}
	return false
}

// splitHeader returns the header and body of a table whose format marks
// no header: the first row when looksLikeHeader, else none.
func splitHeader(rows [][]string) ([]string, [][]string) {
	if looksLikeHeader(rows) {
		return rows[0], rows[1:]
	}
	return nil, rows
}

// splitSheet reads a worksheet's rows: leading title rows are returned
// apart, to be written as text, then the rest is split by splitHeader. A
// title row has one filled cell (a merged title reads so) with text or
// nothing below it, above rows of several cells; one cell over a number is
// a column's label instead.
func splitSheet(rows [][]string) (titles []string, header []string, body [][]string) {
	for len(rows) > 1 && filledCells(rows[0]) == 1 {
		j := 0
		for rows[0][j] == "" {
			j++
		}
		if j < len(rows[1]) && isNumeric(rows[1][j]) {
			break
		}
		wide := false
		for _, r := range rows[1:] {
			if filledCells(r) >= 2 {
				wide = true
				break
			}
		}
		if !wide {
			break
		}
		titles = append(titles, rows[0][j])
		rows = rows[1:]
	}
	header, body = splitHeader(rows)
	return titles, header, body
}

func filledCells(r []string) int {
	n := 0
	for _, c := range r {
		if c != "" {
			n++
		}
	}
	return n
}

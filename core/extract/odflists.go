package extract

import (
	"encoding/xml"
	"strconv"
	"strings"
)

// ODF stores no list numbers in the text: a numbered list's items are
// numbered by its list style (text:list-level-style-number, with
// style:num-format "1", "a", "A", "i" or "I" and a prefix and suffix),
// as the reader lays it out. Cairn writes the numbers out, so "step 2"
// can be found and quoted.

// odfNumbering is how one level of a list style numbers its items.
type odfNumbering struct {
	format, prefix, suffix string
	start                  int
}

// odfList is an open text:list: its style and how many items it has
// numbered.
type odfList struct {
	style string
	n     int
}

// listStyleElement records the numbering of list-level-style-number
// elements; cur is the name of the text:list-style being read.
func (p *odfParser) listStyleElement(e xml.StartElement, cur *string) {
	switch e.Name.Local {
	case "list-style":
		*cur = attrNS(e, "style", "name")
	case "list-level-style-number":
		level, _ := strconv.Atoi(attrNS(e, "text", "level"))
		start, err := strconv.Atoi(attrNS(e, "text", "start-value"))
		if err != nil || start < 1 {
			start = 1
		}
		if p.numbering == nil {
			p.numbering = map[string]map[int]odfNumbering{}
		}
		if p.numbering[*cur] == nil {
			p.numbering[*cur] = map[int]odfNumbering{}
		}
		p.numbering[*cur][level] = odfNumbering{format: attrNS(e, "style", "num-format"),
			prefix: attrNS(e, "style", "num-prefix"), suffix: attrNS(e, "style", "num-suffix"), start: start}
	}
}

// openList starts a text:list; a nested list without a style keeps its
// parent's.
func (p *odfParser) openList(e xml.StartElement) {
	style := attrNS(e, "text", "style-name")
	if style == "" && len(p.lists) > 0 {
		style = p.lists[len(p.lists)-1].style
	}
	p.lists = append(p.lists, odfList{style: style})
}

// itemLabel is the label of the next item of the innermost open list:
// its number as the list style writes it ("2.", "b)"), or "-" for a
// bullet or an unnumbered list.
func (p *odfParser) itemLabel(e xml.StartElement) string {
	if len(p.lists) == 0 {
		return "-"
	}
	l := &p.lists[len(p.lists)-1]
	num, ok := p.numbering[l.style][len(p.lists)]
	if !ok || num.format == "" {
		return "-"
	}
	if l.n == 0 {
		l.n = num.start - 1
	}
	l.n++
	if v, err := strconv.Atoi(attrNS(e, "text", "start-value")); err == nil && v > 0 {
		l.n = v
	}
	return num.prefix + formatNumber(l.n, num.format) + num.suffix
}

// formatNumber writes n in an ODF num-format: 1, a, A, i or I.
func formatNumber(n int, format string) string {
	switch format {
	case "a", "A":
		s := ""
		for m := n; m > 0; m = (m - 1) / 26 {
			s = string(rune('a'+(m-1)%26)) + s
		}
		if format == "A" {
			s = strings.ToUpper(s)
		}
		return s
	case "i", "I":
		s := roman(n)
		if format == "i" {
			s = strings.ToLower(s)
		}
		return s
	}
	return strconv.Itoa(n)
}

func roman(n int) string {
	if n <= 0 || n >= 4000 {
		return strconv.Itoa(n)
	}
	var sb strings.Builder
	for _, r := range []struct {
		v int
		s string
	}{{1000, "M"}, {900, "CM"}, {500, "D"}, {400, "CD"}, {100, "C"}, {90, "XC"}, {50, "L"}, {40, "XL"}, {10, "X"}, {9, "IX"}, {5, "V"}, {4, "IV"}, {1, "I"}} {
		for ; n >= r.v; n -= r.v {
			sb.WriteString(r.s)
		}
	}
	return sb.String()
}

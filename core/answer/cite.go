package answer

import (
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// citeGroup matches a citation as models write them: [2], [1, 3], [1-3],
// [Source 2], [source 1; source 4].
var citeGroup = regexp.MustCompile(`\[(?i:source\s*)?\d+(?:\s*(?:[,;]|-|–)\s*(?i:source\s*)?\d+)*\]`)

var digits = regexp.MustCompile(`\d+`)

// citedNumbers lists the source numbers of one citation group, expanding
// ranges ("[2-4]" is 2, 3, 4). Absurd ranges count as their two ends.
func citedNumbers(group string) []int {
	var out []int
	nums := digits.FindAllStringIndex(group, -1)
	for i, loc := range nums {
		n, err := strconv.Atoi(group[loc[0]:loc[1]])
		if err != nil {
			continue
		}
		isRangeEnd := i > 0 && strings.ContainsAny(group[nums[i-1][1]:loc[0]], "-–")
		if isRangeEnd && len(out) > 0 {
			from := out[len(out)-1]
			if n > from && n-from <= 20 {
				for k := from + 1; k < n; k++ {
					out = append(out, k)
				}
			}
		}
		out = append(out, n)
	}
	return out
}

// cleanCitations rewrites every citation group of text to the canonical
// form "[1][3]" keeping only numbers in 1..nSources, and returns the numbers
// that pointed to no source. A group left empty is removed with the space
// before it.
func cleanCitations(text string, nSources int) (string, []int) {
	var removed []int
	out := citeGroup.ReplaceAllStringFunc(text, func(g string) string {
		var b strings.Builder
		seen := map[int]bool{}
		for _, n := range citedNumbers(g) {
			if n < 1 || n > nSources {
				if !slices.Contains(removed, n) {
					removed = append(removed, n)
				}
				continue
			}
			if !seen[n] {
				seen[n] = true
				b.WriteString("[" + strconv.Itoa(n) + "]")
			}
		}
		if b.Len() == 0 {
			return "\x00" // marks a group to drop with its leading space
		}
		return b.String()
	})
	out = strings.ReplaceAll(out, " \x00", "")
	out = strings.ReplaceAll(out, "\x00", "")
	return out, removed
}

// claimSpan is a sentence of the answer with the sources it cites.
type claimSpan struct {
	text  string // the sentence without its citations
	cites []int
}

// splitClaims splits an answer (with canonical citations) into sentences
// and their citations. A citation written after the full stop ("… seconds.
// [1] Next …") belongs to the sentence before it.
func splitClaims(text string) []claimSpan {
	var out []claimSpan
	for _, s := range Sentences(text) {
		t := s.Text
		// Leading citations belong to the previous sentence.
		for {
			loc := citeGroup.FindStringIndex(t)
			if loc == nil || loc[0] != 0 {
				break
			}
			if len(out) > 0 {
				out[len(out)-1].cites = appendNew(out[len(out)-1].cites, citedNumbers(t[:loc[1]])...)
			}
			t = strings.TrimSpace(t[loc[1]:])
		}
		var cites []int
		for _, g := range citeGroup.FindAllString(t, -1) {
			cites = appendNew(cites, citedNumbers(g)...)
		}
		plain := strings.Join(strings.Fields(citeGroup.ReplaceAllString(t, "")), " ")
		plain = strings.TrimSpace(strings.ReplaceAll(plain, " .", "."))
		if plain == "" {
			continue
		}
		out = append(out, claimSpan{text: plain, cites: cites})
	}
	return out
}

func appendNew(list []int, ns ...int) []int {
	for _, n := range ns {
		if !slices.Contains(list, n) {
			list = append(list, n)
		}
	}
	return list
}

package chunk

import (
	"regexp"
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"

	"cairn/core/extract"
)

var (
	markdownHeading = regexp.MustCompile(`^(#{1,6})\s+(.+?)\s*#*\s*$`)
	numberedHeading = regexp.MustCompile(`^((?:\d{1,3}\.)*\d{1,3})\.?\s+(\p{Lu}.{1,100})$`)
)

// levelColon ranks "Title:" headings below every other kind.
const levelColon = 9

// trail answers "which headings are in force at offset x".
type trail struct {
	offsets []int
	texts   []string
}

func (t trail) at(off int) string {
	i := sort.SearchInts(t.offsets, off+1) - 1
	if i < 0 {
		return ""
	}
	return t.texts[i]
}

// headingTrail finds the headings of text (explicit ones from the extractor
// plus Markdown "#", numbered "3.2.1 Title", ALL CAPS lines and short
// "Title:" lines) and records, at each heading, the trail of enclosing
// headings ("Setup > Network"), cut to maxLen characters.
//
// format is the document's (extract.Document.Format): in code and in PDF
// text, "# ..." lines are comments, not Markdown headings.
func headingTrail(text string, explicit []extract.Heading, format string, maxLen int) trail {
	hs := append([]extract.Heading(nil), explicit...)
	guessed := len(hs) == 0 // formats that mark headings (HTML, DOCX) need no guessing
	if guessed {
		hs = detectHeadings(text, format == "code" || format == "pdf")
	}
	sort.SliceStable(hs, func(i, j int) bool { return hs[i].Offset < hs[j].Offset })
	var t trail
	var stack []extract.Heading
	record := func(off int) {
		parts := make([]string, len(stack))
		for i, s := range stack {
			parts[i] = s.Text
		}
		t.offsets = append(t.offsets, off)
		t.texts = append(t.texts, cutTrail(parts, maxLen))
	}
	for i, h := range hs {
		if guessed && h.Level == closeLevel {
			// "END OF TERMS AND CONDITIONS": the section it names ends
			// here (else the innermost one); the enclosing trail resumes.
			k := len(stack) - 1
			for j := len(stack) - 1; j >= 0 && h.Text != ""; j-- {
				if strings.EqualFold(stack[j].Text, h.Text) {
					k = j
					break
				}
			}
			if k >= 0 {
				stack = stack[:k]
				record(h.Offset)
			}
			continue
		}
		for len(stack) > 0 && stack[len(stack)-1].Level >= h.Level {
			stack = stack[:len(stack)-1]
		}
		stack = append(stack, h)
		record(h.Offset)
		// A guessed "Title:" line introduces what follows it, a list or an
		// example, not a section: it labels text up to colonReach bytes on,
		// then the enclosing heading is in force again. Otherwise one
		// "For example:" labels every passage up to the next guessed heading.
		if end := h.Offset + colonReach; guessed && h.Level == levelColon && (i+1 == len(hs) || hs[i+1].Offset > end) && end < len(text) {
			stack = stack[:len(stack)-1]
			record(end)
		}
	}
	return t
}

// colonReach is how far a guessed "Title:" heading labels the text after
// it: about one chunk.
const colonReach = 1500

// closeLevel marks a guessed closing line ("END OF TERMS AND CONDITIONS")
// among the headings: the text after it is no longer in the section it
// names (Heading.Text, empty for "THE END": the innermost section).
const closeLevel = 0

// detectHeadings finds heading lines in plain text, and closing lines as
// headings of closeLevel at the start of the line after them. With
// hashComments, "# ..." lines are comments (code, PDF text), not Markdown
// headings.
func detectHeadings(text string, hashComments bool) []extract.Heading {
	type line struct {
		off  int
		text string
	}
	var lines []line
	for off := 0; off <= len(text); {
		end := strings.IndexByte(text[off:], '\n')
		if end < 0 {
			end = len(text) - off
		}
		lines = append(lines, line{off, strings.TrimSpace(text[off : off+end])})
		off += end + 1
	}
	var out []extract.Heading
	fenced := false
	for i, l := range lines {
		if strings.HasPrefix(l.text, "```") || strings.HasPrefix(l.text, "~~~") {
			fenced = !fenced // "# comment" inside a code block is no heading
			continue
		}
		if fenced {
			continue
		}
		if m := closingLine.FindStringSubmatch(l.text); m != nil && i+1 < len(lines) {
			out = append(out, extract.Heading{Offset: lines[i+1].off, Level: closeLevel, Text: strings.TrimSpace(m[1])})
			continue
		}
		if hashComments && strings.HasPrefix(l.text, "#") {
			continue
		}
		prevBlank := i == 0 || lines[i-1].text == ""
		nextBlank := i == len(lines)-1 || lines[i+1].text == ""
		if level, title, ok := headingLine(l.text, prevBlank, nextBlank); ok {
			out = append(out, extract.Heading{Offset: l.off, Level: level, Text: title})
		}
	}
	return out
}

// headingLine classifies one trimmed line, given whether the lines around it
// are blank: a numbered heading stands alone while a numbered list item runs
// on into more text, and a "Title:" line starts a paragraph.
func headingLine(line string, prevBlank, nextBlank bool) (level int, title string, ok bool) {
	if line == "" || len(line) > 200 {
		return 0, "", false
	}
	if m := markdownHeading.FindStringSubmatch(line); m != nil {
		return len(m[1]), m[2], true
	}
	// notTitle's patterns are the costly part (every line of every plain
	// text file passes here): ask them only about a line with a heading's
	// shape.
	level, title, ok = headingShape(line, prevBlank, nextBlank)
	if !ok || notTitle(line) {
		return 0, "", false
	}
	return level, title, true
}

// headingShape classifies a line by its shape alone: numbered and standing
// alone, in capitals after a blank line, or a short "Title:".
func headingShape(line string, prevBlank, nextBlank bool) (level int, title string, ok bool) {
	if m := numberedHeading.FindStringSubmatch(line); m != nil && nextBlank && len(strings.Fields(m[2])) <= 12 &&
		!strings.ContainsAny(line[len(line)-1:], ".,;:!?") {
		return strings.Count(m[1], ".") + 1, line, true
	}
	if IsAllCaps(line) && prevBlank && capsTitle(line) {
		if !strings.Contains(line, " ") && !sectionWords[strings.Trim(line, ":")] {
			// One unknown word: as likely an identifier from a reference
			// ("EPINIT", "HKCR") as a title; it labels what follows like
			// a "Title:" line, nested and for a bounded reach.
			return levelColon, line, true
		}
		return 1, line, true
	}
	if prevBlank && strings.HasSuffix(line, ":") && len(line) <= 60 && len(line) > 2 && !leadIn(line) {
		first := []rune(line)[0]
		if unicode.IsUpper(first) && !strings.HasPrefix(line, "http") {
			return levelColon, strings.TrimSuffix(line, ":"), true
		}
	}
	return 0, "", false
}

// Lines that have a heading's shape (short, standing alone, numbered or
// in capitals) but are something else. Each pattern is a kind of line met
// in real documents where a guessed heading then labelled every passage
// after it: the closing line of a licence, code, a table of contents'
// dot leaders, a table's rows.
var (
	// "END OF TERMS AND CONDITIONS" closes a section instead of opening
	// one; the group is the section it names.
	closingLine = regexp.MustCompile(`(?i)^(?:the\s+)?end(?:\s+of\s+(.*?))?[.!]?$`)
	// Code: a statement or block end, a call, empty parentheses, a
	// command-line option, an assignment or comparison, a shell prompt, a
	// preprocessor line or a comment.
	codeLine = regexp.MustCompile(`[;{}]\s*$|^\s*[{}]|\w\([^()]*\)|\(\s*\)|^[‘'"]?--?\w|[^=!<>]=|==|!=|:=|->|=>|::|^[$>#%]\s|^#(?:include|define|if|ifdef|endif|pragma)\b|^//|/\*|\*/`)
	// "Introduction ........ 5", "Index ·  ·  · 12", "Name ____".
	dotLeaders = regexp.MustCompile(`(?:\.\s?){4,}|…{2,}|(?:·\s*){3,}|_{4,}`)
	// Columns: cells set apart by a bar, a tab, or runs of spaces.
	columnGap = regexp.MustCompile(`\S(?: {2,}|\t+)\S`)
)

// notTitle reports lines that are no section title whatever their shape.
func notTitle(line string) bool {
	if closingLine.MatchString(line) || codeLine.MatchString(line) || dotLeaders.MatchString(line) {
		return true
	}
	if strings.Contains(line, "|") || len(columnGap.FindAllStringIndex(line, -1)) >= 2 {
		return true // "a | b", "1.0   2.5   3.7"
	}
	letters, digits := 0, 0
	for _, r := range line {
		switch {
		case unicode.IsLetter(r):
			letters++
		case unicode.IsDigit(r):
			digits++
		}
	}
	return digits >= 4 && digits > letters // mostly numbers: a table row or a date line
}

// capsTitle reports whether a line in capitals reads as a title
// ("WARRANTY", "SEE ALSO", "NO WARRANTY"): at most six words, no comma, no
// final full stop ("CORRECTION." ends a disclaimer's sentence), and words
// rather than identifiers. Longer lines are prose set in
// capitals, as licences shout their disclaimers ("TERMS AND CONDITIONS FOR
// COPYING, DISTRIBUTION AND MODIFICATION", "FOR THE PROGRAM, TO THE EXTENT
// PERMITTED BY ..."), which a PDF breaks into many short lines. Constants
// and names of code or tables ("BZ_OK", "CRC-64", "GCC/SSE2", "AMD64") hold
// an underscore or letters mixed with digits, and a lone word of three
// letters or fewer is an acronym from a table or a figure ("CRC", "ICL"),
// a lone "NULL" a constant.
func capsTitle(line string) bool {
	words := strings.Fields(line)
	if len(words) > 6 || strings.ContainsAny(line, ",_") || strings.HasSuffix(line, ".") {
		return false
	}
	for _, w := range words {
		if strings.ContainsFunc(w, unicode.IsLetter) && strings.ContainsFunc(w, unicode.IsDigit) {
			return false
		}
	}
	if len(words) > 1 {
		return true
	}
	w := strings.Trim(words[0], ".:")
	return utf8.RuneCountInString(w) >= 4 && !codeConstants[w]
}

// leadIn reports a "...:" line that introduces what follows inside a
// paragraph rather than titling a section: it holds a sentence's end
// ("The file to compile. Recognized types are:") or ends on the words
// that lead into a list or an example ("For example:", "as follows:",
// "The options are:").
func leadIn(line string) bool {
	t := strings.TrimSuffix(line, ":")
	if strings.Contains(t, ". ") {
		return true
	}
	words := strings.Fields(strings.ToLower(t))
	if len(words) < 2 {
		return false // "Examples:", "Usage:", "Symptoms:" title what follows
	}
	switch words[len(words)-1] {
	case "example", "examples", "follows", "following", "below", "are", "is", "include", "includes",
		"as", "be", "was", "were", "e.g.", "i.e.", "namely", "instance", "like":
		return true
	}
	return false
}

// sectionWords are the one-word titles documents set in capitals: the
// sections of man pages, reports, papers, licences and manuals.
var sectionWords = wordSet(`NAME SYNOPSIS DESCRIPTION OPTIONS EXAMPLES EXAMPLE FILES ENVIRONMENT BUGS
	AUTHOR AUTHORS COPYRIGHT HISTORY NOTES NOTE WARRANTY TROUBLESHOOTING INTRODUCTION SUMMARY
	OVERVIEW CONTENTS INDEX APPENDIX GLOSSARY REFERENCES BIBLIOGRAPHY ACKNOWLEDGMENTS
	ACKNOWLEDGEMENTS PREFACE FOREWORD ABSTRACT CONCLUSION CONCLUSIONS USAGE INSTALLATION
	CONFIGURATION REQUIREMENTS LICENSE LICENCE CAVEATS DIAGNOSTICS SECURITY STANDARDS ERRORS
	COMMANDS ARGUMENTS PARAMETERS METHODS RESULTS DISCUSSION BACKGROUND METHODOLOGY FINDINGS
	RECOMMENDATIONS SCOPE PURPOSE DEFINITIONS PREAMBLE WARNING WARNINGS CAUTION DANGER SAFETY
	MAINTENANCE SPECIFICATIONS FEATURES LIMITATIONS COMPATIBILITY SETUP CONTACT SUPPORT
	TUTORIAL GUIDE MANUAL EPILOGUE PROLOGUE ADDENDUM ANNEX APPENDICES ERRATA CHANGELOG`)

func wordSet(words string) map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(words) {
		m[w] = true
	}
	return m
}

// codeConstants are words in capitals that stand alone on a line in code
// and in API references, not as titles.
var codeConstants = map[string]bool{"NULL": true, "TRUE": true, "FALSE": true, "NONE": true, "VOID": true, "NULLPTR": true}

// IsAllCaps reports whether line is a short title in capitals: at least three
// letters, none lower case, and mostly letters (so "--- 2024 ---" is not).
func IsAllCaps(line string) bool {
	if len(line) > 80 {
		return false
	}
	letters, other := 0, 0
	for _, r := range line {
		switch {
		case unicode.IsLower(r):
			return false
		case unicode.IsUpper(r):
			letters++
		case r == ' ' || r == '-' || r == '&' || r == '/' || r == ',' || unicode.IsDigit(r):
		default:
			other++
		}
	}
	return letters >= 3 && other <= 2
}

// cutTrail joins a heading trail in at most maxLen characters. Middle
// headings go first ("Manual > … > Network Setup"), then the top one: the
// innermost heading names the section a passage is in, so it is the one
// kept whole, and cut itself only when it alone is too long.
func cutTrail(parts []string, maxLen int) string {
	full := strings.Join(parts, " > ")
	if utf8.RuneCountInString(full) <= maxLen || len(parts) == 1 {
		return cutRunes(full, maxLen)
	}
	for k := 2; k < len(parts); k++ {
		if s := parts[0] + " > … > " + strings.Join(parts[k:], " > "); utf8.RuneCountInString(s) <= maxLen {
			return s
		}
	}
	last := parts[len(parts)-1]
	if s := "… > " + last; utf8.RuneCountInString(s) <= maxLen {
		return s
	}
	return cutRunes(last, maxLen)
}

func cutRunes(s string, n int) string {
	if len(s) <= n {
		return s
	}
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}

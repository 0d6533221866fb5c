package extract

import (
	"regexp"
	"strings"
)

var (
	atxHeading    = regexp.MustCompile(`^ {0,3}(#{1,6})(?:[ \t]+(.*?))?(?:[ \t]+#+)?[ \t]*$`)
	setextUnder   = regexp.MustCompile(`^ {0,3}(=+|-+)[ \t]*$`)
	codeFence     = regexp.MustCompile("^ {0,3}(```|~~~)")
	frontMatterRE = regexp.MustCompile(`^(?:---|\+\+\+)\n`)
	strongRE      = regexp.MustCompile(`\*\*([^*\n]*[^*\s])\*\*`)
)

// markdownHeadings finds the headings Markdown marks by its syntax: "#"
// lines (ATX) and lines underlined with "===" or "---" (setext), outside
// fenced code and front matter. Their offsets are the starts of their lines.
// With these the chunker does not guess headings in a Markdown file, where
// an ALL CAPS line or "Note:" is text, not a section.
func markdownHeadings(text string) []Heading {
	var out []Heading
	off := 0
	if m := frontMatterRE.FindString(text); m != "" {
		// YAML or TOML front matter: "title: x" above its closing "---"
		// is no setext heading.
		if end := strings.Index(text[len(m):], "\n"+m); end >= 0 {
			off = len(m) + end + 1 + len(m)
		}
	}
	fence := ""
	prev, prevOff := "", -1 // the previous line when it can be a setext title
	for off < len(text) {
		end := strings.IndexByte(text[off:], '\n')
		if end < 0 {
			end = len(text) - off
		}
		line := text[off : off+end]
		next := off + end + 1
		if m := codeFence.FindStringSubmatch(line); m != nil {
			switch {
			case fence == "":
				fence = m[1]
			case fence == m[1]:
				fence = ""
			}
			prev, prevOff = "", -1
			off = next
			continue
		}
		if fence != "" {
			off = next
			continue
		}
		if m := atxHeading.FindStringSubmatch(line); m != nil && strings.TrimSpace(m[2]) != "" {
			out = append(out, Heading{Offset: off, Level: len(m[1]), Text: collapseSpace(m[2])})
			prev, prevOff = "", -1
		} else if m := setextUnder.FindStringSubmatch(line); m != nil && prevOff >= 0 {
			level := 1
			if m[1][0] == '-' {
				level = 2
			}
			out = append(out, Heading{Offset: prevOff, Level: level, Text: collapseSpace(prev)})
			prev, prevOff = "", -1
		} else if t := strings.TrimSpace(line); t != "" && !strings.HasPrefix(line, "    ") && !strings.HasPrefix(line, "\t") && prevOff < 0 && isParagraphStart(t) {
			prev, prevOff = t, off
		} else {
			prev, prevOff = "", -1 // a paragraph's later line, a blank line, code
		}
		off = next
	}
	return out
}

// isParagraphStart reports a line that can begin a paragraph, and so be
// a setext title: not a list item, quote, table row or rule.
func isParagraphStart(t string) bool {
	if strings.HasPrefix(t, ">") || strings.HasPrefix(t, "|") || setextUnder.MatchString(t) {
		return false
	}
	for _, p := range []string{"- ", "* ", "+ "} {
		if strings.HasPrefix(t, p) {
			return false
		}
	}
	return true
}

// plainMarkdown takes off the marks Markdown uses for headings and strong
// emphasis ("## Setup", "**Note**", "===" under a title), so that answers,
// snippets and sources show a Markdown file's text as text, not its
// syntax. Each line keeps its length (the marks' bytes become spaces at
// its end), so the headings' offsets and every line's start stay where
// markdownHeadings found them. Fenced and indented code keeps its
// characters, and so do single "*" and "_", which are as often globs and
// identifiers ("*.txt", "__init__") as emphasis.
func plainMarkdown(text string) string {
	var b strings.Builder
	b.Grow(len(text))
	fence := ""
	for off := 0; off < len(text); {
		end := strings.IndexByte(text[off:], '\n')
		if end < 0 {
			end = len(text) - off
		}
		line := text[off : off+end]
		off += end + 1
		out := line
		if m := codeFence.FindStringSubmatch(line); m != nil {
			switch {
			case fence == "":
				fence = m[1]
			case fence == m[1]:
				fence = ""
			}
		} else if fence == "" && !strings.HasPrefix(line, "    ") && !strings.HasPrefix(line, "\t") {
			if m := atxHeading.FindStringSubmatch(line); m != nil {
				out = m[2]
			} else if setextUnder.MatchString(line) && (strings.Contains(line, "===") || strings.Contains(line, "---")) {
				out = ""
			}
			out = strongRE.ReplaceAllString(out, "$1")
		}
		b.WriteString(out)
		b.WriteString(strings.Repeat(" ", len(line)-len(out)))
		if off <= len(text) {
			b.WriteByte('\n')
		}
	}
	return b.String()
}

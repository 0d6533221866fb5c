package answer

import (
	"regexp"
	"strings"
	"unicode"

	"cairn/core/chunk"
)

// BlockKind names the structure a quoted block comes from.
type BlockKind string

const (
	BlockProse      BlockKind = "prose"      // a sentence
	BlockDefinition BlockKind = "definition" // a term or option line with its indented description
	BlockRow        BlockKind = "row"        // a table row, under its header row
	BlockStep       BlockKind = "step"       // a numbered step or list item with its continuation
	BlockField      BlockKind = "field"      // a "key: value" line
)

// Block is a part of a source that an extractive answer quotes whole: the
// unit in which the document itself states one thing. A man page states an
// option in its option line and the description under it, a table in a row
// read with its header, a procedure in a step.
type Block struct {
	Text string // the source's lines, their common indentation removed
	// Core is what the block is scored on when it differs from Text: a
	// sentence of prose is scored alone and quoted with the rest of its
	// paragraph, which often holds the value the sentence introduces ("The
	// maximum number of commands to remember… The default is 500.").
	Start   int // byte offset of the block in the source text
	End     int
	Kind    BlockKind
	Heading bool // a heading line (prose only): what follows is about it
	// Lead is the block's first line when its description follows under
	// it (the option line of a definition, the header of a row).
	Lead string
	Core string
}

// Scored is the text a block is scored on.
func (b Block) Scored() string {
	if b.Core != "" {
		return b.Core
	}
	return b.Text
}

// maxBlockBytes bounds a quoted block; a longer description is cut at a
// line end and marked with an ellipsis. maxProseBytes bounds a sentence
// quoted with the rest of its paragraph.
const (
	maxBlockBytes = 600
	maxProseBytes = 400
)

var (
	optionLine = regexp.MustCompile(`^[-+]{1,2}[A-Za-z0-9?#]`)
	// inlineOption is an option and its description on one line, apart by
	// a tab or at least two spaces (man(1)'s tagged paragraph with a
	// short tag), or by one space before a capitalised word when the tag
	// fills its column ("--lzip Filter the archive through lzip(1).").
	inlineOption = regexp.MustCompile(`^[-+]{1,2}[A-Za-z0-9?#]\S*(?:,? [-+]{1,2}[A-Za-z0-9?#]\S*)*(?:(?: {2,}|\t)\s*[\p{L}(]| \p{Lu}\p{Ll})`)
	// syntaxLine is a synopsis of a command or a setting: brackets, angle
	// brackets or an assignment ("pop [--index] [<stash>]").
	syntaxLine = regexp.MustCompile(`^\S.*(?:\[[^\]]*\]|<[^>]+>|\S=\S)`)
	// identLine is a variable's name alone on its line ("HISTSIZE"); it is
	// a term only right above its description, since alone in a paragraph
	// it reads as a heading ("WARRANTY").
	identLine = regexp.MustCompile(`^[A-Z][A-Z0-9_]{2,}$`)
	paraBreak = regexp.MustCompile(`\n[ \t]*\n`)
	// summaryLine is a name with its description after a dash, as a
	// manual's NAME section gives it ("nice - run a program with modified
	// scheduling priority"): a statement, however short.
	summaryLine = regexp.MustCompile(`^[\p{L}\p{N}_.+-]+(?:, [\p{L}\p{N}_.+-]+)* [-–—] \S+ \S+ \S+`)
	announces   = regexp.MustCompile(`(?i)(?::|\b(?:follows|following)\.)$`)
	stepLine    = regexp.MustCompile(`^(?:\d{1,3}[.)]|[-*•])\s+\S`)
	fieldLine   = regexp.MustCompile(`^[\p{L}][\p{L}\p{N} ()/_.-]{0,40}:\s+\S`)
	ruleRow     = regexp.MustCompile(`^[\s|:+-]+$`)
)

type srcLine struct {
	start, end int // byte range of the line without its newline
	first      int // byte offset of its first non-blank character
	indent     int // leading blanks, a tab counting 8
	text       string
}

// isBlank reports whether r is white space within a line: a no-break
// space indents a line as a space does (text saved from a web page or a
// FAQ indents some lines with U+00A0 and their neighbours with spaces).
func isBlank(r rune) bool { return r != '\n' && unicode.IsSpace(r) }

func splitLines(text string) []srcLine {
	var out []srcLine
	for off := 0; off < len(text); {
		end := strings.IndexByte(text[off:], '\n')
		if end < 0 {
			end = len(text) - off
		}
		raw := text[off : off+end]
		ind := 0
		for _, c := range raw {
			if c == '\t' {
				ind += 8
			} else if isBlank(c) {
				ind++
			} else {
				break
			}
		}
		out = append(out, srcLine{start: off, end: off + end, first: off + len(raw) - len(strings.TrimLeftFunc(raw, isBlank)),
			indent: ind, text: strings.TrimSpace(raw)})
		off += end + 1
	}
	return out
}

// Blocks splits a source's text into the blocks an answer may quote:
// structured ones first (definitions, table rows, steps, fields), then
// the sentences of the prose around them.
func Blocks(text string) []Block {
	lines := splitLines(text)
	// A passage is cut from its document and trimmed, so its first line
	// has lost its indentation: unless it is an option or a section
	// heading ("NAME"), it continues the paragraph of the line under it
	// (the next that is not blank: sed(1) leaves a blank line under each
	// option).
	next, _ := nextText(lines, 0)
	if next > 0 && lines[0].indent == 0 && lines[next].indent > 0 && !chunk.IsAllCaps(lines[0].text) {
		if !optionLine.MatchString(lines[0].text) {
			lines[0].indent = lines[next].indent
		} else {
			// An option: it stood where the passage's other options stand,
			// or it would take them all for its description.
			for _, l := range lines[1:] {
				if l.indent > 0 && optionLine.MatchString(l.text) && (lines[0].indent == 0 || l.indent < lines[0].indent) {
					lines[0].indent = l.indent
				}
			}
		}
	}
	used := make([]bool, len(lines))
	var out []Block
	add := func(from, to int, kind BlockKind, lead string, header *srcLine) {
		b := Block{Start: lines[from].first, End: lines[to].end, Kind: kind, Lead: lead}
		var sb strings.Builder
		if header != nil {
			sb.WriteString(header.text)
			sb.WriteByte('\n')
		}
		base := lines[from].indent
		for j := from; j <= to; j++ {
			if sb.Len() > maxBlockBytes {
				sb.WriteString("…")
				break
			}
			used[j] = true
			if j > from {
				sb.WriteByte('\n')
				if lines[j].text != "" && lines[j].indent > base {
					sb.WriteString("    ")
				}
			}
			sb.WriteString(lines[j].text)
		}
		b.Text = strings.TrimSpace(sb.String())
		out = append(out, b)
	}
	for i := 0; i < len(lines); i++ {
		l := lines[i]
		if l.text == "" || used[i] {
			continue
		}
		switch {
		case isTableRow(l.text) && i+1 < len(lines) && isTableRow(lines[i+1].text) && !optionLine.MatchString(l.text):
			// A table has a header and rows; a lone line with a bar is an
			// option's alternatives ("-R hostname | [hostname]:port").
			j := i
			for j+1 < len(lines) && isTableRow(lines[j+1].text) {
				j++
			}
			header := &lines[i]
			for k := i; k <= j; k++ {
				used[k] = true
				if k == i || ruleRow.MatchString(lines[k].text) {
					continue
				}
				add(k, k, BlockRow, header.text, header)
			}
			i = j
		case stepLine.MatchString(l.text):
			j := i
			for j+1 < len(lines) && lines[j+1].text != "" && lines[j+1].indent > l.indent {
				j++
			}
			add(i, j, BlockStep, "", nil)
		case fieldLine.MatchString(l.text) && len(l.text) <= 160:
			add(i, i, BlockField, "", nil)
		case inlineOption.MatchString(l.text):
			// "-i     prompt before every removal": the option, then its
			// description on the same line, wrapped under itself.
			j := i
			for j+1 < len(lines) && lines[j+1].text != "" && lines[j+1].indent > l.indent+1 {
				j++
			}
			add(i, j, BlockDefinition, l.text, nil)
		case isDefinition(lines, i):
			add(i, definitionEnd(lines, i), BlockDefinition, l.text, nil)
		case optionLine.MatchString(l.text):
			// "-c" over "--continue" over the description (wget(1),
			// curl(1)): the option lines in a row at one indentation are
			// the term together.
			j := i
			for j+1 < len(lines) && lines[j+1].indent == l.indent && optionLine.MatchString(lines[j+1].text) && !isDefinition(lines, j) {
				j++
			}
			if j > i && isDefinition(lines, j) {
				names := make([]string, 0, j-i+1)
				for k := i; k <= j; k++ {
					names = append(names, lines[k].text)
				}
				add(i, definitionEnd(lines, j), BlockDefinition, strings.Join(names, ", "), nil)
			}
		}
	}
	sentences := Sentences(text)
	for k, sent := range sentences {
		if usedAt(lines, used, sent.Start) {
			continue
		}
		b := Block{Text: sent.Text, Start: sent.Start, End: sent.Start + len(sent.Text), Kind: BlockProse, Heading: sent.Heading}
		// A sentence that opens by referring back ("It greatly
		// complicated…", "That's why…", "When it finds…") says what it
		// says of the sentence before, which is quoted with it: "why"
		// is often answered by the sentence a "That's why" follows.
		if k > 0 && !sent.Heading && refersBackward(sent.Text) {
			prev := sentences[k-1]
			if !prev.Heading && !usedAt(lines, used, prev.Start) && !paraBreak.MatchString(text[prev.Start:sent.Start]) &&
				len(prev.Text)+1+len(sent.Text) <= maxProseBytes && !isPlanted(prev.Text) && !isQuestion(prev.Text) {
				b.Text, b.Start = prev.Text+" "+sent.Text, prev.Start
			}
		}
		// The rest of the paragraph, while it fits.
		for j := k + 1; !sent.Heading && j < len(sentences); j++ {
			next := sentences[j]
			if next.Heading || usedAt(lines, used, next.Start) || paraBreak.MatchString(text[sentences[j-1].Start:next.Start]) ||
				len(b.Text)+1+len(next.Text) > maxProseBytes || isPlanted(next.Text) || instOpen.MatchString(next.Text) {
				break
			}
			b.Text += " " + next.Text
			b.End = next.Start + len(next.Text)
		}
		// "You can change it by the following:" announces the command
		// that answers; the quote takes it along.
		if announces.MatchString(b.Text) {
			if end, more := nextParagraph(text, b.End); more != "" && len(b.Text)+len(more) < maxBlockBytes {
				b.Text, b.End = b.Text+"\n"+more, end
			}
		}
		if b.Text != sent.Text {
			b.Core = sent.Text
		}
		out = append(out, b)
	}
	sortBlocks(out)
	return out
}

// backWords are the words by which a sentence's opening refers to the
// sentence before it.
var backWords = map[string]bool{"it": true, "its": true, "this": true, "that": true, "these": true, "those": true,
	"they": true, "them": true, "their": true, "such": true, "thus": true, "hence": true, "therefore": true,
	"so": true, "then": true, "here": true, "otherwise": true, "instead": true, "also": true, "both": true}

// refersBackward reports whether a sentence's first three words hold a
// word that refers to the sentence before ("It …", "That's why …", "When
// it finds …", "In this case …").
func refersBackward(sentence string) bool {
	words := strings.Fields(strings.ToLower(sentence))
	for i, w := range words[:min(len(words), 3)] {
		w = strings.Trim(w, ",.;:!?\"'’()")
		if w, _, _ = strings.Cut(w, "'"); backWords[w] {
			return true
		}
		if i == 0 && (w == "the" || w == "a" || w == "an") {
			return false // "The …", "A …": a subject of its own
		}
	}
	return false
}

// isTermLead reports whether a definition's first line names a term (an
// option, a synopsis, a variable, a single word) or announces what follows
// it ("Convert text from ISO 8859-15 to UTF-8:" over its command), rather
// than titling a subsection ("Password Changes" over its paragraph): only
// such a line says that the description under it is about the words it
// holds.
func isTermLead(lead string) bool {
	return optionLine.MatchString(lead) || syntaxLine.MatchString(lead) || identLine.MatchString(lead) ||
		!strings.ContainsAny(lead, " \t") || strings.HasSuffix(lead, ":")
}

func isTableRow(t string) bool {
	return strings.Contains(t, " | ") || strings.HasPrefix(t, "|") && strings.Count(t, "|") >= 2
}

// isDefinition reports whether line i is a term or option line whose
// description follows, in one of the shapes documentation takes:
//   - indented under it, possibly after a blank line (man pages, definition
//     lists in text);
//   - on the next lines at the same indentation, after an option or a
//     synopsis ("-C DIR", "HISTSIZE": manuals converted from PDF);
//   - in the next paragraph, after an option or synopsis standing alone
//     ("pop [--index] [<stash>]": HTML definition lists).
func isDefinition(lines []srcLine, i int) bool {
	l := lines[i]
	// A shell prompt's line ("$ tar -x -f archive.Z") is an example of a
	// command, not a term, whatever follows it; a question ("9.3. Do I
	// have to keep all those .deb files?") heads the paragraph that
	// answers it, whose sentences are quoted as prose.
	if len(l.text) > 100 || strings.HasPrefix(l.text, "#") || strings.HasPrefix(l.text, "$ ") ||
		strings.HasSuffix(l.text, "?") && !optionLine.MatchString(l.text) {
		return false
	}
	j, blanks := nextText(lines, i)
	if j < 0 || blanks > 1 {
		return false
	}
	next := lines[j]
	term := optionLine.MatchString(l.text) || syntaxLine.MatchString(l.text)
	ident := identLine.MatchString(l.text)
	switch {
	case next.indent > l.indent+1:
		if chunk.IsAllCaps(l.text) && !term {
			return false // a section heading: what follows is a section, not a description
		}
		if isDefinition(lines, j) && !optionLine.MatchString(l.text) {
			return false // a subsection title over a list of definitions
		}
		// A wrapped sentence is not a term: a term line does not end a
		// sentence, and prose rarely indents its second line.
		return term || !strings.ContainsAny(l.text[len(l.text)-1:], ".,;")
	case next.indent == l.indent && len(l.text) <= 80 && !optionLine.MatchString(next.text) && !syntaxLine.MatchString(next.text):
		if blanks == 1 {
			// A synopsis alone in its paragraph, its description the next.
			return term && (i == 0 || lines[i-1].text == "")
		}
		return (term || ident) && len(next.text) > len(l.text)
	}
	return false
}

// nextText returns the next non-blank line after i and how many blank
// lines come before it; -1 when there is none.
func nextText(lines []srcLine, i int) (int, int) {
	blanks := 0
	for j := i + 1; j < len(lines); j++ {
		if lines[j].text != "" {
			return j, blanks
		}
		blanks++
	}
	return -1, blanks
}

// definitionEnd is the last line of the description under line i: the
// lines indented deeper than it (blank lines between paragraphs included)
// up to an option defined among them when line i is not an option,
// or, for a description at the same indentation, the lines up to the next
// blank line or term line.
func definitionEnd(lines []srcLine, i int) int {
	ind := lines[i].indent
	j, _ := nextText(lines, i)
	end := i
	// A subsection's title ("Operation mode" in xz(1)) is a term whose
	// description is its paragraph: the options listed under it, deeper
	// still, are definitions of their own.
	title := !optionLine.MatchString(lines[i].text)
	if lines[j].indent > ind+1 {
		for ; j < len(lines); j++ {
			if lines[j].text == "" {
				continue
			}
			if lines[j].indent <= ind+1 || title && j > i+1 && optionLine.MatchString(lines[j].text) && isDefinition(lines, j) {
				break
			}
			end = j
		}
		return end
	}
	for ; j < len(lines) && lines[j].text != "" && !(j > i+1 && isDefinition(lines, j)) && !optionLine.MatchString(lines[j].text); j++ {
		end = j
	}
	return end
}

// nextParagraph returns the lines of the paragraph after offset from (the
// next non-blank lines up to a blank one), trimmed, and where it ends.
func nextParagraph(text string, from int) (int, string) {
	lines := splitLines(text[from:])
	i := 0
	for i < len(lines) && lines[i].text == "" {
		i++
	}
	if i == 0 && len(lines) > 0 {
		i++ // the rest of the line the paragraph ends on
		for i < len(lines) && lines[i].text == "" {
			i++
		}
	}
	var got []string
	end := from
	for ; i < len(lines) && lines[i].text != ""; i++ {
		got = append(got, lines[i].text)
		end = from + lines[i].end
	}
	return end, strings.Join(got, "\n")
}

func usedAt(lines []srcLine, used []bool, off int) bool {
	for j, l := range lines {
		if off >= l.start && off <= l.end {
			return used[j]
		}
	}
	return false
}

func sortBlocks(bs []Block) {
	for i := 1; i < len(bs); i++ {
		for j := i; j > 0 && bs[j].Start < bs[j-1].Start; j-- {
			bs[j], bs[j-1] = bs[j-1], bs[j]
		}
	}
}

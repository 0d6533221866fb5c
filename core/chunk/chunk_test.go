package chunk

import (
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"cairn/core/extract"
)

func split(text string, p Params) []Chunk {
	return Split(&extract.Document{Text: text}, p)
}

// checkInvariants verifies what every split must hold: Text is the trimmed
// slice at [Start, End), lines agree with the offsets, and every
// character of the text but spaces (Unicode's, no-break spaces among
// them) is covered by some chunk.
func checkInvariants(t *testing.T, text string, cs []Chunk) {
	t.Helper()
	covered := make([]bool, len(text))
	for i, c := range cs {
		if c.Ordinal != i {
			t.Errorf("chunk %d has ordinal %d", i, c.Ordinal)
		}
		if text[c.Start:c.End] != c.Text {
			t.Errorf("chunk %d: text does not match offsets", i)
		}
		if strings.TrimSpace(c.Text) != c.Text || c.Text == "" {
			t.Errorf("chunk %d not trimmed: %q", i, c.Text)
		}
		if !utf8.ValidString(c.Text) {
			t.Errorf("chunk %d splits a rune", i)
		}
		if want := strings.Count(text[:c.Start], "\n") + 1; c.LineStart != want {
			t.Errorf("chunk %d LineStart %d, want %d", i, c.LineStart, want)
		}
		if want := strings.Count(text[:c.End-1], "\n") + 1; c.LineEnd != want {
			t.Errorf("chunk %d LineEnd %d, want %d", i, c.LineEnd, want)
		}
		for j := c.Start; j < c.End; j++ {
			covered[j] = true
		}
	}
	for i, r := range text {
		if !covered[i] && !unicode.IsSpace(r) {
			t.Fatalf("byte %d (%q) is in no chunk", i, text[max(0, i-10):min(len(text), i+10)])
		}
	}
}

func TestBoundaryPriority(t *testing.T) {
	p := Params{Size: 100, Overlap: 0}
	para := strings.Repeat("a", 60) + ". " + strings.Repeat("b", 10) + "\n\n" + strings.Repeat("c", 80)
	sentence := strings.Repeat("a", 60) + ". " + strings.Repeat("b", 10) + "\n" + strings.Repeat("c", 20) + ". " + strings.Repeat("d", 80)
	newline := strings.Repeat("a", 70) + "\n" + strings.Repeat("c", 80)
	hard := strings.Repeat("x", 250)
	early := strings.Repeat("a", 20) + ". " + strings.Repeat("b", 200) // sentence end in the first half: ignored
	tests := []struct {
		name, text string
		firstEnd   int
	}{
		{"paragraph break wins over sentence end", para, 72},
		{"last sentence end wins over newline", sentence, 94},
		{"newline when no sentence end", newline, 70},
		{"hard cut without any boundary", hard, 100},
		{"boundaries in the first half are ignored", early, 100},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cs := split(tt.text, p)
			if len(cs) < 2 || cs[0].End != tt.firstEnd {
				t.Fatalf("first chunk ends at %d, want %d (%d chunks)", cs[0].End, tt.firstEnd, len(cs))
			}
			checkInvariants(t, tt.text, cs)
		})
	}
}

func TestOverlap(t *testing.T) {
	var words []string
	for i := range 400 {
		words = append(words, "w"+strings.Repeat("x", i%7))
	}
	text := strings.Join(words, " ")
	cs := split(text, Params{Size: 300, Overlap: 50})
	if len(cs) < 5 {
		t.Fatalf("%d chunks", len(cs))
	}
	for i := 1; i < len(cs); i++ {
		prev, cur := cs[i-1], cs[i]
		ov := prev.End - cur.Start
		if ov < 40 || ov > 60 {
			t.Errorf("chunk %d overlaps the previous by %d bytes, want about 50", i, ov)
		}
		if cur.Start > 0 && text[cur.Start-1] != ' ' {
			t.Errorf("chunk %d starts inside a word", i)
		}
	}
	checkInvariants(t, text, cs)
}

func TestDefaultsAndShortText(t *testing.T) {
	cs := split("  Just one line.  \n", Params{})
	if len(cs) != 1 || cs[0].Text != "Just one line." || cs[0].Start != 2 || cs[0].LineStart != 1 {
		t.Fatalf("%+v", cs)
	}
	if got := split(" \n\t ", Params{}); len(got) != 0 {
		t.Errorf("blank text gave %d chunks", len(got))
	}
}

func TestRunesAreNeverSplit(t *testing.T) {
	text := strings.Repeat("日本語のテキスト", 200) // no spaces or punctuation
	cs := split(text, Params{Size: 150, Overlap: 30})
	checkInvariants(t, text, cs)
	if n := utf8.RuneCountInString(cs[0].Text); n != 150 {
		t.Errorf("first chunk has %d runes, want 150 (sizes count characters)", n)
	}
}

func TestUnitsAreNotCrossed(t *testing.T) {
	page1 := "First page text. " + strings.Repeat("one ", 30)
	page2 := "Second page text. " + strings.Repeat("two ", 30)
	text := page1 + "\n\n" + page2
	doc := &extract.Document{Text: text, Units: []extract.Unit{
		{Kind: extract.UnitPage, Number: 1, Start: 0, End: len(page1)},
		{Kind: extract.UnitPage, Number: 7, Label: "vii", Start: len(page1) + 2, End: len(text)},
	}}
	cs := Split(doc, Params{Size: 1000})
	if len(cs) != 2 {
		t.Fatalf("%d chunks, want one per page", len(cs))
	}
	if cs[0].Page != 1 || cs[1].Page != 7 || cs[1].Label != "vii" || cs[1].Unit != extract.UnitPage {
		t.Errorf("pages %+v / %+v", cs[0], cs[1])
	}
	if !strings.HasPrefix(cs[1].Text, "Second page") {
		t.Errorf("page 7 chunk %q", cs[1].Text)
	}
	checkInvariants(t, text, cs)
}

func TestTextOutsideUnitsIsKept(t *testing.T) {
	text := "Preamble before pages.\n\nPage one body."
	doc := &extract.Document{Text: text, Units: []extract.Unit{{Kind: extract.UnitPage, Number: 1, Start: 24, End: len(text)}}}
	cs := Split(doc, Params{})
	if len(cs) != 2 || cs[0].Text != "Preamble before pages." || cs[0].Page != 0 || cs[1].Page != 1 {
		t.Fatalf("%+v", cs)
	}
}

func TestHeadingTrail(t *testing.T) {
	text := `# Manual

Intro paragraph.

## Installation

Install it.

3.2.1 Network Setup

Configure the network.

TROUBLESHOOTING

Nothing works.

Symptoms:
The light blinks.

5. Each step is a list item that continues on the next line and is
not a heading.

## Safety

Wear gloves.
`
	tr := headingTrail(text, nil, "", 160)
	for _, tt := range []struct{ frag, heading string }{
		{"Intro paragraph.", "Manual"},
		{"Install it.", "Manual > Installation"},
		{"Configure the network.", "Manual > Installation > 3.2.1 Network Setup"},
		{"Nothing works.", "TROUBLESHOOTING"},
		{"The light blinks.", "TROUBLESHOOTING > Symptoms"},
		{"not a heading.", "TROUBLESHOOTING > Symptoms"},
		// A level-2 heading after a level-1 one nests under it.
		{"Wear gloves.", "TROUBLESHOOTING > Safety"},
	} {
		if got := tr.at(strings.Index(text, tt.frag)); got != tt.heading {
			t.Errorf("heading at %q = %q, want %q", tt.frag, got, tt.heading)
		}
	}
	cs := split(text, Params{Size: 100, Overlap: 0})
	for _, c := range cs {
		if c.Heading != tr.at(c.Start) {
			t.Errorf("chunk at %d has heading %q, want the trail at its start %q", c.Start, c.Heading, tr.at(c.Start))
		}
	}
	checkInvariants(t, text, cs)
}

func TestHeadingsFromExtractorWin(t *testing.T) {
	text := "INTRO IN CAPS\n\nBody under an explicit heading."
	doc := &extract.Document{Text: text, Headings: []extract.Heading{{Offset: 15, Level: 2, Text: "Real Heading"}}}
	cs := Split(doc, Params{})
	if len(cs) != 2 || cs[0].Text != "INTRO IN CAPS" || cs[1].Heading != "Real Heading" {
		t.Fatalf("chunks not cut at the explicit heading: %+v", cs)
	}
	if cs[0].Heading != "" {
		t.Errorf("caps line was detected although the extractor gave headings: %q", cs[0].Heading)
	}
}

// A chunk holds the text of one marked section and is headed by it: a
// window never runs on past the next heading, nor does the overlap carry
// the end of the previous section into it. A heading with no text of its
// own joins the section after it, which its trail then names.
func TestChunksEndWhereSectionsEnd(t *testing.T) {
	s71 := "7.1 Why is this so?\n" + strings.Repeat("Lists are vectors of their own kind. ", 20)
	s72 := "7.2 How can I get eval() and D() to work?\n" + strings.Repeat("Quote the expression before use. ", 20)
	s73 := "7.3 Short section\nOne line only."
	text := "7 R Miscellanea\n\n" + s71 + "\n\n" + s72 + "\n\n" + s73
	o71 := strings.Index(text, "7.1")
	o72 := strings.Index(text, "7.2")
	o73 := strings.Index(text, "7.3")
	doc := &extract.Document{Text: text, Format: "pdf", Headings: []extract.Heading{
		{Offset: 0, Level: 1, Text: "7 R Miscellanea"},
		{Offset: o71, Level: 2, Text: "7.1 Why is this so?"},
		{Offset: o72, Level: 2, Text: "7.2 How can I get eval() and D() to work?"},
		{Offset: o73, Level: 2, Text: "7.3 Short section"},
	}}
	cs := Split(doc, Params{Size: 500, Overlap: 100})
	checkInvariants(t, text, cs)
	type want struct {
		start, end int
		heading    string
	}
	var got []want
	for _, c := range cs {
		got = append(got, want{c.Start, c.End, c.Heading})
	}
	// Each section of 7.1 and 7.2 is about 760 characters: two windows,
	// the second overlapping the first inside the same section.
	for _, c := range cs {
		switch {
		case c.Start < o71:
			if c.Start != 0 || c.Heading != "7 R Miscellanea > 7.1 Why is this so?" || c.End > o72 {
				t.Errorf("first chunk %+v", c)
			}
		case c.Start < o72:
			if c.End > o72 || c.Heading != "7 R Miscellanea > 7.1 Why is this so?" {
				t.Errorf("chunk in 7.1 %+v", c)
			}
		case c.Start < o73:
			if c.End > o73 || c.Heading != "7 R Miscellanea > 7.2 How can I get eval() and D() to work?" {
				t.Errorf("chunk in 7.2 %+v", c)
			}
		default:
			if c.Text != s73 || c.Heading != "7 R Miscellanea > 7.3 Short section" {
				t.Errorf("chunk in 7.3 %+v", c)
			}
		}
	}
	if n := len(cs); n != 5 || cs[2].Start != o72 || cs[4].Start != o73 {
		t.Errorf("chunks %+v, want 2 in 7.1 (from the title of 7), 2 in 7.2 starting at its title, 1 for 7.3", got)
	}
}

// Headings guessed from plain text do not cut the text.
func TestGuessedHeadingsDoNotCut(t *testing.T) {
	text := "INSTALLATION\n\nRun make.\n\nUSAGE\n\nRun cairn."
	cs := split(text, Params{})
	if len(cs) != 1 {
		t.Errorf("chunks %+v, want one", cs)
	}
}

func TestHeadingCut(t *testing.T) {
	text := "# " + strings.Repeat("Long ", 30) + "\n\nBody."
	cs := split(text, Params{MaxHeadingLen: 20})
	if got := cs[len(cs)-1].Heading; utf8.RuneCountInString(got) != 20 || !strings.HasSuffix(got, "…") {
		t.Errorf("heading %q", got)
	}
}

// Lines with a heading's shape that are not section titles: they used to
// label every passage after them (the GPL's last line was the most common
// heading of a manual's chunks).
func TestHeadingGuessRejectsLookalikes(t *testing.T) {
	for _, line := range []string{
		"END OF TERMS AND CONDITIONS",
		"THE END",
		"TERMS AND CONDITIONS FOR COPYING, DISTRIBUTION AND MODIFICATION",
		"FOR THE PROGRAM, TO THE EXTENT PERMITTED BY APPLICABLE LAW. EXCEPT WHEN",
		"MAX_BUFFER = 4096;",
		"if (x == NULL) {",
		"}",
		"EXIT_FAILURE;",
		"PRINT_USAGE()",
		"$ make install",
		"#include <stdio.h>",
		"1 Introduction .................... 5",
		"2.3 Vector arithmetic . . . . . . . . 15",
		"INDEX ........ 312",
		"NAME | SIZE | DATE",
		"ID     NAME     SIZE",
		"1.5    2.25    3.125",
		"2019 2020 2021 2022",
		"BZ_OK",
		"RUNNING/BZ_FLUSH",
		"CRC-64",
		"GCC/SSE2/6",
		"AMD64",
		"CRC",
		"NULL",
		"SIG ()",
		"‘-L DIR’",
		"--VERBOSE",
		"CORRECTION.", // the last line of a disclaimer in capitals
		"For example:",
		"The options are:",
		"The file to compile or link. Recognized file types are:",
	} {
		if level, title, ok := headingLine(line, true, true); ok {
			t.Errorf("%q taken for a heading (level %d, %q)", line, level, title)
		}
	}
	for _, tt := range []struct {
		line  string
		level int
		title string
	}{
		{"WARRANTY", 1, "WARRANTY"},
		{"DESCRIPTION", 1, "DESCRIPTION"},
		{"SEE ALSO", 1, "SEE ALSO"},
		{"FILES", 1, "FILES"},
		{"EPINIT", levelColon, "EPINIT"}, // one unknown word: a label of bounded reach, not a section
		{"INPUT AND OUTPUT", 1, "INPUT AND OUTPUT"},
		{"NO WARRANTY", 1, "NO WARRANTY"},
		{"GNU GENERAL PUBLIC LICENSE", 1, "GNU GENERAL PUBLIC LICENSE"},
		{"3.2.1 Network Setup", 3, "3.2.1 Network Setup"},
		{"2 Simple manipulations; numbers and vectors", 1, "2 Simple manipulations; numbers and vectors"},
		{"## Install", 2, "Install"},
		{"Symptoms:", levelColon, "Symptoms"},
		{"Examples:", levelColon, "Examples"},
		{"Network settings:", levelColon, "Network settings"},
	} {
		level, title, ok := headingLine(tt.line, true, true)
		if !ok || level != tt.level || title != tt.title {
			t.Errorf("%q: heading %v level %d %q, want level %d %q", tt.line, ok, level, title, tt.level, tt.title)
		}
	}
}

// The closing line of a licence is no section of its own: it ends the
// section it names, and the text after it is under the enclosing heading.
func TestLicenceEndClosesItsSection(t *testing.T) {
	text := "Intro.\n\nTERMS AND CONDITIONS\n\nYou may copy it.\n\n1.1 Definitions\n\nA program is a work.\n\nEND OF TERMS AND CONDITIONS\n\n" +
		"Installing the program is simple.\n\nAPPENDIX\n\n2.1 Colophon\n\nSet in Times.\n\nTHE END\n\nBack cover.\n"
	tr := headingTrail(text, nil, "text", 160)
	for _, tt := range []struct{ frag, heading string }{
		{"You may copy it.", "TERMS AND CONDITIONS"},
		{"A program is a work.", "TERMS AND CONDITIONS > 1.1 Definitions"},
		{"END OF TERMS", "TERMS AND CONDITIONS > 1.1 Definitions"}, // the closing line is the section's last
		{"Installing the program", ""},
		{"Set in Times.", "APPENDIX > 2.1 Colophon"},
		{"Back cover.", "APPENDIX"}, // "THE END" closes the innermost section
	} {
		if got := tr.at(strings.Index(text, tt.frag)); got != tt.heading {
			t.Errorf("heading at %q = %q, want %q", tt.frag, got, tt.heading)
		}
	}
}

// In code and in a PDF's text, "# ..." is a comment, not a heading.
func TestHashLinesInCodeAreComments(t *testing.T) {
	text := "Plotting\n\n## Plot results\nplot (x, y);\n"
	for format, want := range map[string]string{"pdf": "", "code": "", "text": "Plot results"} {
		if got := headingTrail(text, nil, format, 160).at(strings.Index(text, "plot (")); got != want {
			t.Errorf("%s: heading %q, want %q", format, got, want)
		}
	}
}

func TestTrailCutKeepsInnermost(t *testing.T) {
	parts := []string{"Valgrind User Manual", "3. Using and understanding the Valgrind core: Advanced Topics", "3.2. Debugging your program using Valgrind gdbserver and GDB"}
	for _, tt := range []struct {
		max  int
		want string
	}{
		{200, strings.Join(parts, " > ")},
		{100, "Valgrind User Manual > … > 3.2. Debugging your program using Valgrind gdbserver and GDB"},
		{70, "… > 3.2. Debugging your program using Valgrind gdbserver and GDB"},
		{20, "3.2. Debugging your…"},
	} {
		if got := cutTrail(parts, tt.max); got != tt.want {
			t.Errorf("cutTrail(%d) = %q, want %q", tt.max, got, tt.want)
		}
	}
}

// A line in capitals inside a block of them continues a disclaimer.
func TestCapsLineInsideABlockIsNoHeading(t *testing.T) {
	if _, _, ok := headingLine("REPAIR OR CORRECTION", false, true); ok {
		t.Errorf("a capitals line under another line was taken for a heading")
	}
	if _, _, ok := headingLine("REPAIR OR CORRECTION", true, true); !ok {
		t.Errorf("a capitals line standing alone was not taken for a heading")
	}
}

// A guessed "Title:" heading labels about a chunk of text, then the
// enclosing heading is in force again.
func TestColonHeadingReachIsBounded(t *testing.T) {
	text := "# Manual\n\nIntro.\n\nSelectively change some names:\n" + strings.Repeat("x = y + 1\n", 300) + "\nThe end of the example, far below.\n"
	tr := headingTrail(text, nil, "", 160)
	if got := tr.at(strings.Index(text, "x = y")); got != "Manual > Selectively change some names" {
		t.Errorf("under the colon heading: %q", got)
	}
	if got := tr.at(strings.Index(text, "The end of the example")); got != "Manual" {
		t.Errorf("%d bytes after the colon heading: %q, want %q", strings.Index(text, "The end")-strings.Index(text, "Selectively"), got, "Manual")
	}
}

// wrap breaks text into lines of at most width bytes at spaces, as a PDF
// or a plain-text rendering does, so that lines start mid-sentence.
func wrap(text string, width int) string {
	var b strings.Builder
	n := 0
	for i, w := range strings.Fields(text) {
		switch {
		case i == 0:
		case n+1+len(w) > width:
			b.WriteByte('\n')
			n = 0
		default:
			b.WriteByte(' ')
			n++
		}
		b.WriteString(w)
		n += len(w)
	}
	return b.String()
}

// firstWords is the first two words of each chunk.
func firstWords(cs []Chunk) []string {
	var out []string
	for _, c := range cs {
		f := strings.Fields(c.Text)
		out = append(out, strings.Join(f[:min(2, len(f))], " "))
	}
	return out
}

// TestWindowsStartAtSentences: in wrapped prose every line start inside
// the overlap is mid-sentence; the next window begins at a sentence start
// there instead, or at the start of a sentence that began a little before
// the overlap, so no passage opens with a fragment.
func TestWindowsStartAtSentences(t *testing.T) {
	text := wrap("Named captures make long patterns easier to read and to maintain. "+
		"To attach a name to a group, write (?<name>...) and use the name later. "+
		"The captured text is then in the %+ hash, keyed by the name you gave it. "+
		"Perl numbers the groups from the left as well, so $1 still works. "+
		"Two groups may share a name, and the hash then holds the leftmost one that matched. "+
		"Named backreferences are written \\k<name>, which reads better than \\3 in a long pattern. "+
		"Use them whenever a pattern has more than two groups.", 60)
	cs := split(text, Params{Size: 200, Overlap: 60})
	checkInvariants(t, text, cs)
	// "To attach ..." (72 characters) starts before the 60 of the overlap,
	// within the half overlap more a window may reach back.
	want := []string{"Named captures", "To attach", "The captured", "Perl numbers", "Two groups", "Named backreferences"}
	if got := firstWords(cs); strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("chunks begin with %q, want %q", got, want)
	}
}

// TestLongSentenceFallsBackToALineStart: a sentence that began further
// back than the reach is not repeated whole (the index would grow); the
// window begins, as before, at the first line start inside the overlap.
func TestLongSentenceFallsBackToALineStart(t *testing.T) {
	text := wrap("Named captures make long patterns easier to read and to maintain. "+
		"To attach a name to a capturing group, write (?<name>...) and refer to it later by that name. "+
		"The captured text is then in the %+ hash, keyed by the name you gave it.", 60)
	cs := split(text, Params{Size: 200, Overlap: 60})
	checkInvariants(t, text, cs)
	if got := firstWords(cs); len(got) != 2 || got[1] != "(?<name>...) and" {
		t.Errorf("chunks begin with %q, want the second at the line start \"(?<name>...) and\"", got)
	}
}

// TestSentenceStarts: what begins a sentence, a paragraph or a list item,
// and what only looks like it.
func TestSentenceStarts(t *testing.T) {
	tests := []struct {
		text string // the candidate start is marked by "|"
		want bool
	}{
		{"ends here. |Then more", true},
		{"ends here.\n|Then more", true},
		{`he said "stop." |Then more`, true},
		{"(see the FAQ.) |Then more", true},
		{"a list, e.g. |The first", false},
		{"ends with 3.5 |percent", false},
		{"approx. |ten of them", false},
		{"a wrapped\n|line goes on", false},
		{"a paragraph.\n\n|next one", true},
		{"indented\n\u00a0\n\u00a0\u00a0|after a blank line", true},
		{"the options are:\n|-a all", true},
		{"one item\n|- another item", true},
		{"one item\n|2. second item", true},
		{"one item\n|b) second item", true},
		{"a word|inside", false},
		{"ends here. |\u00a0space", false},
		{"a word" + strings.Repeat(" ", 300) + "|after a long gap", true},
	}
	for _, tt := range tests {
		i := strings.IndexByte(tt.text, '|')
		text := tt.text[:i] + tt.text[i+1:]
		if got := sentenceStart(text, i); got != tt.want {
			t.Errorf("sentenceStart(%q) = %v, want %v", tt.text, got, tt.want)
		}
	}
}

// TestNoBreakSpacesAreTrimmed: text indented with no-break spaces (as a
// rendering of a FAQ is) gives passages that begin and end with a letter.
func TestNoBreakSpacesAreTrimmed(t *testing.T) {
	para := "\u00a0\u00a0\u00a0 " + strings.Repeat("Keep the system up to date. ", 6) + "\u00a0\n\n"
	text := strings.Repeat(para, 4)
	cs := split(text, Params{Size: 200, Overlap: 40})
	checkInvariants(t, text, cs)
	for i, c := range cs {
		if !strings.HasPrefix(c.Text, "Keep") || !strings.HasSuffix(c.Text, "date.") {
			t.Errorf("chunk %d is %q, want it to begin with Keep and end with date.", i, c.Text)
		}
	}
}

// FuzzSplit: whatever the text (wrapped prose, no-break spaces, stray
// marks, broken UTF-8 made valid), every split keeps the invariants.
func FuzzSplit(f *testing.F) {
	f.Add(wrap("One sentence here. Another one, e.g. this! \"Quoted.\" Then: - a list\n- item 2) b) c.", 20), 100, 30)
	f.Add("\u00a0\u00a0 Indented.\u00a0\n\n\u00a0 Next paragraph. "+strings.Repeat("word ", 80), 120, 50)
	f.Fuzz(func(t *testing.T, text string, size, overlap int) {
		text = strings.ToValidUTF8(text, "?")
		if size < 0 || size > 5000 || overlap < 0 {
			return
		}
		checkInvariants(t, text, split(text, Params{Size: size, Overlap: overlap}))
	})
}

package answer

import (
	"strings"
	"testing"

	"cairn/core/search"
)

// A man-page chunk of 14 lines whose answer sits in its middle.
var focusText = strings.Join([]string{
	"OPTIONS", // 0
	"-a, --all",
	"    do not ignore entries starting with .",
	"-A, --almost-all",
	"    do not list implied . and ..",
	"--author", // 5
	"    with -l, print the author of each file",
	"-b, --escape",
	"    print C-style escapes for nongraphic characters",
	"--block-size=SIZE",
	"    with -l, scale sizes by SIZE when printing them", // 10
	"-B, --ignore-backups",
	"    do not list implied entries ending with ~",
	"-c  sort by ctime",
}, "\n")

func TestFocusKeepsTheLinesAroundTheBestLines(t *testing.T) {
	// Line 6 holds "print" and "author", line 5 "author" (before line 8's
	// "print", equal in weight): lines 3 to 8 are read.
	terms := search.ParseTerms("print the author")
	got := focus(focusText, terms, nil)
	want := strings.Join([]string{
		"[…]",
		"-A, --almost-all",
		"    do not list implied . and ..",
		"--author",
		"    with -l, print the author of each file",
		"-b, --escape",
		"    print C-style escapes for nongraphic characters",
		"[…]",
	}, "\n")
	if got != want {
		t.Errorf("focus:\n%s\nwant:\n%s", got, want)
	}
}

func TestFocusKeepsShortOrUnmatchedTextWhole(t *testing.T) {
	short := "one line about the author\nanother\nthird"
	for _, tc := range []struct{ name, text, q string }{
		{"short", short, "author"},
		{"no term in any line", focusText, "kernel module"},
		{"no terms", focusText, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := focus(tc.text, search.ParseTerms(tc.q), nil); got != tc.text {
				t.Errorf("focus changed the text:\n%s", got)
			}
		})
	}
}

func TestTheWriterReadsWindowsAndTheAnswerKeepsThePassage(t *testing.T) {
	pass := &search.Passage{ChunkID: 5, Path: "/docs/ls.1", Heading: "OPTIONS", LineStart: 1, LineEnd: 14, Text: focusText}
	for _, whole := range []bool{false, true} {
		gen := &script{replies: []string{"--author prints the author of each file [1]."}}
		ans, _, _ := ask(t, gen, Options{WholeChunks: whole}, "print the author", pass)
		prompt := gen.userPrompt(0)
		if got := strings.Contains(prompt, "-c  sort by ctime"); got != whole {
			t.Errorf("WholeChunks %v: the prompt holds the chunk's last line: %v\n%s", whole, got, prompt)
		}
		if !strings.Contains(prompt, `section "OPTIONS"`) || !strings.Contains(prompt, "--author") {
			t.Errorf("WholeChunks %v: the prompt lacks the heading or the best line:\n%s", whole, prompt)
		}
		if ans.Sources[0].Text != focusText {
			t.Errorf("WholeChunks %v: the answer's source is not the whole passage: %q", whole, ans.Sources[0].Text)
		}
	}
}

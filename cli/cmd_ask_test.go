package cli

import (
	"bytes"
	"strings"
	"testing"

	"cairn/core/answer"
	"cairn/core/search"
)

func TestAskFooterLabelsAnExtractiveAnswerQuoted(t *testing.T) {
	for _, v := range []answer.Verdict{answer.VerdictQuoted, answer.VerdictSupported} {
		var out bytes.Buffer
		p := &search.Passage{ChunkID: 1, Path: "/docs/grep.1", LineStart: 40, Text: "-U, --binary"}
		printAnswerFooter(&cliEnv{cliIO: cliIO{stdout: &out}}, &answer.Answer{
			Text: "-U, --binary [1]", Mode: answer.ModeExtractive, Verdict: v,
			Sources:   []answer.Source{{N: 1, Result: search.Result{Passage: p, Rank: 1}}},
			Citations: []answer.Citation{{N: 1, ChunkID: 1, Path: "/docs/grep.1", Line: 40, Quote: "-U, --binary"}},
		})
		want := "\n\n(Quoted from your documents, word for word: no chat model is loaded.)\n" +
			"\nSources:\n[1] /docs/grep.1:40\n    \"-U, --binary\"\n"
		if out.String() != want {
			t.Errorf("verdict %s, footer:\n%q\nwant\n%q", v, out.String(), want)
		}
	}
	if got := verdictLine(answer.VerdictQuoted); got != "quoted from your documents, word for word" {
		t.Errorf("verdict line %q", got)
	}
}

func TestAskFooterListsTheClosestPassagesAsNotAnAnswer(t *testing.T) {
	var out bytes.Buffer
	pump := &search.Passage{ChunkID: 7, Path: "/docs/pump.pdf", UnitKind: "page", Page: 4, Snippet: "The pump seal\nis replaced yearly."}
	notes := &search.Passage{ChunkID: 9, Path: "/docs/notes.md", LineStart: 12, Snippet: "Seal kits are in the store room."}
	printAnswerFooter(&cliEnv{cliIO: cliIO{stdout: &out}}, &answer.Answer{
		Text: answer.NotCovered, Mode: answer.ModeGenerative, Model: "qwen", Refused: true, Closest: true, Verdict: answer.VerdictNone,
		Sources: []answer.Source{
			{N: 1, Result: search.Result{Passage: pump, Rank: 1, Relevance: 0.3}},
			{N: 2, Result: search.Result{Passage: notes, Rank: 2, Relevance: 0.1}},
		},
	})
	want := "\n\nClosest passages — not an answer:\n" +
		"- /docs/pump.pdf (page 4), weak match\n    The pump seal\n    is replaced yearly.\n" +
		"- /docs/notes.md:12, weak match\n    Seal kits are in the store room.\n"
	if out.String() != want {
		t.Errorf("footer:\n%s\nwant\n%s", out.String(), want)
	}
}

func TestAskFooterShowsAnOnlineAnswersEstimatedCost(t *testing.T) {
	var out bytes.Buffer
	printAnswerFooter(&cliEnv{cliIO: cliIO{stdout: &out}}, &answer.Answer{
		Text: "Hold the button.", Mode: answer.ModeOnline, Model: "gpt at api.example", Verdict: answer.VerdictSupported, Cost: 0.0021,
		Timing: answer.Timing{PromptTokens: 1200, Tokens: 300},
	})
	if want := "(1200 tokens in, 300 out: estimated cost 0.0021 at answer.price_per_mtok_in and _out.)\n"; !strings.Contains(out.String(), want) {
		t.Errorf("footer:\n%s\nlacks %q", out.String(), want)
	}
}

package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"strings"

	"cairn/core/answer"
)

func runAsk(ctx context.Context, env *cliEnv, args []string) error {
	fs := flag.NewFlagSet("ask", flag.ContinueOnError)
	var kb kbFlags
	kb.add(fs)
	asJSON := fs.Bool("json", false, "print JSON: answer, citations, verdicts, timings")
	pos, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(pos) == 0 {
		return usageError{`ask needs a question: cairn ask "How do I reset the device?"`}
	}
	eng, err := kb.open(ctx, env)
	if err != nil {
		return err
	}
	defer eng.Close()
	var onToken func(string)
	if !*asJSON {
		onToken = func(s string) { fmt.Fprint(env.stdout, s) }
	}
	ans, err := eng.Ask(ctx, eng.SearchRequest(strings.Join(pos, " ")), onToken)
	if err != nil {
		return err
	}
	if *asJSON {
		enc := json.NewEncoder(env.stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(ans)
	}
	printAnswerFooter(env, ans)
	return nil
}

// printAnswerFooter prints, after the streamed answer, its label, the
// verification verdicts and the sources the citations point to.
func printAnswerFooter(env *cliEnv, ans *answer.Answer) {
	w := env.stdout
	fmt.Fprintln(w)
	switch {
	case ans.NoSources:
		return
	case ans.Mode == answer.ModeExtractive && !ans.Refused:
		fmt.Fprintln(w, "\n(Extracted from your documents: no chat model is loaded.)")
	}
	for _, c := range ans.Claims {
		if !c.Supported {
			fmt.Fprintf(w, "⚠ not supported by its sources: %q (%s)\n", c.Text, c.Reason)
		}
	}
	for _, n := range ans.Removed {
		fmt.Fprintf(w, "⚠ citation [%d] pointed to no source and was removed\n", n)
	}
	if len(ans.Citations) > 0 {
		fmt.Fprintln(w, "\nSources:")
	}
	for _, c := range ans.Citations {
		loc := fmt.Sprintf("%s:%d", c.Path, c.Line)
		if c.Page > 0 {
			loc = fmt.Sprintf("%s (%s %d)", c.Path, orPage(c.Unit), c.Page)
		}
		fmt.Fprintf(w, "[%d] %s\n    %q\n", c.N, loc, c.Quote)
	}
}

func orPage(unit string) string {
	if unit == "" {
		return "page"
	}
	return unit
}

package cli

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"strconv"
	"time"

	"cairn/core/domain"
	"cairn/core/fault"
)

// runThreads lists the saved conversations, prints one (ID), or deletes
// one (--delete ID).
func runThreads(ctx context.Context, env *cliEnv, args []string) error {
	fs := flag.NewFlagSet("threads", flag.ContinueOnError)
	var kb kbFlags
	kb.add(fs)
	asJSON := fs.Bool("json", false, "print JSON")
	del := fs.Int64("delete", 0, "delete conversation `ID` and its questions and answers")
	pos, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	var show int64
	switch {
	case len(pos) > 1 || len(pos) == 1 && *del != 0:
		return usageError{"threads takes at most one conversation ID: cairn threads [ID | --delete ID]"}
	case len(pos) == 1:
		if show, err = strconv.ParseInt(pos[0], 10, 64); err != nil || show <= 0 {
			return usageError{fmt.Sprintf("%q is not a conversation ID: IDs are the numbers cairn threads lists", pos[0])}
		}
	case *del < 0:
		return usageError{fmt.Sprintf("--delete %d: a conversation's ID is a positive number (see cairn threads)", *del)}
	}
	open := kb.open
	if *del != 0 {
		open = kb.openExisting
	}
	eng, err := open(ctx, env)
	if err != nil {
		return err
	}
	defer eng.Close()
	noThread := func(id int64, err error) error {
		if errors.Is(err, domain.ErrNoThread) {
			return usageError{fmt.Sprintf("no conversation %d in this knowledge base (list them with cairn threads)", id)}
		}
		return err
	}
	enc := json.NewEncoder(env.stdout)
	enc.SetIndent("", "  ")
	switch {
	case *del != 0:
		if err := eng.DeleteThread(ctx, *del); err != nil {
			return noThread(*del, err)
		}
		fmt.Fprintf(env.stdout, "Deleted conversation %d.\n", *del)
		return nil
	case show != 0:
		turns, err := eng.ThreadTurns(ctx, show)
		if err != nil {
			return noThread(show, err)
		}
		if *asJSON {
			type jsonTurn struct {
				Question string `json:"question"`
				Query    string `json:"query,omitempty"`
				Answer   string `json:"answer"`
				At       string `json:"at"`
			}
			out := []jsonTurn{}
			for _, t := range turns {
				out = append(out, jsonTurn{t.Question, t.Query, t.Answer, t.At.Format(time.RFC3339)})
			}
			return enc.Encode(out)
		}
		for i, t := range turns {
			if i > 0 {
				fmt.Fprintln(env.stdout)
			}
			fmt.Fprintf(env.stdout, "Q: %s\n", fault.PrintableText(t.Question))
			if t.Query != "" {
				fmt.Fprintf(env.stdout, "Searched for: %s\n", fault.Printable(t.Query))
			}
			fmt.Fprintf(env.stdout, "A: %s\n", fault.PrintableText(t.Answer))
		}
		return nil
	}
	threads, err := eng.Threads(ctx)
	if err != nil {
		return err
	}
	if *asJSON {
		type jsonThread struct {
			ID      int64  `json:"id"`
			Title   string `json:"title"`
			Turns   int    `json:"turns"`
			Updated string `json:"updated_at"`
		}
		out := []jsonThread{}
		for _, t := range threads {
			out = append(out, jsonThread{t.ID, t.Title, t.Turns, t.Updated.Format(time.RFC3339)})
		}
		return enc.Encode(out)
	}
	if len(threads) == 0 {
		fmt.Fprintln(env.stdout, `No saved conversations. Start one with cairn ask --new "QUESTION".`)
		return nil
	}
	for _, t := range threads {
		fmt.Fprintf(env.stdout, "%d\t%s\t%d questions\t%s\n", t.ID, t.Updated.Format("2006-01-02 15:04"), t.Turns, fault.Printable(t.Title))
	}
	return nil
}

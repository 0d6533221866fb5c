package main

import (
	"context"
	"fmt"
)

// runApp opens the window. Until the window lands, it prepares the default
// knowledge base (the bundled user guide) and shows a search over it.
func runApp(ctx context.Context, env *cliEnv) error {
	eng, err := kbFlags{}.open(ctx, env)
	if err != nil {
		return err
	}
	defer eng.Close()
	indexed, err := eng.EnsureStarterKB(ctx, nil)
	if err != nil {
		return err
	}
	if indexed {
		fmt.Fprintln(env.stdout, "Indexed the bundled user guide into the default knowledge base.")
	}
	st, err := eng.Status(ctx)
	if err != nil {
		return err
	}
	fmt.Fprintf(env.stdout, "Knowledge base %s: %d documents, %d chunks.\n", st.Path, st.Documents, st.Chunks)
	q := "how do I add a folder"
	fmt.Fprintf(env.stdout, "\nExample search: %q\n", q)
	return printSearch(ctx, env, eng, eng.SearchRequest(q), false)
}

package cli

import (
	"context"
	"flag"
	"fmt"
	"time"

	"cairn/core"
	"cairn/core/config"
	"cairn/core/migrate"
)

// runMigrate moves a knowledge base into the team cluster (--to weaviate)
// or back into a knowledge base file (--to sqlite), without extracting
// again.
func runMigrate(ctx context.Context, env *cliEnv, args []string) error {
	fs := flag.NewFlagSet("migrate", flag.ContinueOnError)
	var kb kbFlags
	kb.add(fs)
	to := fs.String("to", "", "`weaviate` (the knowledge base into the team cluster) or sqlite (the cluster into the knowledge base)")
	as := fs.String("as", "", "to weaviate: the `name` of the knowledge base's one folder in the cluster (default its path); "+
		"to sqlite: the folder on this computer that the cluster's one folder is (default its name, when that is a path)")
	pos, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 0 || (*to != config.BackendWeaviate && *to != config.BackendSQLite) {
		return usageError{"migrate needs --to weaviate or --to sqlite: cairn migrate --to weaviate|sqlite [--kb NAME|--db PATH] [--as NAME]"}
	}
	if env.cfg.Store.Backend != config.BackendWeaviate {
		return fmt.Errorf("cairn migrate needs the team cluster in the settings: set store.backend to weaviate and store.url to the cluster's URL " +
			"(for --to sqlite, migrate before switching store.backend back; docs/team.md)")
	}
	var eng *core.Engine
	if *to == config.BackendWeaviate {
		eng, err = kb.open(ctx, env) // read-only: the source must exist
	} else {
		eng, err = kb.openWrite(ctx, env) // created when it does not exist
	}
	if err != nil {
		return err
	}
	defer eng.Close()
	start := time.Now()
	tty := isTerminal(env.stderr)
	var last time.Time
	progress := func(p migrate.Progress) {
		if tty && (time.Since(last) > 100*time.Millisecond || p.Done == p.Total) {
			last = time.Now()
			fmt.Fprintf(env.stderr, "\r\033[Kmigrating: %d/%d documents  %s", p.Done, p.Total, shortPath(p.Path, 50))
			if p.Done == p.Total {
				fmt.Fprintln(env.stderr)
			}
		}
	}
	var sum migrate.Summary
	from, into := eng.Path(), "the team cluster at "+env.cfg.Store.URL
	if *to == config.BackendWeaviate {
		sum, err = eng.MigrateToTeam(ctx, *as, progress)
	} else {
		from, into = into, eng.Path()
		sum, err = eng.MigrateFromTeam(ctx, *as, progress)
	}
	if err != nil {
		return err
	}
	model := "none (keyword search only)"
	if sum.Model != "" {
		model = fmt.Sprintf("%s (%d dimensions)", sum.Model, sum.Dim)
	}
	fmt.Fprintf(env.stdout, "Migrated %s into %s: %s, %d documents (%d written, %d already there); %d chunks and %d vectors written; vector model %s; in %s\n",
		from, into, plural(sum.Folders, "folder"), sum.Documents, sum.Written, sum.Unchanged, sum.Chunks, sum.Vectors, model, time.Since(start).Round(time.Millisecond))
	return nil
}

// plural is "1 folder", "2 folders".
func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

// shortPath keeps the end of a long path.
func shortPath(p string, n int) string {
	if r := []rune(p); len(r) > n {
		return "…" + string(r[len(r)-n+1:])
	}
	return p
}

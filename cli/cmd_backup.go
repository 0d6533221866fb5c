package cli

import (
	"context"
	"flag"
	"fmt"

	"cairn/core"
	"cairn/core/fault"
	"cairn/core/humanize"
	"cairn/core/store"
)

// kbAndFile parses `cairn NAME [--kb NAME|--db PATH] FILE`, and with
// restore the flags --create, which sets Write, and --replace-damaged.
func kbAndFile(name, usage string, env *cliEnv, args []string, restore bool) (opt core.Options, file string, replaceDamaged bool, err error) {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	var kb kbFlags
	kb.add(fs)
	var write bool
	if restore {
		fs.BoolVar(&write, "create", false, "create the knowledge base from the backup when none exists at the path")
		fs.BoolVar(&replaceDamaged, "replace-damaged", false,
			"replace the file even when it is not recognisable as a knowledge base (its first page is damaged); it is kept as the .bak")
	}
	pos, err := parseFlags(fs, args)
	if err != nil {
		return core.Options{}, "", false, err
	}
	if len(pos) != 1 {
		return core.Options{}, "", false, usageError{usage}
	}
	return core.Options{KB: kb.kb, DB: kb.db, Write: write, Log: env.log}, pos[0], replaceDamaged, nil
}

func runBackup(ctx context.Context, env *cliEnv, args []string) error {
	opt, dest, _, err := kbAndFile("backup", "backup needs the file to write: cairn backup [--kb NAME] DEST.db", env, args, false)
	if err != nil {
		return err
	}
	st, removed, err := core.Backup(ctx, env.cfg, opt, dest)
	printLeftovers(env, removed)
	if err != nil {
		return err
	}
	fmt.Fprintf(env.stdout, "Backed up %d documents, %d chunks to %s.\n", st.Documents, st.Chunks, dest)
	return nil
}

func runRestore(ctx context.Context, env *cliEnv, args []string) error {
	opt, src, replaceDamaged, err := kbAndFile("restore", "restore needs the backup file: cairn restore SRC.db [--kb NAME] [--create] [--replace-damaged]", env, args, true)
	if err != nil {
		return err
	}
	st, removed, err := core.Restore(ctx, env.cfg, opt, src, replaceDamaged)
	printLeftovers(env, removed)
	if err != nil {
		return err
	}
	fmt.Fprintf(env.stdout, "Restored %d documents, %d chunks into %s; the file it replaced (if any) is %s.bak.\n",
		st.Documents, st.Chunks, st.Path, st.Path)
	return nil
}

// printLeftovers says which temporary copies, left by a backup or restore
// that was killed, were removed, and the space that freed.
func printLeftovers(env *cliEnv, removed []store.Leftover) {
	for _, l := range removed {
		fmt.Fprintf(env.stderr, "Removed %s (%s), a temporary copy left by an interrupted backup or restore.\n",
			fault.Printable(l.Path), humanize.Bytes(l.Bytes))
	}
}

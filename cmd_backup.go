package main

import (
	"context"
	"flag"
	"fmt"

	"cairn/core"
)

func runBackup(ctx context.Context, env *cliEnv, args []string) error {
	fs := flag.NewFlagSet("backup", flag.ContinueOnError)
	var kb kbFlags
	kb.add(fs)
	pos, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		return usageError{"backup needs the file to write: cairn backup [--kb NAME] DEST.db"}
	}
	st, err := core.Backup(ctx, env.cfg, core.Options{KB: kb.kb, DB: kb.db, Log: env.log}, pos[0])
	if err != nil {
		return err
	}
	fmt.Fprintf(env.stdout, "Backed up %d documents, %d chunks to %s.\n", st.Documents, st.Chunks, pos[0])
	return nil
}

func runRestore(ctx context.Context, env *cliEnv, args []string) error {
	fs := flag.NewFlagSet("restore", flag.ContinueOnError)
	var kb kbFlags
	kb.add(fs)
	pos, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		return usageError{"restore needs the backup file: cairn restore SRC.db [--kb NAME]"}
	}
	st, err := core.Restore(ctx, env.cfg, core.Options{KB: kb.kb, DB: kb.db, Log: env.log}, pos[0])
	if err != nil {
		return err
	}
	fmt.Fprintf(env.stdout, "Restored %d documents, %d chunks into %s; the file it replaced (if any) is %s.bak.\n",
		st.Documents, st.Chunks, st.Path, st.Path)
	return nil
}

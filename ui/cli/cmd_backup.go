package cli

import (
	"context"
	"flag"
	"fmt"

	"cairn/core"
)

// kbAndFile parses `cairn NAME [--kb NAME|--db PATH] FILE`, and with
// create the flag --create, which sets Write.
func kbAndFile(name, usage string, env *cliEnv, args []string, create bool) (core.Options, string, error) {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	var kb kbFlags
	kb.add(fs)
	var write bool
	if create {
		fs.BoolVar(&write, "create", false, "create the knowledge base from the backup when none exists at the path")
	}
	pos, err := parseFlags(fs, args)
	if err != nil {
		return core.Options{}, "", err
	}
	if len(pos) != 1 {
		return core.Options{}, "", usageError{usage}
	}
	return core.Options{KB: kb.kb, DB: kb.db, Write: write, Log: env.log}, pos[0], nil
}

func runBackup(ctx context.Context, env *cliEnv, args []string) error {
	opt, dest, err := kbAndFile("backup", "backup needs the file to write: cairn backup [--kb NAME] DEST.db", env, args, false)
	if err != nil {
		return err
	}
	st, err := core.Backup(ctx, env.cfg, opt, dest)
	if err != nil {
		return err
	}
	fmt.Fprintf(env.stdout, "Backed up %d documents, %d chunks to %s.\n", st.Documents, st.Chunks, dest)
	return nil
}

func runRestore(ctx context.Context, env *cliEnv, args []string) error {
	opt, src, err := kbAndFile("restore", "restore needs the backup file: cairn restore SRC.db [--kb NAME] [--create]", env, args, true)
	if err != nil {
		return err
	}
	st, err := core.Restore(ctx, env.cfg, opt, src)
	if err != nil {
		return err
	}
	fmt.Fprintf(env.stdout, "Restored %d documents, %d chunks into %s; the file it replaced (if any) is %s.bak.\n",
		st.Documents, st.Chunks, st.Path, st.Path)
	return nil
}

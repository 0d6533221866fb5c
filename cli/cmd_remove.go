package cli

import (
	"bufio"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"cairn/core"
	"cairn/core/config"
	"cairn/core/domain"
	"cairn/core/fault"
	"cairn/core/netgate"
)

// runRemove forgets a folder and everything indexed from it: from the
// knowledge base, or with store.backend weaviate from the team cluster,
// for everyone who searches it. It says what it will remove and asks
// first, unless --yes.
func runRemove(ctx context.Context, env *cliEnv, args []string) error {
	fs := flag.NewFlagSet("remove", flag.ContinueOnError)
	var kb kbFlags
	kb.add(fs)
	yes := fs.Bool("yes", false, "remove without asking (a script, a service)")
	as := fs.String("as", "", "with store.backend weaviate: the folder's `name` in the team cluster, as `cairn index --as` gave it (default: DIR's absolute path)")
	pos, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	team := env.cfg.Store.Backend == config.BackendWeaviate
	switch {
	case *as != "" && !team:
		return usageError{"--as names a folder in a team cluster: it needs store.backend weaviate"}
	case *as != "" && len(pos) > 0:
		return usageError{"give the folder once: cairn remove DIR, or cairn remove --as NAME"}
	case len(pos) > 1 || len(pos) == 0 && *as == "":
		return usageError{"remove needs one folder: cairn remove DIR, or with store.backend weaviate cairn remove --as NAME"}
	}
	dir := ""
	if len(pos) == 1 {
		dir = pos[0]
	}
	if team {
		return removeTeam(ctx, env, kb, dir, *as, *yes)
	}
	eng, err := kb.openExisting(ctx, env)
	if err != nil {
		return err
	}
	defer eng.Close()
	folders, err := eng.Folders(ctx)
	if err != nil {
		return err
	}
	path, err := absPath(dir)
	if err != nil {
		return err
	}
	var names []string
	for _, f := range folders {
		names = append(names, f.Path)
		if f.Path != path {
			continue
		}
		what := fmt.Sprintf("Remove %s from the knowledge base %s: its %s and %s? The files themselves are not touched.",
			path, eng.Path(), plural(f.Documents, "file"), plural(f.Chunks, "chunk"))
		if err := confirm(env, what, *yes); err != nil {
			return err
		}
		if _, err := eng.RemoveFolder(ctx, path, nil); err != nil {
			return err
		}
		fmt.Fprintf(env.stdout, "Removed %s from the knowledge base %s: %s, %s. The files themselves are untouched.\n",
			fault.Printable(path), fault.Printable(eng.Path()), plural(f.Documents, "file"), plural(f.Chunks, "chunk"))
		return nil
	}
	return fmt.Errorf("%s is not a folder of the knowledge base %s; its folders: %s", path, eng.Path(), listOrNone(names))
}

// removeTeam removes a folder from the team cluster: the one named as, or
// the cluster's name for dir (core.Engine.TeamFolderName).
func removeTeam(ctx context.Context, env *cliEnv, kb kbFlags, dir, as string, yes bool) error {
	// The local knowledge base holds this computer's runs of the folder,
	// which go too; without one, the cluster's folder is removed all the
	// same.
	opt := kb.options(env)
	path, err := opt.Path(env.cfg)
	if _, serr := os.Stat(path); err != nil || serr != nil {
		opt.NoKB = true
	}
	var eng *core.Engine
	if !opt.NoKB {
		if eng, err = kb.openWrite(ctx, env); err != nil {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			fmt.Fprintln(env.stderr, "cairn: warning: this computer's record of the folder's runs is kept:", err)
			opt.NoKB = true
		}
	}
	if opt.NoKB {
		if eng, err = core.Open(ctx, env.cfg, env.dirs, opt); err != nil {
			return err
		}
	}
	defer eng.Close()
	name := as
	if name == "" {
		path, err := absPath(dir)
		if err != nil {
			return err
		}
		name = eng.TeamFolderName(path)
	}
	cluster := "the team cluster at " + netgate.RedactURL(env.cfg.Store.URL)
	folders, err := eng.TeamFolders(ctx)
	if err != nil {
		return err
	}
	var size domain.FolderSize
	var names []string
	for _, f := range folders {
		names = append(names, f.Folder)
		if f.Folder == name {
			size = f
		}
	}
	if size.Folder == "" {
		return fmt.Errorf("%s holds no folder named %s; its folders: %s (give the name with --as NAME)", cluster, name, listOrNone(names))
	}
	what := fmt.Sprintf("Remove %s from %s: its %s and %s, for everyone who searches the cluster? The files themselves are not touched.",
		name, cluster, plural(size.Files, "file"), plural(size.Chunks, "chunk"))
	if err := confirm(env, what, yes); err != nil {
		return err
	}
	tty := isTerminal(env.stderr)
	var last time.Time
	progress := func(r domain.Removal) {
		done := r.FilesRemoved == r.Files && r.ChunksRemoved == r.Chunks
		if tty && time.Since(last) < 100*time.Millisecond && !done {
			return
		}
		last = time.Now()
		line := fmt.Sprintf("removing %s: %d/%d files, %d/%d chunks", name, r.FilesRemoved, r.Files, r.ChunksRemoved, r.Chunks)
		if tty {
			fmt.Fprint(env.stderr, "\r\033[K"+line)
			if done {
				fmt.Fprintln(env.stderr)
			}
			return
		}
		fmt.Fprintln(env.stderr, line) // one line a round: a service's log shows how far it got
	}
	start := time.Now()
	r, err := eng.RemoveTeamFolder(ctx, name, progress)
	if err != nil {
		if r.FilesRemoved+r.ChunksRemoved > 0 {
			return fmt.Errorf("%w (%d files and %d chunks of %s were removed; run cairn remove again to remove the rest)", err, r.FilesRemoved, r.ChunksRemoved, name)
		}
		return err
	}
	fmt.Fprintf(env.stdout, "Removed %s from %s: %s, %s, in %s. The files themselves are untouched.\n",
		fault.Printable(name), cluster, plural(r.FilesRemoved, "file"), plural(r.ChunksRemoved, "chunk"), time.Since(start).Round(time.Millisecond))
	return nil
}

// errNotConfirmed is the answer to anything but yes.
var errNotConfirmed = errors.New("nothing removed: answer y to remove, or give --yes")

// confirm asks what on the terminal (or reads the answer from standard
// input) unless yes; anything but y or yes, an empty input among them,
// removes nothing.
func confirm(env *cliEnv, what string, yes bool) error {
	if yes {
		return nil
	}
	fmt.Fprintf(env.stderr, "%s [y/N] ", what)
	if env.stdin == nil {
		fmt.Fprintln(env.stderr)
		return errNotConfirmed
	}
	line, err := bufio.NewReader(env.stdin).ReadString('\n')
	if err != nil && err != io.EOF {
		return fmt.Errorf("reading the answer: %w", err)
	}
	if err == io.EOF {
		fmt.Fprintln(env.stderr)
	}
	switch strings.ToLower(strings.TrimSpace(line)) {
	case "y", "yes":
		return nil
	}
	return errNotConfirmed
}

// absPath is dir made absolute; the folder need not exist any more.
func absPath(dir string) (string, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", fmt.Errorf("%s is not a usable folder path: %w", dir, err)
	}
	return abs, nil
}

func listOrNone(names []string) string {
	if len(names) == 0 {
		return "none"
	}
	return strings.Join(names, ", ")
}

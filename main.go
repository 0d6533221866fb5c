// Cairn answers questions from your own documents, offline.
//
// Without arguments it opens the window; `cairn COMMAND` runs headless.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"

	"cairn/core"
	"cairn/core/config"
	"cairn/core/store"
)

// version is set at build time with -ldflags "-X main.version=...".
var version = "0.1.0-dev"

// command is one `cairn` subcommand.
type command struct {
	name    string
	args    string
	summary string
	run     func(ctx context.Context, env *cliEnv, args []string) error
}

func commands() []command {
	return []command{
		{"index", "DIR [--kb NAME|--db PATH]", "index a folder (incremental; Ctrl+C stops cleanly)", runIndex},
		{"search", "QUERY [--top-k N] [--json] | --batch FILE --format trec", "search the knowledge base", runSearch},
		{"ask", "QUESTION [--json]", "answer a question from your documents, with citations", runAsk},
		{"status", "[--json] [--issues]", "what the knowledge base holds", runStatus},
		{"models", "list | use PATH | pull NAME", "list, choose or download GGUF models", runModels},
		{"bench", "[all|index|extract|embed|generate|vector|load|gui] [--runs N] [--limit N] [--duration D]", "measure indexing, search, extraction, models and the window (README: Performance)", runBench},
		{"version", "", "print the version", func(_ context.Context, env *cliEnv, _ []string) error {
			fmt.Fprintln(env.stdout, "cairn", version)
			return nil
		}},
	}
}

// cliEnv is what every command gets: the configuration and output streams.
type cliEnv struct {
	cfg    config.Config
	dirs   config.Dirs
	stdout io.Writer
	stderr io.Writer
}

// usageError marks errors that deserve the usage text and exit code 2.
type usageError struct{ msg string }

func (e usageError) Error() string { return e.msg }

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

func run(args []string, stdout, stderr io.Writer) int {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	// Warnings and errors only on the terminal; llama.cpp's chatter is Info.
	slog.SetDefault(slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: slog.LevelWarn})))
	dirs, err := config.UserDirs()
	if err != nil {
		fmt.Fprintln(stderr, "cairn:", err)
		return 1
	}
	// Compiling SQLite's WebAssembly takes a second; cache it across runs.
	if err := store.UseCompileCache(filepath.Join(dirs.Cache, "wazero")); err != nil {
		slog.Warn("no SQLite compile cache", "err", err)
	}
	cfg, err := config.Load(dirs)
	if err != nil {
		fmt.Fprintln(stderr, "cairn:", err)
		return 1
	}
	env := &cliEnv{cfg: cfg, dirs: dirs, stdout: stdout, stderr: stderr}
	if len(args) == 0 {
		err = runApp(ctx, env)
	} else {
		err = dispatch(ctx, env, args)
	}
	var ue usageError
	switch {
	case err == nil:
		return 0
	case errors.As(err, &ue):
		fmt.Fprintln(stderr, "cairn:", err)
		fmt.Fprintln(stderr, "Run `cairn help` for usage.")
		return 2
	case errors.Is(err, context.Canceled):
		fmt.Fprintln(stderr, "cairn: stopped")
		return 130
	default:
		fmt.Fprintln(stderr, "cairn:", oneLine(err.Error()))
		return 1
	}
}

func dispatch(ctx context.Context, env *cliEnv, args []string) error {
	name := args[0]
	if name == "help" || name == "-h" || name == "--help" {
		usage(env.stdout)
		return nil
	}
	for _, c := range commands() {
		if c.name == name {
			return c.run(ctx, env, args[1:])
		}
	}
	return usageError{fmt.Sprintf("unknown command %q", name)}
}

func usage(w io.Writer) {
	fmt.Fprintln(w, "Cairn answers questions from your own documents, offline.")
	fmt.Fprintln(w, "\nUsage:\n  cairn                 open the window")
	for _, c := range commands() {
		fmt.Fprintf(w, "  cairn %s %s\n      %s\n", c.name, c.args, c.summary)
	}
	fmt.Fprintln(w, "\nCommon flags: --kb NAME (knowledge base name), --db PATH (knowledge base file).")
}

// kbFlags adds --kb and --db to fs.
type kbFlags struct{ kb, db string }

func (k *kbFlags) add(fs *flag.FlagSet) {
	fs.StringVar(&k.kb, "kb", "", "knowledge base `name`")
	fs.StringVar(&k.db, "db", "", "knowledge base file `path`")
}

func (k kbFlags) open(ctx context.Context, env *cliEnv) (*core.Engine, error) {
	return core.Open(ctx, env.cfg, env.dirs, core.Options{KB: k.kb, DB: k.db})
}

// parseFlags parses args allowing flags before and after positional
// arguments (`cairn index DIR --kb work`), returning the positional ones.
func parseFlags(fs *flag.FlagSet, args []string) ([]string, error) {
	fs.SetOutput(io.Discard)
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			return nil, usageError{err.Error()}
		}
		args = fs.Args()
		if len(args) == 0 {
			return pos, nil
		}
		if args[0] == "--" {
			return append(pos, args[1:]...), nil
		}
		pos = append(pos, args[0])
		args = args[1:]
	}
}

func oneLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i]
	}
	return s
}

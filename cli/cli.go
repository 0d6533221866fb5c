// Package cli is Cairn's command line: `cairn COMMAND` runs a command
// headless, and no command opens the window (app.go). Each command is a
// thin layer over core.Engine, the facade the window drives too.
package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"os"
	"os/signal"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"time"

	"cairn/core"
	"cairn/core/buildinfo"
	"cairn/core/config"
	"cairn/core/fault"
	"cairn/core/logs"
	"cairn/core/netgate"
	"cairn/core/remote"
	"cairn/core/store"
)

// Version is the binary's version, as the build stamped it (core/buildinfo).
var Version = buildinfo.Read().Version

// command is one `cairn` subcommand.
type command struct {
	name    string
	args    string
	summary string
	run     func(ctx context.Context, env *cliEnv, args []string) error
}

func commands() []command {
	return []command{
		{"index", "DIR [--watch] [--kb NAME|--db PATH] | DIR [--as NAME]", "index a folder (incremental; Ctrl+C stops cleanly; --watch keeps indexing what changes); with store.backend weaviate, into the team cluster", runIndex},
		{"remove", "DIR [--yes] [--kb NAME|--db PATH] | --as NAME [--yes]", "forget a folder and everything indexed from it (asks first); with store.backend weaviate, from the team cluster, for everyone", runRemove},
		{"search", "QUERY [--top-k N] [--json] | --batch FILE --format trec", "search the knowledge base", runSearch},
		{"ask", "QUESTION [--json] [--new | --continue | --thread ID]", "answer a question from your documents, with citations; --new, --continue: a saved conversation", runAsk},
		{"threads", "[ID | --delete ID] [--json]", "list the saved conversations, print one, or delete one", runThreads},
		{"status", "[--json] [--issues]", "what the knowledge base holds", runStatus},
		{"eval", "golden FILE [--k N] | injection [--model PATH]", "retrieval metrics on your own golden set; planted-instruction resistance", runEval},
		{"models", "list | use PATH | pull NAME [--sha256 HEX]", "list, choose or download GGUF models", runModels},
		{"network", "[offline|team|online|admin] | key [show|set|delete]", "show or switch the network gate's mode; manage the API key", runNetwork},
		{"serve", "[--port N] [--socket PATH] [--print-token]", "serve the HTTP API and MCP on 127.0.0.1 (or a Unix socket), for your own tools (docs/service.md)", runServe},
		{"mcp", "[--kb NAME|--db PATH]", "speak the Model Context Protocol on stdin/stdout, for AI assistants (docs/service.md)", runMCP},
		{"doctor", "[--load]", "check the knowledge base, models, OCR, disk and settings; non-zero exit when a check fails", runDoctor},
		{"migrate", "--to weaviate|sqlite [--kb NAME|--db PATH] [--as NAME]", "move the knowledge base into the team cluster (store.url), or the cluster's back into it, without indexing again (docs/team.md)", runMigrate},
		{"backup", "DEST.db", "write a consistent copy of the knowledge base (safe while indexing)", runBackup},
		{"restore", "SRC.db [--create]", "replace the knowledge base with a checked backup, keeping the old file as .bak (--create: make a new one)", runRestore},
		{"bench", "[all|index|extract|embed|generate|serve|gui] [--runs N] [--limit N] [--duration D] [--clients N] | gpu [--device LIST] [--models LIST]", "measure indexing, extraction, models, the service and the window on this machine; gpu: every GPU against the CPU on models it generates (docs/performance.md)", runBench},
		{"version", "", "print the version, the commit and build date, and whether the GPU backend is in", runVersion},
	}
}

// cliEnv is what every command gets: the configuration, the standard
// streams and, for tests, how the network gate dials and where the API key
// is kept.
type cliEnv struct {
	cfg    config.Config
	cfgErr error // why the settings did not load (only `cairn doctor` runs then)
	dirs   config.Dirs
	log    *slog.Logger // the log file; never the terminal
	cliIO
}

// cliIO is a command's outside world: the standard streams, the network
// gate's inner dialer (nil: the real one) and the keyring (nil: the
// system's).
type cliIO struct {
	stdin   io.Reader
	stdout  io.Writer
	stderr  io.Writer
	dial    netgate.DialFunc
	keyring remote.Keyring
	// devSuite runs the developer command's bench suites (devSuites,
	// RunDev); nil in the product, which has none of them, so that their
	// code is not linked into it.
	devSuite devSuiteFunc
}

// usageError marks errors that deserve the usage text and exit code 2.
type usageError struct{ msg string }

func (e usageError) Error() string { return e.msg }

// helpShown is `cairn COMMAND --help`: not a failure, the command's usage
// and its flags, printed on standard output.
type helpShown struct {
	text  string
	flags *flag.FlagSet // the command's flags, for the manual (WriteManPage)
}

func (e helpShown) Error() string { return e.text }

// commandHelp is the usage line, summary and flags of fs's command.
func commandHelp(fs *flag.FlagSet) string {
	var b strings.Builder
	for _, c := range commands() {
		switch {
		case c.name == fs.Name():
			fmt.Fprintf(&b, "usage: cairn %s %s\n  %s\n", c.name, c.args, c.summary)
		case strings.HasPrefix(fs.Name(), c.name+" "): // a subcommand with flags of its own: `bench gpu`
			fmt.Fprintf(&b, "usage: cairn %s [flags]\n  %s\n", fs.Name(), c.summary)
		}
	}
	b.WriteString("\nflags:\n")
	fs.SetOutput(&b)
	fs.PrintDefaults()
	fs.SetOutput(io.Discard)
	return b.String()
}

// partialError marks a command that did its work except for some items
// (files an index run could not read): exit code 3, so a script can tell
// it from a total failure (1).
type partialError struct{ msg string }

func (e partialError) Error() string { return e.msg }

// Run runs the command args (none: the window) and returns its exit code:
// 0 done, 1 failed, 2 a wrong command line, 3 done except for some files,
// 130 stopped.
func Run(args []string, stdout, stderr io.Writer) int {
	return run(args, stdout, stderr)
}

func run(args []string, stdout, stderr io.Writer) int {
	return runIO(args, cliIO{stdin: os.Stdin, stdout: stdout, stderr: stderr})
}

func runIO(args []string, cio cliIO) int {
	stderr := cio.stderr
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	returned := make(chan struct{})
	defer close(returned) // before stop, which ends ctx too
	go stopWithin(ctx, returned, stop, stopGrace, func() {
		fmt.Fprintln(stderr, "cairn: stopped without waiting for the work in progress (a file read or a call that did not end)")
		os.Exit(130)
	})
	// Warnings and errors only on the terminal until the log file is open;
	// llama.cpp's chatter is Info. Tests call run repeatedly in one process,
	// so the previous default comes back on return.
	defer slog.SetDefault(slog.Default())
	slog.SetDefault(slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: slog.LevelWarn})))
	dirs, err := config.UserDirs()
	if err != nil {
		printError(stderr, err)
		return 1
	}
	// Compiling SQLite's WebAssembly takes a second; cache it across runs.
	// The cache is optional: when it cannot be used, the first open says so
	// and goes on.
	cacheDir := filepath.Join(dirs.Cache, "wazero")
	store.UseCompileCache(cacheDir, func(err error) {
		fmt.Fprintln(stderr, "cairn: warning: starting without the compile cache (about a second slower):", fault.FirstLine(err.Error()))
		fmt.Fprintln(stderr, "  fix: free space on that disk, or delete the folder", cacheDir, "(Cairn rebuilds it)")
	})
	cfg, cfgErr := config.Load(dirs)
	if cfgErr != nil {
		// The window starts on the defaults and says why, the doctor
		// reports broken settings among its checks, and help and version
		// need no settings; every other command stops here.
		switch {
		case len(args) == 0:
			fmt.Fprintln(stderr, "cairn: warning: using the default settings:", fault.FirstLine(cfgErr.Error()))
			if fix := fault.FixLine(cfgErr); fix != "" {
				fmt.Fprintln(stderr, "  fix:", fix)
			}
		case !slices.Contains([]string{"doctor", "help", "-h", "--help", "version"}, args[0]):
			printError(stderr, cfgErr)
			return 1
		}
		cfg = config.Fallback(dirs)
	}
	log := openLog(dirs, cfg, stderr)
	defer log.Close()
	slog.SetDefault(log.Terminal)
	env := &cliEnv{cfg: cfg, cfgErr: cfgErr, dirs: dirs, log: log.Logger, cliIO: cio}
	name := "window"
	if len(args) > 0 {
		name = args[0] // never the rest: it holds questions and paths
	}
	log.Info("start", "command", name, "version", Version, "pid", os.Getpid())
	if len(args) == 0 {
		err = runApp(ctx, env)
	} else {
		err = dispatch(ctx, env, args)
	}
	var ue usageError
	var pe partialError
	var help helpShown
	switch {
	case err == nil:
		log.Info("done", "command", name)
		return 0
	case errors.As(err, &help):
		fmt.Fprint(cio.stdout, help.text)
		return 0
	case errors.As(err, &ue):
		fmt.Fprintln(stderr, "cairn:", err)
		fmt.Fprintln(stderr, "Run `cairn help` for usage.")
		return 2
	case errors.As(err, &pe):
		log.Warn("done in part", "command", name, "err", err)
		fmt.Fprintln(stderr, "cairn:", err)
		return 3
	case errors.Is(err, context.Canceled):
		log.Info("stopped", "command", name)
		fmt.Fprintln(stderr, "cairn: stopped")
		return 130
	default:
		log.Error("failed", "command", name, "code", string(fault.CodeOf(err)), "err", err)
		printError(stderr, err)
		return 1
	}
}

// stopGrace is how long a command has to wind down after Ctrl+C or
// SIGTERM: past it, the process exits anyway. It covers an HTTP server's
// own shutdown (5 s) with room to spare.
const stopGrace = 10 * time.Second

// stopWithin makes a stop request always end the process: once ctx ends
// (a signal), the command has grace to return; if it has not (a worker
// blocked in a read of a hung network file, a system call no context
// reaches), exit is called. The process's locks on the knowledge base are
// released by the kernel when it exits, and SQLite rolls back the
// transaction it was in, so the next run finds a consistent database.
// unregister restores the signals' default action at the first one, so a
// second Ctrl+C ends the process at once.
func stopWithin(ctx context.Context, returned <-chan struct{}, unregister func(), grace time.Duration, exit func()) {
	select {
	case <-returned:
		return
	case <-ctx.Done():
	}
	unregister()
	t := time.NewTimer(grace)
	defer t.Stop()
	select {
	case <-returned:
	case <-t.C:
		exit()
	}
}

// printError shows err as a person should see it: one line, and a second
// with the fix and the fault's code when there is one.
func printError(w io.Writer, err error) {
	fmt.Fprintln(w, "cairn:", fault.FirstLine(err.Error()))
	if fix := fault.FixLine(err); fix != "" {
		fmt.Fprintln(w, "  fix:", fix)
	}
}

// openLog opens the log file in the state folder at the configured level.
// Without it (a read-only home, say) Cairn still runs, logging to nowhere
// but the terminal's warnings.
func openLog(dirs config.Dirs, cfg config.Config, stderr io.Writer) *logs.Logger {
	level, _ := logs.ParseLevel(cfg.Log.Level) // validated with the settings
	l, err := logs.Open(logs.Options{Dir: dirs.State, Level: level, Terminal: stderr})
	if err != nil {
		fmt.Fprintln(stderr, "cairn: warning: no log file:", err)
		term := slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
		return &logs.Logger{Logger: logs.Discard(), Terminal: term}
	}
	return l
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

// open opens the knowledge base read-only: it must exist and be Cairn's,
// and nothing in it changes.
func (k kbFlags) open(ctx context.Context, env *cliEnv) (*core.Engine, error) {
	return core.Open(ctx, env.cfg, env.dirs, k.options(env))
}

// openWrite opens the knowledge base for an index run, creating it if need be.
func (k kbFlags) openWrite(ctx context.Context, env *cliEnv) (*core.Engine, error) {
	opt := k.options(env)
	opt.Write = true
	return core.Open(ctx, env.cfg, env.dirs, opt)
}

// openExisting opens the knowledge base for writing (a conversation is
// saved in it) but, unlike an index run, never creates it: a missing one
// gets the read-only open's error.
func (k kbFlags) openExisting(ctx context.Context, env *cliEnv) (*core.Engine, error) {
	path, err := k.options(env).Path(env.cfg)
	if err != nil {
		return nil, err
	}
	if _, err := os.Stat(path); errors.Is(err, fs.ErrNotExist) {
		return k.open(ctx, env)
	}
	return k.openWrite(ctx, env)
}

func (k kbFlags) options(env *cliEnv) core.Options {
	return core.Options{KB: k.kb, DB: k.db, Log: env.log, Dial: env.dial, Keyring: env.keyring}
}

// parseFlags parses args allowing flags before and after positional
// arguments (`cairn index DIR --kb work`), returning the positional ones.
func parseFlags(fs *flag.FlagSet, args []string) ([]string, error) {
	fs.SetOutput(io.Discard)
	var pos []string
	for {
		if err := fs.Parse(args); errors.Is(err, flag.ErrHelp) {
			return nil, helpShown{commandHelp(fs), fs}
		} else if err != nil {
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

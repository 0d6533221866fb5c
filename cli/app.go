package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"os"

	"cairn/core"
	"cairn/core/config"
	"cairn/core/doctor"
	"cairn/core/doctor/health"
	"cairn/ui"
)

// The window drives a core.Engine through ui.Engine, which names no type
// that needs cgo: the window's package builds without llama.cpp and
// Tesseract.
var _ ui.Engine = (*core.Engine)(nil)

// benchGUIEnv carries a ui.BenchSpec (JSON) to the window that
// `cairn bench gui` starts in a child process.
const benchGUIEnv = "CAIRN_BENCH_GUI"

// runApp opens the window. The window appears at once; the knowledge base
// opens in the background (on first start it indexes the bundled user
// guide), and the panels become functional when it is ready.
func runApp(ctx context.Context, env *cliEnv) error {
	if os.Getenv("DISPLAY") == "" && os.Getenv("WAYLAND_DISPLAY") == "" {
		fmt.Fprintln(env.stderr, "cairn: no display to open the window on (DISPLAY and WAYLAND_DISPLAY are unset);",
			"showing the knowledge base instead. `cairn help` lists the commands.")
		return runHeadless(ctx, env)
	}
	workers := ui.ReserveProcessor()
	opt := ui.Options{
		Config:      env.cfg,
		Dirs:        env.dirs,
		Version:     Version,
		Log:         env.log,
		SettingsErr: env.cfgErr,
		Open: func(ctx context.Context, kb string, cfg config.Config) (ui.Engine, error) {
			e, err := core.Open(ctx, cfg, env.dirs, core.Options{KB: kb, Write: true, Log: env.log, Dial: env.dial, Keyring: env.keyring,
				IndexWorkers: workers})
			if err != nil {
				return nil, err
			}
			return e, nil
		},
		Doctor: func(ctx context.Context, kb string, cfg config.Config) []health.Check {
			return doctor.Run(ctx, cfg, env.dirs, doctor.Options{KB: kb, ConfigErr: env.cfgErr})
		},
	}
	if spec := os.Getenv(benchGUIEnv); spec != "" {
		opt.Bench = new(ui.BenchSpec)
		if err := json.Unmarshal([]byte(spec), opt.Bench); err != nil {
			return fmt.Errorf("%s: %w", benchGUIEnv, err)
		}
	}
	return ui.Run(ctx, opt)
}

// runHeadless is `cairn` without a display: it prepares the default
// knowledge base (on first start, the bundled user guide) and shows what it
// holds with an example search.
func runHeadless(ctx context.Context, env *cliEnv) error {
	eng, err := kbFlags{}.openWrite(ctx, env)
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

package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"

	"cairn/core"
	"cairn/ui"
)

// benchGUIEnv carries a ui.BenchSpec (JSON) to the window that
// `cairn bench gui` starts in a child process.
const benchGUIEnv = "CAIRN_BENCH_GUI"

// runApp opens the window. The window appears at once; the knowledge base
// opens in the background (on first start it indexes the bundled user
// guide), and the panels become functional when it is ready.
func runApp(ctx context.Context, env *cliEnv) error {
	if os.Getenv("DISPLAY") == "" && os.Getenv("WAYLAND_DISPLAY") == "" {
		return errors.New("no display to open the window on (DISPLAY and WAYLAND_DISPLAY are unset); " +
			"run it from a desktop session, or use the command line: cairn help")
	}
	useSQLiteCompileCache()
	opt := ui.Options{
		Config:  env.cfg,
		Dirs:    env.dirs,
		Version: version,
		Open: func(ctx context.Context, kb string) (ui.Engine, error) {
			e, err := core.Open(ctx, env.cfg, env.dirs, core.Options{KB: kb})
			if err != nil {
				return nil, err
			}
			return e, nil
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

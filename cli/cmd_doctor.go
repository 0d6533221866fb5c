package cli

import (
	"context"
	"flag"
	"fmt"

	"cairn/core/doctor"
	"cairn/core/doctor/health"
	"cairn/core/fault"
)

func runDoctor(ctx context.Context, env *cliEnv, args []string) error {
	fs := flag.NewFlagSet("doctor", flag.ContinueOnError)
	var kb kbFlags
	kb.add(fs)
	load := fs.Bool("load", false, "load the models through llama.cpp, not only read their metadata")
	if _, err := parseFlags(fs, args); err != nil {
		return err
	}
	checks := doctor.Run(ctx, env.cfg, env.dirs, doctor.Options{KB: kb.kb, DB: kb.db, Load: *load, ConfigErr: env.cfgErr})
	failed := 0
	for _, c := range checks {
		// A detail may quote a damaged schema or a file name.
		fmt.Fprintf(env.stdout, "%s %s: %s\n", c.Verdict, c.Name, fault.Printable(c.Detail))
		if c.Verdict != health.Pass && c.Fix != "" {
			fix := c.Fix
			if c.Code != "" {
				fix += " [" + string(c.Code) + "]"
			}
			fmt.Fprintf(env.stdout, "  fix: %s\n", fix)
		}
		env.log.Info("doctor", "verdict", string(c.Verdict), "check", c.Name, "detail", c.Detail, "code", string(c.Code))
		if c.Verdict == health.Fail {
			failed++
		}
	}
	if ctx.Err() != nil {
		return ctx.Err()
	}
	if failed > 0 {
		return fmt.Errorf("doctor: %d of %d checks failed", failed, len(checks))
	}
	return nil
}

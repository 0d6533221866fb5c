package cli

import (
	"context"
	"flag"
	"fmt"

	"cairn/core/buildinfo"
	"cairn/core/llm"
)

// runVersion prints the stamp the build gave the binary and whether the
// GPU backend is beside it (found, not loaded: no driver starts).
//
//	cairn 0.1.0+dev.612.g50d6237
//	commit 50d6237a1b2c, built 2026-12-02T01:10:00Z, go1.26.8
//	GPU backend: Vulkan, /usr/lib/cairn/libggml-vulkan.so
func runVersion(_ context.Context, env *cliEnv, args []string) error {
	fs := flag.NewFlagSet("version", flag.ContinueOnError)
	if _, err := parseFlags(fs, args); err != nil {
		return err
	}
	in := buildinfo.Read()
	fmt.Fprintln(env.stdout, "cairn", in.Version)
	fmt.Fprintln(env.stdout, in.Details())
	fmt.Fprintln(env.stdout, "GPU backend:", llm.BackendStatus())
	return nil
}

package cli

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"cairn/bench"
)

// benchHostile builds the hostile corpus (core/extract/extracttest.Corpus:
// the inputs of issues 15, 33 and 43) under work/hostile and indexes each
// case's folder in a child process, reporting per input the exit status,
// message, peak memory of Cairn and its children, time, whether the rest
// of the folder was indexed, the database's checks and a second run
// (`make hostile`). The progress goes to stderr, the table to stdout.
func benchHostile(ctx context.Context, env *cliEnv, bin, work, only string) ([]bench.HostileResult, error) {
	var names []string
	if only != "" {
		names = strings.Split(only, ",")
	}
	if other := os.Getenv("CAIRN_HOSTILE_BIN"); other != "" {
		bin = other // another build's figures (the "before" of a change), with this corpus and runner
	}
	rs, err := bench.Hostile(ctx, env.stderr, bench.HostileOptions{Bin: bin, Dir: filepath.Join(work, "hostile"),
		Fixtures: "testdata/formats", Only: names})
	if err != nil {
		return rs, err
	}
	fmt.Fprintln(env.stdout, "\n## Hostile inputs: `cairn index` of a folder holding each beside two ordinary files")
	fmt.Fprintln(env.stdout)
	bench.HostileTable(env.stdout, rs)
	return rs, nil
}

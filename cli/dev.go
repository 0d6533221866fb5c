package cli

import (
	"context"
	"flag"
	"io"
	"os"
	"slices"
	"strings"

	"cairn/bench"
)

// devSuites are the bench suites of the developer command
// (bench/cmd/cairn-dev), not of the product: the quality suite asks the
// question sets in the repository's testdata, the team suite needs the
// Weaviate server the repository builds, and the others measure Cairn's
// internals for docs/performance.md (rerank, the ask pipeline, the vector
// index, indexing under load, the window's painter; hostile builds a 1.7 GB
// corpus of hostile files and indexes each). `cairn bench` keeps
// what anyone can run on their own machine: index, extract, embed,
// generate, serve, gui and gpu.
var devSuites = []string{"hostile", "rerank", "ask", "quality", "vector", "load", "paint", "team"}

// devBenchFlags are the flags only devSuites read, left out of the
// product's `cairn bench`.
var devBenchFlags = []string{"sizes", "queries", "dim", "idle", "searchers", "set", "scale", "fit", "store", "tokenizer", "db", "only"}

type devSuiteFunc func(ctx context.Context, env *cliEnv, suite string, bf benchFlags, bin, work string) (any, error)

// RunDev is the developer command, `go run ./bench/cmd/cairn-dev`: Cairn's
// command line with the developer's bench suites (devSuites) as well. The
// product's main never calls it, so the linker leaves those suites out of
// bin/cairn. Exit codes are Run's.
func RunDev(args []string, stdout, stderr io.Writer) int {
	return runIO(args, cliIO{stdin: os.Stdin, stdout: stdout, stderr: stderr, devSuite: runDevSuite})
}

// runDevSuite runs one of devSuites for runBench.
func runDevSuite(ctx context.Context, env *cliEnv, s string, bf benchFlags, bin, work string) (r any, err error) {
	switch s {
	case "hostile":
		return benchHostile(ctx, env, bin, work, bf.only)
	case "rerank":
		return benchOnDevices(ctx, env, s, bf)
	case "ask":
		return benchAsk(ctx, env, bf.dir, work, runsOr(bf.runs, 3), bf.limit, bf.weights, bf.tokenizer)
	case "quality":
		var st bench.QualityStore
		if st, err = qualityStore(bf.store); err == nil && bf.sets != "" {
			r, err = benchQualitySets(ctx, env, st, bf.dir, work, strings.Split(bf.sets, ","), bf.fit, bf.scale)
		} else if err == nil {
			r, err = benchQuality(ctx, env, st, bf.dir, work, bf.limit, bf.part)
		}
		return r, err
	case "vector":
		return benchVector(ctx, env, bin, bf.dir, work, bf.limit, bf.sizes, bf.queries, bf.dim, bf.threads)
	case "load":
		return benchLoad(ctx, env, bf, work)
	case "paint":
		return benchPaint(ctx, env, work, runsOr(bf.runs, paintRuns))
	case "team":
		return benchTeam(ctx, env, bf, work)
	}
	return nil, usageError{"unknown developer suite " + s}
}

// withoutFlags is fs without the flags named, the others bound as before.
func withoutFlags(fs *flag.FlagSet, names []string) *flag.FlagSet {
	out := flag.NewFlagSet(fs.Name(), fs.ErrorHandling())
	fs.VisitAll(func(f *flag.Flag) {
		if !slices.Contains(names, f.Name) {
			out.Var(f.Value, f.Name, f.Usage)
		}
	})
	return out
}

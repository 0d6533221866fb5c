// Command cairn-dev is Cairn's developer command: the cairn command line
// with the bench suites that need the repository or measure Cairn's
// internals (cli.RunDev: the quality suite over testdata/quality, the team
// cluster, rerank, ask, vector, load, paint), which the shipped binary
// leaves out. Run it from the repository's root:
//
//	go run ./bench/cmd/cairn-dev bench quality
//
// or through the Makefile (`make bench`, `make bench-quality`). It needs
// the Makefile's cgo flags, as bin/cairn does.
package main

import (
	"os"

	"cairn/cli"
)

func main() {
	os.Exit(cli.RunDev(os.Args[1:], os.Stdout, os.Stderr))
}

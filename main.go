// Cairn answers questions from your own documents, offline.
//
// Without arguments it opens the window; `cairn COMMAND` runs headless.
// Both live under ui/: the window in ui, the command line in ui/cli.
package main

import (
	"os"

	"cairn/ui/cli"
)

func main() {
	os.Exit(cli.Run(os.Args[1:], os.Stdout, os.Stderr))
}

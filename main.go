// Cairn answers questions from your own documents, offline.
//
// Without arguments it opens the window; `cairn COMMAND` runs headless.
// The command line lives in cli/ (it also starts the window, ui/).
package main

import (
	"os"

	"cairn/cli"
)

func main() {
	os.Exit(cli.Run(os.Args[1:], os.Stdout, os.Stderr))
}

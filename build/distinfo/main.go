// Command distinfo tells the packaging scripts (build/dist) what Cairn's
// code says, so that the .deb and the bundle are derived from it rather
// than written by hand:
//
//	distinfo man DATE   cairn(1) in roff, from the commands' help
//	distinfo programs   the programs Cairn runs, one a line: NAME required|optional GROUP DEBIAN WHAT
//	                    (GROUP: programs that stand in for each other; DEBIAN: the
//	                    package, "-" where dpkg -S finds it on the build machine)
//	distinfo tessdata   the Tesseract languages the default settings read
//
// The linker stamps it like cairn (build/version.sh), so the manual names
// the same version.
package main

import (
	"fmt"
	"os"
	"strings"

	"cairn/cli"
	"cairn/core/config"
	"cairn/core/extract"
	"cairn/ui/desktop"
)

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: distinfo man DATE | programs | tessdata")
		os.Exit(2)
	}
	switch os.Args[1] {
	case "man":
		if len(os.Args) != 3 {
			fmt.Fprintln(os.Stderr, "usage: distinfo man DATE")
			os.Exit(2)
		}
		if err := cli.WriteManPage(os.Stdout, os.Args[2]); err != nil {
			fmt.Fprintln(os.Stderr, "distinfo:", err)
			os.Exit(1)
		}
	case "programs":
		// poppler's tools read every PDF: without pdftotext the PDF reader
		// fails `cairn doctor`.
		for _, t := range extract.PopplerTools {
			fmt.Printf("%s required %s - %s\n", t.Name, t.Name, t.Use)
		}
		for _, p := range desktop.Programs {
			fmt.Printf("%s optional %s %s %s\n", p.Name, p.Group, p.Debian, p.Use)
		}
	case "tessdata":
		fmt.Println(strings.ReplaceAll(config.Fallback(config.Dirs{}).OCR.Languages, "+", "\n"))
	default:
		fmt.Fprintf(os.Stderr, "distinfo: unknown request %q\n", os.Args[1])
		os.Exit(2)
	}
}

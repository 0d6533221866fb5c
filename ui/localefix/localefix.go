// Package localefix keeps Fyne from logging "Error parsing user locale C"
// at start-up under LANG=C.UTF-8, the usual locale of containers and CI.
//
// Fyne's lang package reads the locale in its init, and takes "C.UTF-8" for
// a language called "C". Its reader (jeandeaual/go-locale) prefers
// $LANGUAGE when the locale is not exactly "C", so setting LANGUAGE=en for
// C.* locales gives it English. This package must initialise before Fyne:
// since Go 1.21, packages initialise in import-path order once their own
// imports are done, and "cairn/..." sorts before "fyne.io/...", while this
// package imports only os and strings. LANGUAGE only selects the language of
// translated messages, so subprocesses are unaffected but for speaking
// English, which C already meant.
package localefix

import (
	"os"
	"strings"
)

func init() {
	if os.Getenv("LANGUAGE") != "" {
		return
	}
	for _, k := range []string{"LC_ALL", "LC_MESSAGES", "LANG"} {
		if v := os.Getenv(k); v != "" {
			if strings.HasPrefix(v, "C.") || strings.HasPrefix(v, "POSIX.") {
				os.Setenv("LANGUAGE", "en")
			}
			return
		}
	}
}

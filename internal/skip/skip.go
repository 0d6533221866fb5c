// Package skip is how a test that cannot run on this machine says so where
// CI sees it. Go prints nothing of a passing package's skips without -v,
// so a skip would otherwise go unnoticed on every CI run; Because writes
// one line, "SKIP-REASON: TestName: reason", to the test's output and, when
// CAIRN_SKIP_LOG names a file, appends it there. .ci/run sets it and ends
// with the lines counted by reason (docs/development.md, Tests).
package skip

import (
	"os"
	"strings"
	"testing"
)

// LogEnv names the file the skip lines are appended to.
const LogEnv = "CAIRN_SKIP_LOG"

// Prefix starts every skip line.
const Prefix = "SKIP-REASON: "

// Because skips t, saying why in one line: what is missing and, where
// something runs the test elsewhere, what does ("needs a Weaviate server:
// make test-team runs it"). A reason is the summary's group, so it names
// no paths or numbers that differ between tests.
func Because(t testing.TB, reason string) {
	t.Helper()
	line := Prefix + t.Name() + ": " + strings.Join(strings.Fields(reason), " ")
	if path := os.Getenv(LogEnv); path != "" {
		if err := appendLine(path, line); err != nil {
			t.Fatalf("%s (and it could not be recorded for CI's summary: %v)", line, err)
		}
	}
	t.Skip(line)
}

// appendLine adds line to the file at path in one write: test binaries of
// several packages run at once, and O_APPEND keeps their lines whole.
func appendLine(path, line string) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		return err
	}
	_, err = f.WriteString(line + "\n")
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

package panels

import (
	"strings"

	"cairn/core/fault"
)

// ErrorText is an error as the panels show it: the message, and under it
// the fix its fault suggests with the fault's code ("Fix: ... [STORE-004]").
func ErrorText(err error) string {
	msg := strings.TrimSpace(err.Error())
	if i := strings.IndexByte(msg, '\n'); i >= 0 {
		msg = msg[:i] // a crash's stack belongs in the log, not in a label
	}
	if fix := fault.FixLine(err); fix != "" {
		return msg + "\nFix: " + fix
	}
	return msg
}

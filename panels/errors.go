package panels

import "cairn/core/fault"

// ErrorText is an error as the panels show it: the message, and under it
// the fix its fault suggests with the fault's code ("Fix: ... [STORE-004]").
func ErrorText(err error) string {
	msg := fault.FirstLine(err.Error())
	if fix := fault.FixLine(err); fix != "" {
		return msg + "\nFix: " + fix
	}
	return msg
}

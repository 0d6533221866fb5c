// Package health is the report of Cairn's health checks (core/doctor runs
// them): one verdict, a detail and a fix per check. It imports nothing
// that needs cgo, so the window can show a report without loading what the
// checks load.
package health

import (
	"slices"

	"cairn/core/fault"
)

// Verdict is a health check's outcome.
type Verdict string

const (
	Pass Verdict = "PASS"
	Warn Verdict = "WARN" // works, but something is missing or worth knowing
	Fail Verdict = "FAIL" // broken: the fix says what to do
)

// Check is one health check's result.
type Check struct {
	Verdict Verdict
	Name    string
	Detail  string
	Fix     string     // what to do, for WARN and FAIL
	Code    fault.Code // the fault's code, when a fault caused it
}

// Failed reports whether any check failed.
func Failed(checks []Check) bool {
	return slices.ContainsFunc(checks, func(c Check) bool { return c.Verdict == Fail })
}

//go:build !linux

package extract

import "os/exec"

// dieWithCairn: only Linux has a parent-death signal; elsewhere a child
// outlives a killed Cairn until it ends by itself.
func dieWithCairn(*exec.Cmd) {}

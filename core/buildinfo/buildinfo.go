// Package buildinfo is what the build stamped into the binary: the version
// from git, the commit and the build date. `make` sets them with
// -ldflags "-X cairn/core/buildinfo.version=... -X ...commit=... -X ...date=..."
// (build/version.sh computes them); a plain `go build` leaves them empty,
// and the commit and its time then come from Go's own VCS stamp.
package buildinfo

import (
	"fmt"
	"runtime"
	"runtime/debug"
	"strings"
)

// Set by the linker; never assigned in code.
var (
	version string // "0.1.0+dev.612.g50d6237" (build/version.sh)
	commit  string // the full commit hash, "-dirty" appended for uncommitted changes
	date    string // the build's UTC time, RFC 3339
)

// DevVersion is the version of a binary built without the Makefile's stamp.
const DevVersion = "dev"

// Info is the stamp, with Go's VCS stamp filling what the linker left out.
type Info struct {
	Version string // as the .deb and the bundle name it
	Commit  string // up to 12 hex digits, "-dirty" when the tree had changes; "" when unknown
	Date    string // when it was built (or, without the stamp, the commit's time); "" when unknown
	Go      string // the Go toolchain, "go1.26.8"
	// DateIsCommit says Date is the commit's time, not the build's.
	DateIsCommit bool
}

// Read returns the binary's stamp.
func Read() Info {
	in := Info{Version: version, Commit: commit, Date: date, Go: runtime.Version()}
	if in.Version == "" {
		in.Version = DevVersion
	}
	if in.Commit == "" || in.Date == "" {
		if bi, ok := debug.ReadBuildInfo(); ok {
			var rev, at string
			dirty := false
			for _, s := range bi.Settings {
				switch s.Key {
				case "vcs.revision":
					rev = s.Value
				case "vcs.time":
					at = s.Value
				case "vcs.modified":
					dirty = s.Value == "true"
				}
			}
			if in.Commit == "" && rev != "" {
				in.Commit = rev
				if dirty {
					in.Commit += "-dirty"
				}
			}
			if in.Date == "" && at != "" {
				in.Date, in.DateIsCommit = at, true
			}
		}
	}
	in.Commit = shortCommit(in.Commit)
	return in
}

// shortCommit keeps 12 hex digits of a hash and its "-dirty" mark.
func shortCommit(c string) string {
	hash, mark, _ := strings.Cut(c, "-")
	if len(hash) > 12 {
		hash = hash[:12]
	}
	if mark != "" {
		return hash + "-" + mark
	}
	return hash
}

// Details are the stamp without the version: "commit 50d6237a1b2c, built
// 2026-12-02T01:10:00Z, go1.26.8".
func (in Info) Details() string {
	var parts []string
	if in.Commit != "" {
		parts = append(parts, "commit "+in.Commit)
	}
	switch {
	case in.Date != "" && in.DateIsCommit:
		parts = append(parts, "committed "+in.Date+", not stamped by make")
	case in.Date != "":
		parts = append(parts, "built "+in.Date)
	}
	return strings.Join(append(parts, in.Go), ", ")
}

// String is the stamp in one line: "0.1.0+dev.612.g50d6237 (commit
// 50d6237a1b2c, built 2026-12-02T01:10:00Z, go1.26.8)".
func (in Info) String() string {
	return fmt.Sprintf("%s (%s)", in.Version, in.Details())
}

package buildinfo

import (
	"runtime"
	"testing"
)

func TestReadUsesTheLinkersStamp(t *testing.T) {
	defer func(v, c, d string) { version, commit, date = v, c, d }(version, commit, date)
	version, commit, date = "0.1.0+dev.612.g50d6237", "50d6237a1b2c3d4e5f60718293a4b5c6d7e8f901-dirty", "2026-12-02T01:10:00Z"
	in := Read()
	want := "0.1.0+dev.612.g50d6237 (commit 50d6237a1b2c-dirty, built 2026-12-02T01:10:00Z, " + runtime.Version() + ")"
	if in.String() != want {
		t.Errorf("String() = %q\nwant       %q", in.String(), want)
	}
}

func TestReadWithoutStamp(t *testing.T) {
	defer func(v, c, d string) { version, commit, date = v, c, d }(version, commit, date)
	version, commit, date = "", "", ""
	in := Read()
	// A test binary carries no VCS stamp: only the version and Go are known.
	if in.Version != DevVersion || in.Go != runtime.Version() {
		t.Errorf("Read() = %+v, want version %q", in, DevVersion)
	}
	if in.Commit == "" && in.Details() != runtime.Version() {
		t.Errorf("Details() = %q, want only the toolchain", in.Details())
	}
}

func TestShortCommit(t *testing.T) {
	for in, want := range map[string]string{
		"": "", "50d6237": "50d6237", "50d6237a1b2c3d4e": "50d6237a1b2c",
		"50d6237a1b2c3d4e-dirty": "50d6237a1b2c-dirty",
	} {
		if got := shortCommit(in); got != want {
			t.Errorf("shortCommit(%q) = %q, want %q", in, got, want)
		}
	}
}

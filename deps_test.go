package main

import (
	"os/exec"
	"strings"
	"testing"
)

// The map's rules (docs/architecture.md, Layout), each the packages a
// package must never link, directly or through another. A rule that is
// broken names the package and what it reached.
var depRules = []struct {
	pkg    string
	why    string
	forbid []string // an import path, or a prefix ending in "/"
}{
	{"./ui", "the window reaches the engine through ui.Engine and the report types, so it needs no cgo beyond Fyne's",
		[]string{"cairn/core", "cairn/core/llm", "cairn/core/ocr", "cairn/core/models", "cairn/core/doctor"}},
	{"./serve", "the service runs without the window",
		[]string{"cairn/ui", "cairn/panels", "fyne.io/"}},
	{"./core/llm", "the random-weight test models belong to the tests and the benches",
		[]string{"cairn/core/llm/testmodel"}},
}

func TestPackagesKeepTheMapsRules(t *testing.T) {
	for _, r := range depRules {
		out, err := exec.Command("go", "list", "-deps", r.pkg).Output()
		if err != nil {
			t.Skipf("go list: %v", err)
		}
		for _, dep := range strings.Fields(string(out)) {
			for _, f := range r.forbid {
				if dep == f || strings.HasSuffix(f, "/") && strings.HasPrefix(dep, f) {
					t.Errorf("%s depends on %s (%s)", r.pkg, dep, r.why)
				}
			}
		}
	}
}

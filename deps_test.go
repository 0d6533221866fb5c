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
		[]string{"cairn/core", "cairn/core/llm", "cairn/core/ocr", "cairn/core/llm/models", "cairn/core/doctor"}},
	{"./serve", "the service runs without the window",
		[]string{"cairn/ui", "cairn/panels", "fyne.io/"}},
	{"./core/llm", "the random-weight test models belong to the tests and the benches",
		[]string{"cairn/core/llm/testmodel"}},
	// The window's widgets, the window and the service speak core/domain's
	// vocabulary: they link neither SQLite (its WebAssembly and the engine
	// that runs it), nor the team cluster's client, nor the indexer.
	{"./panels", "the widgets read core/domain's types, not the stores'", edgeForbids},
	{"./ui", "the window reads core/domain's types, not the stores'", edgeForbids},
	{"./serve", "the service reads core/domain's types, not the stores'", edgeForbids},
	{"./core/doctor", "the checks stand beside the engine, not above it: the window's health report needs no Engine",
		[]string{"cairn/core"}},
	{"./core/domain", "the vocabulary is pure Go at the centre: it imports nothing of Cairn's",
		[]string{"cairn/"}},
	{".", "the program links no test helper (internal/skip imports testing)",
		[]string{"cairn/internal/skip"}},
}

// edgeForbids is what the edge packages (panels, ui, serve) must not link.
var edgeForbids = []string{
	"github.com/tetratelabs/wazero", "github.com/tetratelabs/wazero/", "github.com/ncruces/",
	"cairn/core/store", "cairn/core/teamstore", "cairn/core/teamsearch", "cairn/core/ingest",
	"cairn/core/bm25", "cairn/core/vecindex",
}

func TestPackagesKeepTheMapsRules(t *testing.T) {
	for _, r := range depRules {
		out, err := exec.Command("go", "list", "-deps", r.pkg).Output()
		if err != nil {
			t.Fatalf("go list -deps %s: %v", r.pkg, err)
		}
		self := "cairn/" + strings.TrimPrefix(r.pkg, "./")
		for _, dep := range strings.Fields(string(out)) {
			if dep == self {
				continue
			}
			for _, f := range r.forbid {
				if dep == f || strings.HasSuffix(f, "/") && strings.HasPrefix(dep, f) {
					t.Errorf("%s depends on %s (%s)", r.pkg, dep, r.why)
				}
			}
		}
	}
}

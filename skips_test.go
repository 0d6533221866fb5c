package main

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestSkipsSayWhyWhereCISeesIt: every test that skips goes through
// internal/skip, whose line .ci/run counts at the end of a run; a bare
// t.Skip would print nothing there (go test hides a passing package's
// skips), and a test that never ran would look like one that passed.
func TestSkipsSayWhyWhereCISeesIt(t *testing.T) {
	fset := token.NewFileSet()
	err := filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			// tools/ holds modules of their own; internal/skip is the one
			// place that calls Skip.
			if path == "tools" || path == filepath.Join("internal", "skip") || path != "." && strings.HasPrefix(d.Name(), ".") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		// Tests, and the helpers of test-support packages (storetest,
		// teamtest): whatever imports testing.
		if !slices.ContainsFunc(f.Imports, func(s *ast.ImportSpec) bool { return s.Path.Value == `"testing"` }) {
			return nil
		}
		ast.Inspect(f, func(n ast.Node) bool {
			call, ok := n.(*ast.CallExpr)
			if !ok {
				return true
			}
			if sel, ok := call.Fun.(*ast.SelectorExpr); ok && (sel.Sel.Name == "Skip" || sel.Sel.Name == "Skipf" || sel.Sel.Name == "SkipNow") {
				t.Errorf("%s: %s skips without saying so to CI: use skip.Because (cairn/internal/skip)", fset.Position(call.Pos()), sel.Sel.Name)
			}
			return true
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

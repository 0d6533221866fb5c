package kb

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"cairn/core/config"
)

func TestOneRuleForKnowledgeBaseNames(t *testing.T) {
	for name, want := range map[string]string{
		"work": "", "Projekt 2024": "", "a.b_c-d": "", "日本語": "",
		"../evil": "must not contain a path", `a\b`: "must not contain a path", "..": "must not contain a path",
		"": "use up to 64", " lead": "use up to 64", "a:b": "use up to 64", strings.Repeat("x", 65): "use up to 64",
	} {
		err := CheckName(name)
		if want == "" && err != nil || want != "" && (err == nil || !strings.Contains(err.Error(), want)) {
			t.Errorf("%q: %v, want %q", name, err, want)
		}
	}
	dir := t.TempDir()
	os.MkdirAll(filepath.Join(dir, "kb"), 0o700)
	for _, f := range []string{"work.db", "default.db", "notes.txt"} {
		os.WriteFile(filepath.Join(dir, "kb", f), nil, 0o600)
	}
	if got := List(config.Config{Paths: config.Paths{DataDir: dir}}); !reflect.DeepEqual(got, []string{"default", "work"}) {
		t.Errorf("knowledge bases %q", got)
	}
}

package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestSearchAndAskFilters: the filter flags narrow `cairn search` and
// `cairn ask` to a folder, a type, a date range and a title or path text;
// a bad date is a usage error naming the flag.
func TestSearchAndAskFilters(t *testing.T) {
	home, corpus := t.TempDir(), t.TempDir()
	for _, f := range []struct{ path, text string }{
		{"manuals/pump.md", "# Pump\n\nTo reset the pump, hold the red button.\n"},
		{"manuals/router.txt", "Router\n\nTo reset the router, unplug it.\n"},
		{"archive/old-pump.md", "# Old pump\n\nReset the old pump with the lever.\n"},
	} {
		p := filepath.Join(corpus, f.path)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(f.text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	old := time.Date(2020, 6, 1, 12, 0, 0, 0, time.Local)
	if err := os.Chtimes(filepath.Join(corpus, "archive/old-pump.md"), old, old); err != nil {
		t.Fatal(err)
	}
	if _, errs, code := cli(t, home, "index", corpus); code != 0 {
		t.Fatal(errs)
	}
	paths := func(args ...string) []string {
		t.Helper()
		out, errs, code := cli(t, home, append([]string{"search", "reset", "--json"}, args...)...)
		if code != 0 {
			t.Fatalf("search %v: %d %s", args, code, errs)
		}
		var res struct{ Results []struct{ Path string } }
		if err := json.Unmarshal([]byte(out), &res); err != nil {
			t.Fatal(err)
		}
		var ps []string
		for _, r := range res.Results {
			ps = append(ps, strings.TrimPrefix(r.Path, corpus+"/"))
		}
		return ps
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--folder", filepath.Join(corpus, "archive")}, "archive/old-pump.md"},
		{[]string{"--type", "txt"}, "manuals/router.txt"},
		{[]string{"--until", "2020"}, "archive/old-pump.md"},
		{[]string{"--since", "2021-01", "--type", "md"}, "manuals/pump.md"},
		{[]string{"--path-contains", "ROUTER"}, "manuals/router.txt"},
		{[]string{"--path", filepath.Join(corpus, "manuals"), "--path-contains", "pump"}, "manuals/pump.md"},
	} {
		if got := paths(tc.args...); len(got) != 1 || got[0] != tc.want {
			t.Errorf("search %v: %v, want [%s]", tc.args, got, tc.want)
		}
	}
	out, errs, code := cli(t, home, "ask", "How do I reset it?", "--until", "2020-06", "--json")
	if code != 0 {
		t.Fatalf("ask: %d %s", code, errs)
	}
	var ans struct {
		Sources []struct{ Path string }
	}
	if err := json.Unmarshal([]byte(out), &ans); err != nil {
		t.Fatal(err)
	}
	for _, s := range ans.Sources {
		if !strings.HasSuffix(s.Path, "archive/old-pump.md") {
			t.Errorf("ask --until 2020-06 cited %s", s.Path)
		}
	}
	_, errs, code = cli(t, home, "search", "reset", "--since", "March")
	if code != 2 || !strings.Contains(errs, `--since: "March" is not a date`) {
		t.Errorf("bad date: %d %s", code, errs)
	}
	_, errs, code = cli(t, home, "ask", "reset?", "--since", "2024", "--until", "2023")
	if code != 2 || !strings.Contains(errs, "--since: 2024 is after 2023, the end date: no file can match") {
		t.Errorf("empty range: %d %s", code, errs)
	}
}

// TestAskAboutTheCollection: a question about the collection is answered
// from the store with the complete list (in --json too), and the command's
// filters narrow it further; an ordinary question is not.
func TestAskAboutTheCollection(t *testing.T) {
	home := t.TempDir()
	if _, errs, code := cli(t, home, "index", corpusDir(t)); code != 0 {
		t.Fatal(errs)
	}
	out, errs, code := cli(t, home, "ask", "How many files are under "+filepath.Join(corpusDir(t), "manuals")+"?")
	if code != 0 || !strings.Contains(out, "3 files under "+filepath.Join(corpusDir(t), "manuals")+".") ||
		!strings.Contains(out, "router-x200.md (") || !strings.Contains(out, "not by a model") {
		t.Fatalf("ask: %d\n%s\n%s", code, out, errs)
	}
	out, _, code = cli(t, home, "ask", "Which files mention reset?", "--json", "--type", "md")
	var ans struct {
		Mode       string
		Collection struct {
			Total     int
			Statement string
			Files     []struct {
				File string
				Line string
			}
		}
	}
	if code != 0 || json.Unmarshal([]byte(out), &ans) != nil {
		t.Fatalf("ask --json: %d %s", code, out)
	}
	if ans.Mode != "collection" || ans.Collection.Total != 1 || len(ans.Collection.Files) != 1 ||
		!strings.HasSuffix(ans.Collection.Files[0].File, "manuals/router-x200.md") || ans.Collection.Files[0].Line == "" {
		t.Errorf("collection answer %+v", ans)
	}
	out, _, _ = cli(t, home, "ask", "How do I reset the device?", "--json")
	if err := json.Unmarshal([]byte(out), &ans); err != nil || ans.Mode == "collection" {
		t.Errorf("an ordinary question answered as a collection one: %s", out)
	}
	// Whole words unless --word-forms: the router manual says "settings".
	out, errs, code = cli(t, home, "ask", "How many files mention setting?")
	if code != 0 || !strings.Contains(out, "0 files contain 'setting' (whole word, any case).") || !strings.Contains(out, "--word-forms") {
		t.Errorf("whole words: %d\n%s\n%s", code, out, errs)
	}
	out, errs, code = cli(t, home, "ask", "How many files mention setting?", "--word-forms")
	if code != 0 || !strings.Contains(out, "1 file contains 'setting' (any form of the word).") || !strings.Contains(out, "router-x200.md") {
		t.Errorf("--word-forms: %d\n%s\n%s", code, out, errs)
	}
	// A flag that excludes what the question asks for is stated, not a silent 0.
	out, errs, code = cli(t, home, "ask", "How many PDFs mention reset?", "--type", "md")
	if code != 0 || !strings.Contains(out, "Nothing counted: the question asks for PDF files and the search's filter for md files") {
		t.Errorf("--type md on PDFs: %d\n%s\n%s", code, out, errs)
	}
	// Shaped like a count, but not one the rules read: said so.
	out, errs, code = cli(t, home, "ask", "How many man pages mention reset?")
	if code != 0 || !strings.HasPrefix(out, "I could not count this; here are the passages that match.") {
		t.Errorf("a count that cannot be read: %d\n%s\n%s", code, out, errs)
	}
}

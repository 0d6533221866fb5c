package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestInvisibleCharactersInDocumentsAndQuestions: a document whose word is
// spelled with zero-width spaces between its letters is found by the word,
// and a question holding such characters finds the word; a file of nothing
// but them is skipped as having no text, saying why (issue 43, item 6).
func TestInvisibleCharactersInDocumentsAndQuestions(t *testing.T) {
	home, dir := t.TempDir(), t.TempDir()
	os.WriteFile(filepath.Join(dir, "vault.txt"), []byte("The p\u200ba\u200bs\u200bs\u200bw\u200bo\u200br\u200bd of the vault is changed monthly."), 0o644)
	os.WriteFile(filepath.Join(dir, "invisible.txt"), []byte(strings.Repeat("\u200b\u2060\ufeff", 5000)), 0o644)
	if _, errs, code := cli(t, home, "index", dir); code != 0 {
		t.Fatalf("index: %d %s", code, errs)
	}
	for _, q := range []string{"vault password", "vault pass\u200bword", "\u2060vault\u200c password"} {
		out, errs, code := cli(t, home, "search", "--", q)
		if code != 0 || !strings.Contains(out, "strong match") || !strings.Contains(out, "vault.txt") {
			t.Errorf("search %q: exit %d\n%s%s", q, code, out, errs)
		}
	}
	out, _, _ := cli(t, home, "ask", "--", "what is the vault pass\u200bword?")
	if !strings.Contains(out, "The password of the vault is changed monthly.") {
		t.Errorf("ask:\n%s", out)
	}
	status, _, _ := cli(t, home, "status", "--issues")
	if !strings.Contains(status, "invisible.txt: no text: the file contains no extractable text (15000 invisible characters") {
		t.Errorf("status --issues:\n%s", status)
	}
}

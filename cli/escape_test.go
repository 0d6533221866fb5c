package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestDocumentTextNeverReachesTheTerminalAsCodes: a mail whose header line
// holds a terminal title sequence and a clear-screen is reported by
// `cairn index` and `cairn status --issues` with those codes escaped, and
// the log at info holds no word of it (issue 33, item 4).
func TestDocumentTextNeverReachesTheTerminalAsCodes(t *testing.T) {
	home := t.TempDir()
	dir := t.TempDir()
	hostile := "\x1b]0;owned\x07\x1b[2J"
	mail := "From: a@example.org\r\nSubject: hello\r\n" + hostile + "\r\n\r\nbody text about turbines\r\n"
	os.WriteFile(filepath.Join(dir, "evil.eml"), []byte(mail), 0o644)
	os.WriteFile(filepath.Join(dir, "good.txt"), []byte("a plain note about turbines"), 0o644)
	out, errs, code := cli(t, home, "index", dir)
	status, _, _ := cli(t, home, "status", "--issues")
	for name, s := range map[string]string{"index stdout": out, "index stderr": errs, "status --issues": status} {
		if strings.ContainsAny(s, "\x1b\x07") {
			t.Errorf("%s holds raw control characters: %q", name, s)
		}
	}
	if want := `\x1b]0;owned\a\x1b[2J`; !strings.Contains(errs, want) || !strings.Contains(status, want) {
		t.Errorf("the header is not shown escaped (exit %d):\nindex: %s\nstatus: %s", code, errs, status)
	}
	log, err := os.ReadFile(filepath.Join(home, "state", "cairn.log"))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(log), "owned") || !strings.Contains(string(log), "file not indexed") {
		t.Errorf("the log at info quotes the document, or says nothing of it:\n%s", log)
	}
}

package cli

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// manDir writes two small man-page-like files: grep's and tar's options
// for ignoring case.
func manDir(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	for name, text := range map[string]string{
		"grep.txt": "GREP\n\nOptions\n\n-i, --ignore-case: ignore case distinctions in patterns and input data, so that characters that differ only in case match each other.\n",
		"tar.txt":  "TAR\n\nOptions\n\n--ignore-case: ignore case when matching member names with wildcards in the archive.\n",
		"ssh.txt":  "SSH\n\nOptions\n\n-p port: the port to connect to on the remote host.\n",
	} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// A conversation on the command line: a follow-up continues the last one,
// is completed from the question before it and says what was searched; it
// is listed, printed and deleted; a plain question saves nothing.
func TestAskContinuesAConversation(t *testing.T) {
	home := t.TempDir()
	dir := manDir(t)
	if _, errs, code := cli(t, home, "index", dir); code != 0 {
		t.Fatal(errs)
	}
	out, errs, code := cli(t, home, "ask", "--continue", "How can grep ignore case?")
	if code != 0 || !strings.Contains(out, "Sources:\n[1] "+filepath.Join(dir, "grep.txt")+":5\n") || !strings.HasSuffix(out, "(Conversation 1: ask a follow-up with cairn ask --continue.)\n") {
		t.Fatalf("exit %d: %s\n%s", code, errs, out)
	}
	out, errs, code = cli(t, home, "ask", "--continue", "and for tar?")
	if code != 0 || !strings.Contains(out, "Searched for: tar ignore case\n") ||
		!strings.Contains(out, "Sources:\n[1] "+filepath.Join(dir, "tar.txt")+":5\n") ||
		!strings.Contains(out, "(Conversation 1: ") {
		t.Fatalf("exit %d: %s\n%s", code, errs, out)
	}
	// A standalone question is searched as asked, even in a conversation;
	// on a new subject it starts a new conversation.
	out, _, _ = cli(t, home, "ask", "--thread", "1", "Which port does ssh connect to?")
	if strings.Contains(out, "Searched for:") || strings.Contains(out, "Read as a follow-up") || !strings.Contains(out, "[1] "+filepath.Join(dir, "ssh.txt")) ||
		!strings.Contains(out, "(A new subject: new conversation 2; ") {
		t.Errorf("standalone question in a conversation:\n%s", out)
	}
	if out, _, _ := cli(t, home, "ask", "How can grep ignore case?"); strings.Contains(out, "(Conversation ") {
		t.Errorf("a plain question was saved:\n%s", out)
	}
	if out, _, _ := cli(t, home, "ask", "--new", "How can tar ignore case?"); !strings.Contains(out, "(Conversation 3: ") {
		t.Errorf("--new:\n%s", out)
	}

	out, _, code = cli(t, home, "threads")
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if code != 0 || len(lines) != 3 || !strings.Contains(out, "\t1 questions\tHow can tar ignore case?\n") ||
		!strings.Contains(out, "\t1 questions\tWhich port does ssh connect to?\n") || !strings.Contains(out, "\t2 questions\tHow can grep ignore case?\n") {
		t.Errorf("threads:\n%s", out)
	}
	out, _, _ = cli(t, home, "threads", "1")
	if !strings.HasPrefix(out, "Q: How can grep ignore case?\nA: ") ||
		!strings.Contains(out, "\n\nQ: and for tar?\nSearched for: tar ignore case\nA: ") {
		t.Errorf("threads 1:\n%s", out)
	}

	for _, tc := range []struct {
		args []string
		err  string
	}{
		{[]string{"ask", "--thread", "99", "and zip?"}, "cairn: --thread 99: no such conversation in this knowledge base (list them with cairn threads)\n"},
		{[]string{"ask", "--new", "--continue", "and zip?"}, "cairn: --new, --continue and --thread choose the conversation: give one of them\n"},
		{[]string{"threads", "--delete", "99"}, "cairn: no conversation 99 in this knowledge base (list them with cairn threads)\n"},
		{[]string{"threads", "one"}, "cairn: \"one\" is not a conversation ID: IDs are the numbers cairn threads lists\n"},
	} {
		if _, errs, code := cli(t, home, tc.args...); code != 2 || !strings.HasPrefix(errs, tc.err) {
			t.Errorf("%q: exit %d, %q", tc.args, code, errs)
		}
	}
	// A conversation is saved only in a knowledge base that exists.
	if _, errs, code := cli(t, home, "ask", "--kb", "none", "--new", "and zip?"); code != 1 || !strings.Contains(errs, "STORE-001") {
		t.Errorf("ask --new in a missing knowledge base: exit %d, %q", code, errs)
	}
	if _, err := os.Stat(filepath.Join(home, "data", "kb", "none.db")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("ask --new created a knowledge base: %v", err)
	}
	if out, _, code := cli(t, home, "threads", "--delete", "1"); code != 0 || out != "Deleted conversation 1.\n" {
		t.Errorf("delete: %d %q", code, out)
	}
	if out, _, _ := cli(t, home, "threads", "--json"); !strings.Contains(out, `"id": 2`) || strings.Contains(out, `"id": 1,`) {
		t.Errorf("after delete:\n%s", out)
	}
}

// With a chat model, a follow-up goes through the rewrite call, shown the
// earlier question; the tiny test model's reply is no usable query, so the
// previous question's terms are carried.
func TestAskContinuesAConversationWithAChatModel(t *testing.T) {
	home := t.TempDir()
	withChatModel(t, home)
	t.Setenv("CAIRN_GENERATION_MAX_TOKENS", "8")
	if _, errs, code := cli(t, home, "index", manDir(t)); code != 0 {
		t.Fatal(errs)
	}
	if _, errs, code := cli(t, home, "ask", "--new", "How can grep ignore case?"); code != 0 {
		t.Fatal(errs)
	}
	out, errs, code := cli(t, home, "ask", "--continue", "and for tar?")
	if code != 0 || !strings.Contains(out, "(Written by tiny-chat-test; ") || !strings.Contains(out, "Searched for: tar ignore case\n") ||
		strings.Contains(out, "Note: Query rewriting") {
		t.Errorf("exit %d: %s\n%s", code, errs, out)
	}
}

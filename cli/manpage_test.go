package cli

import (
	"strings"
	"testing"
)

// TestManPageHoldsEveryCommandAndFlag: cairn(1) is made from the commands'
// own help, so each command has its section and its flags their entries.
func TestManPageHoldsEveryCommandAndFlag(t *testing.T) {
	var b strings.Builder
	if err := WriteManPage(&b, "2026-12-02"); err != nil {
		t.Fatal(err)
	}
	page := b.String()
	if !strings.HasPrefix(page, `.TH CAIRN 1 "2026-12-02" "cairn `+Version+`" "User Commands"`) {
		t.Errorf("title line: %q", strings.SplitN(page, "\n", 2)[0])
	}
	for _, c := range commands() {
		if !strings.Contains(page, "\n.SS cairn "+roff(c.name)) {
			t.Errorf("no section for %s", c.name)
		}
	}
	for _, flag := range []string{
		`.B \-\-watch`,               // index
		`.B \-\-top\-k \fIvalue\fR`,  // search
		`.B \-\-sha256 \fIdigest\fR`, // models, a subcommand's
		`.B \-\-model \fIstring\fR`,  // eval injection
		`.B \-\-models \fIstring\fR`, // bench gpu
		`Flags of gpu:`,              // bench gpu's heading
	} {
		if !strings.Contains(page, flag) {
			t.Errorf("no %q in the page", flag)
		}
	}
	if strings.Contains(page, "\n-") || strings.Contains(page, "\n.B -") {
		t.Error("an unescaped hyphen starts a line")
	}
}

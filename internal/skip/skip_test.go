package skip

import (
	"os"
	"path/filepath"
	"testing"
)

// TestBecauseSkipsAndRecordsOneLine: the test is skipped, and the log
// named by CAIRN_SKIP_LOG gets one line per skip, the reason on one line;
// without the variable nothing is written.
func TestBecauseSkipsAndRecordsOneLine(t *testing.T) {
	log := filepath.Join(t.TempDir(), "skips")
	t.Setenv(LogEnv, log)
	var first, second *testing.T
	t.Run("first", func(t *testing.T) { first = t; Because(t, "needs a thing\n  (make thing installs it)") })
	t.Run("second", func(t *testing.T) { second = t; Because(t, "needs a GPU") })
	if !first.Skipped() || !second.Skipped() {
		t.Fatalf("skipped: %t, %t", first.Skipped(), second.Skipped())
	}
	b, err := os.ReadFile(log)
	want := "SKIP-REASON: TestBecauseSkipsAndRecordsOneLine/first: needs a thing (make thing installs it)\n" +
		"SKIP-REASON: TestBecauseSkipsAndRecordsOneLine/second: needs a GPU\n"
	if err != nil || string(b) != want {
		t.Fatalf("log %q (%v), want %q", b, err, want)
	}

	os.Remove(log)
	t.Setenv(LogEnv, "")
	t.Run("unlogged", func(t *testing.T) { Because(t, "needs a thing") })
	if _, err := os.Stat(log); !os.IsNotExist(err) {
		t.Errorf("without %s a log was written: %v", LogEnv, err)
	}
}

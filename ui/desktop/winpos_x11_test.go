//go:build linux

package desktop

import (
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"
)

// A window gone between two calls (closed in its first second) makes the
// calls report failure; Xlib's default error handler would have ended the
// process on the BadWindow. A child process asks, so that no handler set
// by another test of this process hides the default one.
func TestAGoneWindowDoesNotEndTheProcess(t *testing.T) {
	const gone = 0x3ffffff0 // no window of a fresh X server
	if os.Getenv("CAIRN_TEST_GONE_WINDOW") != "" {
		_, _, _, _, framed := FrameExtents(gone)
		_, _, placed := WindowPosition(gone)
		MoveWindow(gone, 10, 10) // asynchronous: its error comes with the next call
		_, _, placedAfter := WindowPosition(gone)
		fmt.Printf("survived: %v %v %v\n", framed, placed, placedAfter)
		return
	}
	display := startXvfb(t)
	cmd := exec.Command(os.Args[0], "-test.run=^TestAGoneWindowDoesNotEndTheProcess$", "-test.v")
	cmd.Env = append(os.Environ(), "DISPLAY="+display, "CAIRN_TEST_GONE_WINDOW=1")
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "survived: false false false") {
		t.Fatalf("child: %v\n%s", err, out)
	}
}

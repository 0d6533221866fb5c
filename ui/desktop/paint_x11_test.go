//go:build linux

package desktop

import (
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"syscall"
	"testing"
	"time"

	"cairn/internal/skip"
	"cairn/ui/desktop/internal/xwindow"
)

// startXvfb runs an X server for the test on a free display, or skips.
func startXvfb(t *testing.T) string {
	t.Helper()
	bin, err := exec.LookPath("Xvfb")
	if err != nil {
		skip.Because(t, "needs Xvfb (Debian package xvfb; make installs it)")
	}
	for n := 150; n < 170; n++ {
		sock := fmt.Sprintf("/tmp/.X11-unix/X%d", n)
		if _, err := os.Stat(sock); err == nil {
			c, err := net.Dial("unix", sock)
			if err == nil {
				c.Close()
				continue // a server of another test
			}
			// Left by a server that was killed: its display is free.
			os.Remove(sock)
			os.Remove(fmt.Sprintf("/tmp/.X%d-lock", n))
		}
		cmd := exec.Command(bin, fmt.Sprintf(":%d", n), "-screen", "0", "640x480x24", "-nolisten", "tcp")
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		// SIGTERM, so that the server removes its socket and lock.
		t.Cleanup(func() { cmd.Process.Signal(syscall.SIGTERM); cmd.Wait() })
		for range 100 {
			if _, err := os.Stat(sock); err == nil {
				return fmt.Sprintf(":%d", n)
			}
			time.Sleep(50 * time.Millisecond)
		}
		t.Fatal("Xvfb did not start")
	}
	skip.Because(t, "no free X display among :150 to :169")
	return ""
}

// WaitPainted sees a window that is on screen but black, and then the
// moment it is painted; other windows do not count.
func TestWaitPaintedSeesTheFirstFrameThatIsNotBlack(t *testing.T) {
	display := startXvfb(t)
	other, err := xwindow.Open(display, "Something else")
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	other.Paint()
	w, err := xwindow.Open(display, "Cairn — default")
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()

	type result struct {
		mapped, painted time.Time
		err             error
	}
	done := make(chan result, 1)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	go func() {
		m, p, err := WaitPainted(ctx, display, "Cairn")
		done <- result{m, p, err}
	}()
	time.Sleep(200 * time.Millisecond) // black all this time
	select {
	case r := <-done:
		t.Fatalf("reported painted while black: %+v", r)
	default:
	}
	paintedAt := time.Now()
	w.Paint()
	r := <-done
	if r.err != nil {
		t.Fatal(r.err)
	}
	if r.mapped.IsZero() || r.painted.Before(paintedAt) || r.painted.Sub(r.mapped) < 150*time.Millisecond {
		t.Errorf("mapped %v, painted %v; painted for real at %v", r.mapped, r.painted, paintedAt)
	}
}

// Package desktop is Cairn's door to the person's desktop: opening a file
// with the system viewer at the cited page, the native folder picker, and
// the window's position. It knows nothing of Fyne.
package desktop

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// LookPath finds a program; exec.LookPath in the app, a fake in tests.
type LookPath func(file string) (string, error)

// ViewerCommand returns the command that shows path at page (1-based; 0
// for none). The page is the physical one, never the printed label (which
// the window shows beside the citation): Cairn
// reads labels from running footers, and a viewer reads them from the PDF's
// own /PageLabels, which a file may lack or number differently, so a label
// could land on another page. Evince, Okular, Zathura and qpdfview can open
// a PDF at a page; anything else opens with xdg-open at its start.
func ViewerCommand(path string, page int, look LookPath) ([]string, error) {
	if page > 0 && paged(path) {
		n := strconv.Itoa(page)
		for _, v := range []struct {
			bin  string
			args []string
		}{
			{"evince", []string{"--page-index=" + n, path}},
			{"okular", []string{"-p", n, path}},
			{"zathura", []string{"-P", n, path}},
			{"qpdfview", []string{"--unique", path + "#" + n}},
		} {
			if _, err := look(v.bin); err == nil {
				return append([]string{v.bin}, v.args...), nil
			}
		}
	}
	for _, opener := range []string{"xdg-open", "gio"} {
		if _, err := look(opener); err == nil {
			if opener == "gio" {
				return []string{"gio", "open", path}, nil
			}
			return []string{opener, path}, nil
		}
	}
	return nil, errors.New("no program to open files with: install xdg-utils (xdg-open), or open the file yourself")
}

func paged(path string) bool {
	switch strings.ToLower(filepath.Ext(path)) {
	case ".pdf", ".djvu", ".ps", ".xps", ".epub", ".cbz":
		return true
	}
	return false
}

// Open shows path in the system viewer, at page where the viewer supports
// it, and says when the viewer could not be started (no program registered
// for the file type, say): see launch.
func Open(ctx context.Context, path string, page int) error {
	if _, err := os.Stat(path); err != nil {
		return fmt.Errorf("cannot open %s: %w (was it moved or deleted? re-index its folder)", path, err)
	}
	argv, err := ViewerCommand(path, page, exec.LookPath)
	if err != nil {
		return err
	}
	if err := launch(ctx, argv, launchWait); err != nil {
		return fmt.Errorf("open %s: %w", path, err)
	}
	return nil
}

// ShowInFolder opens the folder that holds path in the file manager, with
// the file selected where the file manager supports it (the freedesktop
// FileManager1 interface over D-Bus), else the folder alone.
func ShowInFolder(ctx context.Context, path string) error {
	if _, err := os.Stat(path); err != nil {
		return fmt.Errorf("cannot show %s: %w (was it moved or deleted?)", path, err)
	}
	if _, err := exec.LookPath("dbus-send"); err == nil {
		uri := (&url.URL{Scheme: "file", Path: path}).String()
		err := launch(ctx, []string{"dbus-send", "--session", "--print-reply", "--dest=org.freedesktop.FileManager1",
			"/org/freedesktop/FileManager1", "org.freedesktop.FileManager1.ShowItems", "array:string:" + uri, "string:"}, launchWait)
		if err == nil {
			return nil
		}
	}
	dir := filepath.Dir(path)
	argv, err := ViewerCommand(dir, 0, exec.LookPath)
	if err != nil {
		return err
	}
	if err := launch(ctx, argv, launchWait); err != nil {
		return fmt.Errorf("show the folder %s: %w", dir, err)
	}
	return nil
}

// launchWait is how long launch watches a program for an early failure.
const launchWait = 2 * time.Second

// launch starts argv and reports its failure if it exits with an error
// within wait: xdg-open and gio return at once with an error when no
// program handles the file, and that error must reach the person. A
// program still running after wait is a viewer the person is using: it is
// left running in its own process group (so it outlives Cairn and a
// Ctrl+C in Cairn's terminal) and reaped when it exits.
func launch(ctx context.Context, argv []string, wait time.Duration) error {
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Env = outsideEnv()
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("start %s: %w", argv[0], err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }() // ends when the program does
	timer := time.NewTimer(wait)
	defer timer.Stop()
	select {
	case err := <-done:
		if err != nil {
			msg := strings.TrimSpace(out.String())
			if msg == "" {
				msg = err.Error()
			}
			return fmt.Errorf("%s failed: %s", argv[0], msg)
		}
		return nil
	case <-timer.C:
		return nil
	case <-ctx.Done():
		return nil // the window is closing; the viewer may stay
	}
}

// Package desktop is Cairn's door to the person's desktop: opening a file
// with the system viewer at the cited page, the native folder picker, and
// the window's position. It knows nothing of Fyne.
package desktop

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
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
// it. The viewer is started detached (through sh -c '... &'), so it
// outlives Cairn and Open returns as soon as it is launched.
func Open(ctx context.Context, path string, page int) error {
	if _, err := os.Stat(path); err != nil {
		return fmt.Errorf("cannot open %s: %w (was it moved or deleted? re-index its folder)", path, err)
	}
	argv, err := ViewerCommand(path, page, exec.LookPath)
	if err != nil {
		return err
	}
	cmd := exec.CommandContext(ctx, "/bin/sh", append([]string{"-c", `"$@" </dev/null >/dev/null 2>&1 &`, "sh"}, argv...)...)
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("open %s with %s: %v %s", path, argv[0], err, strings.TrimSpace(string(out)))
	}
	return nil
}

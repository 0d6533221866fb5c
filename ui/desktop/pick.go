package desktop

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"strings"
)

// PickFolder shows the desktop's own folder picker (zenity on GNOME-like
// desktops, kdialog on KDE) and returns the chosen folder; "" when the
// person closed it without choosing. ok is false when no native picker is
// installed, so the caller can show its own.
func PickFolder(ctx context.Context, title string) (path string, ok bool, err error) {
	home, _ := os.UserHomeDir()
	var argv []string
	switch {
	case has("zenity"):
		argv = []string{"zenity", "--file-selection", "--directory", "--title=" + title, "--filename=" + home + "/"}
	case has("kdialog"):
		argv = []string{"kdialog", "--title", title, "--getexistingdirectory", home}
	default:
		return "", false, nil
	}
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	cmd.Env = outsideEnv()
	out, err := cmd.Output()
	var exit *exec.ExitError
	if errors.As(err, &exit) && exit.ExitCode() == 1 {
		return "", true, nil // closed without choosing
	}
	if err != nil {
		return "", true, err
	}
	return strings.TrimRight(string(out), "\r\n"), true, nil
}

func has(bin string) bool {
	_, err := exec.LookPath(bin)
	return err == nil
}

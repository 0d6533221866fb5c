package ingest

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// scope is where an index run may read: the indexed folder, and with
// FollowLinksOut wherever its links lead, except the kernel's folders and
// the folders that hold a person's secrets. The walk asks it about each
// symbolic link, and the worker about each file it opened (opened), so a
// file swapped for a link after the walk is caught too.
type scope struct {
	root    string // the indexed folder with its links resolved
	out     bool   // FollowLinksOut
	secrets []string
}

func newScope(root string, out bool) (*scope, error) {
	real, err := filepath.EvalSymlinks(root)
	if err != nil {
		return nil, fmt.Errorf("folder %s: %w", root, err)
	}
	if real, err = filepath.Abs(real); err != nil {
		return nil, fmt.Errorf("folder %s: %w", root, err)
	}
	if sys := systemFolder(real); sys != "" {
		return nil, fmt.Errorf("%s is in %s, the kernel's view of the running system, not documents: choose a folder of files", root, sys)
	}
	sc := &scope{root: real, out: out}
	for _, d := range secretFolders() {
		if !within(real, d) { // a folder of secrets indexed by name is the person's choice
			sc.secrets = append(sc.secrets, d)
		}
	}
	return sc, nil
}

// systemFolders are the kernel's pseudo file systems: their files are
// processes, devices and settings (/proc/self/root leads back to /), never
// documents, and reading some of them blocks or never ends.
var systemFolders = []string{"/proc", "/sys", "/dev"}

// systemFolder is the system folder path lies in, or "".
func systemFolder(path string) string {
	for _, sys := range systemFolders {
		if within(path, sys) {
			return sys
		}
	}
	return ""
}

// secretHomeFolders are the folders of the home folder that hold keys,
// passwords and tokens: a link into them is never followed, and the walk
// never enters them, unless the indexed folder is one of them.
var secretHomeFolders = []string{
	".ssh", ".gnupg", ".local/share/keyrings", ".gnome2/keyrings", ".password-store",
	".pki", ".aws", ".kube", ".docker", ".config/gcloud",
}

// secretFolders are secretHomeFolders in the home folder, with their links
// resolved as far as they exist.
func secretFolders() []string {
	home, err := os.UserHomeDir()
	if err != nil || home == "" {
		return nil
	}
	if real, err := filepath.EvalSymlinks(home); err == nil {
		home = real
	}
	out := make([]string, 0, len(secretHomeFolders))
	for _, d := range secretHomeFolders {
		p := filepath.Join(home, d)
		if real, err := filepath.EvalSymlinks(p); err == nil {
			p = real
		}
		out = append(out, p)
	}
	return out
}

// within reports whether path is dir or lies under it; both are clean
// absolute paths.
func within(path, dir string) bool {
	return path == dir || strings.HasPrefix(path, strings.TrimSuffix(dir, "/")+"/")
}

// refuseLink says why the symbolic link p (to a folder when dir) is not
// followed, or "" when it is: a link is followed, however it is written
// (absolute, relative, through other links), only when where it finally
// leads lies inside the indexed folder (a link to ".." would index the
// parent, one to ~/.ssh/id_rsa a private key), unless FollowLinksOut; and
// never into the kernel's folders or a folder of secrets.
func (sc *scope) refuseLink(p string, dir bool) string {
	real, err := filepath.EvalSymlinks(p)
	if err != nil {
		return "broken symbolic link"
	}
	if sys := systemFolder(real); sys != "" {
		// Named as the link names it: where /proc/self leads changes with
		// every process, and the reason must not change from run to run.
		target, _ := os.Readlink(p)
		return "symbolic link into " + sys + " (" + target + "): not followed"
	}
	if why := sc.refuse(real); why != "" {
		return "symbolic link " + why
	}
	if within(real, sc.root) || sc.out {
		return ""
	}
	what := "file"
	if dir {
		what = "folder"
	}
	return "symbolic link to a " + what + " outside the indexed folder (" + real + "): not followed; " +
		"index that folder itself, or set index.follow_links_out"
}

// refuse says why nothing at real (a resolved path) is read even when
// links out are followed: it is in the kernel's folders or holds secrets.
func (sc *scope) refuse(real string) string {
	if sys := systemFolder(real); sys != "" {
		return "into " + sys + " (" + real + "): not followed"
	}
	for _, d := range sc.secrets {
		if within(real, d) {
			return "into " + d + ", which holds keys or passwords (" + real + "): not followed; index that folder by name if you mean it"
		}
	}
	return ""
}

// refuseSecret says why the folder p, reached by the walk itself (a hidden
// folder under include_hidden), is not walked: it holds secrets.
func (sc *scope) refuseSecret(p string) string {
	real, err := filepath.EvalSymlinks(p)
	if err != nil {
		return ""
	}
	for _, d := range sc.secrets {
		if within(real, d) {
			return "folder of keys or passwords (" + real + "): not indexed; index it by name if you mean it"
		}
	}
	return ""
}

// errOutside marks a file that, once opened, is not where the walk allowed
// reading: a link swapped in after the folder was scanned.
var errOutside = errors.New("outside the indexed folder")

// opened checks where the file fh, opened through path, really is: a file
// the walk found as a regular file inside the folder can have become a
// link to anywhere since. The descriptor's own path (/proc/self/fd)
// cannot be changed by a rename; where it cannot be read, the check passes.
func (sc *scope) opened(fh *os.File, path string) error {
	var real string
	rc, err := fh.SyscallConn()
	if err != nil {
		return nil
	}
	_ = rc.Control(func(fd uintptr) { real, _ = os.Readlink("/proc/self/fd/" + strconv.Itoa(int(fd))) })
	if !filepath.IsAbs(real) {
		return nil
	}
	if why := sc.refuse(real); why != "" {
		return fmt.Errorf("%w: %s became a symbolic link %s", errOutside, path, why)
	}
	if within(real, sc.root) || sc.out {
		return nil
	}
	return fmt.Errorf("%w: %s leads to %s since the folder was scanned: not read", errOutside, path, real)
}

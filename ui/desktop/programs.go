package desktop

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// Program is a desktop program Cairn starts when it is there; the packages
// (build/dist) recommend one of each Group.
type Program struct {
	Name   string
	Group  string // programs of one group stand in for each other
	Debian string // the Debian package that has it
	Use    string
}

// Programs are the programs this package starts, in the order it looks
// for them within a group. None is needed: without them a cited file is
// not opened, the folder picker is Cairn's own.
var Programs = []Program{
	{"xdg-open", "open", "xdg-utils", "opens a cited file or a folder in the desktop's viewer"},
	{"gio", "open", "libglib2.0-bin", "opens a cited file where xdg-open is missing"},
	{"evince", "page", "evince", "opens a PDF at the cited page"},
	{"okular", "page", "okular", "opens a PDF at the cited page"},
	{"zathura", "page", "zathura", "opens a PDF at the cited page"},
	{"qpdfview", "page", "qpdfview", "opens a PDF at the cited page"},
	{"zenity", "picker", "zenity", "the folder picker on GNOME-like desktops"},
	{"kdialog", "picker", "kdialog", "the folder picker on KDE"},
	{"dbus-send", "reveal", "dbus", "shows a file selected in the file manager"},
}

// The portable bundle's launcher (build/dist/launcher.sh) points
// LD_LIBRARY_PATH at the bundle's libraries and PATH at its poppler tools;
// it names the bundle in BundleEnv and keeps the LD_LIBRARY_PATH it found
// in OuterLibraryPathEnv (absent when there was none).
const (
	BundleEnv           = "CAIRN_BUNDLE"
	OuterLibraryPathEnv = "CAIRN_OUTER_LD_LIBRARY_PATH"
)

// outsideEnv is the environment for the desktop's own programs: outside
// the bundle, Cairn's own (nil); inside it, Cairn's with the launcher's
// library path and PATH entry taken out, so that a viewer loads the
// system's libraries, not the older ones the bundle brings for Cairn.
func outsideEnv() []string {
	bundle := os.Getenv(BundleEnv)
	if bundle == "" {
		return nil
	}
	outer, hadOuter := os.LookupEnv(OuterLibraryPathEnv)
	var env []string
	for _, kv := range os.Environ() {
		k, v, _ := strings.Cut(kv, "=")
		switch k {
		case "LD_LIBRARY_PATH", BundleEnv, OuterLibraryPathEnv:
			continue
		case "PATH":
			dirs := slices.DeleteFunc(filepath.SplitList(v), func(d string) bool {
				return filepath.Clean(d) == filepath.Join(bundle, "bin")
			})
			kv = "PATH=" + strings.Join(dirs, string(filepath.ListSeparator))
		}
		env = append(env, kv)
	}
	if hadOuter {
		env = append(env, "LD_LIBRARY_PATH="+outer)
	}
	return env
}

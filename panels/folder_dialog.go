package panels

import (
	"bytes"
	"io"
	"log"
	"os"
	"path/filepath"
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/storage"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"
)

// FolderDialog is the folder picker Cairn shows when the desktop has none
// of its own: a box to type or paste a path into (any folder, hidden ones
// too, ~ for the home folder) and Browse… for Fyne's folder dialog.
type FolderDialog struct {
	Path   *Entry
	Browse *Button
	d      *dialog.ConfirmDialog
}

// showFolderDialog asks for a folder, starting from start (the Folder box;
// empty: the home folder), and hands the chosen path to chosen.
func showFolderDialog(win fyne.Window, start string, indexNow bool, chosen func(string)) *FolderDialog {
	f := &FolderDialog{Path: NewEntry()}
	if start = strings.TrimSpace(start); start == "" {
		if home, err := os.UserHomeDir(); err == nil {
			start = home + string(filepath.Separator)
		}
	}
	f.Path.SetText(start)
	f.Path.SetPlaceHolder("/path/to/folder, or ~/notes")
	confirm := "Choose"
	if indexNow {
		confirm = "Index"
	}
	f.Browse = NewButtonWithIcon("Browse…", theme.FolderOpenIcon(), func() { f.browse(win) })
	hint := widget.NewLabel("Type or paste a path (hidden folders too), or browse to it.")
	hint.Wrapping = fyne.TextWrapWord
	body := container.NewVBox(container.NewBorder(nil, nil, nil, f.Browse, f.Path), hint)
	f.d = dialog.NewCustomConfirm("Choose a folder to index", confirm, "Cancel", body, func(ok bool) {
		if path := strings.TrimSpace(f.Path.Text); ok && path != "" {
			chosen(path)
		}
	}, win)
	f.Path.OnSubmitted = func(string) { f.d.Confirm() }
	restore := AnswerKeys(win, f.d.Confirm, f.d.Dismiss)
	f.d.SetOnClosed(restore)
	f.d.Resize(fyne.NewSize(560, 0))
	f.d.Show()
	win.Canvas().Focus(f.Path)
	return f
}

// browse opens Fyne's folder dialog at the typed path (or the nearest
// folder above it that exists) and puts what it picks in the box.
func (f *FolderDialog) browse(win fyne.Window) {
	d := dialog.NewFolderOpen(func(u fyne.ListableURI, err error) {
		if err == nil && u != nil {
			f.Path.SetText(u.Path())
		}
	}, win)
	for dir := expandHome(strings.TrimSpace(f.Path.Text)); dir != "" && dir != filepath.Dir(dir); dir = filepath.Dir(dir) {
		if fi, err := os.Stat(dir); err == nil && fi.IsDir() {
			if l, err := storage.ListerForURI(storage.NewFileURI(dir)); err == nil {
				d.SetLocation(l)
			}
			break
		}
	}
	d.Resize(fyne.NewSize(720, 520))
	// Escape closes the folder dialog, then this one.
	restore := AnswerKeys(win, nil, d.Dismiss)
	d.SetOnClosed(restore)
	withoutFavouriteErrors(d.Show)
}

// withoutFavouriteErrors runs show, which builds Fyne's file dialog, with
// the standard log's output filtered: Fyne looks up the XDG folders of the
// dialog's sidebar (Desktop … Videos) each time it builds one and logs an
// error, through the standard log, for each one this computer does not
// define or lacks ("this computer does not define a VIDEOS folder"); the
// sidebar simply leaves those out, so the error says nothing a person can
// act on. Fyne has no option to skip the lookup, and creating the folders
// would touch folders that are not Cairn's. Every other line passes.
func withoutFavouriteErrors(show func()) {
	prev := log.Writer()
	log.SetOutput(&favouriteFilter{next: prev})
	defer log.SetOutput(prev)
	show()
}

// favouriteFilter drops Fyne's "Getting favorite locations" error and the
// Cause and At lines that follow it. The log package makes one Write per
// line, one at a time.
type favouriteFilter struct {
	next     io.Writer
	dropping bool
}

func (f *favouriteFilter) Write(p []byte) (int, error) {
	switch {
	case bytes.Contains(p, []byte("Fyne error:  Getting favorite locations")):
		f.dropping = true
	case f.dropping && (bytes.Contains(p, []byte("  Cause: ")) || bytes.Contains(p, []byte("  At: "))):
	default:
		f.dropping = false
		return f.next.Write(p)
	}
	return len(p), nil
}

func expandHome(p string) string {
	if p == "~" || strings.HasPrefix(p, "~/") {
		if home, err := os.UserHomeDir(); err == nil {
			return filepath.Join(home, p[1:])
		}
	}
	return p
}

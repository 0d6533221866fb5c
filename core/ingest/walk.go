package ingest

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"

	"cairn/core/extract"
	"cairn/core/fault"
)

// entry is a file found by the walk, or a path the walk could not read.
type entry struct {
	path    string
	size    int64
	mtimeNS int64
	skip    string // set when the file is skipped without reading it
	err     error  // set when the path could not be read
}

type walker struct {
	opt     Options
	real    string             // the indexed folder with its links resolved
	visited map[[2]uint64]bool // (device, inode) of directories already walked
	out     []entry
	seen    func(n int) // progress callback: entries so far
}

// walk lists the files under root: hidden files and folders (and the
// configured ignored names) are left out, symbolic links to folders inside
// root are followed once (a link back up the tree is recognised and
// skipped), links that lead out of root are skipped with the reason
// (unless FollowLinksOut), links into the kernel's folders always, and
// anything unreadable becomes an entry with err set. A root inside the
// kernel's folders is refused.
func walk(ctx context.Context, root string, opt Options, seen func(int)) ([]entry, error) {
	fi, err := os.Stat(root)
	if err != nil {
		return nil, fmt.Errorf("folder %s: %w", root, err)
	}
	if !fi.IsDir() {
		return nil, fmt.Errorf("%s is not a folder", root)
	}
	real, err := filepath.EvalSymlinks(root)
	if err != nil {
		return nil, fmt.Errorf("folder %s: %w", root, err)
	}
	if sys := systemFolder(real); sys != "" {
		return nil, fmt.Errorf("%s is in %s, the kernel's view of the running system, not documents: choose a folder of files", root, sys)
	}
	w := &walker{opt: opt, real: real, visited: map[[2]uint64]bool{}, seen: seen}
	if err := w.dir(ctx, root, fi); err != nil {
		return nil, err
	}
	return w.out, nil
}

func (w *walker) dir(ctx context.Context, dir string, fi fs.FileInfo) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if id, ok := fileID(fi); ok {
		if w.visited[id] {
			return nil // a symlink loop or a second link to the same folder
		}
		w.visited[id] = true
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		w.add(entry{path: dir, err: fmt.Errorf("folder not readable: %w", unwrapPath(err))})
		if len(entries) == 0 {
			return nil
		}
	}
	for _, de := range entries {
		name := de.Name()
		p := filepath.Join(dir, name)
		if w.ignored(name) {
			continue
		}
		info, err := de.Info()
		if err != nil {
			w.add(entry{path: p, err: unwrapPath(err)})
			continue
		}
		if info.Mode()&fs.ModeSymlink != 0 {
			target, err := os.Stat(p)
			if err != nil {
				w.add(entry{path: p, skip: "broken symbolic link"})
				continue
			}
			if why := w.refuseLink(p, target); why != "" {
				w.add(entry{path: p, skip: why})
				continue
			}
			info = target
		}
		switch {
		case info.IsDir():
			if err := w.dir(ctx, p, info); err != nil {
				return err
			}
		case info.Mode().IsRegular():
			e := entry{path: p, size: info.Size(), mtimeNS: info.ModTime().UnixNano()}
			if w.opt.MaxFileBytes > 0 && info.Size() > w.opt.MaxFileBytes {
				e.skip = fault.OneLine(fault.New(fault.ExtractTooLarge,
					fmt.Sprintf("file too large: %s is over the %s limit (index.max_file_mb)", mb(info.Size()), mb(w.opt.MaxFileBytes)),
					"raise index.max_file_mb if the file should be indexed", nil))
			}
			w.add(e)
		default:
			// Sockets, pipes and devices: opening a pipe would block forever.
			w.add(entry{path: p, skip: "not a regular file (" + extract.FileKind(info.Mode()) + ")"})
		}
	}
	return nil
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

// within reports whether path is dir or lies under it; both are clean
// absolute paths.
func within(path, dir string) bool {
	return path == dir || strings.HasPrefix(path, strings.TrimSuffix(dir, "/")+"/")
}

// refuseLink says why the symbolic link p, whose target is target, is not
// followed, or "" when it is: never into a system folder; to a folder,
// only when it stays inside the indexed folder (a link to ".." would index
// the parent, one to / the whole disk), unless FollowLinksOut.
func (w *walker) refuseLink(p string, target fs.FileInfo) string {
	real, err := filepath.EvalSymlinks(p)
	if err != nil {
		return "broken symbolic link"
	}
	if sys := systemFolder(real); sys != "" {
		return "symbolic link into " + sys + " (" + real + "): not followed"
	}
	if target.IsDir() && !w.opt.FollowLinksOut && !within(real, w.real) {
		return "symbolic link to a folder outside the indexed folder (" + real + "): not followed; " +
			"index that folder itself, or set index.follow_links_out"
	}
	return ""
}

func (w *walker) add(e entry) {
	w.out = append(w.out, e)
	if w.seen != nil && len(w.out)%500 == 0 {
		w.seen(len(w.out))
	}
}

func (w *walker) ignored(name string) bool { return w.opt.Ignored(name) }

// Ignored reports whether a file or folder called name is left out of
// indexing: a hidden one (unless IncludeHidden), or one matching an Ignore
// pattern. Folder watching follows the same rule.
func (opt Options) Ignored(name string) bool {
	if !opt.IncludeHidden && strings.HasPrefix(name, ".") {
		return true
	}
	for _, ig := range opt.Ignore {
		if ok, _ := filepath.Match(ig, name); ok {
			return true
		}
	}
	return false
}

func fileID(fi fs.FileInfo) ([2]uint64, bool) {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return [2]uint64{}, false
	}
	return [2]uint64{uint64(st.Dev), uint64(st.Ino)}, true
}

// unwrapPath drops the *PathError wrapper: messages name the path already.
func unwrapPath(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

func mb(n int64) string {
	return fmt.Sprintf("%.1f MB", float64(n)/(1<<20))
}

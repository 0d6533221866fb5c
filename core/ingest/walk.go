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
	scope   *scope // where the run may read; checked again on the opened file
}

type walker struct {
	opt     Options
	scope   *scope
	visited map[[2]uint64]bool // (device, inode) of directories already walked
	out     []entry
	seen    func(n int) // progress callback: entries so far
}

// walk lists the files under root: hidden files and folders (and the
// configured ignored names) are left out; a symbolic link, to a file or a
// folder, is followed only where it leads inside root (scope.refuse says
// why not, with where it leads); a folder reached twice (a link back up
// the tree) is walked once; anything unreadable becomes an entry with err
// set. A root inside the kernel's folders is refused.
func walk(ctx context.Context, root string, opt Options, seen func(int)) ([]entry, error) {
	fi, err := os.Stat(root)
	if err != nil {
		return nil, fmt.Errorf("folder %s: %w", root, err)
	}
	if !fi.IsDir() {
		return nil, fmt.Errorf("%s is not a folder", root)
	}
	sc, err := newScope(root, opt.FollowLinksOut)
	if err != nil {
		return nil, err
	}
	w := &walker{opt: opt, scope: sc, visited: map[[2]uint64]bool{}, seen: seen}
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
			if why := w.scope.refuseLink(p, target.IsDir()); why != "" {
				w.add(entry{path: p, skip: why})
				continue
			}
			info = target
		} else if info.IsDir() {
			// A folder of secrets: ~/.ssh when the home folder is indexed
			// with IncludeHidden, ~/.local/share/keyrings (no dot of its
			// own) under ~/.local or ~/.local/share.
			if why := w.scope.refuseSecret(p); why != "" {
				w.add(entry{path: p, skip: why})
				continue
			}
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

func (w *walker) add(e entry) {
	e.scope = w.scope
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

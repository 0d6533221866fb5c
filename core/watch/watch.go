// Package watch follows folders on disk and reports which paths changed,
// once the changes have settled, so that the indexer can re-read them while
// a person edits their documents.
//
// fsnotify watches single folders, so Watch adds every sub-folder, and the
// new ones as they appear. Bursts of events (an editor's save, a copy of a
// whole tree) are debounced into one batch.
package watch

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"syscall"
	"time"

	"github.com/fsnotify/fsnotify"
)

// Options tune a watch.
type Options struct {
	// Debounce is the quiet time after the last change before a batch is
	// reported; default 1 s.
	Debounce time.Duration
	// MaxDelay bounds how long a change waits while changes keep coming;
	// default 10 s.
	MaxDelay time.Duration
	// Skip, when not nil, excludes a path from watching and reporting (hidden
	// files, the knowledge base's own files, ignore patterns).
	Skip func(path string, isDir bool) bool
}

func (o *Options) defaults() {
	if o.Debounce <= 0 {
		o.Debounce = time.Second
	}
	if o.MaxDelay < o.Debounce {
		o.MaxDelay = max(10*time.Second, o.Debounce)
	}
	if o.Skip == nil {
		o.Skip = func(string, bool) bool { return false }
	}
}

// Watch follows root and every folder below it until ctx is done, sending
// each settled batch of changed paths (sorted, without duplicates) on out.
// When the kernel drops events, the batch holds root itself: everything may
// have changed. Watch returns ctx.Err() when stopped, or an error saying why
// root cannot be watched.
func Watch(ctx context.Context, root string, opt Options, out chan<- []string) error {
	opt.defaults()
	root, err := filepath.Abs(root)
	if err != nil {
		return fmt.Errorf("watch %s: %w", root, err)
	}
	w, err := fsnotify.NewWatcher()
	if err != nil {
		return fmt.Errorf("watch %s: %w (raise fs.inotify.max_user_instances?)", root, err)
	}
	defer w.Close()
	if _, err := addTree(w, root, opt.Skip, false); err != nil {
		return err
	}

	pending := map[string]bool{}
	var first time.Time // when the oldest pending change arrived
	timer := time.NewTimer(time.Hour)
	timer.Stop()
	note := func(path string) {
		if len(pending) == 0 {
			first = time.Now()
		}
		pending[path] = true
		wait := min(opt.Debounce, opt.MaxDelay-time.Since(first))
		timer.Reset(max(wait, 0))
	}
	for {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case ev, ok := <-w.Events:
			if !ok {
				return errors.New("watch: the file system watcher stopped")
			}
			if ev.Op == fsnotify.Chmod {
				continue // permissions and times only; content is unchanged
			}
			fi, statErr := os.Lstat(ev.Name)
			isDir := statErr == nil && fi.IsDir()
			if opt.Skip(ev.Name, isDir) {
				continue
			}
			note(ev.Name)
			if isDir && ev.Has(fsnotify.Create) {
				// A new folder: watch it, and report what it already holds,
				// since files created before the watch was added sent nothing.
				added, err := addTree(w, ev.Name, opt.Skip, true)
				if err != nil {
					note(root)
				}
				for _, p := range added {
					note(p)
				}
			}
		case err, ok := <-w.Errors:
			if !ok {
				return errors.New("watch: the file system watcher stopped")
			}
			if errors.Is(err, fsnotify.ErrEventOverflow) {
				note(root)
			}
		case <-timer.C:
			if len(pending) == 0 {
				continue
			}
			batch := make([]string, 0, len(pending))
			for p := range pending {
				batch = append(batch, p)
			}
			slices.Sort(batch)
			clear(pending)
			select {
			case out <- batch:
			case <-ctx.Done():
				return ctx.Err()
			}
		}
	}
}

// addTree watches dir and its sub-folders and, with collect, returns the
// files found below them.
func addTree(w *fsnotify.Watcher, dir string, skip func(string, bool) bool, collect bool) ([]string, error) {
	var files []string
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if p == dir {
				return err
			}
			return nil // an unreadable sub-folder is left out, not fatal
		}
		if p != dir && skip(p, d.IsDir()) {
			if d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		if !d.IsDir() {
			if collect {
				files = append(files, p)
			}
			return nil
		}
		if err := w.Add(p); err != nil && !errors.Is(err, fs.ErrNotExist) {
			if errors.Is(err, syscall.ENOSPC) {
				return fmt.Errorf("too many folders to watch; raise the limit with `sysctl fs.inotify.max_user_watches=524288`")
			}
			return err
		}
		return nil
	})
	if err != nil {
		return files, fmt.Errorf("watch %s: %w", dir, err)
	}
	return files, nil
}

// Package logs writes Cairn's log: a file in the user's state folder that
// rotates at a few megabytes, readable by the user only, with document text,
// questions and secrets kept out of it unless the level is debug.
package logs

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
)

// Rotator is an append-only log file that starts over when it reaches its
// size limit: cairn.log becomes cairn.log.1, .1 becomes .2, and so on up to
// Keep old files; the oldest is deleted. It is safe for concurrent use.
//
// Two processes writing one log both append (O_APPEND keeps their lines
// whole); when one rotates, the other keeps writing to the renamed file
// until it rotates itself, so its lines land in the older file. A rotation
// that fails (something in the way of a rename, a full disk) leaves the log
// appending to the current file, which says so, and is tried again after
// another maxBytes.
type Rotator struct {
	path     string
	maxBytes int64
	keep     int

	mu    sync.Mutex // guards the fields below
	f     *os.File
	size  int64
	limit int64 // rotate before the file passes it: maxBytes, or more after a failed rotation
}

// OpenRotator opens (creating) the log at path: the file 0600, its folder
// 0700. maxBytes <= 0 means 4 MB; keep < 0 means 0 old files.
func OpenRotator(path string, maxBytes int64, keep int) (*Rotator, error) {
	if maxBytes <= 0 {
		maxBytes = 4 << 20
	}
	r := &Rotator{path: path, maxBytes: maxBytes, keep: max(keep, 0), limit: maxBytes}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, fmt.Errorf("log folder: %w", err)
	}
	if err := r.open(); err != nil {
		return nil, err
	}
	return r, nil
}

// OpenPrivate opens path for appending, creating it (0600) and its folder
// (0700) as needed: for logs that must not rotate, such as an audit log.
func OpenPrivate(path string) (*os.File, error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, fmt.Errorf("create %s: %w", filepath.Dir(path), err)
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		return nil, fmt.Errorf("open %s: %w", path, err)
	}
	// A file made by an older version, or by hand, may be readable by others.
	if fi, err := f.Stat(); err == nil && fi.Mode().Perm()&0o077 != 0 {
		if err := f.Chmod(0o600); err != nil {
			f.Close()
			return nil, fmt.Errorf("%s is readable by others and could not be made private: %w", path, err)
		}
	}
	return f, nil
}

func (r *Rotator) open() error {
	f, err := OpenPrivate(r.path)
	if err != nil {
		return err
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return fmt.Errorf("log %s: %w", r.path, err)
	}
	r.f, r.size = f, fi.Size()
	return nil
}

// Write appends p, rotating first when p would take the file past its
// limit. A single write larger than the limit still goes in whole.
func (r *Rotator) Write(p []byte) (int, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.f == nil {
		return 0, os.ErrClosed
	}
	if r.size > 0 && r.size+int64(len(p)) > r.limit {
		if err := r.rotate(); err != nil {
			n, _ := fmt.Fprintf(r.f, "log rotation failed, so this file grows past its limit: %v\n", err)
			r.size += int64(n)
			r.limit = r.size + r.maxBytes
		}
	}
	n, err := r.f.Write(p)
	r.size += int64(n)
	return n, err
}

// rotate shifts the old files up by one, dropping the last, and starts a
// new file. The current file stays open until the new one is: on failure
// the log goes on in it. The caller holds mu.
func (r *Rotator) rotate() error {
	var err error
	if r.keep == 0 {
		err = os.Remove(r.path)
	} else {
		os.Remove(fmt.Sprintf("%s.%d", r.path, r.keep))
		for i := r.keep - 1; i >= 1; i-- {
			os.Rename(fmt.Sprintf("%s.%d", r.path, i), fmt.Sprintf("%s.%d", r.path, i+1))
		}
		err = os.Rename(r.path, r.path+".1")
	}
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("rotate log: %w", err)
	}
	old := r.f
	if err := r.open(); err != nil {
		return err // old, renamed, takes the lines meanwhile
	}
	old.Close()
	r.limit = r.maxBytes
	return nil
}

// Close closes the file; later writes fail. Safe to call more than once.
func (r *Rotator) Close() error {
	if r == nil {
		return nil
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.f == nil {
		return nil
	}
	err := r.f.Close()
	r.f = nil
	return err
}

// Path is the current log file's path.
func (r *Rotator) Path() string { return r.path }

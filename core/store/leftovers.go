package store

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"golang.org/x/sys/unix"
)

// Backup and Restore build their copy in a hidden temporary file beside
// the destination, ".NAME.tmp-DIGITS", and rename it into place. A backup
// or restore that is killed leaves that file (as large as the knowledge
// base) behind; the next one removes it. A temporary file is Cairn's by its
// name, and stale by its age and by its lock: the process that made it
// holds a lock on it (an open-file-description lock on tempByte, far past
// the bytes SQLite locks, as in lock.go) until it is done, and the kernel drops the
// lock when the process dies, so a copy still being made is never taken
// for a leftover, however long its checks take.

// tempCompanions are the files SQLite may make beside a temporary copy:
// VACUUM INTO's rollback journal, and the log of the restore's checks.
var tempCompanions = []string{"-journal", "-wal", "-shm"}

// tempByte is the byte of a temporary copy its maker holds locked: not
// useByte, which the restore's own check of the copy takes when it opens it.
const tempByte = useByte + 2

// leftoverAge is how old a temporary file must be before it can count as
// a leftover: it covers the moment between its creation and its lock.
const leftoverAge = time.Minute

// Leftover is a temporary copy an interrupted backup or restore left
// behind, and its size with its companions.
type Leftover struct {
	Path  string
	Bytes int64
}

// privateTemp creates an empty file, readable by the user only, in the
// folder of path (VACUUM INTO accepts an empty file and keeps its mode),
// and its rollback journal, which SQLite would otherwise create with the
// umask's mode. hold keeps the lock that marks the file as in use: close it
// once the file is renamed or removed.
func privateTemp(path string) (name string, hold *os.File, err error) {
	f, err := os.CreateTemp(filepath.Dir(path), tempPrefix(path)+"*")
	if err != nil {
		return "", nil, err
	}
	name = f.Name()
	if err := f.Chmod(0o600); err != nil {
		f.Close()
		os.Remove(name)
		return "", nil, err
	}
	if _, err := lockByte(f, unix.F_WRLCK, tempByte); err != nil {
		f.Close()
		os.Remove(name)
		return "", nil, fmt.Errorf("lock %s: %w", name, err)
	}
	if j, err := os.OpenFile(name+"-journal", os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o600); err == nil {
		j.Close()
	}
	return name, f, nil
}

// tempPrefix is the start of the name of path's temporary copies.
func tempPrefix(path string) string { return "." + filepath.Base(path) + ".tmp-" }

// removeTemp deletes a temporary copy and its companions.
func removeTemp(name string) {
	os.Remove(name)
	for _, suffix := range tempCompanions {
		os.Remove(name + suffix)
	}
}

// RemoveLeftovers deletes the temporary copies that interrupted backups or
// restores of path left beside it: files named as privateTemp names them,
// regular, older than a minute, and locked by no process. It returns what
// it removed; a file it cannot remove is left for the next time.
func RemoveLeftovers(path string) ([]Leftover, error) {
	path, err := resolve(path) // Restore's copy goes beside the file a link names
	if err != nil {
		return nil, err
	}
	dir, prefix := filepath.Dir(path), tempPrefix(path)
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("look for leftover temporary copies in %s: %w", dir, err)
	}
	mains := map[string]bool{}
	for _, e := range entries {
		name := e.Name()
		for _, suffix := range tempCompanions {
			name = strings.TrimSuffix(name, suffix)
		}
		digits, ok := strings.CutPrefix(name, prefix)
		if ok && digits != "" && strings.Trim(digits, "0123456789") == "" {
			mains[filepath.Join(dir, name)] = true
		}
	}
	var out []Leftover
	for name := range mains {
		if n, ok := leftover(name); ok {
			removeTemp(name)
			out = append(out, Leftover{Path: name, Bytes: n})
		}
	}
	return out, nil
}

// leftover reports whether the temporary copy name (or, when it is gone,
// its companions) is stale, and the bytes it and its companions hold.
func leftover(name string) (int64, bool) {
	var bytes int64
	old := time.Now().Add(-leftoverAge)
	for _, suffix := range append([]string{""}, tempCompanions...) {
		fi, err := os.Lstat(name + suffix)
		if err != nil {
			continue
		}
		if !fi.Mode().IsRegular() || fi.ModTime().After(old) {
			return 0, false // not a file Cairn made, or perhaps still in the making
		}
		bytes += fi.Size()
	}
	f, err := os.OpenFile(name, os.O_RDWR|unix.O_NOFOLLOW, 0)
	if os.IsNotExist(err) {
		return bytes, true // only companions are left
	}
	if err != nil {
		return 0, false
	}
	defer f.Close()
	held, err := lockByte(f, unix.F_WRLCK, tempByte)
	if err != nil || held {
		return 0, false // a backup or restore is still making it
	}
	return bytes, true
}

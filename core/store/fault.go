package store

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"syscall"

	"github.com/ncruces/go-sqlite3"

	"cairn/core/domain"
	"cairn/core/fault"
)

// lowDisk is the free space under which a failed write is blamed on a full
// disk: ncruces' file layer reports ENOSPC as a plain SQLITE_IOERR_WRITE.
const lowDisk = 64 << 20

// classify turns SQLite's and the file system's errors about the knowledge
// base at path into faults that say what happened and what to do. Errors it
// does not recognise (a cancel, a programming error) pass unchanged.
func classify(path string, err error) error {
	if err == nil {
		return nil
	}
	if _, ok := fault.As(err); ok {
		return err
	}
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) || errors.Is(err, sqlite3.INTERRUPT) {
		return err
	}
	doctor := "run `cairn doctor` for details, then `cairn restore BACKUP.db` from a backup, or delete " + path + " and index the folders again"
	switch {
	case errors.Is(err, domain.ErrIndexing):
		return fault.New(fault.StoreBusy, "", "wait for that run (a Cairn window or `cairn index`) to finish, or cancel it there; a crashed run's lock is released by itself", err)
	case errors.Is(err, sqlite3.CORRUPT):
		return fault.New(fault.StoreCorrupt, "the knowledge base "+path+" is damaged", doctor, err)
	case errors.Is(err, sqlite3.NOTADB):
		return fault.New(fault.StoreNotKB, path+" is not a Cairn knowledge base, or its first page is damaged",
			"check the --db path; if it is your knowledge base, "+doctor, err)
	case errors.Is(err, sqlite3.FULL):
		return fault.New(fault.StoreFull, "the disk is full: could not write to "+path,
			"free space on the disk that holds "+filepath.Dir(path)+" and run it again; everything written before is intact", err)
	case errors.Is(err, sqlite3.IOERR):
		if free, ferr := FreeSpace(filepath.Dir(path)); ferr == nil && free < lowDisk {
			return fault.New(fault.StoreFull, fmt.Sprintf("the disk is full (%d MB free): could not write to %s", free>>20, path),
				"free space on the disk that holds "+filepath.Dir(path)+" and run it again; everything written before is intact", err)
		}
		return fault.New(fault.StoreIO, "reading or writing "+path+" failed",
			"check the disk (and a file-size limit such as `ulimit -f`), then run `cairn doctor`", err)
	case errors.Is(err, sqlite3.READONLY), errors.Is(err, fs.ErrPermission), errors.Is(err, sqlite3.PERM):
		return fault.New(fault.StoreReadOnly, path+" is not writable",
			"give your user write permission on the file and its folder (`cairn doctor` checks them), or use --db with a writable path", err)
	case errors.Is(err, sqlite3.CANTOPEN):
		return fault.New(fault.StoreOpen, "cannot open "+path,
			"check that the folder exists and is writable, or pass another path with --db", err)
	}
	return err
}

// FreeSpace returns the bytes available to this user on the file system
// that holds dir.
func FreeSpace(dir string) (int64, error) {
	var st syscall.Statfs_t
	if err := syscall.Statfs(dir, &st); err != nil {
		return 0, fmt.Errorf("free space of %s: %w", dir, err)
	}
	return int64(st.Bavail) * int64(st.Bsize), nil
}

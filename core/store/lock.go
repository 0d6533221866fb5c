package store

import (
	"errors"
	"fmt"
	"io"
	"os"
	"time"

	"golang.org/x/sys/unix"

	"cairn/core/domain"
	"cairn/core/fault"
)

// errInUse is the cause of the fault Restore returns while the knowledge
// base is open elsewhere.
var errInUse = errors.New("the knowledge base is open")

// Cairn's own locks are open-file-description locks (Linux's F_OFD_SETLK)
// on one byte each of the database file, far past the bytes SQLite locks
// (1 GiB to 1 GiB + 512). They belong to the file, not to its name, so a
// second name for it (a link, a renamed or bind-mounted path) meets them;
// they go when the process dies, so a crash leaves none behind; and SQLite
// never sees them.
const (
	// useByte is held shared by every open knowledge base, for as long as
	// it is open; Restore takes it exclusively to swap the file.
	useByte int64 = 1 << 40
	// indexByte is held exclusively by an indexing run.
	indexByte = useByte + 1
)

// lockByte takes (or, with F_UNLCK, releases) the lock typ on byte at of f
// without waiting; held reports that another description holds it.
func lockByte(f *os.File, typ int16, at int64) (held bool, err error) {
	lk := unix.Flock_t{Type: typ, Whence: io.SeekStart, Start: at, Len: 1}
	err = unix.FcntlFlock(f.Fd(), unix.F_OFD_SETLK, &lk)
	if errors.Is(err, unix.EAGAIN) || errors.Is(err, unix.EACCES) {
		return true, nil
	}
	return false, err
}

// useWait bounds how long Open waits for a restore to finish swapping the
// file (two renames).
const useWait = 5 * time.Second

// openUse opens the file at path and takes its use lock. A restore holds
// the lock only while it swaps the file, so Open waits for it, then makes
// sure the path still names the file it locked (a restore puts a new one
// there); same tells it did.
func openUse(path string, write bool) (f *os.File, same bool, err error) {
	flags := os.O_RDONLY
	if write {
		flags = os.O_RDWR
	}
	f, err = os.OpenFile(path, flags, 0)
	if err != nil {
		return nil, false, fmt.Errorf("open knowledge base: %w", err)
	}
	deadline := time.Now().Add(useWait)
	for {
		held, err := lockByte(f, unix.F_RDLCK, useByte)
		if err != nil {
			f.Close()
			return nil, false, fmt.Errorf("knowledge base lock: %w", err)
		}
		if !held {
			break
		}
		if time.Now().After(deadline) {
			f.Close()
			return nil, false, fault.New(fault.StoreInUse, path+" is being restored", "wait for `cairn restore` to finish, then try again", errInUse)
		}
		time.Sleep(20 * time.Millisecond)
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, false, err
	}
	now, err := os.Stat(path)
	return f, err == nil && os.SameFile(fi, now), nil
}

// LockIndexing takes the knowledge base's indexing lock, released by
// unlock or when the process dies. It is taken on a description of its
// own, so a second run in the same process is refused too. Searches need
// no lock.
func (db *DB) LockIndexing() (unlock func(), err error) {
	return lockIndexing(db.path)
}

func lockIndexing(path string) (unlock func(), err error) {
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		return nil, classify(path, fmt.Errorf("indexing lock: %w", err))
	}
	held, err := lockByte(f, unix.F_WRLCK, indexByte)
	if err != nil || held {
		f.Close()
		if held {
			return nil, classify(path, domain.ErrIndexing)
		}
		return nil, fmt.Errorf("indexing lock: %w", err)
	}
	return func() { f.Close() }, nil // closing releases the lock
}

// Indexing reports whether an indexing run holds the knowledge base, in
// this process or another, without taking the lock (a read-only knowledge
// base cannot). It is the one rule for "a run is in progress": the doctor
// says so, and a run recorded as running whose lock is free is shown as
// interrupted (see listRuns).
func (db *DB) Indexing() (bool, error) {
	lk := unix.Flock_t{Type: unix.F_WRLCK, Whence: io.SeekStart, Start: indexByte, Len: 1}
	if err := unix.FcntlFlock(db.file.Fd(), unix.F_OFD_GETLK, &lk); err != nil {
		return false, fmt.Errorf("indexing lock: %w", err)
	}
	return lk.Type != unix.F_UNLCK, nil
}

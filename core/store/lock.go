package store

import (
	"errors"
	"fmt"
	"os"
	"syscall"
)

// ErrIndexing is returned by LockIndexing, inside a fault.StoreBusy, while
// another indexing run (in this or another process) holds the knowledge base.
var ErrIndexing = errors.New("another indexing run is using this knowledge base")

// LockIndexing takes the knowledge base's indexing lock: an advisory lock on
// "<db>.lock", released by unlock or when the process dies, so a crash never
// leaves a stale lock behind. Searches need no lock.
func (db *DB) LockIndexing() (unlock func(), err error) {
	return lockPath(db.path)
}

// lockPath takes the indexing lock of the knowledge base at path.
func lockPath(path string) (unlock func(), err error) {
	f, err := os.OpenFile(path+".lock", os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, fmt.Errorf("indexing lock: %w", err)
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		f.Close()
		if errors.Is(err, syscall.EWOULDBLOCK) {
			return nil, classify(path, ErrIndexing)
		}
		return nil, fmt.Errorf("indexing lock: %w", err)
	}
	return func() {
		syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
		f.Close()
	}, nil
}

// Indexing reports whether an indexing run holds the knowledge base, in
// this process or another. It is the one rule for "a run is in progress":
// the doctor says so, and a run recorded as running whose lock is free is
// shown as interrupted (see listRuns). It creates nothing: without a lock
// file no run ever started here.
func (db *DB) Indexing() (bool, error) {
	f, err := os.Open(db.path + ".lock")
	if errors.Is(err, os.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("indexing lock: %w", err)
	}
	defer f.Close()
	// A shared lock: two readers probing at once do not see each other.
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_SH|syscall.LOCK_NB); err != nil {
		if errors.Is(err, syscall.EWOULDBLOCK) {
			return true, nil
		}
		return false, fmt.Errorf("indexing lock: %w", err)
	}
	return false, nil // closing f releases the shared lock
}

package domain

import (
	"errors"
	"time"
)

// Run statuses.
const (
	RunRunning     = "running"
	RunDone        = "done"
	RunCancelled   = "cancelled"
	RunFailed      = "failed"
	RunInterrupted = "interrupted" // the process died while the run was going
)

// Run is the audit record of one indexing run over one folder.
type Run struct {
	ID             int64
	Folder         string
	StartedAt      time.Time
	FinishedAt     time.Time // zero while running
	Status         string
	FilesSeen      int
	FilesIndexed   int
	FilesUnchanged int
	FilesSkipped   int
	FilesFailed    int
	FilesRemoved   int
	Chunks         int
	Bytes          int64
	Error          string
}

// ErrIndexing is returned by store.LockIndexing, inside a fault.StoreBusy, while
// another indexing run (in this or another process) holds the knowledge base.
var ErrIndexing = errors.New("another indexing run is using this knowledge base")

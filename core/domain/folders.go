package domain

import "time"

// Folder is a root folder of the knowledge base.
type Folder struct {
	ID        int64
	Path      string
	AddedAt   time.Time
	Documents int
	Chunks    int
	Issues    int
	LastRun   *Run // nil before the first run
	Watched   bool // the window re-indexes it when its files change (store.DB.SetWatchedFolders)
}

// Issue is a file that is not indexed, and why.
type Issue struct {
	Path    string
	Kind    string // "skipped" or "failed"
	Reason  string
	Size    int64
	MTimeNS int64
	// Hash is the content hash of the version that was read, "" when it
	// could not be read.
	Hash string
	// Retry says that the next run reads the file again although it has
	// not changed: a failure that may not happen again (a timeout, a read
	// error), once. Otherwise the file waits until it changes or the
	// person asks (cairn index --retry-failed).
	Retry bool
	RunID int64
	At    time.Time
}

// Removal is how far removing a folder from the cluster has gone: what
// it held when the removal started, and what is removed so far.
type Removal struct {
	FolderSize
	FilesRemoved  int
	ChunksRemoved int
}

// FolderSize is what the cluster holds of one folder.
type FolderSize struct {
	Folder string
	Files  int // files with a fingerprint
	Chunks int // chunks, a file's whose write stopped before its fingerprint too
}

package domain

import "time"

// Phase is the stage a run is in.
type Phase string

const (
	PhaseScanning  Phase = "scanning"
	PhaseRemoving  Phase = "removing"
	PhaseIndexing  Phase = "indexing"
	PhaseEmbedding Phase = "embedding" // re-embedding stored chunks after a model change
	PhaseDone      Phase = "done"
)

// Status is what happened to one file.
type Status string

const (
	StatusIndexed   Status = "indexed"
	StatusUnchanged Status = "unchanged"
	StatusSkipped   Status = "skipped"
	StatusFailed    Status = "failed"
	StatusRemoved   Status = "removed"
)

// FileEvent reports the outcome for one file.
type FileEvent struct {
	Path      string
	Status    Status
	Reason    string // why skipped or failed; extraction warnings for indexed files
	Chunks    int
	Bytes     int64
	Unchanged bool // decided from size and time alone, without reading
	// Retry marks a failed file the next run reads again although it has
	// not changed (Issue.Retry); a failed file without it waits until it
	// changes or the person asks (cairn index --retry-failed).
	Retry bool
}

// Progress is a snapshot of a run, sent after every file and phase change.
type Progress struct {
	Folder     string
	Phase      Phase
	FilesSeen  int // files found by the walk so far
	FilesTotal int // files that need reading (known after the walk)
	FilesDone  int // of FilesTotal
	Indexed    int
	Unchanged  int
	Skipped    int
	Failed     int
	Removed    int
	Chunks     int // chunks written in this run
	Bytes      int64
	BytesTotal int64
	Current    string // file being read
	Elapsed    time.Duration
	ETA        time.Duration // 0 when unknown
	File       *FileEvent    // the file this event reports, if any
	Run        *Run          // set on the final event
}

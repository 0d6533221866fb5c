package domain

import "time"

// Judgment records that a file answers a question.
type Judgment struct {
	ID      int64
	Query   string
	Path    string
	ChunkID int64
	At      time.Time
}

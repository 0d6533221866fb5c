package domain

import (
	"errors"
	"time"
)

// Thread is a saved conversation: questions asked one after the other.
type Thread struct {
	ID      int64
	Title   string // the first question
	Turns   int
	Created time.Time
	Updated time.Time
	// Folders are the knowledge base's folders the thread's questions are
	// answered from (its collection); none: every folder.
	Folders []string
}

// Turn is one question of a thread and the answer it got.
type Turn struct {
	Question string
	Query    string // what was searched, when it differs from the question
	Answer   string
	At       time.Time
	// Sources are the passages the answer cites, by their [n], so that a
	// reopened conversation's citations still show them.
	Sources []TurnSource
}

// TurnSource is a passage an answer cites as [N].
type TurnSource struct {
	N       int    `json:"n"`
	ChunkID int64  `json:"chunk_id"`
	Path    string `json:"path"`
}

// ErrNoThread is returned for a thread id the knowledge base does not hold.
var ErrNoThread = errors.New("no such conversation")

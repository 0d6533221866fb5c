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
}

// Turn is one question of a thread and the answer it got.
type Turn struct {
	Question string
	Query    string // what was searched, when it differs from the question
	Answer   string
	At       time.Time
}

// ErrNoThread is returned for a thread id the knowledge base does not hold.
var ErrNoThread = errors.New("no such conversation")

package netgate

import (
	"errors"
	"fmt"
)

// ErrBlocked matches every refusal of the gate: errors.Is(err, ErrBlocked).
var ErrBlocked = errors.New("blocked by the network gate")

// BlockedError is a refused connection: what, why and how to allow it.
type BlockedError struct {
	Mode    Mode
	Addr    string // host:port
	Purpose string
	Reason  string
	Hint    string // how to allow it
}

func (e *BlockedError) Error() string {
	return fmt.Sprintf("the network gate (%s mode) refused a connection to %s for %s: %s; to allow it, %s",
		e.Mode, e.Addr, e.Purpose, e.Reason, e.Hint)
}

// Is makes errors.Is(err, ErrBlocked) true.
func (e *BlockedError) Is(target error) bool { return target == ErrBlocked }

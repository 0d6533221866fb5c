package netgate

import (
	"errors"
	"fmt"

	"cairn/core/fault"
)

// ErrBlocked matches every refusal of the gate: errors.Is(err, ErrBlocked).
var ErrBlocked = errors.New("blocked by the network gate")

// BlockedError is a refused connection: what, why and how to allow it. It
// is a fault (fault.NetBlocked) whose fix is Hint, so the command line and
// the window show the hint with the code under the message.
type BlockedError struct {
	Mode    Mode
	Addr    string // host:port
	Purpose string
	Reason  string
	Hint    string // how to allow it
}

func (e *BlockedError) Error() string {
	return fmt.Sprintf("the network gate (%s mode) refused a connection to %s for %s: %s", e.Mode, e.Addr, e.Purpose, e.Reason)
}

// Is makes errors.Is(err, ErrBlocked) true.
func (e *BlockedError) Is(target error) bool { return target == ErrBlocked }

// As makes fault.As (and fault.CodeOf, fault.FixLine) see the refusal as a
// fault with code NET-001 and the hint as its fix.
func (e *BlockedError) As(target any) bool {
	f, ok := target.(**fault.Error)
	if ok {
		*f = fault.New(fault.NetBlocked, e.Error(), e.Hint, nil)
	}
	return ok
}

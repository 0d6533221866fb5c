package netgate

import (
	"encoding/json"
	"fmt"
	"sync"
	"time"

	"cairn/core/logs"
)

// Decisions in the audit log.
const (
	DecisionAllowed  = "allowed"
	DecisionRefused  = "refused"
	DecisionSwitched = "mode switched"
)

// Record is one line of the audit log. It names the destination by host
// and port only: never a URL's path or query, and never a credential.
type Record struct {
	Time     time.Time `json:"time"`
	Mode     Mode      `json:"mode"`
	Addr     string    `json:"addr,omitempty"` // host:port
	Purpose  string    `json:"purpose,omitempty"`
	Decision string    `json:"decision"`
	Reason   string    `json:"reason"`
}

// auditLog appends records to a file readable by the user only.
type auditLog struct {
	path string
	now  func() time.Time
	mu   sync.Mutex // one line at a time
}

func newAuditLog(path string, now func() time.Time) *auditLog {
	if now == nil {
		now = time.Now
	}
	return &auditLog{path: path, now: now}
}

// write appends r. The file is opened for each record: decisions are rare
// (one per request), and nothing has to be closed.
func (a *auditLog) write(r Record) error {
	r.Time = a.now().UTC()
	line, err := json.Marshal(r)
	if err != nil {
		return err
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	f, err := logs.OpenPrivate(a.path)
	if err != nil {
		return fmt.Errorf("could not write the network audit log %s: %w", a.path, err)
	}
	_, err = f.Write(append(line, '\n'))
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("could not write the network audit log %s: %w", a.path, err)
	}
	return nil
}

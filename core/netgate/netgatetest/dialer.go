// Package netgatetest is the network gate's inner dialer for tests: it
// records every address the gate asked for and never leaves this computer.
package netgatetest

import (
	"context"
	"fmt"
	"net"
	"sync"
)

// Dialer maps host names onto listeners on 127.0.0.1 (stand-ins for remote
// servers) and records every dial. An address without a route fails
// without leaving the machine, so a test can see that the gate tried
// (which it must not); with Loopback, an unrouted 127.0.0.1 or ::1 address
// is dialled as it is.
type Dialer struct {
	Loopback bool

	mu     sync.Mutex
	routes map[string]string // addr -> 127.0.0.1:port
	dialed []string
}

// Route sends dials of addr to the listener at to.
func (d *Dialer) Route(addr, to string) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.routes == nil {
		d.routes = map[string]string{}
	}
	d.routes[addr] = to
}

// Dial is a netgate.DialFunc.
func (d *Dialer) Dial(ctx context.Context, network, addr string) (net.Conn, error) {
	d.mu.Lock()
	d.dialed = append(d.dialed, addr)
	to, ok := d.routes[addr]
	d.mu.Unlock()
	if !ok {
		host, _, _ := net.SplitHostPort(addr)
		if !d.Loopback || (host != "127.0.0.1" && host != "::1") {
			return nil, fmt.Errorf("test dialer: no route to %s", addr)
		}
		to = addr
	}
	var nd net.Dialer
	return nd.DialContext(ctx, network, to)
}

// Calls lists the addresses dialled so far, in order.
func (d *Dialer) Calls() []string {
	d.mu.Lock()
	defer d.mu.Unlock()
	return append([]string(nil), d.dialed...)
}

package ui

import (
	"context"
	"sync"
)

// mailbox carries a panel's requests to its worker. The panel posts on the
// window's goroutine, which must never wait: post only queues, and a
// forwarding goroutine (run, owned and waited for by the shell) hands the
// requests to the worker one by one, in the order posted. Requests posted
// before run starts wait for it; once the mailbox is closed (the worker
// stopped) they are dropped.
type mailbox[T any] struct {
	mu     sync.Mutex
	queue  []T
	closed bool
	wake   chan struct{} // something was queued; never blocks post
	out    chan T        // the worker's requests
}

func newMailbox[T any]() *mailbox[T] {
	return &mailbox[T]{wake: make(chan struct{}, 1), out: make(chan T)}
}

// post queues r for the worker; it never blocks.
func (m *mailbox[T]) post(r T) {
	m.mu.Lock()
	if m.closed {
		m.mu.Unlock()
		return
	}
	m.queue = append(m.queue, r)
	m.mu.Unlock()
	select {
	case m.wake <- struct{}{}:
	default:
	}
}

// run forwards the queued requests to the worker until ctx ends, then
// closes the mailbox.
func (m *mailbox[T]) run(ctx context.Context) {
	defer m.close()
	for {
		m.mu.Lock()
		batch := m.queue
		m.queue = nil
		m.mu.Unlock()
		for _, r := range batch {
			select {
			case m.out <- r:
			case <-ctx.Done():
				return
			}
		}
		select {
		case <-m.wake:
		case <-ctx.Done():
			return
		}
	}
}

// close drops what is queued and every later post.
func (m *mailbox[T]) close() {
	m.mu.Lock()
	m.closed, m.queue = true, nil
	m.mu.Unlock()
}

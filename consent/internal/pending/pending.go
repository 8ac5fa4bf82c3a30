// Package pending is the table of consent requests a channel is waiting
// on, by request id, shared by the webhook and Telegram channels: register
// before asking, hand over exactly one decision, forget on return.
//
// # Security
//
// A request takes one decision: [Table.Take] removes the entry before the
// reply is delivered, so a replayed callback finds nothing. The table is
// bounded (Max) so callbacks cannot grow it.
//
// # Concurrency
//
// A Table is safe for concurrent use; the functions passed to [Table.Do]
// and [Table.Take] run under its lock and must not block.
package pending

import (
	"errors"
	"sync"

	"github.com/gatehouse-dev/gatehouse/consent"
)

// Errors of [Table.Add].
var (
	ErrFull      = errors.New("pending: table full")
	ErrDuplicate = errors.New("pending: request already pending")
)

// Waiter is one request being waited on: the channel's own bookkeeping
// (Data, read and written only inside Do and Take) and the reply.
type Waiter[T any] struct {
	Data  T
	reply chan consent.Reply // buffered 1, sent once
}

// Reply returns the channel the decision arrives on.
func (w *Waiter[T]) Reply() <-chan consent.Reply { return w.reply }

// Table holds the requests being waited on.
type Table[T any] struct {
	max int
	mu  sync.Mutex
	m   map[string]*Waiter[T]
}

// New returns a table holding at most max requests (0: no bound).
func New[T any](max int) *Table[T] {
	return &Table[T]{max: max, m: map[string]*Waiter[T]{}}
}

// Add registers request id with data. It fails with [ErrFull] when max
// requests are pending and [ErrDuplicate] when id already is.
func (t *Table[T]) Add(id string, data T) (*Waiter[T], error) {
	w := &Waiter[T]{Data: data, reply: make(chan consent.Reply, 1)}
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.max > 0 && len(t.m) >= t.max {
		return nil, ErrFull
	}
	if _, dup := t.m[id]; dup {
		return nil, ErrDuplicate
	}
	t.m[id] = w
	return w, nil
}

// Remove forgets id if it is still w (a deferred cleanup after Ask).
func (t *Table[T]) Remove(id string, w *Waiter[T]) {
	t.mu.Lock()
	if t.m[id] == w {
		delete(t.m, id)
	}
	t.mu.Unlock()
}

// Do runs fn on the waiter of id under the lock and returns it; nil when
// id is not pending (fn is not called).
func (t *Table[T]) Do(id string, fn func(w *Waiter[T])) *Waiter[T] {
	t.mu.Lock()
	defer t.mu.Unlock()
	w := t.m[id]
	if w != nil && fn != nil {
		fn(w)
	}
	return w
}

// Take hands r to the waiter of id when ok(w) accepts it: the entry is
// removed first, so only one decision is ever delivered. It reports
// whether id was pending and whether r was delivered.
func (t *Table[T]) Take(id string, ok func(w *Waiter[T]) bool, r consent.Reply) (found, taken bool) {
	t.mu.Lock()
	w := t.m[id]
	if w == nil {
		t.mu.Unlock()
		return false, false
	}
	if ok != nil && !ok(w) {
		t.mu.Unlock()
		return true, false
	}
	delete(t.m, id)
	t.mu.Unlock()
	w.reply <- r // buffered, and only ever sent once: the entry left above
	return true, true
}

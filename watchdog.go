package gatehouse

import (
	"context"
	"sync"
	"time"
)

// errHandlerTimeout is the cause a handler's context is cancelled with
// when the handler outlives Options.HandlerTimeout. It is a timeout, as
// context.DeadlineExceeded is (errors.Is, and net.Error's Timeout): what
// reports a context's cause rather than its Err, as net/http does, reports
// a timeout to its caller.
var errHandlerTimeout error = handlerTimeout{}

type handlerTimeout struct{}

func (handlerTimeout) Error() string {
	return "gatehouse: the tool handler outlived Options.HandlerTimeout"
}

func (handlerTimeout) Unwrap() error { return context.DeadlineExceeded }
func (handlerTimeout) Timeout() bool { return true }

// A watchdog abandons tool handlers that outlive their timeout. One
// goroutine per Guard ticks while handlers run and stops when none does; a
// runtime timer per call cost more than everything else the handler's
// goroutine hop costs. A handler is abandoned at least timeout and at most
// timeout plus one tick (a thirty-second of the timeout, from 1 ms to 1 s)
// after it started. The watched handlers are a list (bounded by the
// in-flight caps) so that watching one is a few pointer writes.
type watchdog struct {
	timeout, tick time.Duration

	mu      sync.Mutex
	head    *watched // the handlers running, newest first
	n       int
	ticking bool
}

func newWatchdog(timeout time.Duration) *watchdog {
	return &watchdog{timeout: timeout, tick: min(max(timeout/32, time.Millisecond), time.Second)}
}

// watch returns the context for the handler of c, abandoned once the
// handler has run for the timeout. It carries c (callFrom). The handler's
// goroutine calls stop when it returns.
func (w *watchdog) watch(ctx context.Context, c *call) *watched {
	now := time.Now()
	r := &watched{parent: ctx, call: c, start: now, deadline: now.Add(w.timeout), result: make(chan handled, 2)}
	w.mu.Lock()
	r.next, r.linked = w.head, true
	if w.head != nil {
		w.head.prev = r
	}
	w.head = r
	w.n++
	if !w.ticking {
		w.ticking = true
		go w.loop()
	}
	w.mu.Unlock()
	return r
}

// stop takes r off the watch: its handler returned.
func (w *watchdog) stop(r *watched) {
	w.mu.Lock()
	w.unlink(r)
	w.mu.Unlock()
	r.end(false)
}

func (w *watchdog) unlink(r *watched) {
	if !r.linked {
		return
	}
	if r.prev != nil {
		r.prev.next = r.next
	} else {
		w.head = r.next
	}
	if r.next != nil {
		r.next.prev = r.prev
	}
	r.prev, r.next, r.linked = nil, nil, false
	w.n--
}

// loop abandons overdue handlers every tick until none is watched.
func (w *watchdog) loop() {
	t := time.NewTicker(w.tick)
	defer t.Stop()
	for now := range t.C {
		if !w.expire(now) {
			return
		}
	}
}

// expire abandons the handlers overdue at now, telling their callers, and
// reports whether any handler is still watched; when none is, the loop
// ends.
func (w *watchdog) expire(now time.Time) bool {
	w.mu.Lock()
	var overdue *watched
	for r := w.head; r != nil; {
		next := r.next
		if now.Sub(r.start) >= w.timeout {
			w.unlink(r)
			r.overdueNext, overdue = overdue, r
		}
		r = next
	}
	more := w.n != 0
	w.ticking = more
	w.mu.Unlock()
	// Outside the lock: ending a handler's context cancels every context
	// the handler derived, which must not hold up other calls' watch and
	// stop. A handler that returns meanwhile keeps its answer (end(true)
	// after stop does nothing; the caller takes the first result).
	for r := overdue; r != nil; {
		next := r.overdueNext
		r.overdueNext = nil
		r.end(true)
		r.result <- handled{timeout: true}
		r = next
	}
	return more
}

package gatehouse

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"time"
)

// errHandlerTimeout is the cause a handler's context is cancelled with
// when the handler outlives Options.HandlerTimeout.
var errHandlerTimeout = errors.New("gatehouse: the tool handler outlived Options.HandlerTimeout")

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

// watched is one handler under the watchdog, and the context it runs
// with. Past its deadline Err is context.DeadlineExceeded (as under
// context.WithTimeout) and context.Cause is errHandlerTimeout; once the
// handler returned, Err is context.Canceled. The cancellable context under
// it is made only when something asks for Done (or a child is derived):
// a handler that never looks at its context costs no context, no channel.
// The call's answer comes on result: the handler's, or the watchdog's
// timeout (capacity two, so neither sender ever blocks).
type watched struct {
	parent   context.Context
	call     *call     // the value of callKey, for DecisionFrom and AddTool
	start    time.Time // with its monotonic reading
	deadline time.Time
	result   chan handled

	mu      sync.Mutex // makes inner once; end, and Err of a running handler
	inner   atomic.Pointer[cancelled]
	overdue atomic.Bool // abandoned by the watchdog
	stopped atomic.Bool // the handler returned

	// Err and Cause once the handler returned, fixed then (under mu,
	// before stopped is set): Canceled, or the parent's if it had ended.
	endErr, endCause error

	prev, next *watched // in the watchdog's list, under its mu
	linked     bool
}

type cancelled struct {
	ctx    context.Context
	cancel context.CancelCauseFunc
}

// ctx is the cancellable context under r, made on first use and cancelled
// at once when the handler already returned or was abandoned.
func (r *watched) ctx() context.Context {
	if in := r.inner.Load(); in != nil {
		return in.ctx
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if in := r.inner.Load(); in != nil {
		return in.ctx
	}
	var ctx context.Context
	var cancel context.CancelCauseFunc
	switch {
	case r.overdue.Load(): // the parent's later end must not show through
		ctx, cancel = context.WithCancelCause(context.WithoutCancel(r.parent))
		cancel(errHandlerTimeout)
	case r.stopped.Load():
		ctx, cancel = context.WithCancelCause(context.WithoutCancel(r.parent))
		cancel(r.endCause)
	default:
		ctx, cancel = context.WithCancelCause(r.parent)
	}
	r.inner.Store(&cancelled{ctx: ctx, cancel: cancel})
	return ctx
}

// end marks r abandoned (timeout) or returned and cancels its context if
// one was made.
func (r *watched) end(timeout bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	in := r.inner.Load()
	if timeout {
		cause := errHandlerTimeout
		if r.parent.Err() == nil {
			r.overdue.Store(true)
		} else {
			cause = context.Cause(r.parent) // the client's, not a timeout
		}
		if in != nil {
			in.cancel(cause)
		}
		return
	}
	switch {
	case in != nil:
		in.cancel(context.Canceled)
		r.endErr = in.ctx.Err()
	case r.parent.Err() != nil:
		r.endErr, r.endCause = r.parent.Err(), context.Cause(r.parent)
	default:
		r.endErr, r.endCause = context.Canceled, context.Canceled
	}
	r.stopped.Store(true)
}

func (r *watched) Done() <-chan struct{} { return r.ctx().Done() }

func (r *watched) Deadline() (time.Time, bool) {
	if d, ok := r.parent.Deadline(); ok && d.Before(r.deadline) {
		return d, true
	}
	return r.deadline, true
}

func (r *watched) Value(key any) any {
	if _, ok := key.(callKey); ok {
		return r.call
	}
	if in := r.inner.Load(); in != nil {
		return in.ctx.Value(key)
	}
	if r.overdue.Load() || r.stopped.Load() {
		return r.ctx().Value(key) // context.Cause finds the cancellation
	}
	return r.parent.Value(key)
}

// Err reads a running handler's state under mu, as end changes it: the
// client's cancellation read just before the timeout is not followed by
// DeadlineExceeded (once Err is non-nil it does not change).
func (r *watched) Err() error {
	if r.overdue.Load() {
		return context.DeadlineExceeded
	}
	if r.stopped.Load() {
		return r.endErr // the parent's later end must not show through
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	switch in := r.inner.Load(); {
	case r.overdue.Load():
		return context.DeadlineExceeded
	case r.stopped.Load():
		return r.endErr
	case in != nil:
		return in.ctx.Err()
	}
	return r.parent.Err()
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
	defer w.mu.Unlock()
	for r := w.head; r != nil; {
		next := r.next
		if now.Sub(r.start) >= w.timeout {
			w.unlink(r)
			r.end(true)
			r.result <- handled{timeout: true}
		}
		r = next
	}
	if w.n == 0 {
		w.ticking = false
		return false
	}
	return true
}

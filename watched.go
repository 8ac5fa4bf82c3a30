package gatehouse

import (
	"context"
	"sync"
	"sync/atomic"
	"time"
)

// watched is one handler under the watchdog, and the context it runs
// with. Past its deadline Err is context.DeadlineExceeded (as under
// context.WithTimeout) and context.Cause is errHandlerTimeout, for the
// handler's context and for every context derived from it; once the
// handler returned, Err is context.Canceled. Nothing is made until
// something asks for Done or derives a child: a handler that never looks
// at its context costs no channel.
//
// It is a context of its own kind, not one of the context package's: a
// child adopts such a context's state when cancelled, and only that
// package's timer ends one with DeadlineExceeded (a timer per call cost a
// handler that derives a context 1.5 µs, more than the rest of the hop).
// A child learns of r's end through r's AfterFunc instead, the context
// package's hook for contexts of other kinds, and takes r's Err and Cause.
// A child under a value (WithValue, then WithCancel) cannot reach that
// hook: the context package gives it a goroutine that waits for r's Done
// until the child or r ends (1.4 µs against 0.14 under a
// context.WithCancel, BenchmarkRedTeamCtxChildUnderValue at -cpu 1). A
// context.WithCancel under a shim of ours, ended through its AfterFunc,
// would register such children directly; tried, it cost a direct child
// 0.45 µs and three allocations more, and was not kept.
//
// The call's answer comes on result: the handler's, or the watchdog's
// timeout (capacity two, so neither sender ever blocks).
type watched struct {
	parent   context.Context
	call     *call     // the value of callKey, for DecisionFrom and AddTool
	start    time.Time // with its monotonic reading
	deadline time.Time
	result   chan handled

	mu      sync.Mutex   // the fields below but the three flags; end; Err of a running handler
	done    atomic.Value // chan struct{}: made by Done (under mu), closed at the end (r's or the parent's); read without mu
	closed  atomic.Bool  // set once done is closed (or would be, unmade): Err reads the flags below only then
	afters  []*afterFunc // AfterFunc's, run once at the end
	unwatch func() bool  // stops the AfterFunc on the parent
	overdue atomic.Bool  // abandoned by the watchdog
	stopped atomic.Bool  // the handler returned

	// Err and Cause once the handler returned, fixed then (before stopped
	// is set): Canceled, or the parent's if it had ended.
	endErr, endCause error
	endCtx           context.Context // ended with r's cause, for context.Cause; made on demand

	prev, next  *watched // in the watchdog's list, under its mu
	linked      bool
	overdueNext *watched // in expire's list of handlers to abandon
}

// afterFunc is one AfterFunc registration; i is its index in afters, so
// that stopping one (as every derived context does when cancelled) is
// O(1) however many are registered.
type afterFunc struct {
	f func()
	i int
}

// end marks r abandoned (timeout) or returned, closes Done and runs the
// functions registered by AfterFunc (the derived contexts' cancellations).
func (r *watched) end(timeout bool) {
	r.mu.Lock()
	if timeout {
		if r.stopped.Load() { // returned after expire took it off the list: its answer stands
			r.mu.Unlock()
			return
		}
		if r.parent.Err() == nil { // else the client's end, not a timeout
			r.overdue.Store(true)
		}
	} else {
		if r.parent.Err() != nil {
			r.endErr, r.endCause = r.parent.Err(), context.Cause(r.parent)
		} else {
			r.endErr, r.endCause = context.Canceled, context.Canceled
		}
		r.stopped.Store(true)
	}
	afters, unwatch := r.finish()
	r.unwatch = nil
	r.mu.Unlock()
	if unwatch != nil {
		unwatch()
	}
	for _, a := range afters {
		a.f()
	}
}

// finish closes Done, if made, and hands over the AfterFunc functions to
// run (outside mu: they read Err and Cause). Under mu.
func (r *watched) finish() ([]*afterFunc, func() bool) {
	if r.closed.Load() {
		return nil, r.unwatch
	}
	if d, ok := r.done.Load().(chan struct{}); ok {
		close(d)
	}
	r.closed.Store(true)
	afters := r.afters
	r.afters = nil
	for _, a := range afters {
		a.i = -1 // run, no longer stoppable
	}
	return afters, r.unwatch
}

// parentEnded ends r's Done when the client's context ends first.
func (r *watched) parentEnded() {
	r.mu.Lock()
	afters, _ := r.finish()
	r.mu.Unlock()
	for _, a := range afters {
		a.f()
	}
}

// Done is made on first use: closed already when r has ended, else closed
// by end or, through context.AfterFunc, by the parent's end.
func (r *watched) Done() <-chan struct{} {
	if d, ok := r.done.Load().(chan struct{}); ok {
		return d // a handler may poll Done: no lock once made
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.makeDone()
}

// makeDone makes Done's channel on first use. Under mu.
func (r *watched) makeDone() chan struct{} {
	if d, ok := r.done.Load().(chan struct{}); ok {
		return d
	}
	d := make(chan struct{})
	switch {
	case r.closed.Load() || r.overdue.Load() || r.stopped.Load() || r.parent.Err() != nil:
		close(d)
		r.closed.Store(true)
	case r.parent.Done() != nil:
		r.unwatch = context.AfterFunc(r.parent, r.parentEnded)
	}
	r.done.Store(d)
	return d
}

// AfterFunc runs f once r has ended, unless stop is called first. The
// context package uses it to cancel contexts derived from r, with r's Err
// and Cause; without it each derived context would take a goroutine.
func (r *watched) AfterFunc(f func()) (stop func() bool) {
	r.mu.Lock()
	r.makeDone() // so that the parent's end is watched
	if r.closed.Load() {
		r.mu.Unlock()
		go f() // its caller may hold a lock f takes
		return func() bool { return false }
	}
	a := &afterFunc{f: f, i: len(r.afters)}
	r.afters = append(r.afters, a)
	r.mu.Unlock()
	return func() bool {
		r.mu.Lock()
		defer r.mu.Unlock()
		if a.i < 0 {
			return false
		}
		last := r.afters[len(r.afters)-1]
		r.afters[a.i], last.i = last, a.i
		r.afters[len(r.afters)-1] = nil
		r.afters = r.afters[:len(r.afters)-1]
		a.i = -1
		return true
	}
}

func (r *watched) Deadline() (time.Time, bool) {
	if d, ok := r.parent.Deadline(); ok && d.Before(r.deadline) {
		return d, true
	}
	return r.deadline, true
}

// Value answers callKey with the call; other keys go to the parent while
// the handler runs and, once it has ended, to a context ended with r's
// cause (which context.Cause finds), so the parent's later end does not
// show through.
func (r *watched) Value(key any) any {
	if _, ok := key.(callKey); ok {
		return r.call
	}
	if !r.overdue.Load() && !r.stopped.Load() {
		return r.parent.Value(key)
	}
	return r.ended().Value(key)
}

func (r *watched) ended() context.Context {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.endCtx == nil {
		cause := r.endCause
		if r.overdue.Load() {
			cause = errHandlerTimeout
		}
		ctx, cancel := context.WithCancelCause(context.WithoutCancel(r.parent))
		cancel(cause)
		r.endCtx = ctx
	}
	return r.endCtx
}

// Err reads a running handler's state under mu, as end changes it: the
// client's cancellation read just before the timeout is not followed by
// DeadlineExceeded (once Err is non-nil it does not change). As for the
// context package's contexts, Err is non-nil only once Done is closed:
// the flags are read without mu only then, and the client's end seen here
// closes Done at once (as parentEnded would, a goroutine later).
func (r *watched) Err() error {
	if r.closed.Load() {
		if r.overdue.Load() {
			return context.DeadlineExceeded
		}
		if r.stopped.Load() {
			return r.endErr // the parent's later end must not show through
		}
	}
	r.mu.Lock()
	switch {
	case r.overdue.Load():
		r.mu.Unlock()
		return context.DeadlineExceeded
	case r.stopped.Load():
		r.mu.Unlock()
		return r.endErr
	}
	err := r.parent.Err()
	if err == nil {
		r.mu.Unlock()
		return nil
	}
	afters, _ := r.finish()
	r.mu.Unlock()
	for _, a := range afters {
		a.f()
	}
	return err
}

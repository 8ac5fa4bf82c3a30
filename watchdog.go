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

// A watchdog cancels the contexts of tool handlers that outlive their
// timeout. One goroutine per Guard ticks while handlers run and stops when
// none does; a runtime timer per call cost more than everything else the
// handler's goroutine hop costs. A handler is abandoned at least timeout
// and at most timeout plus one tick (a thirty-second of the timeout, from
// 1 ms to 1 s) after it started. The set of watched handlers is bounded by
// the in-flight caps.
type watchdog struct {
	timeout, tick time.Duration

	mu      sync.Mutex
	runs    map[*watched]struct{}
	ticking bool
}

// watched is one handler under the watchdog, and the context it runs
// with: past its deadline, Err is context.DeadlineExceeded (as under
// context.WithTimeout) and context.Cause is errHandlerTimeout.
type watched struct {
	context.Context
	call     *call     // the value of callKey, for DecisionFrom and AddTool
	start    time.Time // with its monotonic reading
	deadline time.Time
	cancel   context.CancelCauseFunc
	overdue  atomic.Bool
}

func (r *watched) Deadline() (time.Time, bool) {
	if d, ok := r.Context.Deadline(); ok && d.Before(r.deadline) {
		return d, true
	}
	return r.deadline, true
}

func (r *watched) Value(key any) any {
	if _, ok := key.(callKey); ok {
		return r.call
	}
	return r.Context.Value(key)
}

func (r *watched) Err() error {
	if r.overdue.Load() {
		return context.DeadlineExceeded
	}
	return r.Context.Err()
}

func newWatchdog(timeout time.Duration) *watchdog {
	return &watchdog{timeout: timeout, tick: min(max(timeout/32, time.Millisecond), time.Second), runs: map[*watched]struct{}{}}
}

// watch returns a context for the handler of c, cancelled with
// errHandlerTimeout once the handler has run for the timeout, and the
// function to call when it returns. The context carries c (callFrom).
func (w *watchdog) watch(ctx context.Context, c *call) (context.Context, func()) {
	hctx, cancel := context.WithCancelCause(ctx)
	now := time.Now()
	r := &watched{Context: hctx, call: c, start: now, deadline: now.Add(w.timeout), cancel: cancel}
	w.mu.Lock()
	w.runs[r] = struct{}{}
	if !w.ticking {
		w.ticking = true
		go w.loop()
	}
	w.mu.Unlock()
	return r, func() {
		w.mu.Lock()
		delete(w.runs, r)
		w.mu.Unlock()
		cancel(context.Canceled)
	}
}

// loop cancels overdue handlers every tick until none is watched.
func (w *watchdog) loop() {
	t := time.NewTicker(w.tick)
	defer t.Stop()
	for now := range t.C {
		if !w.expire(now) {
			return
		}
	}
}

// expire cancels the handlers overdue at now and reports whether any
// handler is still watched; when none is, the loop ends.
func (w *watchdog) expire(now time.Time) bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	for r := range w.runs {
		if now.Sub(r.start) >= w.timeout {
			delete(w.runs, r)
			if r.Context.Err() == nil {
				r.overdue.Store(true)
			}
			r.cancel(errHandlerTimeout)
		}
	}
	if len(w.runs) == 0 {
		w.ticking = false
		return false
	}
	return true
}

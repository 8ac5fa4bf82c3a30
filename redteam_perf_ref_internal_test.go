package gatehouse

import (
	"context"
	"errors"
	"math/rand/v2"
	"testing"
	"time"
)

// refWatched is the handler context before it was made lazily (commit
// 386b302's watched, cut to what a handler sees): a context.WithCancelCause
// of the client's, cancelled with errHandlerTimeout at the timeout (Err
// then DeadlineExceeded when the client had not ended first) and with
// Canceled when the handler returns.
type refWatched struct {
	context.Context
	cancel  context.CancelCauseFunc
	overdue bool
}

func (r *refWatched) Err() error {
	if r.overdue {
		return context.DeadlineExceeded
	}
	return r.Context.Err()
}

func (r *refWatched) expire() {
	if r.Context.Err() == nil {
		r.overdue = true
	}
	r.cancel(errHandlerTimeout)
}

// The lazy handler context against the reference, over random scripts of
// what can happen to a call (asking for Done, deriving a child, the
// client cancelling with or without a cause, the timeout, the handler
// returning) in every order: after each step Err, Cause and whether Done
// is closed are the reference's, for the context and for its children.
func TestRedTeamPerf_WatchedMatchesReference(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 19))
	why := errors.New("the client's cause")
	for run := range 20000 {
		w := newWatchdog(time.Hour)
		base, cancelBase := context.WithCancelCause(context.Background())
		parent, cancelDeadline := context.Context(base), context.CancelFunc(func() {})
		timed := run%250 == 0 // the client's own deadline ends it, long after the steps before
		if timed {
			parent, cancelDeadline = context.WithTimeout(base, 50*time.Millisecond)
		}
		h := w.watch(parent, nil)
		rctx, rcancel := context.WithCancelCause(parent)
		ref := &refWatched{Context: rctx, cancel: rcancel}
		var kids, refKids []context.Context
		cancelParent := func(cause error) {
			if !timed {
				cancelBase(cause)
				return
			}
			// The deadline's timer cancels the descendants after it
			// closes the parent's Done: wait for all of them.
			for _, c := range append(append([]context.Context{parent, rctx}, kids...), refKids...) {
				<-c.Done()
			}
			if in := h.inner.Load(); in != nil {
				<-in.ctx.Done()
			}
		}
		var script []string
		stopped, expired := false, false
		for range 2 + rng.IntN(7) {
			var op string
			switch rng.IntN(6) {
			case 0:
				op = "done"
				h.Done()
			case 1:
				op = "child"
				k, cancel := context.WithCancel(h)
				defer cancel()
				rk, rcancel := context.WithCancel(ref)
				defer rcancel()
				kids, refKids = append(kids, k), append(refKids, rk)
			case 2:
				op = "client ends"
				if rng.IntN(2) == 0 {
					op += " with a cause"
					cancelParent(why)
				} else {
					cancelParent(nil)
				}
			case 3:
				if expired || stopped {
					continue
				}
				op, expired = "timeout", true
				w.mu.Lock()
				w.unlink(h)
				h.end(true)
				w.mu.Unlock()
				ref.expire()
			case 4:
				if stopped {
					continue
				}
				op, stopped = "return", true
				w.stop(h)
				ref.cancel(context.Canceled)
			case 5:
				op = "read"
				_ = h.Err()
				_ = context.Cause(h)
			}
			script = append(script, op)
			if rng.IntN(3) == 0 { // looking makes the lazy context: not after every step
				script = append(script, "compare")
				compare(t, run, script, h, ref, kids, refKids)
			}
		}
		compare(t, run, script, h, ref, kids, refKids)
		if !stopped {
			w.stop(h)
		}
		cancelDeadline()
		cancelBase(nil)
	}
}

func compare(t *testing.T, run int, script []string, h, ref context.Context, kids, refKids []context.Context) {
	t.Helper()
	if err := sameContext(h, ref); err != nil {
		t.Fatalf("run %d, after %v: %v", run, script, err)
	}
	for i := range kids {
		if err := sameContext(kids[i], refKids[i]); err != nil {
			t.Fatalf("run %d, after %v: child %d: %v", run, script, i, err)
		}
	}
}

func sameContext(got, want context.Context) error {
	if g, w := got.Err(), want.Err(); g != w {
		return errors.New("Err " + errString(g) + ", want " + errString(w))
	}
	if g, w := context.Cause(got), context.Cause(want); g != w {
		return errors.New("Cause " + errString(g) + ", want " + errString(w))
	}
	if want.Err() != nil { // Done of a running context is not compared: asking makes it
		select {
		case <-got.Done():
		default:
			return errors.New("Done open after the end")
		}
	}
	return nil
}

func errString(err error) string {
	if err == nil {
		return "nil"
	}
	return err.Error()
}

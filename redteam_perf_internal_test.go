package gatehouse

import (
	"context"
	"errors"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// Once a handler returned, its context's Err is Canceled and stays so
// (context.Context: once Err is non-nil, later calls return the same
// error), even when the client's context reaches its own deadline later
// and nobody had asked the handler's context for Done before.
func TestRedTeamPerf_ErrStableAfterReturn(t *testing.T) {
	w := newWatchdog(time.Hour)
	parent, cancel := context.WithTimeout(context.Background(), 30*time.Millisecond)
	defer cancel()
	h := w.watch(parent, nil)
	w.stop(h)
	if err := h.Err(); !errors.Is(err, context.Canceled) {
		t.Fatalf("after return: %v, want Canceled", err)
	}
	<-parent.Done()
	if err := h.Err(); !errors.Is(err, context.Canceled) {
		t.Fatalf("after return, then the parent's deadline: Err %v, want it to stay Canceled", err)
	}
	if cause := context.Cause(h); !errors.Is(cause, context.Canceled) {
		t.Fatalf("after return, then the parent's deadline: Cause %v, want Canceled", cause)
	}
	waitIdle(t, w)
}

// Past the timeout the cause is errHandlerTimeout, even when the client
// cancels afterwards with a cause of its own and the handler's context
// was never asked for Done before.
func TestRedTeamPerf_CauseStaysTimeout(t *testing.T) {
	w := newWatchdog(5 * time.Millisecond)
	parent, cancel := context.WithCancelCause(context.Background())
	h := w.watch(parent, nil)
	for deadline := time.Now().Add(5 * time.Second); !h.overdue.Load(); time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("not abandoned")
		}
	}
	cancel(errors.New("the client went away later"))
	if !errors.Is(h.Err(), context.DeadlineExceeded) || !errors.Is(context.Cause(h), errHandlerTimeout) {
		t.Fatalf("err %v cause %v, want DeadlineExceeded and errHandlerTimeout", h.Err(), context.Cause(h))
	}
	select {
	case <-h.Done():
	default:
		t.Fatal("Done is open past the timeout")
	}
	w.stop(h)
	if !errors.Is(h.Err(), context.DeadlineExceeded) {
		t.Fatalf("after return: %v", h.Err())
	}
	waitIdle(t, w)
}

// plainCtx is a parent that is not one of the standard library's: a
// context derived from it is watched by a goroutine of the runtime's
// until either ends, so a registration that is never undone shows as a
// goroutine that stays.
type plainCtx struct{ done chan struct{} }

func (plainCtx) Deadline() (time.Time, bool) { return time.Time{}, false }
func (p plainCtx) Done() <-chan struct{}     { return p.done }
func (p plainCtx) Err() error {
	select {
	case <-p.done:
		return context.Canceled
	default:
		return nil
	}
}
func (plainCtx) Value(any) any { return nil }

// Thousands of handlers at once, some returning at once, some past the
// timeout, asking for Done, deriving children and AfterFuncs before and
// after their end, concurrently with the watchdog: no race (go test
// -race), every AfterFunc runs, every child ends, the watchdog stops and
// no goroutine stays behind (no registration left on the parent). Passes
// on the current code; pins the contract.
func TestRedTeamPerf_WatchdogThousands(t *testing.T) {
	before := runtime.NumGoroutine()
	w := newWatchdog(2 * time.Millisecond)
	parent := plainCtx{done: make(chan struct{})}
	defer close(parent.done)
	const n = 2000
	var wg sync.WaitGroup
	var fired atomic.Int64
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			h := w.watch(parent, nil)
			var child context.Context
			if i%3 == 0 {
				context.AfterFunc(h, func() { fired.Add(1) })
				c, cancel := context.WithCancel(h)
				defer cancel()
				child = c
			}
			if i%2 == 0 {
				time.Sleep(5 * time.Millisecond) // past the timeout
			}
			_ = h.Err()
			_ = context.Cause(h)
			w.stop(h)
			if i%3 == 1 {
				context.AfterFunc(h, func() { fired.Add(1) })
			}
			<-h.Done()
			if child != nil {
				<-child.Done()
			}
			if h.Err() == nil {
				t.Error("Err nil after the handler returned")
			}
		}()
	}
	wg.Wait()
	waitIdle(t, w)
	want := int64(0)
	for i := range n {
		if i%3 != 2 {
			want++
		}
	}
	for deadline := time.Now().Add(5 * time.Second); fired.Load() != want || runtime.NumGoroutine() > before+2; time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("AfterFuncs fired %d of %d; goroutines %d, %d before", fired.Load(), want, runtime.NumGoroutine(), before)
		}
	}
}

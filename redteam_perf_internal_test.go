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

// A parent cancelled before the handler starts, or with an earlier
// deadline that passes, is what the handler's context shows (not a
// timeout), before and after the handler returns, whether or not Done was
// asked for first. Passes on the current code.
func TestRedTeamPerf_ParentEndsFirst(t *testing.T) {
	why := errors.New("the client went away")
	for _, askDone := range []bool{false, true} {
		w := newWatchdog(time.Hour)
		p1, cancel := context.WithCancelCause(context.Background())
		cancel(why)
		h := w.watch(p1, nil)
		if askDone {
			<-h.Done()
		}
		for _, when := range []string{"running", "returned"} {
			if !errors.Is(h.Err(), context.Canceled) || !errors.Is(context.Cause(h), why) {
				t.Fatalf("cancelled before start, %s (Done first %v): err %v cause %v", when, askDone, h.Err(), context.Cause(h))
			}
			w.stop(h)
		}
		p2, cancel2 := context.WithTimeout(context.Background(), 5*time.Millisecond)
		defer cancel2()
		h2 := w.watch(p2, nil)
		if d, _ := h2.Deadline(); d.After(time.Now().Add(time.Second)) {
			t.Fatalf("deadline %v is not the parent's", d)
		}
		if askDone {
			<-h2.Done()
		} else {
			<-p2.Done()
		}
		for _, when := range []string{"running", "returned"} {
			if !errors.Is(h2.Err(), context.DeadlineExceeded) || !errors.Is(context.Cause(h2), context.DeadlineExceeded) {
				t.Fatalf("the parent's deadline, %s (Done first %v): err %v cause %v", when, askDone, h2.Err(), context.Cause(h2))
			}
			w.stop(h2)
		}
		waitIdle(t, w)
	}
}

// Err never changes once it is non-nil, while the timeout, the client's
// cancellation and the handler's return race each other and readers ask
// for Err, Done and Cause concurrently (context.Context's contract).
func TestRedTeamPerf_ErrNeverChanges(t *testing.T) {
	w := newWatchdog(time.Millisecond)
	for i := range 300 {
		parent, cancel := context.WithCancel(context.Background())
		h := w.watch(parent, nil)
		var wg sync.WaitGroup
		for r := range 3 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				var first error
				for deadline := time.Now().Add(4 * time.Millisecond); time.Now().Before(deadline); {
					if r == 0 && i%2 == 0 {
						h.Done()
					}
					err := h.Err()
					_ = context.Cause(h)
					if first == nil {
						first = err
					} else if err != first {
						t.Errorf("Err was %v, then %v", first, err)
						return
					}
				}
			}()
		}
		time.Sleep(time.Duration(i%3) * time.Millisecond)
		cancel()
		if i%2 == 1 {
			w.stop(h)
		}
		wg.Wait()
		w.stop(h)
	}
	waitIdle(t, w)
}

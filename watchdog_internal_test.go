package gatehouse

import (
	"context"
	"errors"
	"testing"
	"time"
)

// A handler past its timeout sees what context.WithTimeout would show it
// (DeadlineExceeded, a deadline), with errHandlerTimeout as the cause; one
// that returns in time sees Canceled once it returned; and the watchdog's
// goroutine stops when nothing is watched.
func TestWatchdog(t *testing.T) {
	w := newWatchdog(20 * time.Millisecond)
	parent, cancelParent := context.WithCancel(context.Background())
	defer cancelParent()

	slow := w.watch(parent, nil)
	stopSlow := func() { w.stop(slow) }
	if d, ok := slow.Deadline(); !ok || time.Until(d) > 20*time.Millisecond {
		t.Fatalf("deadline %v %v", d, ok)
	}
	fast := w.watch(parent, nil)
	stopFast := func() { w.stop(fast) }
	stopFast()
	if !errors.Is(fast.Err(), context.Canceled) {
		t.Fatalf("a handler that returned: %v", fast.Err())
	}
	select {
	case <-slow.Done():
	case <-time.After(5 * time.Second):
		t.Fatal("the slow handler was not cancelled")
	}
	if !errors.Is(slow.Err(), context.DeadlineExceeded) || !errors.Is(context.Cause(slow), errHandlerTimeout) {
		t.Fatalf("err %v cause %v", slow.Err(), context.Cause(slow))
	}
	stopSlow()
	waitIdle(t, w)

	// The client's cancellation is not a timeout.
	c2, cancel2 := context.WithCancel(context.Background())
	h := w.watch(c2, nil)
	stop := func() { w.stop(h) }
	cancel2()
	<-h.Done()
	if !errors.Is(h.Err(), context.Canceled) {
		t.Fatalf("cancelled by the client: %v", h.Err())
	}
	stop()
	waitIdle(t, w)
}

// A parent's earlier deadline is the handler's deadline.
func TestWatchdogKeepsEarlierDeadline(t *testing.T) {
	w := newWatchdog(time.Hour)
	want := time.Now().Add(time.Minute)
	parent, cancel := context.WithDeadline(context.Background(), want)
	defer cancel()
	h := w.watch(parent, nil)
	stop := func() { w.stop(h) }
	defer stop()
	if d, _ := h.Deadline(); !d.Equal(want) {
		t.Fatalf("deadline %v, want %v", d, want)
	}
}

func waitIdle(t *testing.T, w *watchdog) {
	t.Helper()
	for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(time.Millisecond) {
		w.mu.Lock()
		idle := !w.ticking && w.n == 0 && w.head == nil
		w.mu.Unlock()
		if idle {
			return
		}
		if time.Now().After(deadline) {
			t.Fatal("the watchdog kept ticking with nothing to watch")
		}
	}
}

// The cancellable context under a handler's context is made on first use:
// whenever that is (before or after the handler returned, before or after
// it was abandoned), Done, Err and context.Cause agree with what an eager
// context would show, and every caller gets the same Done channel.
func TestWatchedContextMadeLate(t *testing.T) {
	w := newWatchdog(time.Hour)

	returned := w.watch(context.Background(), nil)
	w.stop(returned)
	if !errors.Is(returned.Err(), context.Canceled) || !errors.Is(context.Cause(returned), context.Canceled) {
		t.Fatalf("returned, never asked for Done: err %v cause %v", returned.Err(), context.Cause(returned))
	}
	select {
	case <-returned.Done():
	default:
		t.Fatal("Done of a returned handler is not closed")
	}

	overdue := w.watch(context.Background(), nil)
	w.mu.Lock()
	w.unlink(overdue)
	w.mu.Unlock()
	overdue.end(true)
	if !errors.Is(overdue.Err(), context.DeadlineExceeded) || !errors.Is(context.Cause(overdue), errHandlerTimeout) {
		t.Fatalf("abandoned, never asked for Done: err %v cause %v", overdue.Err(), context.Cause(overdue))
	}
	select {
	case <-overdue.Done():
	default:
		t.Fatal("Done of an abandoned handler is not closed")
	}

	parent, cancel := context.WithCancelCause(context.Background())
	running := w.watch(parent, nil)
	if running.Err() != nil || context.Cause(running) != nil {
		t.Fatalf("running: err %v cause %v", running.Err(), context.Cause(running))
	}
	why := errors.New("client went away")
	cancel(why)
	if !errors.Is(running.Err(), context.Canceled) || !errors.Is(context.Cause(running), why) {
		t.Fatalf("parent cancelled: err %v cause %v", running.Err(), context.Cause(running))
	}
	chans := make(chan (<-chan struct{}), 8)
	for range 8 {
		go func() { chans <- running.Done() }()
	}
	first := <-chans
	for range 7 {
		if ch := <-chans; ch != first {
			t.Fatal("two callers got different Done channels")
		}
	}
	<-first
	w.stop(running)
	waitIdle(t, w)
}

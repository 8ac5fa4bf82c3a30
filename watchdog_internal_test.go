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

	slow, stopSlow := w.watch(parent, nil)
	if d, ok := slow.Deadline(); !ok || time.Until(d) > 20*time.Millisecond {
		t.Fatalf("deadline %v %v", d, ok)
	}
	fast, stopFast := w.watch(parent, nil)
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
	h, stop := w.watch(c2, nil)
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
	h, stop := w.watch(parent, nil)
	defer stop()
	if d, _ := h.Deadline(); !d.Equal(want) {
		t.Fatalf("deadline %v, want %v", d, want)
	}
}

func waitIdle(t *testing.T, w *watchdog) {
	t.Helper()
	for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(time.Millisecond) {
		w.mu.Lock()
		idle := !w.ticking && len(w.runs) == 0
		w.mu.Unlock()
		if idle {
			return
		}
		if time.Now().After(deadline) {
			t.Fatal("the watchdog kept ticking with nothing to watch")
		}
	}
}

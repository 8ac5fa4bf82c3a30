package gatehouse

import (
	"context"
	"errors"
	"testing"
	"time"
)

// A handler's child contexts past the timeout: ended with
// DeadlineExceeded, as under context.WithTimeout, and errHandlerTimeout as
// the cause, the call still found (DecisionFrom). They used to report
// Canceled: the watchdog cancelled the context under the handler's, and a
// child copies its parent's error.
func TestRedTeam13_WatchdogChildContexts(t *testing.T) {
	w := newWatchdog(10 * time.Millisecond)
	c := &call{}
	h := w.watch(context.Background(), c)
	stop := func() { w.stop(h) }
	defer stop()
	type k struct{}
	child, cancel := context.WithCancel(context.WithValue(h, k{}, 1))
	defer cancel()
	select {
	case <-child.Done():
	case <-time.After(5 * time.Second):
		t.Fatal("the child was not cancelled past the timeout")
	}
	if got, ok := callFrom(child); !ok || got != c {
		t.Fatal("the call is not found from a child context")
	}
	if !errors.Is(context.Cause(child), errHandlerTimeout) {
		t.Fatalf("child cause %v", context.Cause(child))
	}
	if !errors.Is(h.Err(), context.DeadlineExceeded) || !errors.Is(child.Err(), context.DeadlineExceeded) {
		t.Fatalf("handler err %v, child err %v", h.Err(), child.Err())
	}
	stop()
	waitIdle(t, w)
}

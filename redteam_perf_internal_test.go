package gatehouse

import (
	"context"
	"errors"
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

package gatehouse

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"
)

// Contexts derived from a handler's context while it ends (the watchdog's
// timeout, the handler returning, the client cancelling, all racing):
// every one ends, with its parent's Err and Cause as they are once the
// handler's context has ended, and each AfterFunc runs exactly once or is
// stopped. Run with -race.
func TestWatchedChildrenWhileEnding(t *testing.T) {
	for i := range 200 {
		w := newWatchdog(time.Millisecond)
		parent, cancel := context.WithCancelCause(context.Background())
		h := w.watch(parent, nil)
		var wg sync.WaitGroup
		errs := make(chan error, 64)
		for g := range 8 {
			wg.Go(func() { errs <- childEnds(h, g) })
		}
		endHandler(i, w, h, cancel)
		wg.Wait()
		close(errs)
		for err := range errs {
			if err != nil {
				t.Fatalf("round %d: %v", i, err)
			}
		}
		w.stop(h)
		cancel(nil)
		waitIdle(t, w)
	}
}

// childEnds derives a context from h (directly, or under a value) and an
// AfterFunc, and checks both once h has ended.
func childEnds(h *watched, g int) error {
	var parent context.Context = h
	if g%2 == 1 {
		type k struct{}
		parent = context.WithValue(h, k{}, g)
	}
	child, cancel := context.WithCancel(parent)
	defer cancel()
	ran := make(chan struct{}, 2)
	stop := context.AfterFunc(h, func() { ran <- struct{}{} })
	stopped := g%4 == 3 && stop()
	select {
	case <-child.Done():
	case <-time.After(10 * time.Second):
		return errors.New("a derived context did not end")
	}
	<-h.Done()
	if child.Err() != h.Err() || context.Cause(child) != context.Cause(h) {
		return fmt.Errorf("derived context: %v (%v), handler's: %v (%v)", child.Err(), context.Cause(child), h.Err(), context.Cause(h))
	}
	if !stopped {
		select {
		case <-ran:
		case <-time.After(10 * time.Second):
			return errors.New("an AfterFunc did not run")
		}
	}
	time.Sleep(time.Millisecond)
	if len(ran) != 0 {
		return errors.New("an AfterFunc ran twice, or after it was stopped")
	}
	return nil
}

// The watchdog ends an overdue handler's context, and runs what its
// derived contexts registered, without holding the Guard-wide lock: a
// slow registration (a large tree of derived contexts) must not hold up
// other calls' watch and stop.
func TestWatchdogEndsOutsideItsLock(t *testing.T) {
	w := newWatchdog(time.Millisecond)
	h := w.watch(context.Background(), nil)
	inside, release := make(chan struct{}), make(chan struct{})
	h.AfterFunc(func() { close(inside); <-release })
	select {
	case <-inside:
	case <-time.After(10 * time.Second):
		t.Fatal("the overdue handler's context was not ended")
	}
	started := make(chan struct{})
	go func() {
		other := w.watch(context.Background(), nil)
		w.stop(other)
		close(started)
	}()
	select {
	case <-started:
	case <-time.After(10 * time.Second):
		t.Fatal("another call could not start while an overdue handler's context was ending")
	}
	close(release)
	w.stop(h)
	waitIdle(t, w)
}

// A handler that returned just as the watchdog took it off its list keeps
// its answer: end(true) after stop changes nothing (Err stays Canceled).
func TestWatchedTimeoutAfterReturn(t *testing.T) {
	w := newWatchdog(time.Hour)
	h := w.watch(context.Background(), nil)
	h.Done()
	w.stop(h)
	h.end(true)
	if !errors.Is(h.Err(), context.Canceled) || !errors.Is(context.Cause(h), context.Canceled) {
		t.Fatalf("returned, then timed out: err %v cause %v, want Canceled", h.Err(), context.Cause(h))
	}
	waitIdle(t, w)
}

// endHandler ends h in the way i picks, round robin: left to the
// watchdog's timeout, returned (stop), or its client gone.
func endHandler(i int, w *watchdog, h *watched, cancel context.CancelCauseFunc) {
	switch i % 3 {
	case 0: // the watchdog's timeout
	case 1:
		w.stop(h)
	case 2:
		cancel(errors.New("client gone"))
	}
}

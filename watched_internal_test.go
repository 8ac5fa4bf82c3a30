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
		switch i % 3 {
		case 0: // the watchdog's timeout
		case 1:
			w.stop(h)
		case 2:
			cancel(errors.New("client gone"))
		}
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

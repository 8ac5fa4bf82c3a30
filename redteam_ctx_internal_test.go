package gatehouse

import (
	"context"
	"sync"
	"testing"
	"time"
)

// Once the client's context has ended, Err of the handler's context is
// non-nil only when its Done is closed, as for a context.WithCancel child
// (whose Err waits for Done since Go 1.23): a handler that saw Err
// non-nil and then selects on a Done it took earlier must not block.
func TestRedTeamCtx_ErrOnlyOnceDoneClosedOnClientCancel(t *testing.T) {
	for i := range 200 {
		parent, cancel := context.WithCancel(context.Background())
		w := newWatchdog(time.Hour)
		h := w.watch(parent, nil)
		d := h.Done()
		cancel()
		if err := h.Err(); err != nil {
			select {
			case <-d:
			default:
				t.Fatalf("round %d: Err %v while Done is open", i, err)
			}
		}
		w.stop(h)
	}
}

// While the watchdog or the handler's return ends the context, a reader
// that sees Err non-nil finds Done (taken before) closed. Run with -race.
func TestRedTeamCtx_ErrOnlyOnceDoneClosedWhileEnding(t *testing.T) {
	for i := range 3000 {
		h := &watched{parent: context.Background(), deadline: time.Now().Add(time.Hour), result: make(chan handled, 2)}
		d := h.Done()
		bad := make(chan error, 1)
		start := make(chan struct{})
		var wg sync.WaitGroup
		wg.Go(func() {
			close(start)
			for {
				if err := h.Err(); err != nil {
					select {
					case <-d:
					default:
						bad <- err
					}
					return
				}
			}
		})
		<-start
		h.end(i%2 == 0)
		wg.Wait()
		select {
		case err := <-bad:
			t.Fatalf("round %d: Err %v while Done is open", i, err)
		default:
		}
	}
}
